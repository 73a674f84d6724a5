// Package ants is a goroutine pool: it runs tasks on a bounded set of
// recycled goroutines, so that a burst of work cannot start a goroutine per
// task, and idle goroutines are reclaimed after a while.
//
// It is a drop-in replacement for github.com/panjf2000/ants/v2 (v2.12.1):
// the same names, signatures, errors and behaviour, so switching is a change
// of import path. On top of that it adds context-aware and non-waiting
// submission (SubmitContext, TrySubmit), groups that wait for their tasks and
// return the first error or typed results (Group, ResultGroup), a task buffer
// (WithQueueSize), and counters (Stats). Futures (Go), ordered streams
// (Stream) and per-key order (Keyed) run on any pool, and sub-pools
// (NewSubpool) give one part of a program a limit of its own inside it, so
// that one bounded pool can serve a whole program. WorkerPool gives each
// worker state of its own across tasks (tunny's model, typed), on the same
// engine.
//
// What it costs, measured on a 2-core machine (BENCHMARKS.md): handing a
// no-op task to a pool of 1000 workers takes about 100-125 ns, from 1 to 64
// submitters, with or without a task buffer: less than a buffered channel of
// workers (145-160 ns) and a seventh to a tenth of ants (700-1200 ns). Tasks go through
// one ring, and busy workers take the next one without parking. A pool that
// is always full, because it has as many workers as cores, makes every
// caller wait on a sync.Cond: 180-1200 ns a task, against 120-830 ns for a
// channel of workers. Invoke and the generic Invoke allocate nothing per
// task, Submit nothing beyond the caller's closure, and Stats adds no
// measurable cost. A sub-pool's own bookkeeping adds about 55 ns a task and
// allocates nothing. Go adds two allocations (the Future and the task's
// closure, about 110 bytes) and a Stream's Go two (its place in the order
// and the closure); each costs a few hundred ns more than Submit.
// Keyed.Submit allocates nothing once warmed up; for an idle key it costs a
// few hundred ns more than Submit, and for a busy key, whose task only joins
// the key's queue, about 100 ns. WorkerPool.Process allocates nothing once
// warmed up; a no-op call and its wait for the result take 700-900 ns on a
// busy 2-core machine, within 20% of a generic Invoke whose task replies on
// a channel.
//
// Differences from ants that a program could notice: importing the package
// starts no goroutine, and an idle pool holds none; Submit(nil) returns
// ErrNilTask; PoolWithFunc.Invoke(nil) calls the function with nil; a
// shrinking Tune binds at once; Running counts a worker told to stop (by the
// purge, Release or a shrinking Tune) out at once, so it never exceeds Cap
// outside a shrinking Tune; Reboot does not wait for the workers of the
// released pool; MultiPool release errors wrap the member pools' errors
// (errors.Is(err, ErrTimeout)); and MultiPool has a Release method.
package ants

import (
	"context"
	"log"
	"math"
	"os"
	"sync"
	"time"
)

const (
	// DefaultAntsPoolSize is the capacity of the package-level default pool.
	DefaultAntsPoolSize = math.MaxInt32

	// DefaultCleanIntervalTime is the expiry of idle workers when
	// Options.ExpiryDuration is zero.
	DefaultCleanIntervalTime = time.Second
)

const (
	// OPENED is the state of a pool that accepts tasks.
	OPENED = iota

	// CLOSED is the state of a released pool.
	CLOSED
)

// Logger receives a pool's messages; *log.Logger satisfies it.
type Logger interface {
	// Printf must have the semantics of log.Printf.
	Printf(format string, args ...any)
}

var defaultLogger Logger = log.New(os.Stderr, "[ants]: ", log.LstdFlags|log.Lmsgprefix|log.Lmicroseconds)

// The default pool is created on first use, not at init, so that importing
// the package starts nothing. NewPool itself starts no goroutine either.
var (
	defaultPoolOnce sync.Once
	defaultPoolPtr  *Pool
)

func defaultPool() *Pool {
	defaultPoolOnce.Do(func() {
		defaultPoolPtr, _ = NewPool(DefaultAntsPoolSize)
	})
	return defaultPoolPtr
}

// Submit submits a task to the default pool; see Pool.Submit.
func Submit(task func()) error { return defaultPool().Submit(task) }

// SubmitContext submits a task to the default pool; see Pool.SubmitContext.
func SubmitContext(ctx context.Context, task func()) error {
	return defaultPool().SubmitContext(ctx, task)
}

// TrySubmit submits a task to the default pool; see Pool.TrySubmit.
func TrySubmit(task func()) error { return defaultPool().TrySubmit(task) }

// Running returns the number of workers of the default pool.
func Running() int { return defaultPool().Running() }

// Cap returns the capacity of the default pool.
func Cap() int { return defaultPool().Cap() }

// Free returns the number of workers the default pool can still start.
func Free() int { return defaultPool().Free() }

// Release closes the default pool; see Pool.Release.
func Release() { defaultPool().Release() }

// ReleaseTimeout closes the default pool and waits for its goroutines; see
// Pool.ReleaseTimeout.
func ReleaseTimeout(timeout time.Duration) error { return defaultPool().ReleaseTimeout(timeout) }

// ReleaseContext closes the default pool and waits for its goroutines; see
// Pool.ReleaseContext.
func ReleaseContext(ctx context.Context) error { return defaultPool().ReleaseContext(ctx) }

// Reboot reopens the default pool after a release.
func Reboot() { defaultPool().Reboot() }
