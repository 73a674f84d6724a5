package ants

import (
	"context"
	"time"
)

// The sub-pool's state as its users see it, and the calls that change it:
// Tune, Release and Reboot.

// Running returns the number of the sub-pool's tasks that have started and
// not finished. It is at most Cap(), except for a while after a shrinking
// Tune.
func (s *Subpool) Running() int {
	return int(s.running.Load())
}

// Free returns how many more tasks the sub-pool would admit without
// waiting: Cap() less the slots taken, which include tasks accepted by the
// parent that have not started yet. It returns -1 for a sub-pool without a
// limit of its own, and is negative for a while after a shrinking Tune.
func (s *Subpool) Free() int {
	c := s.capacity.Load()
	if c < 0 {
		return -1
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return int(c) - s.held
}

// Waiting returns the number of callers waiting for a slot of the
// sub-pool. A caller that has its slot and waits for the parent is counted
// by the parent's Waiting instead.
func (s *Subpool) Waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waitq.blocked
}

// Cap returns the most tasks the sub-pool runs at once, or -1 if it has no
// limit of its own.
func (s *Subpool) Cap() int {
	return int(s.capacity.Load())
}

// IsClosed reports whether the sub-pool has been released and not
// rebooted. It says nothing of the parent.
func (s *Subpool) IsClosed() bool {
	return s.closed.Load()
}

// Tune changes the sub-pool's limit. As for a Pool, it does nothing for
// size <= 0 or a sub-pool without a limit. Growing hands the new slots to
// waiting callers at once; shrinking lets running tasks finish, and admits
// new ones only once fewer than size hold a slot.
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

// Release closes the sub-pool: later submits fail with ErrPoolClosed, and
// callers waiting for a slot return ErrPoolClosed. Tasks already accepted
// still run, and so does the task of a caller that had its slot before
// Release and is handing it to the parent. It never releases the parent.
// Releasing a closed sub-pool does nothing.
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

// ReleaseTimeout is Release followed by a wait, at most timeout, until
// every task that holds a slot has finished (or been refused by the
// parent), and the timer of the rate limit, if one was set, has been
// stopped or has finished firing: the sub-pool then holds nothing. It
// returns ErrTimeout if they did not finish in time and
// ErrPoolClosed if the sub-pool was already closed.
func (s *Subpool) ReleaseTimeout(timeout time.Duration) error {
	return releaseWithin(timeout, s.ReleaseContext)
}

// ReleaseContext is ReleaseTimeout with a wait until ctx is done, as for a
// Pool: it then returns ctx.Err(), and with a nil ctx it does not wait.
func (s *Subpool) ReleaseContext(ctx context.Context) error {
	return releaseAndWait(ctx, s.close, s.waitDrained)
}

// WaitReleased waits until the sub-pool has been released, by any call, and
// holds nothing (see ReleaseTimeout), as it does for a Pool.
func (s *Subpool) WaitReleased(ctx context.Context) error {
	return waitReleased(orBackground(ctx), &s.mu, s.closed.Load, &s.released, s.waitDrained)
}

// waitDrained waits until the sub-pool is drained (drainedLocked), or ctx
// is done; see waitZero.
func (s *Subpool) waitDrained(ctx context.Context) error {
	return waitZero(ctx, &s.mu, s.drainedLocked, &s.drained)
}

// Reboot reopens a released sub-pool; it does nothing to an open one, and
// nothing to the parent.
func (s *Subpool) Reboot() {
	s.mu.Lock()
	s.closed.Store(false)
	s.mu.Unlock()
}

// Stats returns a snapshot of the sub-pool's state and counters. For a
// sub-pool, Cap is its limit (-1 if none), Running its tasks started and not
// finished, and Waiting its callers waiting for a slot; Idle and Queued are
// always 0, since its tasks wait in the parent (see the parent's Stats). The
// counters are its own: Submitted its tasks the parent accepted, Completed
// and Panicked how they ended, Rejected its submit calls that returned an
// error, whoever refused them. A panic in a task of nested sub-pools counts
// in the Panicked of every level, and of the pool below them; so does one
// that a wrapper on the sub-pool (Go, a Group, a Stream, a Keyed) returned
// as a *PanicError, if the pool below is one of the package's.
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

// Pause stops the sub-pool from handing its tasks to its parent; the
// parent's other work goes on. Tasks already handed to the parent still
// start, and Pause waits for them: it returns nil once none of the
// sub-pool's tasks holds a slot, or ctx.Err() if ctx is done first. Callers
// wait for a slot as they do in a full sub-pool, and TrySubmit is refused.
// The rest is as for a Pool (see Pool methods in the package doc): a paused
// or released sub-pool, a nil ctx, and a Resume or Release meanwhile.
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

// Resume lets a paused sub-pool hand its tasks to its parent again, in the
// order they would have gone. Resuming a sub-pool that is not paused does
// nothing.
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

// SetRateLimit limits how fast the sub-pool hands its own tasks to its
// parent: a task takes a token as it takes a slot (see WithRateLimit, which
// a Subpool, taking no options, gets this way). It returns
// ErrInvalidRateLimit, and changes nothing, for invalid values.
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
