package ants

import (
	"context"
	"time"
)

// Option sets one field of Options. Options are applied in order, so a later
// Option overrides an earlier one that sets the same field, and WithOptions
// overrides everything before it.
type Option func(opts *Options)

// Options configures a pool; each field's With option says what it does.
// The zero value is a valid configuration: a blocking pool whose idle
// workers expire after DefaultCleanIntervalTime.
type Options struct {
	ExpiryDuration      time.Duration                                  // how long a worker may idle (WithExpiryDuration)
	PreAlloc            bool                                           // allocate the queue of idle workers up front (WithPreAlloc)
	MaxBlockingTasks    int                                            // how many callers may wait at once (WithMaxBlockingTasks)
	Nonblocking         bool                                           // refuse instead of waiting when full (WithNonblocking)
	PanicHandler        func(any)                                      // receives the panics of tasks (WithPanicHandler)
	Logger              Logger                                         // nil: standard error, prefix "[ants]: " (WithLogger)
	DisablePurge        bool                                           // keep idle workers until Release (WithDisablePurge)
	QueueSize           int                                            // capacity of the task buffer (WithQueueSize)
	MinWorkers          int                                            // workers the purge keeps alive (WithMinWorkers)
	Observer            Observer                                       // told each task's wait and run time (WithObserver)
	Adaptive            *AdaptiveCapacity                              // the pool sets its own capacity (WithAdaptiveCapacity)
	PriorityAging       time.Duration                                  // waiting work gains levels (WithPriorityAging)
	RateLimit           float64                                        // tasks started a second (WithRateLimit)
	RateBurst           int                                            // tasks started in a row (WithRateLimit)
	QueueTimeout        time.Duration                                  // drop work that waited this long (WithQueueTimeout)
	QueueTarget         time.Duration                                  // CoDel's target (WithQueueTarget)
	QueueTargetInterval time.Duration                                  // CoDel's interval (WithQueueTarget)
	DropHandler         func(ctx context.Context, task any, err error) // told of each plain task dropped (WithDropHandler)
	FlowWeight          func(flow string) int                          // gives each flow its weight (WithFlowWeights)

	// clock drives expiry; nil means the system clock. Tests replace it.
	clock clock
}

// loadOptions applies options over the zero Options. Defaults that depend on
// validation (expiry, logger, clock) are filled in by poolCore.init.
func loadOptions(options ...Option) *Options {
	opts := new(Options)
	for _, option := range options {
		if option != nil {
			option(opts)
		}
	}
	return opts
}

// WithOptions replaces the whole Options struct, including fields set by
// Options before it; Options after it still apply.
func WithOptions(options Options) Option {
	return func(opts *Options) {
		*opts = options
	}
}

// WithExpiryDuration sets Options.ExpiryDuration: the purge runs at that
// period and stops a worker idle for one to two periods. Zero means
// DefaultCleanIntervalTime; negative is ErrInvalidPoolExpiry unless
// DisablePurge is set.
func WithExpiryDuration(expiryDuration time.Duration) Option {
	return func(opts *Options) {
		opts.ExpiryDuration = expiryDuration
	}
}

// WithPreAlloc sets Options.PreAlloc: idle workers are kept in a ring
// allocated up front for the capacity instead of a growing stack. It needs a
// positive size (ErrInvalidPreAllocSize), and the pool cannot be tuned.
func WithPreAlloc(preAlloc bool) Option {
	return func(opts *Options) {
		opts.PreAlloc = preAlloc
	}
}

// WithMaxBlockingTasks sets Options.MaxBlockingTasks: at most that many
// callers wait in Submit or Invoke at once, and the next gets
// ErrPoolOverload. 0 means no limit; negative, as in ants, lets none wait.
// It has no effect with Nonblocking; with a task buffer, callers wait only
// once it is full.
func WithMaxBlockingTasks(maxBlockingTasks int) Option {
	return func(opts *Options) {
		opts.MaxBlockingTasks = maxBlockingTasks
	}
}

// WithNonblocking sets Options.Nonblocking: a full pool, with its task
// buffer (if any) full too, refuses with ErrPoolOverload instead of waiting.
// With a rate limit, a task that finds no token is refused so even while
// Free() reports free workers: the error means it cannot start now.
func WithNonblocking(nonblocking bool) Option {
	return func(opts *Options) {
		opts.Nonblocking = nonblocking
	}
}

// WithPanicHandler sets Options.PanicHandler: it is called with a task's
// panic value on the worker goroutine, which then exits, as in ants, having
// left Running() and passed its capacity on. If nil, the value and stack go
// to the Logger. Wrappers' tasks never reach it (see PanicError).
func WithPanicHandler(panicHandler func(any)) Option {
	return func(opts *Options) {
		opts.PanicHandler = panicHandler
	}
}

// WithLogger sets Options.Logger; nil means the default logger, which
// writes to standard error (see Options.Logger).
func WithLogger(logger Logger) Option {
	return func(opts *Options) {
		opts.Logger = logger
	}
}

// WithDisablePurge sets Options.DisablePurge: idle workers are kept until
// Release, no purge goroutine runs, and ExpiryDuration has no effect.
func WithDisablePurge(disable bool) Option {
	return func(opts *Options) {
		opts.DisablePurge = disable
	}
}

// WithQueueSize sets Options.QueueSize: when every worker is busy, up to n
// tasks wait in a buffer, by priority level then arrival, and Submit returns
// nil at once; only a full buffer makes it wait, or fail under Nonblocking or
// MaxBlockingTasks. n < 0 is unbounded; 0, the default, is no buffer, as in
// ants. Buffered tasks are accepted: they run even if the pool is released.
func WithQueueSize(n int) Option {
	return func(opts *Options) {
		opts.QueueSize = n
	}
}

// WithObserver sets Options.Observer (see Observer): a pool has one, which a
// later WithObserver replaces, and nil removes. Every member pool of a
// MultiPool reports to it, and it sees panics whatever the PanicHandler.
func WithObserver(o Observer) Option {
	return func(opts *Options) {
		opts.Observer = o
	}
}

// WithMinWorkers sets Options.MinWorkers: the purge never stops a worker
// that would leave fewer than n alive, so what they hold (a WorkerPool's
// Worker) survives quiet periods. Workers still start only when needed, and
// Release, a shrinking Tune or a panic still ends them. n above the capacity
// is the capacity; negative is ErrInvalidMinWorkers. Each member pool of a
// MultiPool keeps n of its own.
func WithMinWorkers(n int) Option {
	return func(opts *Options) {
		opts.MinWorkers = n
	}
}

// WithAdaptiveCapacity sets Options.Adaptive to a copy of a (see
// AdaptiveCapacity), starting from the constructor's size clamped into
// [a.Min, a.Max]. It needs a positive size and no PreAlloc, else
// ErrInvalidAdaptiveCapacity. Tune still sets the capacity, clamped; every
// other option applies as to a pool of the capacity in force.
func WithAdaptiveCapacity(a AdaptiveCapacity) Option {
	return func(opts *Options) {
		opts.Adaptive = &a
	}
}

// withClock replaces the clock behind expiry. Tests reach it through
// export_test.go.
func withClock(c clock) Option {
	return func(opts *Options) {
		opts.clock = c
	}
}
