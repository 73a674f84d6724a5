package ants

import "context"

// Pool runs submitted functions on a bounded set of recycled goroutines. It
// is safe for concurrent use by multiple goroutines and must be created with
// NewPool. It is a handle, as in ants: copies of a Pool value are the same
// pool and compare equal. Its methods but Submit, SubmitContext and
// TrySubmit are under Pool methods in the package doc.
type Pool struct {
	*poolCore[func()]
}

// NewPool returns a pool of at most size workers; size <= 0 means
// unlimited. No goroutine starts until the first task.
func NewPool(size int, options ...Option) (*Pool, error) {
	core := new(poolCore[func()])
	if err := core.init(size, runTask, options); err != nil {
		return nil, err
	}
	return &Pool{core}, nil
}

func runTask(_ *goWorker[func()], task func()) { task() }

// Submit runs task on a worker, waiting while every worker is busy and the
// task buffer is full, unless the pool is Nonblocking or MaxBlockingTasks
// callers wait (ErrPoolOverload). It returns ErrPoolClosed after Release and
// ErrNilTask for a nil task; when it returns nil, task runs exactly once. A
// task that submits to its own full pool can wait forever.
func (p *Pool) Submit(task func()) error {
	if task == nil {
		return rejectNil(&p.rejected, &p.closed)
	}
	return p.submit(context.Background(), task, false)
}

// SubmitContext is Submit for a caller that gives up when ctx is done: it
// then returns ctx.Err() (at once if ctx is already done) and task never
// runs. A nil ctx is context.Background().
func (p *Pool) SubmitContext(ctx context.Context, task func()) error {
	if task == nil {
		return rejectNil(&p.rejected, &p.closed)
	}
	ctx, err := p.checkContext(ctx)
	if err != nil {
		return err
	}
	return p.submit(ctx, task, false)
}

// TrySubmit is Submit for a caller that never waits: it returns
// ErrPoolOverload when no worker and no buffer slot is free.
func (p *Pool) TrySubmit(task func()) error {
	if task == nil {
		return rejectNil(&p.rejected, &p.closed)
	}
	return p.submit(context.Background(), task, true)
}
