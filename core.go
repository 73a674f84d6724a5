package ants

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// poolCore is the engine behind Pool, PoolWithFunc and PoolWithFuncGeneric:
// they differ only in the task type T and in fn, the function a worker
// applies to each task.
//
// Where a task goes, in order: to an idle worker (detached from workers and
// handed the task through its channel); to a new worker if fewer than
// capacity are running; to the task buffer if it has room; otherwise the
// caller waits in waiters, and the next worker to finish takes its task.
// Hence these invariants, all under lock: the buffer and waiters are empty
// whenever a worker is idle, and callers wait only while running >= capacity.
type poolCore[T any] struct {
	// lock guards the fields below up to the atomics.
	lock spinLock

	// cond, on lock, is where callers wait in waitLocked. Waiters call Wait
	// in the order of the waiters list (see waitLocked), so Signal wakes the
	// caller whose task was just taken from the head of the list.
	cond sync.Cond

	workers workerQueue[T] // idle workers
	tasks   taskQueue[T]   // buffered tasks (Options.QueueSize)
	waiters waiterList[T]  // blocked callers, FIFO

	// live counts the goroutines the pool has started (workers and the purge
	// goroutine) that have not yet exited; allExited, when non-nil, is closed
	// when live drops to 0.
	live      int
	allExited chan struct{}

	// stopped holds the workers that have been told to stop (by the purge,
	// Release or a shrinking Tune) and have not exited yet, each at its
	// stopIdx. They count in running until they exit, but not against the
	// capacity; one that has not yet read the order can be revived to take a
	// task instead of a new goroutine (claimLocked).
	stopped []*goWorker[T]

	// workerCache recycles the goWorker of an exited goroutine, channel
	// included, for the next one the pool starts.
	workerCache sync.Pool

	purgeStop chan struct{} // closed to stop the purge goroutine; nil if none runs
	lastTick  int64         // time of the purge goroutine's last tick, in ns

	// Counters for Stats, kept under the lock that every path through the
	// pool takes anyway, so that counting costs no extra atomic per task.
	submitted, completed, panicked uint64

	// These are written only with lock held and may be read without it.
	capacity atomic.Int32 // -1 means unlimited
	running  atomic.Int32 // worker goroutines started and not yet exited
	waiting  atomic.Int32 // waiters.len
	closed   atomic.Bool

	rejected atomic.Uint64 // written without the lock

	fn   func(T)
	opts *Options // read-only after init
}

// init prepares a zero poolCore; the pool kinds call it from their
// constructors. It starts no goroutine: the first one starts with the first
// task.
func (p *poolCore[T]) init(size int, fn func(T), options []Option) error {
	opts := loadOptions(options...)
	if !opts.DisablePurge {
		if opts.ExpiryDuration < 0 {
			return ErrInvalidPoolExpiry
		}
		if opts.ExpiryDuration == 0 {
			opts.ExpiryDuration = DefaultCleanIntervalTime
		}
	}
	if size <= 0 {
		size = -1
	} else if size > math.MaxInt32 {
		size = math.MaxInt32
	}
	if opts.PreAlloc && size < 0 {
		return ErrInvalidPreAllocSize
	}
	if opts.Logger == nil {
		opts.Logger = defaultLogger
	}
	if opts.clock == nil {
		opts.clock = systemClock{}
	}
	p.cond.L = &p.lock
	p.workers = newWorkerQueue[T](opts.PreAlloc, size)
	p.tasks.limit = opts.QueueSize
	p.capacity.Store(int32(size))
	p.fn = fn
	p.opts = opts
	return nil
}

// submit hands arg to the pool: the fast path, inlined into Submit and
// Invoke, serves the common case of an idle worker; everything else is in
// submitSlow. ctx is never nil: the calls that take none pass
// context.Background(), whose Done is nil. If try is set the caller never
// waits.
func (p *poolCore[T]) submit(ctx context.Context, arg T, try bool) error {
	if p.closed.Load() {
		p.rejected.Add(1)
		return ErrPoolClosed
	}
	p.lock.Lock()
	if w := p.workers.detach(); w != nil {
		count(&p.submitted)
		p.lock.Unlock()
		w.args <- arg
		return nil
	}
	return p.submitSlow(ctx, arg, try)
}

