package ants

import (
	"context"
	"time"
)

// The sub-pool's state as its users see it, and the calls that change it:
// Tune, Release and Reboot.

// Running returns the number of the sub-pool's tasks started and not
// finished.
func (s *Subpool) Running() int {
	return int(s.running.Load())
}

// Free returns how many more tasks the sub-pool would admit without waiting
// (Cap() less the slots held, by tasks the parent has not started too), or
// -1 without a limit of its own.
func (s *Subpool) Free() int {
	c := s.capacity.Load()
	if c < 0 {
		return -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return int(c) - s.held
}

// Waiting returns the callers waiting for a slot, not for the parent.
func (s *Subpool) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waitq.blocked
}

// Cap returns the sub-pool's limit, or -1 if it has none of its own.
func (s *Subpool) Cap() int {
	return int(s.capacity.Load())
}

// IsClosed reports whether the sub-pool is released and not rebooted.
func (s *Subpool) IsClosed() bool {
	return s.closed.Load()
}

// Tune changes the sub-pool's limit, as Pool.Tune: growing hands new slots
// to waiting callers at once; shrinking admits new tasks only once fewer
// than size hold a slot.
func (s *Subpool) Tune(size int) {
	if size <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.capacity.Load()
	if old < 0 || int64(size) == old {
		return
	}
	s.capacity.Store(int64(size))
	s.admitLocked()
}

// Release closes the sub-pool, not the parent: submits and waiting callers
// get ErrPoolClosed; tasks holding a slot still run.
func (s *Subpool) Release() {
	s.close()
}

// close is Release, reporting whether this call closed the sub-pool.
func (s *Subpool) close() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return false
	}
	s.closed.Store(true)
	closeZero(&s.released)
	s.paused = false
	s.pausedFlag.Store(false)
	for w := s.waitq.popCallers(); w != nil; w = w.nextWake {
		w.state = waiterClosed
		close(w.ready)
	}
	s.disownPaceLocked() // no caller is left to wait for a token
	return true
}

// ReleaseTimeout is Release, then a wait of at most timeout until the
// sub-pool holds nothing (no slot, no rate-limit timer), else ErrTimeout.
func (s *Subpool) ReleaseTimeout(timeout time.Duration) error {
	return releaseWithin(timeout, s.ReleaseContext)
}

// ReleaseContext is ReleaseTimeout with the wait bounded by ctx instead.
func (s *Subpool) ReleaseContext(ctx context.Context) error {
	return releaseAndWait(ctx, s.close, s.waitDrained)
}

// WaitReleased waits until the sub-pool is released and holds nothing.
func (s *Subpool) WaitReleased(ctx context.Context) error {
	return waitReleased(orBackground(ctx), &s.mu, s.closed.Load, &s.released, s.waitDrained)
}

// waitDrained waits until the sub-pool is drained (drainedLocked), or ctx
// is done; see waitZero.
func (s *Subpool) waitDrained(ctx context.Context) error {
	return waitZero(ctx, &s.mu, s.drainedLocked, &s.drained)
}

// Reboot reopens a released sub-pool (never the parent).
func (s *Subpool) Reboot() {
	s.mu.Lock()
	s.closed.Store(false)
	s.mu.Unlock()
}

// Stats returns the sub-pool's own snapshot: Cap its limit, Running its
// started tasks, Waiting its callers waiting for a slot, Idle and Queued 0;
// the counters count its own tasks and calls, whoever refused them, and a
// panic counts at every level of nested sub-pools and in the pool below.
func (s *Subpool) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{
		Cap:       int(s.capacity.Load()),
		Running:   int(s.running.Load()),
		Waiting:   s.waitq.blocked,
		Paused:    s.paused,
		Submitted: s.submitted,
		Completed: s.completed,
		Panicked:  s.panicked,
		Rejected:  s.rejected.Load(),
		Dropped:   s.dropped,
	}
}

