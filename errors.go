package ants

import "errors"

// The sentinel errors. The first nine keep the names and messages of
// github.com/panjf2000/ants/v2 so that errors.Is and string comparisons in
// existing programs keep working; the rest are new and use lowercase messages.
var (
	// ErrLackPoolFunc is returned by NewPoolWithFunc, NewPoolWithFuncGeneric
	// and their MultiPool twins when the pool function is nil, and by
	// NewWorkerPool when newWorker is nil.
	ErrLackPoolFunc = errors.New("must provide function for pool")

	// ErrInvalidPoolExpiry is returned by the constructors when
	// ExpiryDuration is negative and purging is enabled.
	ErrInvalidPoolExpiry = errors.New("invalid expiry for pool")

	// ErrPoolClosed is returned by Submit, Invoke, WorkerPool.Process and
	// their variants after Release, and by ReleaseTimeout and ReleaseContext
	// on a pool that is already closed.
	ErrPoolClosed = errors.New("this pool has been closed")

	// ErrPoolOverload is returned by Submit, Invoke and WorkerPool.Process
	// (and their variants) when the pool is full and the caller may not
	// wait: Nonblocking is set, MaxBlockingTasks callers are already
	// waiting, or the call is TrySubmit / TryInvoke.
	ErrPoolOverload = errors.New("too many goroutines blocked on submit or Nonblocking is set")

	// ErrInvalidPreAllocSize is returned by the constructors when PreAlloc is
	// set on an unlimited pool (size <= 0).
	ErrInvalidPreAllocSize = errors.New("can not set up a negative capacity under PreAlloc mode")

	// ErrTimeout is returned by ReleaseTimeout when the pool's goroutines did
	// not all exit in time.
	ErrTimeout = errors.New("operation timed out")

	// ErrInvalidPoolIndex is returned by the MultiPool ...ByIndex getters for
	// an index out of range.
	ErrInvalidPoolIndex = errors.New("invalid pool index")

	// ErrInvalidLoadBalancingStrategy is returned by the MultiPool
	// constructors for a strategy other than RoundRobin or LeastTasks.
	ErrInvalidLoadBalancingStrategy = errors.New("invalid load-balancing strategy")

	// ErrInvalidMultiPoolSize is returned by the MultiPool constructors when
	// the number of member pools is not positive, or above 65536.
	ErrInvalidMultiPoolSize = errors.New("invalid size for multiple pool")

	// ErrNilTask is returned by Submit, SubmitContext and TrySubmit (and by
	// Group.Go through Wait) for a nil task. ants accepted a nil task and
	// silently lost a worker to it.
	ErrNilTask = errors.New("ants: nil task")

	// ErrInvalidPoolSize is returned by NewWorkerPool for a size that is
	// not positive: a WorkerPool is always bounded.
	ErrInvalidPoolSize = errors.New("ants: pool size must be positive")

	// ErrInvalidMinWorkers is returned by the constructors when MinWorkers
	// is negative.
	ErrInvalidMinWorkers = errors.New("ants: negative MinWorkers")

	// errNilWorker is the value of the *PanicError a WorkerPool task gets
	// when newWorker returned nil.
	errNilWorker = errors.New("ants: newWorker returned a nil Worker")

	// errGoexit is the value of the *PanicError that a task whose panic
	// becomes one (a WorkerPool's Process, a wrapper's task: runWrapped)
	// gets when it called runtime.Goexit.
	errGoexit = errors.New("ants: task called runtime.Goexit")

	// ErrInvalidAdaptiveCapacity is returned by the constructors when
	// Options.Adaptive has Min < 1, Max < Min or a negative Window, or is
	// set on an unlimited pool (size <= 0) or with PreAlloc.
	ErrInvalidAdaptiveCapacity = errors.New("ants: invalid adaptive capacity")

	// ErrInvalidPriorityAging is returned by the constructors when
	// PriorityAging is negative.
	ErrInvalidPriorityAging = errors.New("ants: negative priority aging")

	// ErrInvalidRateLimit is returned by the constructors and SetRateLimit
	// for a NaN rate, or a burst below 1 with a limit.
	ErrInvalidRateLimit = errors.New("ants: invalid rate limit")

	// ErrQueueTimeout is the error of work dropped after waiting too long
	// (WithQueueTimeout, WithQueueTarget).
	ErrQueueTimeout = errors.New("ants: task dropped after waiting too long for a worker")

	// ErrInvalidQueueTimeout is returned by the constructors when
	// QueueTimeout is negative.
	ErrInvalidQueueTimeout = errors.New("ants: negative queue timeout")

	// ErrInvalidQueueTarget is returned by the constructors when
	// QueueTarget or QueueTargetInterval is negative.
	ErrInvalidQueueTarget = errors.New("ants: negative queue target or interval")
)
