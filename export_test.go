package ants

import (
	"sync"
	"time"
	"unsafe"
)

// FakeClock is a clock that tests advance by hand. Every ticker it creates
// shares one unbuffered channel, so Advance returns only once the pool's
// purge goroutine has taken the tick, which means the previous purge pass has
// finished; Sync sends a second, identical tick to wait for the pass of the
// first one.
type FakeClock struct {
	mu     sync.Mutex
	t      time.Time
	ch     chan time.Time
	max    time.Duration // how long Advance waits for a purge goroutine
	timers []fakeTimer   // set by afterFunc, not yet fired
	lastID uint64        // of the last timer set
}

// fakeTimer is a function the clock calls once it reaches at.
type fakeTimer struct {
	at time.Time
	f  func()
	id uint64
}

// afterFunc registers f, which Forward and Advance call, on the goroutine
// that moves the clock, once the clock reaches now+d (moveTo). Its stop
// function removes f if it is still set, reporting whether it did, as
// time.Timer.Stop does: a timer moveTo has taken is being called.
func (c *FakeClock) afterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	c.lastID++
	id := c.lastID
	c.timers = append(c.timers, fakeTimer{c.t.Add(d), f, id})
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, tm := range c.timers {
			if tm.id == id {
				c.timers = append(c.timers[:i], c.timers[i+1:]...)
				return true
			}
		}
		return false
	}
}

// moveTo moves the clock to target, calling on the way, in order of their
// times, the timers it reaches, each with the clock set to its own time (or
// left where it is, if that is later), as a real clock's timer would fire;
// a timer set by one of them for a time up to target fires in turn.
func (c *FakeClock) moveTo(target time.Time) {
	for {
		c.mu.Lock()
		next := -1
		for i, tm := range c.timers {
			if !tm.at.After(target) && (next < 0 || tm.at.Before(c.timers[next].at)) {
				next = i
			}
		}
		if next < 0 {
			if target.After(c.t) {
				c.t = target
			}
			c.mu.Unlock()
			return
		}
		if at := c.timers[next].at; at.After(c.t) {
			c.t = at
		}
		f := c.timers[next].f
		c.timers = append(c.timers[:next], c.timers[next+1:]...)
		c.mu.Unlock()
		f()
	}
}

