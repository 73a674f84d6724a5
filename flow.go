package ants

import (
	"context"
	"runtime/debug"
)

// flowKey is the context key of a flow.
type flowKey struct{}

// ContextWithFlow returns a copy of ctx (nil: context.Background()) that
// carries a flow: the tenant, user or client on whose behalf work is
// submitted; work with no flow is the flow "". Within a priority level,
// waiting flows take turns by deficit round robin: a flow that starts to
// wait while k others wait at its level gets a worker within the sum of
// their weights, plus one, grants at that level; within a flow the order is
// FIFO (newest first while overloaded, see WithQueueTarget). Like a level, a
// flow matters only while work waits, and within one pool or Subpool (whose
// flows each weigh 1), not across a MultiPool's member pools. The flow goes
// wherever the context goes (a Keyed key's runner waits in the flow of the
// task that starts it).
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
// work get workers in proportion to their weights; without it each weighs 1.
// weight is called once per submit call about to wait, on its goroutine,
// without the pool's lock (so it may use the pool), with "" for work with no
// flow; it should be fast, and its answer may be kept while the flow has work
// waiting. A weight < 1 is 1, above MaxFlowWeight is MaxFlowWeight, and one
// that panics is 1, its panic logged.
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
