package ants

import (
	"context"
	"time"
)

// priorityKey is the context key of a priority level.
type priorityKey struct{}

// ContextWithPriority returns a copy of ctx (nil: context.Background()) that
// carries a priority level: work submitted with it goes ahead of waiting
// work of lower levels. The default level is 0; negative levels are for
// background work. A level matters only while work waits (a task that finds
// a free worker runs at once, and none is preempted), and within one pool or
// Subpool, not across a MultiPool's member pools.
func ContextWithPriority(ctx context.Context, level int) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(ctx, priorityKey{}, level)
}

// PriorityFromContext returns the level ctx carries, or 0 if none.
func PriorityFromContext(ctx context.Context) int {
	if ctx == nil {
		return 0
	}
	level, _ := ctx.Value(priorityKey{}).(int)
	return level
}

// WithPriorityAging makes waiting work gain one level for every d it has
// waited, so that no level starves. d == 0 (the default) means strict
// levels; d < 0 is ErrInvalidPriorityAging.
func WithPriorityAging(d time.Duration) Option {
	return func(opts *Options) {
		opts.PriorityAging = d
	}
}

// levelOf returns the level of a task submitted with ctx. It is read only
// on the way to waiting, never on the fast path; the calls that take no
// context pass context.Background(), whose level is 0 without a lookup.
func levelOf(ctx context.Context) int {
	if ctx == context.Background() {
		return 0
	}
	return PriorityFromContext(ctx)
}
