package ants_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/e62cffed/ants"
)

// levelMix is one way of giving the 8 submitters of BenchmarkSubmitLevels
// their contexts.
type levelMix struct {
	name  string
	ctx   func(i int) context.Context // the context of submitter i
	aging time.Duration
}

var levelMixes = []levelMix{
	// No level: context.Background(), whose level is never looked up.
	{name: "bg", ctx: func(int) context.Context { return context.Background() }},
	// One level, carried: every waiting submit reads it from its context.
	{name: "0", ctx: func(int) context.Context { return ants.ContextWithPriority(context.Background(), 0) }},
	// Four levels, two submitters each.
	{name: "0-3", ctx: func(i int) context.Context { return ants.ContextWithPriority(context.Background(), i%4) }},
	// The same with aging: the pool reads its clock whenever a unit waits
	// or a slot is given, and compares the heads of the levels.
	{name: "0-3+aging", aging: time.Millisecond,
		ctx: func(i int) context.Context { return ants.ContextWithPriority(context.Background(), i%4) }},
}

// levelSubmitters is how many goroutines submit at once in
// BenchmarkSubmitLevels.
const levelSubmitters = 8

// BenchmarkSubmitLevels is the cost of levels where they act: a pool
// of GOMAXPROCS workers, always full, no-op tasks, 8 goroutines calling
// SubmitContext, so that nearly every call waits. Without a buffer the
// callers block, with WithQueueSize(capacity) (queue=cap) their tasks wait
// in the buffer and the callers block once it is full. The submitters'
// contexts (levels=...):
//
//   - bg: context.Background(), the pool that never sees a level;
//   - 0: a context carrying level 0, which every waiting call reads;
//   - 0-3: levels 0, 1, 2 and 3, two submitters at each;
//   - 0-3+aging: the same on a pool WithPriorityAging(time.Millisecond).
//
// The submitters share b.N tickets, one per task, rather than fixed shares:
// with strict levels the lower levels' callers are served last, and fixed
// shares would leave the end of the run to 2 of the 8 submitters. Compare
// with
//
//	go test -run '^$' -bench SubmitLevels -benchtime 200000x -count 8 . | tee levels.txt
//	benchstat -col /levels levels.txt
func BenchmarkSubmitLevels(b *testing.B) {
	capacity := runtime.GOMAXPROCS(0)
	for _, queue := range []string{"none", "cap"} {
		for _, mix := range levelMixes {
			b.Run(fmt.Sprintf("queue=%s/levels=%s", queue, mix.name), func(b *testing.B) {
				opts := queueOf(queue == "cap", capacity)
				if mix.aging > 0 {
					opts = append(opts, ants.WithPriorityAging(mix.aging))
				}
				p, err := ants.NewPool(capacity, opts...)
				if err != nil {
					b.Fatal(err)
				}
				defer releasePool(b, p)
				var wg sync.WaitGroup
				task := wg.Done
				ctxs := make([]context.Context, levelSubmitters)
				for i := range ctxs {
					ctxs[i] = mix.ctx(i)
				}
				runTickets(b, ctxs, &wg, func(ctx context.Context) error { return p.SubmitContext(ctx, task) })
			})
		}
	}
}

// runTickets runs b.N calls of submit from one goroutine per context in
// ctxs, each taking the next of b.N tickets before every call, and waits for
// every task to be done.
func runTickets(b *testing.B, ctxs []context.Context, wg *sync.WaitGroup, submit func(context.Context) error) {
	b.Helper()
	b.ReportAllocs()
	wg.Add(b.N)
	n := int64(b.N)
	var tickets atomic.Int64
	b.ResetTimer()
	var sub sync.WaitGroup
	for _, ctx := range ctxs {
		sub.Add(1)
		go func() {
			defer sub.Done()
			for tickets.Add(1) <= n {
				if err := submit(ctx); err != nil {
					b.Error(err)
					wg.Done()
				}
			}
		}()
	}
	sub.Wait()
	wg.Wait()
	b.StopTimer()
}

