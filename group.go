package ants

import (
	"context"
	"slices"
	"sync"
)

// Group runs related tasks on a shared pool and waits for them, as
// golang.org/x/sync/errgroup does, with the pool bounding concurrency. A
// task that panics or calls runtime.Goexit fails the group with a
// *PanicError (see PanicError); the other tasks run as usual. A Group is
// created by NewGroup or NewGroupContext; it is safe for concurrent use by
// multiple goroutines and must not be copied after first use.
type Group struct {
	pool   Submitter
	ctx    context.Context // never nil; done only for NewGroupContext
	cancel context.CancelCauseFunc

	wg      sync.WaitGroup
	errOnce sync.Once
	err     error
}

// NewGroup returns a Group that runs its tasks on p; every task runs, even
// after one has failed. A nil p panics.
func NewGroup(p Submitter) *Group {
	mustSubmitter(p)
	return &Group{pool: p, ctx: context.Background()}
}

// NewGroupContext is NewGroup with a context derived from ctx (nil:
// context.Background()) that is cancelled when a task first fails or Wait
// returns; tasks not started by then are skipped, and Go stops waiting for
// the pool.
func NewGroupContext(ctx context.Context, p Submitter) (*Group, context.Context) {
	g := new(Group)
	return g, g.initContext(ctx, p)
}

// initContext prepares a new group with a context of its own, derived from
// parent (nil means context.Background()), and returns that context.
func (g *Group) initContext(parent context.Context, p Submitter) context.Context {
	mustSubmitter(p)
	g.pool = p
	g.ctx, g.cancel = context.WithCancelCause(orBackground(parent))
	return g.ctx
}

// Go runs task on the pool, waiting while it is full until the group's
// context is done. The pool's refusal or drop, the task's error, or its
// panic is reported by Wait if it is the first. Once the group's context is
// done, Go skips task without asking the pool, and Wait reports the
// context's error.
func (g *Group) Go(task func() error) {
	if task == nil {
		g.fail(ErrNilTask)
		return
	}
	if err := g.ctx.Err(); err != nil {
		g.fail(err)
		return
	}
	g.wg.Add(1)
	run := runOn(g.pool)
	run.dropped(g.refused)
	if err := submitGuarded(func() error {
		return run.submitContext(g.pool, g.ctx, g.wrap(task, run))
	}, g.refused); err != nil {
		g.refused(err)
	}
}

// refused counts a task that the pool did not take as done, with err, the
// pool's error. The error is recorded before Done, so that a Wait it ends
// sees it.
func (g *Group) refused(err error) {
	g.fail(err)
	g.wg.Done()
}

// TryGo runs task only if the pool can take it now (its TrySubmit),
// reporting whether it did; ErrPoolOverload is not an error, and a pool that
// is not a TrySubmitter takes nothing.
func (g *Group) TryGo(task func() error) bool {
	if task == nil {
		g.fail(ErrNilTask)
		return false
	}
	tp, ok := g.pool.(TrySubmitter)
	if !ok || g.ctx.Err() != nil {
		return false
	}
	g.wg.Add(1)
	run := runOn(g.pool)
	run.dropped(g.refused)
	switch err := submitGuarded(func() error {
		return run.trySubmit(tp, g.ctx, g.wrap(task, run))
	}, g.refused); err {
	case nil:
		return true
	case ErrPoolOverload:
		g.wg.Done()
		return false
	default:
		g.refused(err)
		return false
	}
}

// Wait waits for every task started by Go and TryGo, then cancels the
// group's context and returns the first error. Call it once all calls to Go
// and TryGo have been made.
func (g *Group) Wait() error {
	g.wg.Wait()
	if g.cancel != nil {
		g.cancel(g.err)
	}
	return g.err
}

