package ants

import (
	"context"
	"runtime/debug"
)

// flowKey is the context key of a flow.
type flowKey struct{}

// ContextWithFlow returns a copy of ctx that carries a flow: the tenant,
// user or client on whose behalf work is submitted. Within one priority
// level, waiting work of different flows gets workers in turn, so that a
// flow with a long backlog cannot delay another flow's work by more than
// one turn per flow with work waiting. Work with no flow is the flow "".
//
// The turns are deficit round robin: a flow that starts to wait while k
// others wait at its level gets a worker within the sum of their weights,
// plus one, grants at that level; within a flow the order is FIFO (newest
// first while overloaded, see WithQueueTarget). Like a level, a flow
// matters only while work waits, and within one pool or Subpool (whose
// flows each weigh 1), not across a MultiPool's member pools. A flow costs
// memory only while it has work waiting. The flow goes wherever the context
// goes (a Keyed key's runner waits in the flow of the task that starts it).
// A nil ctx is taken as context.Background().
func ContextWithFlow(ctx context.Context, flow string) context.Context {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithValue(ctx, flowKey{}, flow)
}

// FlowFromContext returns the flow ctx carries, or "" if none.
func FlowFromContext(ctx context.Context) string {
	if ctx == nil {
		return ""
	}
	flow, _ := ctx.Value(flowKey{}).(string)
	return flow
}

// WithFlowWeights gives each flow a weight: over time, flows with waiting
// work get workers in proportion to their weights. weight is never called
// with the pool's lock held (so it may use the pool), should be fast, and
// its answer may be kept while the flow has work waiting; a weight < 1 is
// 1. Without it every flow weighs 1.
//
// weight is called on the goroutine of each submit call about to wait,
// with "" for work with no flow. A weight above MaxFlowWeight is
// MaxFlowWeight; one that panics is 1, its panic logged; one that blocks
// holds only the submit call that called it.
func WithFlowWeights(weight func(flow string) int) Option {
	return func(opts *Options) {
		opts.FlowWeight = weight
	}
}

// MaxFlowWeight is the largest weight a flow can have (WithFlowWeights).
const MaxFlowWeight = 1 << 16

// flowOf returns the flow of work submitted with ctx; the calls that take
// no context pass context.Background(), whose flow is "" without a lookup.
func flowOf(ctx context.Context) string {
	if ctx == context.Background() {
		return ""
	}
	return FlowFromContext(ctx)
}

// placeOf returns where work submitted with ctx waits: its level, its flow
// and the flow's weight. It calls the user's code (Context.Value, the
// weight function), so it requires p.lock not held.
func (p *poolCore[T]) placeOf(ctx context.Context) place {
	pl := place{level: levelOf(ctx), flow: flowOf(ctx)}
	if p.opts.FlowWeight != nil {
		pl.weight = p.flowWeight(pl.flow)
	}
	return pl
}

// flowWeight returns the weight of flow, from the user's function, in
// [1, MaxFlowWeight]; a function that panics gives 1.
func (p *poolCore[T]) flowWeight(flow string) (w int) {
	defer func() {
		if r := recover(); r != nil {
			p.opts.Logger.Printf("flow weight of %q panicked, taken as 1: %v\n%s", flow, r, debug.Stack())
			w = 1
		}
	}()
	return min(max(p.opts.FlowWeight(flow), 1), MaxFlowWeight)
}