// Pause stops the sub-pool from handing tasks to its parent, whose other
// work goes on, and waits until none of its tasks holds a slot; callers wait
// as in a full sub-pool, and TrySubmit is refused. The rest is as
// Pool.Pause.
func (s *Subpool) Pause(ctx context.Context) error {
	ctx = orBackground(ctx)
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return nil
	}
	s.paused = true
	s.pausedFlag.Store(true)
	s.disownPaceLocked() // Resume sets one if callers still wait
	s.mu.Unlock()
	return s.waitDrained(ctx)
}

// Resume lets a paused sub-pool hand its tasks to its parent again, in
// order.
func (s *Subpool) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.paused {
		return
	}
	s.paused = false
	s.pausedFlag.Store(false)
	s.admitLocked()
}

// Paused reports whether the sub-pool is paused.
func (s *Subpool) Paused() bool { return s.pausedFlag.Load() }

// SetRateLimit limits how fast the sub-pool hands tasks to its parent (a
// task takes a token as it takes a slot); see Pool.SetRateLimit.
func (s *Subpool) SetRateLimit(perSecond float64, burst int) error {
	if err := checkRateLimit(perSecond, burst); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.bucket.set(perSecond, burst, nanotime())
	s.disownPaceLocked() // the old limit's; admitLocked sets one for the new
	s.admitLocked()
	return nil
}

// RateLimit returns the sub-pool's rate limit as last set.
func (s *Subpool) RateLimit() (perSecond float64, burst int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bucket.perSecond, s.bucket.burstSet
}

// gateOpenLocked reports whether a task may take a free slot now, and takes
// its token if the sub-pool has a rate limit. It requires s.mu held.
func (s *Subpool) gateOpenLocked() bool {
	return !s.paused && (!s.bucket.on() || s.bucket.take(nanotime()))
}

// admitLocked hands free slots to waiting callers while the gate lets it,
// and sets a timer if callers wait only for a token. It requires s.mu held.
func (s *Subpool) admitLocked() {
	for s.waitq.blocked > 0 && s.slotFreeLocked() && s.gateOpenLocked() {
		s.held++
		s.grantLocked()
	}
	s.paceWaitingLocked()
}

// paceWaitingLocked sets a timer, unless one is set, if callers wait only
// for a token: to hand them slots when the next token is there. It
// requires s.mu held.
func (s *Subpool) paceWaitingLocked() {
	if s.waitq.blocked > 0 && s.slotFreeLocked() && !s.paused && s.bucket.on() && !s.paceArmed {
		s.paceArmed = true
		s.timers++
		gen := s.paceGen
		s.paceStop = time.AfterFunc(s.bucket.wait(nanotime()), func() { s.paced(gen) }).Stop
	}
}

// disownPaceLocked drops the timer set by paceWaitingLocked, if any: for a
// new limit, a pause or Release. A timer it stops is forgotten at once; one
// too late to stop is firing, and stays counted in timers until it has
// found itself disowned (paceGen), so that a release never reports the
// sub-pool drained while its timer's goroutine runs. It requires s.mu held.
func (s *Subpool) disownPaceLocked() {
	if !s.paceArmed {
		return
	}
	s.paceArmed = false
	s.paceGen++
	if s.paceStop() {
		s.timers--
		s.noteDrainedLocked()
	}
	s.paceStop = nil
}

// paced is the timer of paceWaitingLocked, of generation gen: it hands out
// the slots the tokens now allow; a disowned timer does nothing. Either
// way it counts itself out of timers.
func (s *Subpool) paced(gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timers--
	if gen == s.paceGen {
		s.paceArmed = false
		s.paceStop = nil
		s.admitLocked()
	}
	s.noteDrainedLocked()
}

// slotFreeLocked reports whether a task may take a slot. It requires s.mu
// held.
func (s *Subpool) slotFreeLocked() bool {
	c := s.capacity.Load()
	return c < 0 || int64(s.held) < c
}
