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
// # How a task reaches a worker
//
// Submit appends the task to one FIFO ring (tasks) under the lock, and
// workers take tasks from its head. A worker that finishes a task takes the
// next one without parking, as the workers of a channel pool do; a worker
// finding the ring empty parks in the idle queue (workers) on its own
// channel. Parked workers are woken by the rule the Go scheduler uses for
// its spinning threads: a task wakes a parked worker only if no woken worker
// is already on its way to the ring (searching == 0), and a woken worker
// that takes a task while more are queued wakes the next one (kickLocked).
// So a steady stream of tasks costs about one wake-up per batch the
// submitters get ahead of the workers, not one per task, while no task sits
// in the ring behind a busy worker when an idle one sleeps: while the ring
// holds tasks, a worker is on its way to it, or every worker is busy.
//
// Measured against the previous design, which handed every task to a parked
// worker's channel (one wake-up and two more lock crossings per task), on 2
// cores with no-op tasks and capacity 1000: see BENCHMARKS.md, "Where the
// floor is".
//
// # Admission
//
// The bound is ants': at most capacity tasks accepted and unfinished,
// plus up to QueueSize buffered ones. A task is accepted with a worker slot
// (reserved) while busy+reserved < capacity, as ants hands it to a worker;
// otherwise into the buffer while it has room; otherwise the caller is
// refused (Nonblocking, TrySubmit, MaxBlockingTasks) or waits in waiters.
// Every event that frees a slot gives it to the oldest buffered task, then
// admits the longest-waiting callers (admitLocked), so
// a new Submit never overtakes a buffered task or a caller that waits. The
// ring holds the reserved tasks first, then the buffered ones; workers take
// only reserved tasks. A reserved task keeps its slot across a shrinking
// Tune, as a task handed to a worker in ants runs on it.
//
// Workers are started eagerly: tasks that the woken and idle workers
// together cannot take wake every idle worker and start new ones at once
// (kickLocked), so Running() grows before Submit returns, as in ants, and a
// burst does not wait for workers to wake or start one another.
type poolCore[T any] struct {
	// The fields up to the first pad are written by every task, under the
	// lock; the next group is read by every task and written only by Tune,
	// Release and Reboot; the last by the slow paths. The pads keep the
	// groups on separate cache lines, so that a task's writes do not evict
	// the read-mostly fields from the other cores' caches (BENCHMARKS.md,
	// "Many cores").

	// lock guards the fields below up to the first pad.
	lock spinLock

	// cond, on lock, is where callers wait in waitLocked. Waiters call Wait
	// in the order of the waiters list (see waitLocked), so Signal wakes the
	// caller whose task was just taken from the head of the list.
	cond sync.Cond

	tasks   taskQueue[T]         // accepted tasks no worker has taken yet, FIFO
	stamps  taskQueue[taskStamp] // the tasks' stamps, in step with tasks; used only if timed
	workers workerQueue[T]       // parked idle workers
	waiters waiterList[T]        // blocked callers, FIFO

	// busy counts the tasks workers have taken and not finished.
	busy int

	// reserved counts the tasks at the head of the ring that hold a worker
	// slot; the tasks.size-reserved after them are buffered. Invariants:
	// busy+reserved <= capacity but after a shrinking Tune;
	// tasks.size-reserved <= queueSize; and if any task is buffered, no
	// slot is free (busy+reserved >= capacity).
	reserved int

	// searching counts the workers woken from the idle queue that have not
	// yet looked at the ring (see kickLocked).
	searching int

	// stopping counts the workers that have stopped being active (told to
	// stop, or leaving on their own) and have not yet been counted out: they
	// still hold a place in the goroutine bound, running+stopping <=
	// capacity (lifecycle.go).
	stopping int

	// Counters for Stats, kept under the lock that every path through the
	// pool takes anyway, so that counting costs no extra atomic per task.
	submitted, completed, panicked uint64

	// live counts the goroutines the pool has started (workers and the purge
	// goroutine) that have not yet exited; allExited, when non-nil, is closed
	// when live drops to 0.
	live      int
	allExited chan struct{}

	purgeStop  chan struct{} // the purge generation's stop channel: closed by Release; nil if no generation runs
	purgeAlive bool          // a purge goroutine has started and not exited
	lastTick   int64         // time of the purge goroutine's last tick, in ns

	_ cacheLinePad

	// These are written only with lock held and may be read without it.
	capacity atomic.Int32 // -1 means unlimited
	closed   atomic.Bool

	queueSize int                   // Options.QueueSize: negative is unbounded
	fn        func(*goWorker[T], T) // applied to every task, on the worker w
	opts      *Options              // read-only after init

	// timed is set if tasks are timed: the pool has an observer (obs).
	// Without it no clock is read on the task path.
	timed bool
	obs   Observer

	// onExit, if set, is called on a worker's goroutine as the worker
	// exits, while it still holds its place in the goroutine bound (but
	// after a panic, which has already given it up).
	onExit func(w *goWorker[T])

	_ cacheLinePad

	// These are written only with lock held and may be read without it.
	running atomic.Int32 // active workers: started, not exited, not told to stop
	waiting atomic.Int32 // waiters.len

	rejected atomic.Uint64 // written without the lock

	// workerCache recycles the goWorker of an exited goroutine, channel
	// included, for the next one the pool starts.
	workerCache sync.Pool
}

