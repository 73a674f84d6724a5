package ants

import "context"

// PoolWithFuncGeneric calls one function, given at creation, with each
// Invoke argument, on a bounded set of recycled goroutines; Invoke allocates
// nothing. It is safe for concurrent use by multiple goroutines and must be
// created with NewPoolWithFuncGeneric; it is a handle, as Pool is. Its other
// methods are Pool's.
type PoolWithFuncGeneric[T any] struct {
	*poolCore[T]
}

// PoolWithFunc is ants' non-generic function pool: a
// PoolWithFuncGeneric[any] under a name of its own, with the same methods,
// and a handle, as Pool is.
type PoolWithFunc struct {
	PoolWithFuncGeneric[any]
}

// NewPoolWithFunc returns a pool that calls pf with each Invoke argument, on
// at most size workers (size <= 0: unlimited). A nil pf is ErrLackPoolFunc.
func NewPoolWithFunc(size int, pf func(any), options ...Option) (*PoolWithFunc, error) {
	p, err := NewPoolWithFuncGeneric(size, pf, options...)
	if err != nil {
		return nil, err
	}
	return &PoolWithFunc{*p}, nil
}

// NewPoolWithFuncGeneric is NewPoolWithFunc for a func(T).
func NewPoolWithFuncGeneric[T any](size int, pf func(T), options ...Option) (*PoolWithFuncGeneric[T], error) {
	if pf == nil {
		return nil, ErrLackPoolFunc
	}
	core := new(poolCore[T])
	if err := core.init(size, applyEach(pf), options); err != nil {
		return nil, err
	}
	return &PoolWithFuncGeneric[T]{core}, nil
}

// Invoke runs the pool function with arg on a worker; it waits and fails as
// Pool.Submit does. Unlike in ants, a nil arg is passed to the function.
func (p *PoolWithFuncGeneric[T]) Invoke(arg T) error {
	return p.submit(context.Background(), arg, false)
}

// InvokeContext is Invoke for a caller that gives up when ctx is done, as
// Pool.SubmitContext.
func (p *PoolWithFuncGeneric[T]) InvokeContext(ctx context.Context, arg T) error {
	ctx, err := p.checkContext(ctx)
	if err != nil {
		return err
	}
	return p.submit(ctx, arg, false)
}

// TryInvoke is Invoke for a caller that never waits, as Pool.TrySubmit.
func (p *PoolWithFuncGeneric[T]) TryInvoke(arg T) error {
	return p.submit(context.Background(), arg, true)
}

// The methods of PoolWithFuncGeneric[any] that PoolWithFunc declares again,
// with the same signatures, so that its documentation lists them: go doc
// does not show the methods it gets from an exported embedded type.

// Invoke is PoolWithFuncGeneric.Invoke.
func (p *PoolWithFunc) Invoke(arg any) error { return p.PoolWithFuncGeneric.Invoke(arg) }

// InvokeContext is PoolWithFuncGeneric.InvokeContext.
func (p *PoolWithFunc) InvokeContext(ctx context.Context, arg any) error {
	return p.PoolWithFuncGeneric.InvokeContext(ctx, arg)
}

// TryInvoke is PoolWithFuncGeneric.TryInvoke.
func (p *PoolWithFunc) TryInvoke(arg any) error { return p.PoolWithFuncGeneric.TryInvoke(arg) }

// applyEach returns the engine's task function for a pool that calls pf
// with each argument, or nil if pf is nil.
func applyEach[T any](pf func(T)) func(*goWorker[T], T) {
	if pf == nil {
		return nil
	}
	return func(_ *goWorker[T], arg T) { pf(arg) }
}
