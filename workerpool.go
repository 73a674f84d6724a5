package ants

import (
	"context"
	"sync"
)

// Worker is what one worker of a WorkerPool owns for its whole life.
type Worker[T, R any] interface {
	// Process runs one task on this worker. Calls on one Worker never overlap.
	// ctx is the caller's (Process, Go): it is done when the caller gives up.
	Process(ctx context.Context, arg T) (R, error)
	// Close is called once, on the worker's goroutine, when the worker exits.
	Close()
}

// WorkerPool runs tasks on at most size workers that keep state across
// tasks: each worker goroutine owns one Worker, a connection, a parser or a
// scratch buffer, and runs every task it takes on it. It is tunny's model,
// typed, on the engine of every other pool kind: the same goroutine bound,
// expiry, task buffer, Tune, Release and Stats. Its methods but Process and
// Go are Pool's (Pool methods in the package doc).
//
// # Workers
//
// The pool calls newWorker(id) on a worker's own goroutine when that
// goroutine takes its first task, never at construction, and keeps the
// Worker until the goroutine exits: after ExpiryDuration idle (the purge;
// WithMinWorkers keeps some alive however long they idle), at a shrinking
// Tune, at Release, or after a panic in the Worker's Process. The goroutine
// then calls the Worker's Close, exactly once, while it still holds its
// place in the goroutine bound. When ReleaseTimeout or ReleaseContext
// returns nil, every Close has returned.
//
// id is the smallest integer in [0, Cap()) that no other live Worker of the
// pool holds, so that a program can index per-worker resources by it; it is
// free again once its Worker's Close has returned. After a growing Tune ids
// reach the new capacity; after a shrinking one the surplus workers exit
// and free theirs, and the workers that stay keep theirs, which may be
// above the new capacity until they exit.
//
// # Panics
//
// A panic in a Worker's Process, or in newWorker, is returned to the caller
// of that task as a *PanicError (the value and the stack); the pool's
// PanicHandler does not see it, as for Go. The goroutine then exits, closing
// its Worker, whose state may be broken, if it has one; later tasks get a new
// Worker. A newWorker that returns nil is a panic of the same kind, but the
// goroutine stays and tries newWorker again for its next task. A panic in
// Close is reported as a task's panic is (PanicHandler, else Logger), and
// the worker exits all the same. A Worker's Process that calls
// runtime.Goexit ends its goroutine: its caller gets a *PanicError, and the
// Worker is closed. A Close that calls runtime.Goexit is reported as a
// panic in Close is, with an error that names runtime.Goexit as the value;
// the goroutine, which was exiting anyway, ends, and the pool's counts
// stay exact: no task counts as panicked for it. Stats counts a task
// whose panic was returned as panicked, as it does Go's.
//
// A WorkerPool is safe for concurrent use by multiple goroutines. It must
// be created with NewWorkerPool and must not be copied after first use.
type WorkerPool[T, R any] struct {
	poolCore[workerTask[T, R]]

	newWorker func(id int) Worker[T, R]

	// ids holds the ids of the live Workers and of those being made.
	ids idSet

	// replies recycles the *reply of Process calls.
	replies sync.Pool
}

// workerTask is one call of Process or Go on its way to a worker.
type workerTask[T, R any] struct {
	ctx context.Context // the caller's, never nil
	arg T
	out resultSink[R] // told the outcome once: a *reply (Process) or a *Future (Go)
}

// resultSink receives the outcome of one task.
type resultSink[R any] interface {
	finish(v R, err error)
}

// dropped tells the caller of t that the pool dropped it before it ran
// (overload control): its Process returns err, its Future is done with it.
func (t workerTask[T, R]) dropped(err error) {
	var zero R
	t.out.finish(zero, err)
}

// reply is where a worker hands a waiting Process its result. ch has room
// for the one signal, so the worker never waits for the caller.
type reply[R any] struct {
	v   R
	err error
	ch  chan struct{}
}

// finish records the result, then announces it.
func (r *reply[R]) finish(v R, err error) {
	r.v, r.err = v, err
	r.ch <- struct{}{}
}

// workerState is what a worker goroutine of a WorkerPool keeps in its
// goWorker's local field: its Worker and the Worker's id.
type workerState[T, R any] struct {
	id int
	w  Worker[T, R]
}

// NewWorkerPool returns a pool of at most size workers, each of which owns a
// Worker made by newWorker (see WorkerPool). size must be positive
// (ErrInvalidPoolSize): a WorkerPool is always bounded. A nil newWorker is
// ErrLackPoolFunc. No goroutine starts and no Worker is made until the first
// task.
func NewWorkerPool[T, R any](size int, newWorker func(id int) Worker[T, R], options ...Option) (*WorkerPool[T, R], error) {
	if size <= 0 {
		return nil, ErrInvalidPoolSize
	}
	if newWorker == nil {
		return nil, ErrLackPoolFunc
	}
	p := &WorkerPool[T, R]{newWorker: newWorker}
	if err := p.init(size, p.runTask, options); err != nil {
		return nil, err
	}
	p.onExit = p.closeWorker
	return p, nil
}

// Process runs arg on a Worker and returns the Worker's result and error.
//
// It waits for capacity as Pool.SubmitContext does, and refuses as it does:
// ErrPoolClosed after Release, ErrPoolOverload under Nonblocking or past
// MaxBlockingTasks, ctx.Err() if ctx is done first (a ctx already done
// returns at once). If ctx is done after the pool accepted the task but
// before a Worker started it, as happens to a task in the task buffer, it
// returns ctx.Err() and no Worker sees arg. Once a Worker has started,
// Process waits for it to return, whatever ctx does (the Worker gets ctx and
// may stop early), so the caller never returns while a Worker still uses
// arg. A task the pool drops before it starts (WithQueueTimeout,
// WithQueueTarget) returns the drop's error, ErrQueueTimeout or ctx.Err().
// A nil ctx is taken as context.Background().
//
// Process allocates nothing once warmed up: its reply channel is recycled.
func (p *WorkerPool[T, R]) Process(ctx context.Context, arg T) (R, error) {
	var zero R
	ctx, err := p.checkContext(ctx)
	if err != nil {
		return zero, err
	}
	r, _ := p.replies.Get().(*reply[R])
	if r == nil {
		r = &reply[R]{ch: make(chan struct{}, 1)}
	}
	if err := p.submit(ctx, workerTask[T, R]{ctx: ctx, arg: arg, out: r}, false); err != nil {
		p.replies.Put(r)
		return zero, err
	}
	<-r.ch
	v, err := r.v, r.err
	r.v, r.err = zero, nil // the pool must not keep the result alive
	p.replies.Put(r)
	return v, err
}

// Go is Process without the wait for the result: it waits for capacity as
// the package-level Go does, then returns a Future that is done with what
// Process would have returned, under the same rules. A refused task's
// Future is done at once with the refusal.
//
// Cost: beside Process's, one allocation for the Future.
func (p *WorkerPool[T, R]) Go(ctx context.Context, arg T) *Future[R] {
	f := newFuture[R]()
	ctx, err := p.checkContext(ctx)
	if err == nil {
		err = p.submit(ctx, workerTask[T, R]{ctx: ctx, arg: arg, out: f}, false)
	}
	if err != nil {
		var zero R
		f.finish(zero, err)
	}
	return f
}
