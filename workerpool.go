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
// tasks: each worker goroutine owns one Worker (a connection, a parser, a
// scratch buffer) and runs every task it takes on it, as in tunny. Its
// methods but Process and Go are Pool's (Pool methods in the package doc).
//
// A worker's goroutine calls newWorker(id) when it takes its first task,
// never at construction, and keeps the Worker until it exits (idle past
// ExpiryDuration, a shrinking Tune, Release, or a panic); it then calls
// Close, exactly once, while still counted in the goroutine bound, so every
// Close has returned when ReleaseTimeout or ReleaseContext returns nil. id
// is the smallest integer in [0, Cap()) that no other live Worker holds,
// free again once its Close returns; after a shrinking Tune, the workers
// that stay keep theirs.
//
// A panic, or runtime.Goexit, in newWorker or Process is returned to that
// task's caller as a *PanicError, which Stats counts as panicked and the
// PanicHandler does not see; the goroutine then exits, closing its Worker. A
// newWorker that returns nil is such a panic too, but the goroutine stays
// and tries again for its next task. A panic or Goexit in Close goes to the
// PanicHandler (else the Logger), without counting a task as panicked, and
// the worker exits all the same.
//
// A WorkerPool is safe for concurrent use by multiple goroutines. It must be
// created with NewWorkerPool and must not be copied after first use.
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

// NewWorkerPool returns a pool of at most size workers, each owning a Worker
// made by newWorker (see WorkerPool). size must be positive
// (ErrInvalidPoolSize); a nil newWorker is ErrLackPoolFunc. Nothing starts
// until the first task.
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

// Cap returns the capacity of the pool, always positive: a WorkerPool is
// bounded.
func (p *WorkerPool[T, R]) Cap() int { return p.poolCore.Cap() }

// Process runs arg on a Worker and returns its result and error. It waits
// and refuses as Pool.SubmitContext does; if ctx is done after the pool
// accepted the task but before a Worker started it, it returns ctx.Err() and
// no Worker sees arg. Once a Worker has started, Process waits for it
// whatever ctx does (the Worker gets ctx), so it never returns while a
// Worker uses arg. A dropped task returns the drop's error (see the package
// doc, Overload).
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

// Go is Process returning at once a Future of its result: it waits for
// capacity as the package-level Go does, and a refused task's Future is done
// at once.
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