// submitSlow requires p.lock held and releases it.
func (p *poolCore[T]) submitSlow(ctx context.Context, arg T, try bool) error {
	if p.closed.Load() {
		p.lock.Unlock()
		p.rejected.Add(1)
		return ErrPoolClosed
	}
	if w, ok := p.claimLocked(); ok {
		p.startLocked(w, arg)
		count(&p.submitted)
		p.lock.Unlock()
		return nil
	}
	if p.tasks.push(arg) {
		count(&p.submitted)
		p.lock.Unlock()
		return nil
	}
	// ants compares MaxBlockingTasks with != 0, so a negative limit lets no
	// caller wait; kept for compatibility.
	if try || p.opts.Nonblocking || (p.opts.MaxBlockingTasks != 0 && p.waiters.len >= p.opts.MaxBlockingTasks) {
		p.lock.Unlock()
		p.rejected.Add(1)
		return ErrPoolOverload
	}
	return p.waitLocked(ctx, arg)
}

// waitLocked blocks the caller until a worker takes arg, the pool is
// released, or ctx is done. It requires p.lock held and releases it.
//
// A worker that becomes free takes the task at the head of p.waiters and
// Signals p.cond. Signal wakes the goroutine that has been in Wait longest,
// so this is the right goroutine as long as waiters call Wait in list order.
// Each waiter joins the tail of the list and calls Wait in one critical
// section, and one that wakes while its task is still pending (a Broadcast
// for a cancelled context, or a Signal meant for a waiter that had already
// woken) moves itself back to the tail before waiting again. So the order
// holds, every Signal is a wake-up some waiter needs or a harmless extra one,
// and no taken task leaves its caller asleep.
func (p *poolCore[T]) waitLocked(ctx context.Context, arg T) error {
	w := p.waiters.get(arg)
	p.waiters.pushBack(w)
	p.waiting.Store(int32(p.waiters.len))

	var stop func() bool
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, p.wakeAll)
	}
	var err error
	for w.state == waiterPending {
		if err = ctx.Err(); err != nil {
			p.waiters.remove(w)
			p.waiting.Store(int32(p.waiters.len))
			break
		}
		p.cond.Wait()
		if w.state == waiterPending {
			p.waiters.remove(w)
			p.waiters.pushBack(w)
		}
	}
	if w.state == waiterClosed {
		err = ErrPoolClosed
	}
	p.waiters.put(w)
	p.lock.Unlock()

	if stop != nil {
		stop()
	}
	if err != nil {
		p.rejected.Add(1)
	}
	return err
}

// wakeAll wakes every waiter so that those whose context is done can leave.
func (p *poolCore[T]) wakeAll() {
	p.lock.Lock()
	p.cond.Broadcast()
	p.lock.Unlock()
}

// takeWaiterLocked takes the task of the longest-waiting caller and wakes it.
// It requires p.lock held.
func (p *poolCore[T]) takeWaiterLocked() (arg T, ok bool) {
	w := p.waiters.popFront()
	if w == nil {
		return arg, false
	}
	var zero T
	arg, w.arg = w.arg, zero
	w.state = waiterTaken
	p.waiting.Store(int32(p.waiters.len))
	count(&p.submitted)
	p.cond.Signal()
	return arg, true
}

// nextTaskLocked returns the task a free worker should run next: the oldest
// buffered task, whose place in the buffer goes to the longest-waiting caller,
// or else that caller's task. It requires p.lock held.
func (p *poolCore[T]) nextTaskLocked() (T, bool) {
	if arg, ok := p.tasks.pop(); ok {
		if next, ok := p.takeWaiterLocked(); ok {
			p.tasks.push(next) // cannot fail: pop just made room
		}
		return arg, true
	}
	return p.takeWaiterLocked()
}

// spawnLocked starts a worker goroutine with arg as its first task. It
// requires p.lock held.
func (p *poolCore[T]) spawnLocked(arg T) {
	p.running.Add(1)
	p.live++
	// A closed pool still starts workers to drain its buffer (Tune, a lost
	// worker), but those exit when done: they need no purge.
	if p.purgeStop == nil && !p.opts.DisablePurge && !p.closed.Load() {
		p.startPurgeLocked()
	}
	w, _ := p.workerCache.Get().(*goWorker[T])
	if w == nil {
		w = &goWorker[T]{pool: p, args: make(chan T, 1)}
	}
	go w.run(arg)
}

// claimLocked finds room for one more task when no worker is idle: ok is
// false if capacity workers are active. Otherwise w is a worker that had
// been told to stop but not yet read the order, now kept instead, or nil if
// a new worker must be started.
//
// Capacity counts active workers, not goroutines: a worker that has read its
// order to stop is gone for the pool, and waiting the microseconds until its
// goroutine ends would make Submit fail or wait for nothing (ants has that
// window after every purge). Reviving first keeps the goroutines over
// capacity to those few already on their way out. It requires p.lock held.
func (p *poolCore[T]) claimLocked() (w *goWorker[T], ok bool) {
	if c := p.capacity.Load(); c >= 0 && p.activeLocked() >= int(c) {
		return nil, false
	}
	// The most recently stopped are the likeliest to be unread; the rest
	// are exiting and leave the list themselves, so a few tries suffice.
	for i := len(p.stopped) - 1; i >= max(0, len(p.stopped)-reviveTries); i-- {
		w := p.stopped[i]
		select {
		case <-w.args: // the order to stop, still unread: take it back
			p.unstopLocked(w)
			return w, true
		default: // already read: the worker is exiting
		}
	}
	return nil, true
}