// Timers returns how many timers are set and not yet fired.
func (c *FakeClock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// NewFakeClock returns a fake clock set to an arbitrary fixed instant.
func NewFakeClock() *FakeClock {
	return &FakeClock{
		t:   time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		ch:  make(chan time.Time),
		max: 5 * time.Second,
	}
}

// WithFakeClock makes a pool take its time from c.
func WithFakeClock(c *FakeClock) Option { return withClock(c) }

func (c *FakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *FakeClock) newTicker(time.Duration) ticker { return fakeTicker{c.ch} }

type fakeTicker struct{ ch chan time.Time }

func (t fakeTicker) C() <-chan time.Time { return t.ch }
func (t fakeTicker) Stop()               {}

// Advance moves the clock forward by d and delivers a tick to the purge
// goroutine. It reports false if no purge goroutine took the tick in time
// (none is running: the pool has no worker, purge is disabled, or it is
// released).
func (c *FakeClock) Advance(d time.Duration) bool {
	c.mu.Lock()
	t := c.t.Add(d)
	c.mu.Unlock()
	c.moveTo(t)
	return c.tick(t)
}

// AdvanceWithin moves the clock forward by d and delivers a tick if a
// purge goroutine takes it within wait, reporting whether one did.
func (c *FakeClock) AdvanceWithin(d, wait time.Duration) bool {
	c.mu.Lock()
	t := c.t.Add(d)
	c.mu.Unlock()
	c.moveTo(t)
	return c.TryTick(wait)
}

// Sync waits until the purge pass of the last tick has finished, by
// delivering another tick at the same instant (which expires nothing more).
// It reports false if no purge goroutine took it.
func (c *FakeClock) Sync() bool { return c.tick(c.now()) }

// TryTick delivers a tick only if a purge goroutine is ready to take it
// within d, reporting whether one did.
func (c *FakeClock) TryTick(d time.Duration) bool {
	select {
	case c.ch <- c.now():
		return true
	case <-time.After(d):
		return false
	}
}

func (c *FakeClock) tick(t time.Time) bool {
	select {
	case c.ch <- t:
		return true
	case <-time.After(c.max):
		return false
	}
}

// StreamWindow is the number of tasks of a Stream whose callbacks have not
// returned past which Go waits.
const StreamWindow = streamWindow

// KeyedQueueLimit is the number of tasks queued behind a key's running task
// past which Keyed.Submit waits.
const KeyedQueueLimit = keyedQueueLimit

// KeyedFootprint reports what an idle Keyed still holds: the most keys its
// map has held since it was last made, and the key states kept for reuse.
func KeyedFootprint[K comparable](k *Keyed[K]) (peak, free int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.peak, len(k.free)
}

// CheckInvariantsByIndex is CheckInvariants of a multi-pool's member pool.
func (m *multiCore[T]) CheckInvariantsByIndex(i int) error {
	return m.pools[i].CheckInvariants()
}

// CheckInvariants reports the first invariant on the pool's fields that
// does not hold (see checkInvariantsLocked), or nil.
func (p *poolCore[T]) CheckInvariants() error {
	p.lock.Lock()
	defer p.lock.Unlock()
	return p.checkInvariantsLocked()
}

// TaskQueue is the package's ring buffer (ring), for the external tests.
type TaskQueue[T any] struct{ q ring[T] }

// Push appends v.
func (q *TaskQueue[T]) Push(v T) { q.q.push(v) }

// Pop removes and returns the oldest value, if any.
func (q *TaskQueue[T]) Pop() (T, bool) { return q.q.pop() }

// Shrink drops the ring's storage if it is empty and large.
func (q *TaskQueue[T]) Shrink() { q.q.shrink() }

// Len returns the number of values queued.
func (q *TaskQueue[T]) Len() int { return q.q.size }

// Slots returns the ring's storage: its length is the ring's, and a slot
// not holding a queued value must hold T's zero value.
func (q *TaskQueue[T]) Slots() []T { return q.q.items }

// ShrinkLimit is the ring length above which Shrink drops an empty ring.
const ShrinkLimit = shrinkLimit

// SpinLock is the pool's lock (spinLock), for the external tests.
type SpinLock struct{ l spinLock }

// Lock acquires l.
func (l *SpinLock) Lock() { l.l.Lock() }

// Unlock releases l.
func (l *SpinLock) Unlock() { l.l.Unlock() }

// LockYielding acquires l as a submitter does.
func (l *SpinLock) LockYielding() { l.l.LockYielding() }

// LiveWorkers reports the worker goroutines of the pool that have not been
// counted out: busy, idle, or on their way out. A WorkerPool's worker frees
// its Worker's id before it is counted out.
func (p *poolCore[T]) LiveWorkers() int {
	p.lock.Lock()
	defer p.lock.Unlock()
	n := p.live - p.paceOrphans
	if p.purgeAlive {
		n--
	}
	if p.paceArmed {
		n--
	}
	return n
}

// LiveWorkers is the sum of the member pools' LiveWorkers.
func (m *multiCore[T]) LiveWorkers() (n int) {
	for _, p := range m.pools {
		n += p.LiveWorkers()
	}
	return n
}

// Forward moves the clock forward by d without a tick: for what reads the
// clock on its own (priority aging, the rate limit), with no purge pass.
// It calls the timers the clock reaches (the rate limit's), on the calling
// goroutine, before it returns, each at its own time (moveTo).
func (c *FakeClock) Forward(d time.Duration) {
	c.mu.Lock()
	t := c.t.Add(d)
	c.mu.Unlock()
	c.moveTo(t)
}

// ReleaseWaiting reports whether a release waits for the pool to drain.
func (p *poolCore[T]) ReleaseWaiting() bool {
	p.lock.Lock()
	defer p.lock.Unlock()
	return p.allExited != nil
}

// ReleaseWaiting reports whether a release waits for a member pool to
// drain.
func (m *multiCore[T]) ReleaseWaiting() bool {
	for _, p := range m.pools {
		if p.ReleaseWaiting() {
			return true
		}
	}
	return false
}

// ReleaseWaiting reports whether the sub-pool is released and a call
// waits for it to drain: the release, or a Pause made before it, which
// waits on the same channel.
func (s *Subpool) ReleaseWaiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed.Load() && s.drained != nil
}

// PaceTimers reports the sub-pool's rate-limit timers whose function will
// still run: set, or firing.
func (s *Subpool) PaceTimers() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timers
}

// WokenRun returns the pool's average time from a worker's wake-up to the
// end of its task (poolCore.wokenRun), and BlockingRun the average above
// which the wake rule takes tasks to block.
func (p *poolCore[T]) WokenRun() time.Duration {
	p.lock.Lock()
	defer p.lock.Unlock()
	return time.Duration(p.wokenRun)
}

// BlockingRun, HandBacklog and LongTaskRun are blockingRun, handBacklog
// and longTaskRun, for the tests of the wake rule.
const (
	BlockingRun = blockingRun
	HandBacklog = handBacklog
	LongTaskRun = longTaskRun
)

// WorkerSize is the size of the worker struct of a Pool and of a
// PoolWithFunc.
func WorkerSize() (pool, withFunc uintptr) {
	return unsafe.Sizeof(goWorker[func()]{}), unsafe.Sizeof(goWorker[any]{})
}

// FlowEntries returns how many flows other than "" the pool holds.
func (p *poolCore[T]) FlowEntries() int {
	p.lock.Lock()
	defer p.lock.Unlock()
	n := 0
	for _, l := range p.waitq.levels {
		n += len(l.flows)
	}
	return n
}

// FlowsKept returns how many emptied flows the pool keeps for reuse.
func (p *poolCore[T]) FlowsKept() int {
	p.lock.Lock()
	defer p.lock.Unlock()
	return len(p.waitq.flows)
}
