package ants

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// The pool's state as its users see it, and the calls that change it:
// Tune, Release and Reboot.

// Running returns the number of workers, busy or idle; see the package doc.
func (p *poolCore[T]) Running() int {
	return int(p.running.Load())
}

// Free returns Cap() - Running(), or -1 for an unlimited pool.
func (p *poolCore[T]) Free() int {
	c := p.capacity.Load()
	if c < 0 {
		return -1
	}
	return int(c - p.running.Load())
}

// Waiting returns how many callers wait for room (not buffered tasks).
func (p *poolCore[T]) Waiting() int {
	p.lock.Lock()
	n := p.waitq.blocked
	p.lock.Unlock()
	return n
}

// Cap returns the capacity of the pool, or -1 if it is unlimited.
func (p *poolCore[T]) Cap() int {
	return int(p.capacity.Load())
}

// IsClosed reports whether the pool has been released and not rebooted.
func (p *poolCore[T]) IsClosed() bool {
	return p.closed.Load()
}

// Tune changes the capacity of the pool; see the package doc.
func (p *poolCore[T]) Tune(size int) {
	if size <= 0 || p.opts.PreAlloc {
		return
	}
	size = min(size, math.MaxInt32)
	if a := p.opts.Adaptive; a != nil {
		size = min(max(size, a.Min), a.Max)
	}
	p.lock.Lock()
	old := int(p.capacity.Load())
	if old < 0 || size == old {
		p.lock.Unlock()
		return
	}
	stopped := p.resizeLocked(size)
	if p.adaptive != nil {
		p.adaptive.tuned(size, nanotime())
	}
	var taken *waiter[T]
	if size > old {
		taken = p.admitLocked()
	}
	next := p.kickLocked()
	p.lock.Unlock()
	taken.wake()
	next.wake()
	stopped.wake()
	p.changes.deliver(p.opts.Logger)
}

// resizeLocked sets the capacity to size, stops the idle workers above it,
// which it returns for the caller to wake after unlocking, and records the
// change for OnChange (deliver, after unlocking). The caller admits waiting
// work if the pool grew. It requires p.lock held.
func (p *poolCore[T]) resizeLocked(size int) (stopped *goWorker[T]) {
	old := int(p.capacity.Load())
	p.setCapacityLocked(size)
	if size < old {
		stopped = p.wakeIdleLocked(int(p.running.Load())-size, wakeToStop, nil)
	}
	p.changes.push(old, size)
	return stopped
}

// adaptLocked applies the adaptive capacity's decision n, releasing p.lock
// meanwhile: it is called by a worker with p.lock held, after a task, and
// returns with it held, having released it to wake the workers a shrink
// stopped and to tell OnChange. A grown pool admits waiting work on the
// worker's way on (afterTask). Decisions come at most once a Window.
func (p *poolCore[T]) adaptLocked(n int) {
	stopped := p.resizeLocked(n)
	p.lock.Unlock()
	stopped.wake()
	p.changes.deliver(p.opts.Logger)
	p.lock.Lock()
}

// capChanges delivers capacity changes to AdaptiveCapacity.OnChange in the
// order they were made, one call at a time, on the goroutine that made the
// change or on one delivering already. A nil *capChanges does nothing.
type capChanges struct {
	fn      func(old, new int)
	mu      sync.Mutex // guards queue
	queue   [][2]int
	calling sync.Mutex // held while fn runs
}

// push records a change. The pool's lock orders the pushes.
func (c *capChanges) push(old, new int) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.queue = append(c.queue, [2]int{old, new})
	c.mu.Unlock()
}

// deliver calls fn for every recorded change, unless another goroutine is
// at it (or fn itself called Tune): that one delivers them. The loop after
// unlocking catches a change pushed while the other was finishing.
//
// fn is the user's: a panic in it is written to log with its stack, and
// the changes after it are still delivered; it is no task's panic. If fn
// calls runtime.Goexit, the changes after it are delivered on the way out,
// before the goroutine ends. Either way the guard is released.
func (c *capChanges) deliver(log Logger) {
	if c == nil {
		return
	}
	for c.calling.TryLock() {
		c.drainLocked(log)
		c.mu.Lock()
		pending := len(c.queue) > 0
		c.mu.Unlock()
		if !pending {
			return
		}
	}
}

// drainLocked calls fn for the changes queued, first to last, until there
// is none, and releases c.calling, which it requires held. If fn calls
// runtime.Goexit (or log panics), it releases c.calling and delivers the
// rest on the goroutine's way out.
func (c *capChanges) drainLocked(log Logger) {
	returned := false
	defer func() {
		if !returned {
			c.calling.Unlock()
			c.deliver(log)
		}
	}()
	for {
		c.mu.Lock()
		if len(c.queue) == 0 {
			c.mu.Unlock()
			break
		}
		ch := c.queue[0]
		c.queue = c.queue[1:]
		c.mu.Unlock()
		c.call(ch[0], ch[1], log)
	}
	returned = true
	c.calling.Unlock()
}

// call calls fn(old, new), and writes a panic of fn to log.
func (c *capChanges) call(old, new int, log Logger) {
	defer func() {
		if r := recover(); r != nil {
			log.Printf("AdaptiveCapacity.OnChange(%d, %d) panicked: %v\n%s", old, new, r, debug.Stack())
		}
	}()
	c.fn(old, new)
}

