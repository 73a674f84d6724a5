package ants

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
)

// poolCore is the engine behind Pool, PoolWithFunc and PoolWithFuncGeneric:
// they differ only in the task type T and in fn, the function a worker
// applies to each task.
//
// Where a task goes, in order: to an idle worker (detached from workers and
// handed the task through its channel); to a new worker if fewer than
// capacity are active; to the task buffer if it has room;
// otherwise the caller waits in waiters, and the next worker to finish takes
// its task. Hence these invariants, all under lock: the buffer and waiters
// are empty whenever a worker is idle, and callers wait only while capacity
// workers are active. Active workers are the running ones less those told to
// stop (activeLocked).
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

	// stopping counts the workers that have been told to stop (by the
	// purge, Release or a shrinking Tune) and have not exited yet. They count
	// in running until they exit, but not against the capacity (roomLocked).
	stopping int

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
	if p.roomLocked() {
		p.spawnLocked(arg)
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
