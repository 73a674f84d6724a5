package ants

import (
	"context"
	"time"
)

// WithQueueTimeout drops waiting work that has waited d without getting a
// worker: a buffered task is dropped and never runs; a caller blocked in
// Submit, Invoke or Process returns ErrQueueTimeout. 0 (the default) is no
// timeout; d < 0 is ErrInvalidQueueTimeout from every constructor that
// takes options.
//
// A buffered task is dropped when the pool next looks at it after its time
// is up: when a slot frees for it, or when a new task finds the buffer full
// and its oldest tasks expired. A blocked caller's timer is its own. A d
// shorter than the clock's resolution drops every task that had to wait.
// With either option on, a buffered task submitted with a context that ends
// before it gets a worker is dropped at once, with the context's error, and
// its room in the buffer goes to new work (see the package doc, Overload).
func WithQueueTimeout(d time.Duration) Option {
	return func(opts *Options) {
		opts.QueueTimeout = d
	}
}

// WithQueueTarget turns on CoDel for waiting work, with adaptive LIFO:
// the pool is overloaded from the moment the shortest wait of the work that
// got a worker over the last interval was above target, until an interval
// in which some work got a worker within target, or the waiting work runs
// out. While it is overloaded, work that has waited more than 2*target
// when its turn comes is dropped instead, and within a priority level the
// newest waiting work gets a worker first. Otherwise the order is as
// without it, and nothing is dropped by this rule. target == 0 (the
// default) is off; interval == 0 is 100 ms; negative values are
// ErrInvalidQueueTarget from every constructor that takes options.
//
// While the pool is overloaded, the oldest buffered tasks of a level that
// have waited more than 2*target are dropped as well when a slot goes to
// that level, since under LIFO their turn would not come before the
// overload ends. A target above a queue timeout (WithQueueTimeout) leaves
// the timeout to drop first.
func WithQueueTarget(target, interval time.Duration) Option {
	return func(opts *Options) {
		opts.QueueTarget = target
		opts.QueueTargetInterval = interval
	}
}

// DefaultQueueTargetInterval is the interval of WithQueueTarget when it is
// given as 0.
const DefaultQueueTargetInterval = 100 * time.Millisecond

// WithDropHandler sets Options.DropHandler: handler is called once for each
// plain task the pool dropped before it ran (a task of Submit,
// SubmitContext, TrySubmit or Invoke and their variants), with the context
// it was submitted with (context.Background() for the calls that take
// none), the task (the func() of Submit, the argument of Invoke) and the
// drop's error: ErrQueueTimeout, or the context's error. It is called
// after the pool's lock is released, on the goroutine that dropped the
// task (a worker, a submitter, or the one on which the context's end is
// handled), and should be fast. A task of a wrapper (Go, groups, Map,
// streams, Keyed, WorkerPool.Process) is not passed to it: its error goes
// to the wrapper's caller instead. A handler that panics does so on that
// goroutine; the pool's counts stay exact.
func WithDropHandler(handler func(ctx context.Context, task any, err error)) Option {
	return func(opts *Options) {
		opts.DropHandler = handler
	}
}

// DropObserver is an Observer that is also told of the tasks the pool
// accepted and dropped before they ran (WithQueueTimeout, WithQueueTarget,
// a context that ended while its task waited in the buffer). An Observer
// that does not implement it is told of no drop and works as before.
type DropObserver interface {
	Observer
	// TaskDropped is called once for each dropped task, with the time it
	// waited from its submit call, and the error it was dropped with
	// (ErrQueueTimeout or its context's error). It is called after the
	// pool's lock is released, on the goroutine that dropped the task.
	TaskDropped(wait time.Duration, err error)
}
