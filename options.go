package ants

import (
	"context"
	"time"
)

// Option sets one field of Options. Options are applied in order, so a later
// Option overrides an earlier one that sets the same field, and WithOptions
// overrides everything before it.
type Option func(opts *Options)

// Options configures a pool. The zero value is a valid configuration: a
// blocking pool whose idle workers expire after DefaultCleanIntervalTime.
type Options struct {
	// ExpiryDuration is how long a worker may stay idle before the purge
	// goroutine stops it; the purge also runs at this period. An idle worker
	// is stopped after between one and two ExpiryDurations. Zero means
	// DefaultCleanIntervalTime; negative is ErrInvalidPoolExpiry unless
	// DisablePurge is set.
	ExpiryDuration time.Duration

	// PreAlloc keeps idle workers in a ring queue allocated up front for the
	// pool's capacity instead of a growing stack. It needs a positive
	// capacity, and such a pool cannot be tuned.
	PreAlloc bool

	// MaxBlockingTasks limits how many callers may wait in Submit or Invoke
	// at once; the next one gets ErrPoolOverload. 0 means no limit; a
	// negative value, as in ants, lets no caller wait.
	MaxBlockingTasks int

	// Nonblocking makes Submit and Invoke return ErrPoolOverload instead of
	// waiting when the pool is full. It makes MaxBlockingTasks irrelevant.
	Nonblocking bool

	// PanicHandler is called with the value of a task's panic, on the worker
	// goroutine, which then exits (as in ants); by then the worker has left
	// Running() and its capacity has gone to any waiting caller. If nil, the
	// panic value and stack are written to Logger.
	PanicHandler func(any)

	// Logger receives the pool's messages. If nil, they go to standard error
	// with the prefix "[ants]: ".
	Logger Logger

	// DisablePurge keeps idle workers until Release: no purge goroutine runs
	// and ExpiryDuration is ignored.
	DisablePurge bool

	// QueueSize is the capacity of the pool's task buffer. When every worker
	// is busy, up to QueueSize tasks wait in a buffer, ordered by priority
	// level and then arrival (ContextWithPriority), and Submit returns nil
	// at once; only when the buffer is full too does Submit wait (or fail
	// under Nonblocking or MaxBlockingTasks). Negative means unbounded;
	// 0, the default, means no buffer, as in ants. Buffered tasks are
	// accepted tasks: they run even if the pool is released meanwhile.
	QueueSize int

	// MinWorkers is how many workers the purge keeps alive however long
	// they idle, so that what they hold (a WorkerPool's Worker, warm
	// stacks) survives quiet periods. Workers still start only when tasks
	// need them, and Release stops them all. Above the capacity it is the
	// capacity; negative is an error (ErrInvalidMinWorkers). Each member pool
	// of a MultiPool keeps MinWorkers of its own.
	MinWorkers int

	// Observer, if not nil, is told the wait and run time of every task the
	// pool runs (see Observer), on the worker goroutine that ran it. If nil,
	// the pool reads no clock for it.
	Observer Observer

	// Adaptive, if not nil, lets the pool set its own capacity between
	// Adaptive.Min and Adaptive.Max, starting from the size given to the
	// constructor clamped into that range; see AdaptiveCapacity. It needs
	// a positive size and no PreAlloc, else the constructor returns
	// ErrInvalidAdaptiveCapacity.
	Adaptive *AdaptiveCapacity

	// PriorityAging makes waiting work gain one priority level for every
	// PriorityAging it has waited (see WithPriorityAging). Zero means strict
	// levels; negative is ErrInvalidPriorityAging.
	PriorityAging time.Duration

	// RateLimit and RateBurst limit how fast the pool starts tasks: at most
	// RateLimit a second on average and RateBurst in a row (see
	// WithRateLimit). RateLimit <= 0 or +Inf means no limit.
	RateLimit float64
	RateBurst int

	// QueueTimeout drops waiting work that has waited this long without
	// getting a worker (see WithQueueTimeout). Zero means no timeout;
	// negative is ErrInvalidQueueTimeout.
	QueueTimeout time.Duration

	// QueueTarget and QueueTargetInterval turn on CoDel with adaptive LIFO
	// for waiting work (see WithQueueTarget). A zero QueueTarget is off; a
	// zero interval is DefaultQueueTargetInterval; negative values are
	// ErrInvalidQueueTarget.
	QueueTarget         time.Duration
	QueueTargetInterval time.Duration

	// DropHandler, if not nil, is told of each plain task the pool drops
	// before it ran (see WithDropHandler).
	DropHandler func(ctx context.Context, task any, err error)

	// FlowWeight, if not nil, gives each flow its weight (see
	// WithFlowWeights); nil weighs every flow 1.
	FlowWeight func(flow string) int

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

// WithExpiryDuration sets Options.ExpiryDuration.
func WithExpiryDuration(expiryDuration time.Duration) Option {
	return func(opts *Options) {
		opts.ExpiryDuration = expiryDuration
	}
}

// WithPreAlloc sets Options.PreAlloc.
func WithPreAlloc(preAlloc bool) Option {
	return func(opts *Options) {
		opts.PreAlloc = preAlloc
	}
}

// WithMaxBlockingTasks sets Options.MaxBlockingTasks. It has no effect
// together with WithNonblocking(true); with WithQueueSize, callers wait (and
// count against it) only once the buffer is full.
func WithMaxBlockingTasks(maxBlockingTasks int) Option {
	return func(opts *Options) {
		opts.MaxBlockingTasks = maxBlockingTasks
	}
}

// WithNonblocking sets Options.Nonblocking. A task buffer (WithQueueSize)
// still takes tasks first; only a full buffer makes Submit fail.
//
// With a rate limit (WithRateLimit), a task that finds a free worker but no
// token waits as in a full pool, so a Nonblocking pool refuses it with
// ErrPoolOverload (once its buffer, if any, is full) even while Free()
// reports free workers: the error means that the task cannot start now.
func WithNonblocking(nonblocking bool) Option {
	return func(opts *Options) {
		opts.Nonblocking = nonblocking
	}
}

// WithPanicHandler sets Options.PanicHandler. Group tasks never reach it:
// their panics become a *PanicError from Wait.
func WithPanicHandler(panicHandler func(any)) Option {
	return func(opts *Options) {
		opts.PanicHandler = panicHandler
	}
}

// WithLogger sets Options.Logger.
func WithLogger(logger Logger) Option {
	return func(opts *Options) {
		opts.Logger = logger
	}
}

// WithDisablePurge sets Options.DisablePurge; with it, WithExpiryDuration
// has no effect.
func WithDisablePurge(disable bool) Option {
	return func(opts *Options) {
		opts.DisablePurge = disable
	}
}

// WithQueueSize sets Options.QueueSize: n > 0 buffers up to n tasks, n < 0
// buffers without bound, 0 disables the buffer. The buffer is consulted
// before Nonblocking and MaxBlockingTasks.
func WithQueueSize(n int) Option {
	return func(opts *Options) {
		opts.QueueSize = n
	}
}

// WithObserver sets Options.Observer. A pool has one observer: a later
// WithObserver replaces an earlier one, and WithObserver(nil) removes it; to
// feed several, give it an Observer that calls each. Every shard of a
// MultiPool reports to it. Panics are observed whether or not a
// PanicHandler is set (WithPanicHandler).
func WithObserver(o Observer) Option {
	return func(opts *Options) {
		opts.Observer = o
	}
}

// WithMinWorkers sets Options.MinWorkers: the purge never stops a worker
// that would leave fewer than n alive. It has no effect with DisablePurge,
// which stops none anyway; it does not keep workers across Release, a
// shrinking Tune, or a panic that ends a worker.
func WithMinWorkers(n int) Option {
	return func(opts *Options) {
		opts.MinWorkers = n
	}
}

// WithAdaptiveCapacity sets Options.Adaptive to a copy of a. Tune still
// sets the capacity, clamped into [a.Min, a.Max]; every other option
// applies as to a pool of the capacity in force at the moment.
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
