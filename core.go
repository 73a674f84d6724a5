package ants

import (
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
//
// # Where to read
//
// core.go holds the fields and their invariants (checked by
// checkInvariantsLocked, invariants.go); admission.go the way in (submit,
// the buffer, waiting callers); worker.go a worker's life (spawn, take,
// park, wake, stop, exit) and the goroutine bound; control.go Tune,
// Release, Reboot and the getters; purge.go expiry; timing.go the
// Observer's timing.
//
// A wake-up (of a parked worker, or a Signal of a waiting caller) is sent
// only after p.lock is released: it can enter the kernel, and every other
// user of the lock would spin meanwhile. Functions that decide whom to
// wake return the workers linked by nextWake, or a count of callers, for
// their caller to wake once it has unlocked.
type poolCore[T any] struct {
	// The fields up to the first pad are written by every task, under the
	// lock; the next group is read by every task and written only by Tune,
	// Release and Reboot; the last by the slow paths. The pads keep the
	// groups on separate cache lines, so that a task's writes do not evict
	// the read-mostly fields from the other cores' caches (BENCHMARKS.md,
	// "Many cores").

	// lock guards the fields below up to the first pad.
	lock spinLock

	// cond, on lock, is where callers wait in waitUnlock. Waiters call Wait
	// in the order of the waiters list (see waitUnlock), so Signal wakes the
	// caller whose task was just taken from the head of the list.
	cond sync.Cond

	tasks   ring[T]         // accepted tasks no worker has taken yet, FIFO
	stamps  ring[taskStamp] // the tasks' stamps, in step with tasks; used only if timed
	workers workerQueue[T]  // parked idle workers
	waiters waiterList[T]   // blocked callers, FIFO

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

	// timed is set if tasks are timed: the pool has an observer (obs) or
	// adapts its capacity (adaptive). Without either no clock is read on the
	// task path.
	timed bool
	obs   Observer

	// adaptive, if set, decides the capacity from the tasks' run times
	// (adaptive.go); it is used under lock. changes tells OnChange of each
	// change it or Tune makes.
	adaptive *adaptiveController
	changes  *capChanges

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
	if a := opts.Adaptive; a != nil {
		start, err := a.validate(size)
		if err != nil || opts.PreAlloc {
			return ErrInvalidAdaptiveCapacity
		}
		size = start
		p.adaptive = newAdaptiveController(*a, start, nanotime())
		if a.OnChange != nil {
			p.changes = &capChanges{fn: a.OnChange}
		}
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
	p.timed = p.obs != nil || p.adaptive != nil
	return nil
}