// cacheLinePad separates groups of fields onto different cache lines.
type cacheLinePad struct{ _ [64]byte }

// init prepares a zero poolCore; the pool kinds call it from their
// constructors. It starts no goroutine: the first one starts with the first
// task.
func (p *poolCore[T]) init(size int, fn func(*goWorker[T], T), options []Option) error {
	opts := loadOptions(options...)
	if !opts.DisablePurge {
		if opts.ExpiryDuration < 0 {
			return ErrInvalidPoolExpiry
		}
		if opts.ExpiryDuration == 0 {
			opts.ExpiryDuration = DefaultCleanIntervalTime
		}
	}
	if opts.MinWorkers < 0 {
		return ErrInvalidMinWorkers
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
	p.queueSize = opts.QueueSize
	p.capacity.Store(int32(size))
	p.fn = fn
	p.opts = opts
	p.obs = opts.Observer
	p.timed = p.obs != nil
	return nil
}

// submit hands arg to the pool: the fast path appends it to the ring;
// waiting and refusals are in submitSlow.
// ctx is never nil: the calls that take none pass context.Background(),
// whose Done is nil. If try is set the caller never waits.
func (p *poolCore[T]) submit(ctx context.Context, arg T, try bool) error {
	var st taskStamp
	if p.timed {
		st.at = nanotime()
	}
	return p.submitStamped(ctx, arg, try, st)
}

// submitStamped is submit for a task stamped st.
func (p *poolCore[T]) submitStamped(ctx context.Context, arg T, try bool, st taskStamp) error {
	if p.closed.Load() {
		p.rejected.Add(1)
		return ErrPoolClosed
	}
	p.lock.Lock()
	if !p.closed.Load() && p.acceptLocked(arg, st) {
		w := p.kickLocked()
		p.lock.Unlock()
		w.wake()
		return nil
	}
	return p.submitSlow(ctx, arg, try, st)
}

// acceptLocked appends arg, stamped st, to the ring if the pool can take it
// now: with a worker slot if one is free, else into the buffer if it has
// room. It requires p.lock held.
func (p *poolCore[T]) acceptLocked(arg T, st taskStamp) bool {
	c := int(p.capacity.Load())
	switch {
	case c < 0 || p.busy+p.reserved < c:
		p.reserved++
	case p.queueSize < 0 || p.tasks.size-p.reserved < p.queueSize:
	default:
		return false
	}
	p.tasks.push(arg)
	if p.timed {
		p.stamps.push(st)
	}
	p.submitted++
	return true
}

// promoteLocked gives the worker slots that are free to the oldest
// buffered tasks. It requires p.lock held.
func (p *poolCore[T]) promoteLocked() {
	n := p.tasks.size - p.reserved
	if c := int(p.capacity.Load()); c >= 0 {
		n = min(n, c-p.busy-p.reserved)
	}
	if n > 0 {
		p.reserved += n
	}
}

// takeLocked takes the reserved task at the head of the ring for worker w.
// It requires p.lock held and p.reserved > 0.
func (p *poolCore[T]) takeLocked(w *goWorker[T]) T {
	arg, _ := p.tasks.pop()
	if p.timed {
		w.stamp, _ = p.stamps.pop()
	}
	p.reserved--
	p.busy++
	return arg
}

// submitSlow requires p.lock held and releases it.
func (p *poolCore[T]) submitSlow(ctx context.Context, arg T, try bool, st taskStamp) error {
	if p.closed.Load() {
		p.lock.Unlock()
		p.rejected.Add(1)
		return ErrPoolClosed
	}
	// ants compares MaxBlockingTasks with != 0, so a negative limit lets no
	// caller wait; kept for compatibility.
	if try || p.opts.Nonblocking || (p.opts.MaxBlockingTasks != 0 && p.waiters.len >= p.opts.MaxBlockingTasks) {
		p.lock.Unlock()
		p.rejected.Add(1)
		return ErrPoolOverload
	}
	return p.waitLocked(ctx, arg, st)
}

// kickLocked makes sure the reserved tasks will be taken promptly, and
// returns the idle workers to wake, if any, linked by nextWake, which the
// caller wakes after releasing p.lock (a wake-up can enter the kernel; the
// lock's other users need not wait for it). It requires p.lock held.
//
// While a woken worker is searching, nobody else is woken: it will take
// the head task and, if more remain, wake the next worker itself. That
// keeps wake-ups to the minimum that still starts every task without delay,
// and it is what makes a stream of tasks cheaper than one wake-up each.
//
// Reserved tasks beyond what the searching and idle workers can take wake
// every idle worker and start new workers for the rest, at once. Waking
// them all matters when tasks block: with 10 ms sleeps from one submitter
// (the sleep workload, capacity 50,000), leaving the idle workers to the
// chain while new ones started let the chain fall behind under the
// scheduler's load, and the pool grew to 50,000-60,000 goroutines and
// 165-195 MiB at 2.7-3.1 µs a task; waking them all keeps it at 12,000-
// 13,000 goroutines and 44-52 MiB at 2.3-2.5 µs, as before the ring (no-op
// benchmarks unchanged, benchstat p > 0.1).
//
// New workers stay within the goroutine bound (canSpawnLocked): when
// workers on their way out hold the places a reserved task needs, one of
// them takes it before it exits (leaveOrStayLocked).
func (p *poolCore[T]) kickLocked() *goWorker[T] {
	if p.reserved == 0 {
		return nil
	}
	var w *goWorker[T]
	if p.searching == 0 {
		if w = p.workers.detach(); w != nil {
			p.searching++
		}
	}
	if p.reserved > p.searching && p.reserved > p.searching+p.workers.len() {
		// More reserved tasks than the searching and idle workers: every
		// idle worker is needed now, so wake them all rather than leave
		// them to the chain, and start new workers for the rest.
		for x := p.workers.detach(); x != nil; x = p.workers.detach() {
			p.searching++
			x.nextWake, w = w, x
		}
		for p.reserved > p.searching && p.canSpawnLocked() {
			p.spawnLocked()
		}
	}
	return w
}

// waitLocked blocks the caller until a worker takes arg, the pool is
// released, or ctx is done. It requires p.lock held and releases it.
//
// An event that makes room takes the task at the head of p.waiters into the
// ring and Signals p.cond (admitLocked, signal). Signal wakes the goroutine
// that has been in Wait longest, so this is the right goroutine as long as
// waiters call Wait in list order. Each waiter joins the tail of the list
// and calls Wait in one critical section, and one that wakes while its task
// is still pending (a Broadcast for a cancelled context, or a Signal meant
// for a waiter that had already woken) moves itself back to the tail before
// waiting again. So the order holds, every Signal is a wake-up some waiter
// needs or a harmless extra one, and no taken task leaves its caller asleep.
func (p *poolCore[T]) waitLocked(ctx context.Context, arg T, st taskStamp) error {
	w := p.waiters.get(arg, st)
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

// admitLocked is what every event that frees room does: it gives free
// slots to buffered tasks, then moves the tasks of the longest-waiting
// callers into the ring while the pool can accept them. It returns how many
// callers it took, for the caller to wake with signal once it has released
// p.lock; the caller then takes from the ring or kicks it. It requires
// p.lock held.
func (p *poolCore[T]) admitLocked() (taken int) {
	p.promoteLocked()
	if p.waiters.len == 0 {
		return 0
	}
	var zero T
	for w := p.waiters.head; w != nil && p.acceptLocked(w.arg, w.stamp); w = p.waiters.head {
		p.waiters.remove(w)
		w.arg, w.state = zero, waiterTaken
		taken++
	}
	p.waiting.Store(int32(p.waiters.len))
	return taken
}

// signal wakes n waiters whose tasks admitLocked took. It is called without
// p.lock, as a channel send wakes its receiver only after releasing the
// channel's lock: a wake-up can enter the kernel (runtime.wakep), and every
// other user of the pool would spin on the lock meanwhile.
//
// Signalling late wakes the right callers all the same. Signal wakes the
// caller that entered Wait first among those still in it, and callers enter
// Wait in list order, so the n oldest are exactly the n taken ones, unless
// one of them has woken already (a Broadcast) and so needs no signal: then
// a pending caller wakes, finds its task still pending, and goes back to
// the tail (waitLocked).
func (p *poolCore[T]) signal(n int) {
	for ; n > 0; n-- {
		p.cond.Signal()
	}
}
