package ants

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// poolCore is the engine behind Pool, PoolWithFunc, PoolWithFuncGeneric,
// WorkerPool and each member pool of a MultiPool: they differ only in the
// task type T and in fn, the function a worker applies to each task.
//
// Its code is grouped by who runs it:
//
//   - admission.go, the caller's side: a submitted task is accepted into
//     the ring (tasks) with a worker slot, or waits (waitq) in the buffer
//     or with its blocked caller until an event that frees room admits it,
//     or is refused.
//   - waiter.go, where a task waits: the waitQueue, by priority level.
//   - worker.go, the worker goroutine's side: run a task, take the next one
//     or park (afterTask), leave or stay, the panic path, recycle.
//   - wake.go, who wakes whom: the wake rule (kickLocked), starting and
//     stopping workers, and the rule that wake-ups are sent after unlocking.
//   - control.go, the calls that change the pool's state (Tune, Release,
//     Reboot) and the getters; pace.go, the gate (Pause, the rate limit);
//     purge.go, idle expiry; timing.go, the Observer's timing;
//     invariants.go, the checks of the invariants below.
//
// # Which counters an event moves
//
// Each moves under p.lock, but rejected and the decrement of callersWaking,
// atomics written without it;
// running is an atomic too, for the getters.
//
//	a task is accepted with a slot       submitted+1, reserved+1, into tasks
//	a task is accepted into the buffer   submitted+1, waitq.buffered+1
//	a slot goes to a buffered task       waitq.buffered-1, reserved+1
//	a slot goes to a blocked caller      waitq.blocked-1, submitted+1, reserved+1, callersWaking+1
//	buffer room goes to a blocked caller waitq.blocked-1, submitted+1, waitq.buffered+1, callersWaking+1
//	a taken caller resumes               callersWaking-1
//	a call is refused                    rejected+1
//	a caller blocks, or gives up         waitq.blocked+1, waitq.blocked-1
//	a worker takes a task                reserved-1, busy+1, out of tasks
//	a worker is started for a task       running+1, live+1, then it takes it
//	an idle worker is woken to search    searching+1, out of workers
//	a woken worker looks at the ring     searching-1
//	an idle worker is handed the task    reserved-1, busy+1, out of workers, onWay+1
//	a handed worker wakes                onWay-1
//	a worker parks                       into workers
//	a task returns                       completed+1, busy-1
//	a task panics                        panicked+1, busy-1, running-1
//	a worker is told to stop, or leaves  running-1, stopping+1
//	a stopping worker stays              stopping-1, running+1
//	a worker is counted out              stopping-1 (not after a panic), live-1
//	the purge goroutine starts, exits    live+1, live-1
//	the pace timer is set, fires         live+1, live-1 (pace.go)
//	the pace timer is stopped            live-1
//	it is disowned, too late to stop     paceOrphans+1; it fires: -1, live-1
//	Pause, Resume, a new rate limit      paused, gated; nothing else
type poolCore[T any] struct {
	// The fields up to the first pad are written by every task, under the
	// lock; the next group is read by every task and written only by Tune,
	// Release and Reboot; the last by the slow paths. The pads keep the
	// groups on separate cache lines, so that a task's writes do not evict
	// the read-mostly fields from the other cores' caches.

	// lock guards the fields below up to the first pad.
	lock spinLock

	tasks   ring[T]         // tasks that hold a slot, not yet taken by a worker, FIFO
	stamps  ring[taskStamp] // their stamps, in step with tasks; only if timed
	workers workerQueue[T]  // parked idle workers

	// waitq is the waiting work, by priority level: buffered tasks, and
	// blocked callers each with its task. It holds work only while no slot
	// is free, and blocked callers only while the buffer is full too.
	waitq waitQueue[T]

	// busy counts the tasks workers have taken and not finished.
	// running == busy + idle (workers.len) + searching.
	busy int

	// reserved counts the tasks in the ring, each of which holds a worker
	// slot. Invariants: busy+reserved <= capacity but after a shrinking
	// Tune; waitq.buffered <= queueSize; and if anything waits in waitq, no
	// slot is free (busy+reserved >= capacity).
	reserved int

	// searching counts the workers woken from the idle queue that have not
	// yet looked at the ring. The wake rule (kickLocked) keeps one on its
	// way while reserved tasks remain: reserved > 0 and searching == 0
	// only when no worker is idle.
	searching int

	// wokenRun is a moving average of the time from a worker's wake-up (or
	// its wake-up of a waiting caller) to the end of the task it took, in
	// ns: the wake rule's measure of whether tasks block, and of whether
	// they are long (noteWokenRunLocked and afterWakeLocked, wake.go).
	// blocking is set while it is over blockingRun, for the readers
	// without the lock.
	wokenRun int64
	blocking atomic.Bool

	// wokenSamples counts the samples of wokenRun, for the tests.
	wokenSamples uint64

	// onWay counts the workers woken with a task handed to them that have
	// not yet started it, and kickWanted is set when kickLocked left
	// reserved tasks to one of them to kick for (the wake rule, wake.go).
	// Both change under the lock, but for onWay's decrement and
	// kickWanted's read by the woken worker.
	onWay      atomic.Int32
	kickWanted atomic.Bool

	// stopping counts the workers that have stopped being active (told to
	// stop, or leaving on their own) and have not yet been counted out. They
	// still hold a place in the goroutine bound
	//
	//	running + stopping <= capacity
	//
	// within which alone new workers start (canSpawnLocked). It is exceeded
	// after a shrinking Tune, until the busy workers above the new capacity
	// finish their task, and not kept by a worker whose task panicked: that
	// one leaves running at once (failed), so that the panic costs no
	// capacity while its PanicHandler runs. A task that finds every place
	// held by stopping workers is taken by one of them (leaveOrStay), so it
	// does not wait for them to exit.
	stopping int

	// Counters for Stats, kept under the lock that every path through the
	// pool takes anyway, so that counting costs no extra atomic per task.
	submitted, completed, panicked, dropped uint64

	// live counts the goroutines the pool has started (workers and the purge
	// goroutine) that have not been counted out: live >= running + stopping,
	// plus one while purgeAlive, plus one while paceArmed (the timer stands
	// for the goroutines it will start), plus paceOrphans. allExited, when
	// non-nil, is closed when the pool is drained (drainedLocked): what
	// ReleaseTimeout waits on.
	live      int
	allExited chan struct{}

	// released, when non-nil, is closed when the pool is released (close):
	// what WaitReleased waits on while the pool is open.
	released chan struct{}

	// departing counts the goroutines counted out of live that have not
	// yet returned from their body (departLocked, waitDeparted); atomic,
	// since its decrement is the last thing such a goroutine runs, after
	// it has released the lock.
	departing atomic.Int32

	// purgeDeparting is set while the purge goroutine is departing, so
	// that a new one starts only once it has returned (startPurgeLocked).
	purgeDeparting atomic.Bool

	// purgeStop is the stop channel of the purge generation (purge.go):
	// closed by Release; nil if no generation runs. purgeAlive is set while
	// a purge goroutine has started and not exited (it may outlive its
	// generation), and lastTick is the time of its last tick, in ns.
	purgeStop  chan struct{}
	purgeAlive bool
	lastTick   int64

	// The gate (pace.go). A task starts only while gated is false, or the
	// pool is not paused and bucket gives it a token; gated is paused or a
	// rate limit, so that an open pool pays one test of it. paceArmed is set
	// while a timer is set to admit waiting work when the next token is
	// there, and paceStop stops it; paceGen changes when the timer is
	// disowned (disownPaceLocked), and paceOrphans counts the disowned
	// timers that were too late to stop and will still fire. pauseIdle,
	// when non-nil, is closed when busy+reserved drops to 0: what Pause
	// waits on.
	gated       bool
	paused      bool
	bucket      tokenBucket
	paceArmed   bool
	paceGen     uint64
	paceStop    func() bool
	paceOrphans int
	pauseIdle   chan struct{}

	_ cacheLinePad

	// These are written only with lock held and may be read without it.
	capacity   atomic.Int32 // -1 means unlimited
	closed     atomic.Bool
	pausedFlag atomic.Bool // paused, for Paused()

	queueSize int                   // Options.QueueSize: negative is unbounded
	fn        func(*goWorker[T], T) // applied to every task, on the worker w
	opts      *Options              // read-only after init

	// timed is set if tasks are timed: the pool has an observer (obs),
	// adapts its capacity (adaptive) or has overload control (ovl). Without
	// any of them no clock is read on the task path.
	timed bool
	obs   Observer

	// ovl, if set, is the overload control: a queue timeout or a queue
	// target (overload.go). It is used under lock.
	ovl *overloadCtl

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

	rejected atomic.Uint64 // written without the lock

	// callersWaking counts the blocked callers whose tasks were accepted
	// and that have not yet resumed: the waker increments it under the
	// lock, the caller decrements it as it resumes (yieldToCallers).
	callersWaking atomic.Int32

	// workerCache recycles the goWorker of an exited goroutine, channel
	// included, for the next one the pool starts.
	workerCache sync.Pool

	// waiterCache recycles the waiters of blocked callers that returned.
	waiterCache sync.Pool
}

