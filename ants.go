// Package ants runs tasks on a bounded set of recycled goroutines: a burst
// of work cannot start a goroutine per task, and idle goroutines are
// reclaimed after a while. It is a drop-in replacement for
// github.com/panjf2000/ants/v2 (v2.12.1): the same names, signatures, errors
// and behaviour, so switching is a change of import path.
//
// # Choosing
//
// A Pool (NewPool) runs the funcs given to Submit; a PoolWithFunc, or its
// generic twin, calls one function with each Invoke argument and allocates
// nothing per task; a MultiPool spreads either over several pools, for many
// submitters. Submit waits while the pool is full, SubmitContext until a
// context ends, TrySubmit never; WithQueueSize gives the pool a task buffer.
// To shut down without losing work, ReleaseTimeout and ReleaseContext
// release the pool and wait for every task it accepted; WaitReleased waits
// for a pool that something else released.
// Beyond that:
//
//   - a task's result: Go, which returns a Future;
//   - the first error of a set of tasks: Group;
//   - the typed results of a set, in order: ResultGroup;
//   - callbacks run one at a time, in the order of their tasks: Stream;
//   - a function over a sequence, lazily, with at most a window of calls
//     in flight: Map (results in order) and MapUnordered, for range (Go
//     1.23; on Go 1.22, call the sequence with a yield function);
//   - one task at a time per key, in order: Keyed;
//   - a limit of its own for one part of a program, inside a shared pool:
//     Subpool;
//   - state per worker (a connection, a scratch buffer): WorkerPool;
//   - urgent work ahead of background work when the pool is full:
//     ContextWithPriority, and WithPriorityAging so that no level starves;
//   - one pool shared by tenants, none of whom can hold up the others with
//     a backlog: ContextWithFlow, and WithFlowWeights for shares;
//   - to hold work through a maintenance window, or start it no faster than
//     a downstream allows: Pause and Resume, WithRateLimit and SetRateLimit;
//   - a capacity the pool finds from its tasks' run time: WithAdaptiveCapacity;
//   - under load above capacity, to run the work that can still succeed
//     and drop the rest where a caller sees it: WithQueueTimeout,
//     WithQueueTarget (CoDel with adaptive LIFO) and WithDropHandler (see
//     Overload below);
//   - to watch it: Stats, WithObserver for each task's wait and run time
//     (and its drop, with a DropObserver), and NewSlogLogger for log/slog.
//
// Go, the groups, Stream, Map, Keyed and Subpool run on any Submitter: a
// Pool, a MultiPool, a Subpool, or a type of the program's own.
//
// # Overload
//
// A pool with a task buffer under load above its capacity for long builds a
// standing queue: every task waits through the whole buffer, and many run
// after their caller has given up. Two options bound the wait, and are off
// by default: WithQueueTimeout drops work that has waited too long, and
// WithQueueTarget drops it only while a queue stands (no work got a worker
// within the target over an interval), serving the newest first meanwhile,
// so that a burst shorter than the interval passes untouched. With either
// on, a buffered task whose context (SubmitContext, and every wrapper's)
// ends before it gets a worker is dropped too, with the context's error, and
// its room in the buffer goes to new work at once.
//
// A drop is never silent. A task of Submit or Invoke that is dropped is
// counted in Stats.Dropped, reported to an Observer that is a DropObserver,
// and passed to the DropHandler (WithDropHandler); a task of Go, a Group or
// ResultGroup, Map or MapUnordered, a Stream, a Keyed or a WorkerPool ends
// with the drop's error, ErrQueueTimeout or the context's, in what the
// wrapper returns. A caller blocked in Submit, Invoke or Process whose wait
// runs out returns ErrQueueTimeout, as a refusal (Stats.Rejected). So with
// these options a Submit that returned nil runs its task exactly once or
// drops it exactly once; a release still drains the buffer, dropping what
// has waited too long, and ReleaseTimeout returns nil once every accepted
// task ran or was dropped.
//
// Pool, PoolWithFunc, PoolWithFuncGeneric, WorkerPool and the MultiPools
// (each member pool on its own) take the options. A Subpool takes no options:
// its tasks wait for its own slots without a timeout, and once handed to
// its parent they are subject to the parent's, counted in the Subpool's
// Dropped too. Without a buffer (callers only) the options bound the wait of
// blocked callers. The options cost nothing when off; on, they time every
// task as an Observer does (two clock readings), and a task with a context
// that waits costs an allocation and a context.AfterFunc registration.
//
// # Cost
//
// Submit takes the pool's lock once and allocates nothing beyond the
// caller's closure; Invoke allocates nothing. Workers are reused: a busy
// worker takes the next task without parking, and an idle one is woken
// only when no other is already on its way to the work. A caller that
// finds the pool (and its buffer) full parks until there is room for its
// task, as a sender on a full channel does. Each wrapper's doc says what
// it adds.
// The benchmark report, with every figure, its machine and its command, is
// https://github.com/e62cffed/ants/blob/main/BENCHMARKS.md.
//
// # Pool methods
//
// Pool, PoolWithFunc, PoolWithFuncGeneric and WorkerPool share the methods
// below, whose own docs are one line each; a MultiPool applies them to its
// member pools (see MultiPool), and a Subpool has them with a meaning of its
// own, which each of its methods gives.
//
// Cap returns the capacity, or -1 for an unlimited pool. Running returns
// the number of workers, busy or idle. It grows before Submit returns, as in
// ants, and a worker stops counting as soon as the purge, Release or a
// shrinking Tune tells it to stop, so Running() never exceeds Cap() except
// after a shrinking Tune, until the surplus busy workers finish their tasks;
// ReleaseTimeout and ReleaseContext still wait for every goroutine to exit.
// Free returns Cap() - Running(), or -1 for an unlimited pool: negative only
// in that while after a shrinking Tune. Waiting returns the number of
// callers blocked waiting for room (in Submit, Invoke, Process and their
// variants); buffered tasks are not counted (see Stats). It takes the pool's lock once (ants reads an atomic
// copy of the count instead, which every blocked caller and its admission
// would have to store). IsClosed reports whether the pool has been released
// and not rebooted. Stats returns a snapshot of the pool's state and
// counters: they live under the lock the pool takes for every task anyway,
// so keeping them costs no atomic operation on the task path, and reading
// them takes the lock once.
//
// Tune changes the capacity. It does nothing for an unlimited pool, a
// PreAlloc pool, or size <= 0; sizes above math.MaxInt32 are taken as
// math.MaxInt32. Growing starts workers at once for waiting callers and
// buffered tasks; shrinking stops surplus idle workers at once, and busy
// workers above the new capacity exit when their task ends. Tasks accepted
// before a shrink start at once all the same, as in ants: each holds the
// slot it was given, and gets a goroutine for it.
//
// Release closes the pool: later submissions fail with ErrPoolClosed, idle
// workers stop, and blocked callers return ErrPoolClosed. It does not wait
// for busy workers; they finish their task, drain the task buffer, and exit.
// A paused pool is resumed for the buffered tasks, which still start at the
// rate limit, if one is set. Releasing a closed pool does nothing.
// ReleaseTimeout is Release followed by a wait, at most timeout, for every
// task the pool accepted to run and every goroutine of the pool to exit:
// workers still busy, and buffered tasks, those still waiting for a token of
// the rate limit included, which have no goroutine yet; it returns ErrTimeout
// if they did not finish in time. ReleaseContext is Release followed by the
// same wait until ctx is done, and then returns ctx.Err(); with a nil ctx it
// is Release and returns nil without waiting. Both return ErrPoolClosed if
// the pool was already closed. Reboot reopens a released pool; it does
// nothing to an open one. Unlike in ants it does not wait for the workers of
// the released pool: those still busy simply serve the reopened pool when
// their task ends.
//
// WaitReleased waits until the pool has been released, by this or any other
// call (Release, ReleaseTimeout, ReleaseContext, a context.AfterFunc of the
// program's), and has drained: every task it accepted has run (or been
// dropped, see WithQueueTimeout) and none of its goroutines is left, as a
// ReleaseContext that returns nil promises. It returns nil then, or
// ctx.Err() if ctx is done first; a nil ctx waits as long as it takes. It
// does not release the pool: on an open pool it waits for a release, and a
// pool rebooted meanwhile is open again. It is the wait of a shutdown that
// some other part of the program started:
//
//	context.AfterFunc(ctx, p.Release) // released when the service stops
//	...
//	p.Release() // a no-op if the context released it first
//	err := p.WaitReleased(shutdownCtx)
//
// Pause stops the pool from starting tasks. Tasks already running finish; no
// other task starts until Resume. Submitted tasks wait as they do in a full
// pool: in the buffer while it has room, otherwise their callers wait, or are
// refused where they would be refused by a full pool (Nonblocking,
// TrySubmit, MaxBlockingTasks). Pause returns nil once no task of the pool is
// running (at once, whatever ctx, if none is), or ctx.Err() if ctx is done
// first; the pool stays paused either way. Pausing a paused pool only waits.
// A nil ctx is context.Background(). Pause on a released pool returns nil at
// once and changes nothing. A task counts as running from when it is given a
// worker: one taken from the buffer just before Pause still starts, and Pause
// waits for it. The purge goes on reaping idle workers while the pool is
// paused. Pause and Resume are not counted: a Resume, or a Release, from
// another goroutine while Pause waits undoes the pause, and Pause still
// returns nil once no task runs, with the pool no longer paused. A program
// that needs the pool paused on return checks Paused, or lets one goroutine
// own the pause. Resume lets a paused pool start tasks again, in the order
// they would have started; resuming a pool that is not paused does nothing.
//
// SetRateLimit changes the rate limit at once (see WithRateLimit); it
// returns ErrInvalidRateLimit, and changes nothing, for invalid values.
// Lowering the burst drops the tokens above it; raising the rate admits
// waiting work at the new rate; removing the limit admits everything the
// slots allow. RateLimit returns the limit as last set (WithRateLimit,
// SetRateLimit): perSecond <= 0 or +Inf means none.
//
// # Differences from ants
//
// Every difference a program could notice is a fix: importing the package
// starts no goroutine, and an idle pool holds none; Submit(nil) returns
// ErrNilTask; PoolWithFunc.Invoke(nil) calls the function with nil; a
// caller blocked in Submit is woken by every event that frees capacity,
// never left for the purge tick; callers blocked at Release get
// ErrPoolClosed at once; a shrinking Tune binds at once; Running counts a
// worker told to stop (by the purge, Release or a shrinking Tune) out at
// once, so it never exceeds Cap outside a shrinking Tune; Reboot does not
// wait for the workers of the released pool; when ReleaseTimeout or
// ReleaseContext returns nil no goroutine of the pool is left; MultiPool
// release errors wrap the member pools' errors (errors.Is(err,
// ErrTimeout)); and MultiPool has a Release method. The module needs Go
// 1.22 or newer (ants v2.12.1: Go 1.19).
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

// ReleaseTimeout closes the default pool and waits for every task it
// accepted to run and every goroutine of it to exit; see
// Pool.ReleaseTimeout.
func ReleaseTimeout(timeout time.Duration) error { return defaultPool().ReleaseTimeout(timeout) }

// ReleaseContext closes the default pool and waits for every task it
// accepted to run and every goroutine of it to exit; see
// Pool.ReleaseContext.
func ReleaseContext(ctx context.Context) error { return defaultPool().ReleaseContext(ctx) }

// Reboot reopens the default pool after a release.
func Reboot() { defaultPool().Reboot() }
