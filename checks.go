package ants

import (
	"context"
	"sync/atomic"
)

// The checks that every way of submitting makes before a task reaches a
// pool, the same for every kind: a nil task, and a nil or finished context.

// rejectNil is the answer to a nil task: ErrPoolClosed if closed is set, as
// ants users check with Submit(nil), and ErrNilTask otherwise. It counts the
// call in rejected.
func rejectNil(rejected *atomic.Uint64, closed *atomic.Bool) error {
	rejected.Add(1)
	if closed.Load() {
		return ErrPoolClosed
	}
	return ErrNilTask
}

// orBackground returns ctx, or context.Background() for a nil ctx: what
// every call that takes a context does with a nil one.
func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}

// liveContext is orBackground(ctx) and its Err(): a submission with a
// context already done is refused at once with that error, before it can
// wait or be counted as accepted.
func liveContext(ctx context.Context) (context.Context, error) {
	if ctx == nil {
		return context.Background(), nil
	}
	return ctx, ctx.Err()
}