// reviveTries bounds the stopped workers claimLocked looks at.
const reviveTries = 4

// startLocked runs arg on w, as returned by claimLocked. It requires p.lock
// held.
func (p *poolCore[T]) startLocked(w *goWorker[T], arg T) {
	if w == nil {
		p.spawnLocked(arg)
		return
	}
	w.args <- arg // never blocks: claimLocked just emptied the channel
}

// serveLocked starts workers for buffered tasks and waiting callers while
// the capacity allows, after an event that freed capacity. It requires
// p.lock held.
func (p *poolCore[T]) serveLocked() {
	for {
		w, ok := p.claimLocked()
		if !ok {
			return
		}
		arg, ok := p.nextTaskLocked()
		if !ok {
			if w != nil {
				p.idleLocked(w)
			}
			return
		}
		p.startLocked(w, arg)
	}
}

// idleLocked puts a revived worker with nothing to do back where it was
// going: the idle queue, or, on a closed pool, out. It requires p.lock held.
func (p *poolCore[T]) idleLocked(w *goWorker[T]) {
	if p.closed.Load() {
		p.stopLocked(w)
		return
	}
	w.lastUsed = p.lastTick
	p.workers.insert(w)
}

// afterTask records the task a worker just finished and returns the next
// one, parking the worker in the idle queue until there is one. It returns
// ok == false when the worker must exit.
func (p *poolCore[T]) afterTask(w *goWorker[T], panicked bool) (arg T, ok bool) {
	p.lock.Lock()
	if panicked {
		count(&p.panicked)
	} else {
		count(&p.completed)
	}
	if c := p.capacity.Load(); c >= 0 && p.activeLocked() > int(c) {
		// A shrinking Tune left more workers than capacity.
		p.lock.Unlock()
		return arg, false
	}
	if arg, ok = p.nextTaskLocked(); ok {
		p.lock.Unlock()
		return arg, true
	}
	if p.closed.Load() {
		p.lock.Unlock()
		return arg, false
	}
	w.lastUsed = p.lastTick
	p.workers.insert(w)
	p.lock.Unlock()

	arg = <-w.args
	return arg, !w.stop // stop was set before the value was sent
}

// workerExited is the last thing a worker goroutine does. lost reports a
// task that ended the goroutine with runtime.Goexit. The capacity the worker
// held goes to waiting callers and buffered tasks.
func (p *poolCore[T]) workerExited(w *goWorker[T], lost bool) {
	p.lock.Lock()
	if lost {
		count(&p.panicked)
	}
	if w.stop {
		p.unstopLocked(w)
	}
	p.running.Add(-1)
	p.serveLocked()
	p.exitedLocked()
	p.lock.Unlock()
	p.workerCache.Put(w)
}

// goroutineExited is the last thing the purge goroutine does.
func (p *poolCore[T]) goroutineExited() {
	p.lock.Lock()
	p.exitedLocked()
	p.lock.Unlock()
}

// exitedLocked counts one pool goroutine out. It requires p.lock held.
func (p *poolCore[T]) exitedLocked() {
	p.live--
	if p.live == 0 && p.allExited != nil {
		close(p.allExited)
		p.allExited = nil
	}
}

// activeLocked returns the number of workers not told to stop. It requires
// p.lock held.
func (p *poolCore[T]) activeLocked() int {
	return int(p.running.Load()) - len(p.stopped)
}

// stopIdleLocked stops up to n idle workers. It requires p.lock held.
func (p *poolCore[T]) stopIdleLocked(n int) {
	for ; n > 0; n-- {
		w := p.workers.detach()
		if w == nil {
			return
		}
		p.stopLocked(w)
	}
}

// stopLocked tells an idle worker, detached from the idle queue, to exit. It
// requires p.lock held. The worker's channel is left open so that the
// goWorker can be reused.
func (p *poolCore[T]) stopLocked(w *goWorker[T]) {
	w.stop = true
	w.stopIdx = len(p.stopped)
	p.stopped = append(p.stopped, w)
	var zero T
	w.args <- zero // never blocks: an idle worker's channel is empty
}

// unstopLocked removes w from p.stopped, because it exited or was revived.
// It requires p.lock held.
func (p *poolCore[T]) unstopLocked(w *goWorker[T]) {
	last := len(p.stopped) - 1
	moved := p.stopped[last]
	p.stopped[w.stopIdx], moved.stopIdx = moved, w.stopIdx
	p.stopped[last] = nil
	p.stopped = p.stopped[:last]
	w.stop = false
}

