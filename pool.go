package ants

import "context"

// Pool runs submitted functions on a bounded set of recycled goroutines.
//
// A Pool is safe for concurrent use by multiple goroutines. It must be
// created with NewPool. A Pool is a handle, as in ants: a copy of a Pool
// value is the same pool, and two handles of one pool compare equal. Its
// methods but Submit, SubmitContext and TrySubmit are those of every pool
// kind, described once in the package doc, under Pool methods.
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

// Submit runs task on a worker. If every worker is busy and the task buffer
// is full, it waits for a worker, unless the pool is Nonblocking or
// MaxBlockingTasks callers are already waiting (ErrPoolOverload). It returns
// ErrPoolClosed after Release and ErrNilTask for a nil task. When it
// returns nil, task runs exactly once.
//
// A task that submits to its own pool can wait forever once the pool is
// full; use WithNonblocking, TrySubmit or a task buffer for that.
func (p *Pool) Submit(task func()) error {
	if task == nil {
		return rejectNil(&p.rejected, &p.closed)
	}
	return p.submit(context.Background(), task, false)
}

// SubmitContext is Submit for a caller that gives up when ctx is done: it
// then returns ctx.Err() and task never runs. A ctx already done returns at
// once. A nil ctx is taken as context.Background().
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
// ErrPoolOverload when no worker and no buffer slot is free right now.
func (p *Pool) TrySubmit(task func()) error {
	if task == nil {
		return rejectNil(&p.rejected, &p.closed)
	}
	return p.submit(context.Background(), task, true)
}
