// Package ants runs tasks on a bounded set of recycled goroutines, and
// reclaims idle ones after a while. It is a drop-in replacement for
// github.com/panjf2000/ants/v2 (v2.12.1): the same names, signatures, errors
// and behaviour, so switching is a change of import path. The benchmark
// report is https://github.com/e62cffed/ants/blob/main/BENCHMARKS.md.
//
// # Choosing
//
// A Pool (NewPool) runs the funcs given to Submit; a PoolWithFunc, or its
// generic twin, calls one function with each Invoke argument and allocates
// nothing per task; a MultiPool spreads either over several pools, for many
// submitters. Submit waits while the pool is full, SubmitContext until a
// context ends, TrySubmit never; WithQueueSize gives the pool a task buffer.
// Beyond that:
//
//   - a task's result: Go, which returns a Future;
//   - the first error of a set of tasks: Group; their typed results: ResultGroup;
//   - callbacks run one at a time, in the order of their tasks: Stream;
//   - a function over a sequence, lazily, with at most a window of calls
//     in flight: Map (results in order) and MapUnordered, for range (Go
//     1.23; on Go 1.22, call the sequence with a yield function);
//   - one task at a time per key, in order: Keyed;
//   - a limit of its own for one part of a program, in a shared pool: Subpool;
//   - state per worker (a connection, a scratch buffer): WorkerPool;
//   - urgent work first when the pool is full: ContextWithPriority, and
//     WithPriorityAging so that no level starves;
//   - tenants sharing a pool, none holding up the others with a backlog:
//     ContextWithFlow, and WithFlowWeights for shares;
//   - holding work, or pacing it: Pause and Resume, WithRateLimit;
//   - shutting down without losing work: ReleaseTimeout, ReleaseContext,
//     and WaitReleased for a pool that something else released;
//   - a capacity found from the tasks' run time: WithAdaptiveCapacity;
//   - under load above capacity, to drop what cannot succeed where a caller
//     sees it: WithQueueTimeout, WithQueueTarget, WithDropHandler (Overload);
//   - to watch it: Stats, WithObserver (and DropObserver), NewSlogLogger.
//
// The wrappers run on any Submitter, a type of the program's own included.
//
// # Overload
//
// A pool with a task buffer under sustained load above its capacity builds
// a standing queue, whose tasks run after their callers gave up. Two options,
// off by default, bound the wait: WithQueueTimeout drops work that has waited
// too long, and WithQueueTarget drops it only while a queue stands, serving
// the newest first meanwhile. With either on, a buffered task whose context
// ends before it gets a worker is dropped too, with the context's error, and
// its room in the buffer goes to new work at once.
//
// A drop is never silent. A task of Submit or Invoke that is dropped is
// counted in Stats.Dropped, reported to a DropObserver and passed to the
// DropHandler; a task of a wrapper (Go, the groups, Map, Stream, Keyed,
// WorkerPool) ends with the drop's error, ErrQueueTimeout or the context's,
// in what the wrapper returns. A blocked caller whose wait runs out returns
// ErrQueueTimeout, counted in Stats.Rejected. So a Submit that returned nil
// runs its task or drops it, exactly once, and ReleaseTimeout returns nil
// once every accepted task ran or was dropped.
//
// Every pool kind takes the options (a MultiPool's member pools each on its
// own); without a buffer they bound the wait of blocked callers. A Subpool
// takes none: its tasks wait for its slots without a timeout, then are
// subject to the parent's, and counted in its own Dropped too.
//
// # Pool methods
//
// Pool, PoolWithFunc, PoolWithFuncGeneric and WorkerPool share the methods
// below; a MultiPool applies them to its member pools, and a Subpool's own
// docs give their meaning there.
//
// Cap returns the capacity, or -1 for an unlimited pool. Running returns the
// number of workers, busy or idle: it grows before Submit returns, and a
// worker stops counting once told to stop (by the purge, Release or a
// shrinking Tune), so it exceeds Cap only after a shrinking Tune, until the
// surplus busy workers finish. Free returns Cap() - Running(), or -1 for an
// unlimited pool. Waiting returns the number of callers blocked waiting for
// room, not the buffered tasks (see Stats). IsClosed reports whether the
// pool has been released and not rebooted. Stats returns a snapshot of the
// pool's state and counters.
//
// Tune changes the capacity; it does nothing for an unlimited or PreAlloc
// pool or size <= 0, and takes sizes above math.MaxInt32 as math.MaxInt32.
// Growing starts workers at once for waiting work; shrinking stops surplus
// idle workers at once and busy ones when their task ends, though tasks
// accepted before the shrink still start, as in ants.
//
// Release closes the pool: later submissions and blocked callers get
// ErrPoolClosed, and idle workers stop. It does not wait: busy workers
// finish their task, drain the task buffer (a paused pool is resumed for it,
// at the rate limit if set), and exit. Releasing a closed pool does nothing.
// ReleaseTimeout is Release followed by a wait, at most timeout, for every
// accepted task to run, buffered ones included, and every goroutine of the
// pool to exit, else ErrTimeout. ReleaseContext bounds the same wait by ctx,
// returning ctx.Err() if it ends first; with a nil ctx it does not wait.
// Both return ErrPoolClosed on a closed pool. Reboot reopens a released pool
// (an open one is left as is) without waiting, unlike ants, for the old
// workers: those still busy serve the reopened pool when their task ends.
//
// WaitReleased waits until the pool has been released, by any call (a
// context.AfterFunc(ctx, p.Release) of the program's, say), and has drained
// as a ReleaseContext that returns nil promises; it returns nil then, or
// ctx.Err() if ctx is done first (a nil ctx waits as long as it takes). It
// does not release the pool, and a pool rebooted meanwhile is open again.
//
// Pause stops the pool from starting tasks until Resume: running tasks
// finish, and submitted ones wait, or are refused, as in a full pool. It
// returns nil once no task of the pool runs (a task runs from when it gets a
// worker; at once if none does, whatever ctx), or ctx.Err() if ctx is done
// first; the pool stays paused either
// way. A nil ctx is context.Background(); pausing a paused pool only waits;
// on a released pool Pause returns nil and changes nothing. The purge goes
// on while paused. Pauses are not counted: a Resume or Release from another
// goroutine while Pause waits undoes the pause, and Pause still returns nil;
// to be sure, check Paused, or let one goroutine own the pause. Resume lets
// tasks start again, in the order they would have started; resuming a pool
// that is not paused does nothing.
//
// SetRateLimit changes the rate limit at once (see WithRateLimit), or returns
// ErrInvalidRateLimit and changes nothing. Lowering the burst drops the
// tokens above it; raising the rate admits waiting work at the new rate.
// RateLimit returns the limit as last set: perSecond <= 0 or +Inf means none.
//
// # Differences from ants
//
// Every difference a program could notice is a fix: importing the package
// starts no goroutine, and an idle pool holds none; Submit(nil) returns
// ErrNilTask; PoolWithFunc.Invoke(nil) calls the function with nil; a caller
// blocked in Submit is woken by every event that frees capacity, never left
// for the purge tick; callers blocked at Release get ErrPoolClosed at once;
// a shrinking Tune binds at once, and Running never exceeds Cap outside one;
// Reboot does not wait for the old workers; no goroutine of the pool is left
// when ReleaseTimeout or ReleaseContext returns nil; MultiPool has a Release
// method, and its release errors wrap the member pools' (errors.Is(err,
// ErrTimeout)). The module needs Go 1.22 or newer (ants v2.12.1: Go 1.19).
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
	// DefaultCleanIntervalTime is the expiry of idle workers when ExpiryDuration is zero.
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

// ReleaseTimeout is Pool.ReleaseTimeout on the default pool.
func ReleaseTimeout(timeout time.Duration) error { return defaultPool().ReleaseTimeout(timeout) }

// ReleaseContext is Pool.ReleaseContext on the default pool.
func ReleaseContext(ctx context.Context) error { return defaultPool().ReleaseContext(ctx) }

// Reboot reopens the default pool after a release.
func Reboot() { defaultPool().Reboot() }