// Release closes the pool without waiting for its tasks; see the package doc.
func (p *poolCore[T]) Release() {
	p.close()
}

// close is Release, reporting whether this call closed the pool.
//
// Tasks accepted with a worker slot still run: idle workers are woken for
// them before the rest are stopped, so that they need not wait for new
// workers, which could start only as the stopped ones exit. Buffered tasks
// run on the busy workers, which drain the ring before they exit.
func (p *poolCore[T]) close() bool {
	p.lock.Lock()
	if p.closed.Load() {
		p.lock.Unlock()
		return false
	}
	p.closed.Store(true)
	closeZero(&p.released)
	closed := p.closeWaitersLocked()
	if p.paused {
		// Buffered tasks are accepted: they still run, at the rate limit if
		// one is set.
		p.paused = false
		p.setGateLocked()
		closed = p.admitOntoLocked(closed)
	}
	next := p.wakeIdleLocked(p.reserved-p.searching, wakeToSearch, nil)
	next = p.wakeIdleLocked(p.workers.len(), wakeToStop, next)
	// With no idle worker left, kickLocked has none to return: it only
	// starts new workers, within the bound, for the tasks left over.
	p.kickLocked()
	if p.purgeStop != nil {
		close(p.purgeStop)
		p.purgeStop = nil
	}
	if p.waitq.len() == 0 {
		// No task is left to wait for a token (the blocked callers' were
		// refused): the pace timer has nothing to admit.
		p.disownPaceLocked()
	}
	p.noteDrainedLocked()
	p.lock.Unlock()
	closed.wake()
	next.wake()
	return true
}

// ReleaseTimeout closes the pool and waits, at most timeout, for it to
// drain.
func (p *poolCore[T]) ReleaseTimeout(timeout time.Duration) error {
	return releaseWithin(timeout, p.ReleaseContext)
}

// ReleaseContext closes the pool and waits for it to drain, or for ctx.
func (p *poolCore[T]) ReleaseContext(ctx context.Context) error {
	return releaseAndWait(ctx, p.close, p.waitDrained)
}

// WaitReleased waits until the pool is released, by any call, and drained.
func (p *poolCore[T]) WaitReleased(ctx context.Context) error {
	return waitReleased(orBackground(ctx), &p.lock, p.closed.Load, &p.released, p.waitDrained)
}

// waitDrained waits until the pool is drained (drainedLocked), or ctx is
// done (see waitZero), and then until the goroutines counted out have
// returned (waitDeparted).
func (p *poolCore[T]) waitDrained(ctx context.Context) error {
	if err := waitZero(ctx, &p.lock, p.drainedLocked, &p.allExited); err != nil {
		return err
	}
	p.waitDeparted()
	return nil
}

// waitDeparted waits until every goroutine counted out of the pool has
// returned from its body, so that once a release returns nil none of the
// pool's goroutines runs the pool's code. A goroutine is counted out under
// the lock, which it must still release, and its calls must still return:
// the last thing its body runs is its decrement of departing. That is a
// few instructions, which need no lock and never block, so the wait
// yields until they are done rather than sleep on a channel, which the
// goroutine would have to close after its decrement.
func (p *poolCore[T]) waitDeparted() {
	for p.departing.Load() != 0 {
		runtime.Gosched()
	}
}

// drainedLocked reports whether the pool is drained, the state a release
// waits for: no accepted task waits (in the buffer, for a token, or with a
// caller admitted), none is reserved or running, and nothing of the pool
// is left to run one, no goroutine and no pace timer (live is 0). It
// requires p.lock held.
//
// live alone does not say it: while the buffered tasks of a released pool
// wait for a token, the pace timer is all that stands for them in live,
// and a new limit replaces the timer, counting the old one out before it
// sets the new one.
func (p *poolCore[T]) drainedLocked() bool {
	return p.live == 0 && p.reserved == 0 && p.waitq.len() == 0
}

// noteDrainedLocked wakes the releases waiting for the pool to drain, if
// it is drained: what every path that can drain it calls (countOutLocked,
// close). It requires p.lock held.
func (p *poolCore[T]) noteDrainedLocked() {
	if p.allExited != nil && p.drainedLocked() {
		closeZero(&p.allExited)
	}
}

// Reboot reopens a released pool, not waiting for the old workers.
func (p *poolCore[T]) Reboot() {
	p.lock.Lock()
	defer p.lock.Unlock()
	if !p.closed.Load() {
		return
	}
	p.closed.Store(false)
	if p.running.Load() > 0 && p.purgeStop == nil && !p.opts.DisablePurge {
		p.startPurgeLocked()
	}
}

// Stats returns a snapshot of the pool's state and counters.
func (p *poolCore[T]) Stats() Stats {
	p.lock.Lock()
	defer p.lock.Unlock()
	return Stats{
		Cap:       int(p.capacity.Load()),
		Running:   int(p.running.Load()),
		Idle:      p.workers.len(),
		Waiting:   p.waitq.blocked,
		Queued:    p.waitq.buffered,
		Paused:    p.paused,
		Submitted: p.submitted,
		Completed: p.completed,
		Panicked:  p.panicked,
		Rejected:  p.rejected.Load(),
		Dropped:   p.dropped,
	}
}