// Running returns the number of worker goroutines, busy or idle. It grows
// before Submit returns, and shrinks as each worker goroutine exits: a moment
// after the purge, Release or a shrinking Tune stops it. For that moment it
// can exceed Cap(), and Free() can be negative.
func (p *poolCore[T]) Running() int {
	return int(p.running.Load())
}

// Free returns Cap() - Running(), or -1 for an unlimited pool. It is
// negative for a while after a shrinking Tune.
func (p *poolCore[T]) Free() int {
	c := p.capacity.Load()
	if c < 0 {
		return -1
	}
	return int(c - p.running.Load())
}

// Waiting returns the number of callers blocked in Submit or Invoke.
// Buffered tasks are not counted; see Stats.
func (p *poolCore[T]) Waiting() int {
	return int(p.waiting.Load())
}

// Cap returns the capacity of the pool, or -1 if it is unlimited.
func (p *poolCore[T]) Cap() int {
	return int(p.capacity.Load())
}

// IsClosed reports whether the pool has been released and not rebooted.
func (p *poolCore[T]) IsClosed() bool {
	return p.closed.Load()
}

// Tune changes the capacity of the pool. It does nothing for an unlimited
// pool, a PreAlloc pool, or size <= 0. Growing starts workers at once for
// waiting callers and buffered tasks; shrinking stops surplus idle workers at
// once, and busy workers above the new capacity exit when their task ends.
// Sizes above math.MaxInt32 are taken as math.MaxInt32.
func (p *poolCore[T]) Tune(size int) {
	if size <= 0 || p.opts.PreAlloc {
		return
	}
	size = min(size, math.MaxInt32)
	p.lock.Lock()
	defer p.lock.Unlock()
	old := int(p.capacity.Load())
	if old < 0 || size == old {
		return
	}
	p.capacity.Store(int32(size))
	if size > old {
		p.serveLocked()
	} else {
		p.stopIdleLocked(p.activeLocked() - size)
	}
}

// Release closes the pool: later submissions fail with ErrPoolClosed, idle
// workers stop, and blocked callers return ErrPoolClosed. It does not wait
// for busy workers; they finish their task, drain the task buffer, and exit.
// Releasing a closed pool does nothing.
func (p *poolCore[T]) Release() {
	p.release()
}

// release reports whether this call closed the pool.
func (p *poolCore[T]) release() bool {
	p.lock.Lock()
	defer p.lock.Unlock()
	if p.closed.Load() {
		return false
	}
	p.closed.Store(true)
	p.stopIdleLocked(p.workers.len())
	for w := p.waiters.popFront(); w != nil; w = p.waiters.popFront() {
		w.state = waiterClosed
	}
	p.waiting.Store(0)
	p.cond.Broadcast()
	if p.purgeStop != nil {
		close(p.purgeStop)
		p.purgeStop = nil
	}
	return true
}

// ReleaseTimeout is Release followed by a wait, at most timeout, for every
// goroutine of the pool to exit, including workers still busy. It returns
// ErrTimeout if they did not exit in time and ErrPoolClosed if the pool was
// already closed.
func (p *poolCore[T]) ReleaseTimeout(timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := p.ReleaseContext(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout
	}
	return err
}

// ReleaseContext is Release followed by a wait, until ctx is done, for every
// goroutine of the pool to exit; it then returns ctx.Err(). It returns
// ErrPoolClosed if the pool was already closed. With a nil ctx it is Release
// and returns nil without waiting.
func (p *poolCore[T]) ReleaseContext(ctx context.Context) error {
	if !p.release() {
		return ErrPoolClosed
	}
	if ctx == nil {
		return nil
	}
	return p.waitExited(ctx)
}

// waitExited waits until no goroutine of the pool is left, or ctx is done.
func (p *poolCore[T]) waitExited(ctx context.Context) error {
	p.lock.Lock()
	if p.live == 0 {
		p.lock.Unlock()
		return nil
	}
	if p.allExited == nil {
		p.allExited = make(chan struct{})
	}
	done := p.allExited
	p.lock.Unlock()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Reboot reopens a released pool; it does nothing to an open one. Unlike in
// ants it does not wait for the workers of the released pool: those still
// busy simply serve the reopened pool when their task ends.
func (p *poolCore[T]) Reboot() {
	p.lock.Lock()
	defer p.lock.Unlock()
	if !p.closed.Load() {
		return
	}
	p.closed.Store(false)
	if p.activeLocked() > 0 && p.purgeStop == nil && !p.opts.DisablePurge {
		p.startPurgeLocked()
	}
}
