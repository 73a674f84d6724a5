package ants

import "errors"

// The sentinel errors. The first nine keep the names and messages of
// github.com/panjf2000/ants/v2, for errors.Is and string comparisons.
// The constructors return the ErrInvalid... errors for the value they name.
var (
	// ErrLackPoolFunc is returned for a nil pool function, or a nil newWorker of NewWorkerPool.
	ErrLackPoolFunc = errors.New("must provide function for pool")
	// ErrInvalidPoolExpiry is returned for a negative ExpiryDuration with purging enabled.
	ErrInvalidPoolExpiry = errors.New("invalid expiry for pool")
	// ErrPoolClosed is returned by a submit after Release, and a ReleaseTimeout or ReleaseContext of a closed pool.
	ErrPoolClosed = errors.New("this pool has been closed")
	// ErrPoolOverload is returned when the pool is full and the caller may not wait (Nonblocking, MaxBlockingTasks, Try...).
	ErrPoolOverload = errors.New("too many goroutines blocked on submit or Nonblocking is set")
	// ErrInvalidPreAllocSize is returned for PreAlloc on an unlimited pool (size <= 0).
	ErrInvalidPreAllocSize = errors.New("can not set up a negative capacity under PreAlloc mode")
	// ErrTimeout is returned by ReleaseTimeout when the pool did not drain in time.
	ErrTimeout = errors.New("operation timed out")
	// ErrInvalidPoolIndex is returned by the MultiPool ...ByIndex methods for an index out of range.
	ErrInvalidPoolIndex = errors.New("invalid pool index")
	// ErrInvalidLoadBalancingStrategy is returned for a strategy other than RoundRobin or LeastTasks.
	ErrInvalidLoadBalancingStrategy = errors.New("invalid load-balancing strategy")
	// ErrInvalidMultiPoolSize is returned for a MultiPool of fewer than 1 or more than 65536 member pools.
	ErrInvalidMultiPoolSize = errors.New("invalid size for multiple pool")
	// ErrNilTask is returned for a nil task, by Submit and its variants and by the wrappers.
	ErrNilTask = errors.New("ants: nil task")
	// ErrInvalidPoolSize is returned by NewWorkerPool for a size that is not positive.
	ErrInvalidPoolSize = errors.New("ants: pool size must be positive")
	// ErrInvalidMinWorkers is returned for a negative MinWorkers.
	ErrInvalidMinWorkers = errors.New("ants: negative MinWorkers")
	// ErrInvalidAdaptiveCapacity is returned for an invalid Options.Adaptive (see WithAdaptiveCapacity).
	ErrInvalidAdaptiveCapacity = errors.New("ants: invalid adaptive capacity")
	// ErrInvalidPriorityAging is returned for a negative PriorityAging.
	ErrInvalidPriorityAging = errors.New("ants: negative priority aging")
	// ErrInvalidRateLimit is returned for a NaN rate, or a burst below 1 with a limit (also by SetRateLimit).
	ErrInvalidRateLimit = errors.New("ants: invalid rate limit")
	// ErrQueueTimeout is the error of work dropped after waiting too long (WithQueueTimeout, WithQueueTarget).
	ErrQueueTimeout = errors.New("ants: task dropped after waiting too long for a worker")
	// ErrInvalidQueueTimeout is returned for a negative QueueTimeout.
	ErrInvalidQueueTimeout = errors.New("ants: negative queue timeout")
	// ErrInvalidQueueTarget is returned for a negative QueueTarget or QueueTargetInterval.
	ErrInvalidQueueTarget = errors.New("ants: negative queue target or interval")
)

var (
	// errNilWorker is the value of the *PanicError a WorkerPool task gets
	// when newWorker returned nil.
	errNilWorker = errors.New("ants: newWorker returned a nil Worker")

	// errGoexit is the value of the *PanicError that a task whose panic
	// becomes one (a WorkerPool's Process, a wrapper's task: runWrapped)
	// gets when it called runtime.Goexit.
	errGoexit = errors.New("ants: task called runtime.Goexit")
)