// wrap returns the pool task for a group task: it skips the task if the
// group's context is done, reporting the context's error, and runs it with
// runWrapped, which turns a panic into a *PanicError. The task counts as
// done (the deferred Done) only after its error is recorded, so Wait sees
// it; a task that calls runtime.Goexit counts as done too, with a
// *PanicError.
func (g *Group) wrap(task func() error, run wrapperRun) func() {
	return func() {
		defer g.wg.Done()
		if err := g.ctx.Err(); err != nil {
			// Skipped: after a first error this changes nothing; after the
			// parent context ends it tells Wait that work was not done.
			g.fail(err)
			return
		}
		runWrapped(run, func() (struct{}, error) { return struct{}{}, task() }, g.record)
	}
}

// record is the outcome of a task: err, if not nil, fails the group.
func (g *Group) record(_ struct{}, err error) {
	if err != nil {
		g.fail(err)
	}
}

// fail records err if it is the group's first, and cancels its context.
func (g *Group) fail(err error) {
	g.errOnce.Do(func() {
		g.err = err
		if g.cancel != nil {
			g.cancel(err)
		}
	})
}

// ResultGroup is a Group whose tasks return values: Wait returns one per Go,
// and per TryGo that returned true, in call order, with the zero value for a
// task that failed, was skipped or was refused. It is safe for concurrent
// use by multiple goroutines and must not be copied after first use.
type ResultGroup[T any] struct {
	g Group

	// mu guards results and dropped. Each call of Go or TryGo appends a place
	// to results, so places follow the order of the calls even when they
	// race; a TryGo that returns false adds its place to dropped, and Wait
	// removes those. (Removing the place at once would shift the places of
	// the calls made since, whose tasks may be running.)
	mu      sync.Mutex
	results []T
	dropped []int
}

// NewResultGroup returns a ResultGroup that runs its tasks on p; see
// NewGroup.
func NewResultGroup[T any](p Submitter) *ResultGroup[T] {
	mustSubmitter(p)
	return &ResultGroup[T]{g: Group{pool: p, ctx: context.Background()}}
}

// NewResultGroupContext is NewGroupContext for a ResultGroup.
func NewResultGroupContext[T any](ctx context.Context, p Submitter) (*ResultGroup[T], context.Context) {
	r := new(ResultGroup[T])
	return r, r.g.initContext(ctx, p)
}

// Go runs task on the pool, as Group.Go does.
func (r *ResultGroup[T]) Go(task func() (T, error)) {
	_, t := r.slot(task)
	r.g.Go(t)
}

// TryGo is Group.TryGo; a task it does not run has no place in Wait's
// results.
func (r *ResultGroup[T]) TryGo(task func() (T, error)) bool {
	i, t := r.slot(task)
	if r.g.TryGo(t) {
		return true
	}
	r.mu.Lock()
	r.dropped = append(r.dropped, i)
	r.mu.Unlock()
	return false
}

// Wait waits for every task, then returns their results, in call order, and
// the first error.
func (r *ResultGroup[T]) Wait() ([]T, error) {
	err := r.g.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.dropped) > 0 {
		r.results = removeIndices(r.results, r.dropped)
		r.dropped = nil
	}
	return r.results, err
}

// slot reserves the next place in the results and returns its index and a
// group task that stores task's value there. A nil task yields a nil group
// task, which Group reports as ErrNilTask.
func (r *ResultGroup[T]) slot(task func() (T, error)) (int, func() error) {
	r.mu.Lock()
	i := len(r.results)
	var zero T
	r.results = append(r.results, zero)
	r.mu.Unlock()
	if task == nil {
		return i, nil
	}
	return i, func() error {
		v, err := task()
		if err == nil {
			r.mu.Lock()
			r.results[i] = v
			r.mu.Unlock()
		}
		return err
	}
}

// removeIndices removes the elements at the given distinct indices from s,
// keeping the order of the rest, and sorts indices.
func removeIndices[T any](s []T, indices []int) []T {
	slices.Sort(indices)
	out := s[:indices[0]]
	for j, i := range indices {
		end := len(s)
		if j+1 < len(indices) {
			end = indices[j+1]
		}
		out = append(out, s[i+1:end]...)
	}
	clear(s[len(out):])
	return out
}