// BenchmarkSubmitFlows is the cost of flows where they act, in the shape
// of BenchmarkSubmitLevels: a pool of GOMAXPROCS workers with a buffer of
// 4096 tasks, always full, no-op tasks, 8 goroutines calling SubmitContext.
// Each submitter cycles through its own contexts (flows=...):
//
//   - bg: context.Background(), the pool that never sees a flow;
//   - none: a context carrying a level and no flow, which every waiting
//     call reads (the cost of a context without flows);
//   - 1: every task in one flow;
//   - 1000: 1,000 flows, 125 per submitter, all with work waiting;
//   - 1000+weights: the same on a pool WithFlowWeights.
//
// Compare with
//
//	go test -run '^$' -bench SubmitFlows -benchtime 200000x -count 8 . | tee flows.txt
//	benchstat -col /flows flows.txt
func BenchmarkSubmitFlows(b *testing.B) {
	capacity := runtime.GOMAXPROCS(0)
	mixes := []struct {
		name    string
		flows   int // per submitter; 0: no flow
		bg      bool
		weights bool
	}{{name: "bg", bg: true}, {name: "none"}, {name: "1", flows: 1}, {name: "1000", flows: 125}, {name: "1000+weights", flows: 125, weights: true}}
	for _, mix := range mixes {
		b.Run("flows="+mix.name, func(b *testing.B) {
			opts := []ants.Option{ants.WithQueueSize(4096)}
			if mix.weights {
				opts = append(opts, ants.WithFlowWeights(func(flow string) int { return 1 + len(flow)%3 }))
			}
			p, err := ants.NewPool(capacity, opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer releasePool(b, p)
			var wg sync.WaitGroup
			task := wg.Done
			// Each submitter's contexts, cycled through; one flow ("1")
			// is the same for all.
			ctxs := make([][]context.Context, levelSubmitters)
			for i := range ctxs {
				switch {
				case mix.bg:
					ctxs[i] = []context.Context{context.Background()}
				case mix.flows == 0:
					ctxs[i] = []context.Context{ants.ContextWithPriority(context.Background(), 0)}
				case mix.flows == 1:
					ctxs[i] = []context.Context{ants.ContextWithFlow(context.Background(), "one")}
				default:
					for f := 0; f < mix.flows; f++ {
						ctxs[i] = append(ctxs[i], ants.ContextWithFlow(context.Background(), fmt.Sprintf("tenant-%d-%d", i, f)))
					}
				}
			}
			next := make([]int, levelSubmitters)
			submitters := make([]context.Context, levelSubmitters)
			for i := range submitters {
				submitters[i] = context.WithValue(context.Background(), submitterKey{}, i)
			}
			runTickets(b, submitters, &wg, func(sub context.Context) error {
				i := sub.Value(submitterKey{}).(int)
				ctx := ctxs[i][next[i]]
				next[i] = (next[i] + 1) % len(ctxs[i])
				return p.SubmitContext(ctx, task)
			})
		})
	}
}

type submitterKey struct{}

// BenchmarkSubmitOverload is the cost of overload control where it acts,
// in the shape of BenchmarkSubmitFlows: a pool of GOMAXPROCS workers with a
// buffer of 64 tasks, always full, no-op tasks, 8 goroutines calling
// SubmitContext (so=...):
//
//   - off: neither option;
//   - timeout: WithQueueTimeout(time.Second), which drops nothing here;
//   - target: WithQueueTarget(time.Second, 0), likewise;
//   - timeout+ctx: the timeout, with a context that can end for every
//     task, so that each buffered task registers a context.AfterFunc.
//
// Compare with
//
//	go test -run '^$' -bench SubmitOverload -benchtime 200000x -count 8 . | tee overload.txt
//	benchstat -col /so overload.txt
func BenchmarkSubmitOverload(b *testing.B) {
	capacity := runtime.GOMAXPROCS(0)
	for _, mix := range []struct {
		name string
		opt  ants.Option
		ctx  bool
	}{{name: "off"}, {name: "timeout", opt: ants.WithQueueTimeout(time.Second)},
		{name: "target", opt: ants.WithQueueTarget(time.Second, 0)},
		{name: "timeout+ctx", opt: ants.WithQueueTimeout(time.Second), ctx: true}} {
		b.Run("so="+mix.name, func(b *testing.B) {
			opts := []ants.Option{ants.WithQueueSize(64)}
			if mix.opt != nil {
				opts = append(opts, mix.opt)
			}
			p, err := ants.NewPool(capacity, opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer releasePool(b, p)
			var wg sync.WaitGroup
			task := wg.Done
			ctxs := make([]context.Context, levelSubmitters)
			for i := range ctxs {
				ctxs[i] = context.Background()
				if mix.ctx {
					var cancel context.CancelFunc
					ctxs[i], cancel = context.WithCancel(context.Background())
					defer cancel()
				}
			}
			runTickets(b, ctxs, &wg, func(ctx context.Context) error { return p.SubmitContext(ctx, task) })
		})
	}
}