// setCapacityLocked sets the capacity to size (-1: unlimited), and how
// the waiters of the pool's lock yield: a pool of more than
// largePoolPerProc workers per P, or an unlimited one, has them yield
// their goroutine from the start (spinLock). It requires p.lock held, or
// the pool not yet shared.
func (p *poolCore[T]) setCapacityLocked(size int) {
	p.capacity.Store(int32(size))
	p.lock.setGoroutineYield(size < 0 || size > largePoolPerProc*runtime.GOMAXPROCS(0))
}

// largePoolPerProc is the number of workers per P above which the pool's
// lock waiters yield their goroutine rather than their thread
// (setCapacityLocked).
const largePoolPerProc = 4

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
	if opts.PriorityAging < 0 {
		return ErrInvalidPriorityAging
	}
	if err := checkRateLimit(opts.RateLimit, opts.RateBurst); err != nil {
		return err
	}
	if opts.QueueTimeout < 0 {
		return ErrInvalidQueueTimeout
	}
	if opts.QueueTarget < 0 || opts.QueueTargetInterval < 0 {
		return ErrInvalidQueueTarget
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
	p.workers = newWorkerQueue[T](opts.PreAlloc, size)
	p.queueSize = opts.QueueSize
	p.setCapacityLocked(size)
	p.fn = fn
	p.opts = opts
	p.obs = opts.Observer
	p.ovl = newOverloadCtl(opts)
	p.timed = p.obs != nil || p.adaptive != nil || p.ovl != nil
	p.waitq.init(p.timed, p.ovl != nil, int64(opts.PriorityAging))
	p.bucket.set(opts.RateLimit, opts.RateBurst, p.clockNow())
	p.gated = p.bucket.on()
	return nil
}
