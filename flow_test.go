package ants_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// Flows: within a priority level, the waiting work of different flows
// gets workers in turn. The tests hold a pool of one worker, queue work,
// then let it go and read the order the tasks ran in: with one worker, it
// is the order of the grants.

// order records the names of the tasks in the order they ran.
type order struct {
	mu    sync.Mutex
	names []string
	done  chan struct{}
}

func newOrder(n int) *order { return &order{done: make(chan struct{}, n)} }

func (o *order) task(name string) func() {
	return func() {
		o.mu.Lock()
		o.names = append(o.names, name)
		o.mu.Unlock()
		o.done <- struct{}{}
	}
}

func (o *order) await(t *testing.T, n int) []string {
	t.Helper()
	for i := 0; i < n; i++ {
		recv(t, o.done, "a task to run")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.names...)
}

// holdWorker makes the one worker of p busy with a task held by the gate
// it returns, so that the work submitted next waits.
func holdWorker(t *testing.T, p interface {
	Submit(func()) error
	Running() int
}) *gate {
	t.Helper()
	g := newGate(t)
	occupyWith(t, p.Submit, g, 1)
	waitRunning(t, p, 1)
	return g
}

func flowCtx(flow string) context.Context {
	return ants.ContextWithFlow(context.Background(), flow)
}

// position returns the 1-based place of name in names, or 0.
func position(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i + 1
		}
	}
	return 0
}

func TestFlowTurns(t *testing.T) {
	p, err := ants.NewPool(1, ants.WithQueueSize(1000))
	require.NoError(t, err)
	defer p.Release()
	g := holdWorker(t, p)

	o := newOrder(100)
	for i := 0; i < 50; i++ {
		require.NoError(t, p.SubmitContext(flowCtx("heavy"), o.task(fmt.Sprintf("heavy%d", i))))
	}
	for k := 1; k <= 5; k++ {
		require.NoError(t, p.SubmitContext(flowCtx(fmt.Sprintf("light%d", k)), o.task(fmt.Sprintf("light%d", k))))
	}
	g.open()
	names := o.await(t, 55)
	for k := 1; k <= 5; k++ {
		// k flows had work waiting when light k came (heavy and lights
		// 1..k-1), each of weight 1: it runs within k+1 grants.
		pos := position(names, fmt.Sprintf("light%d", k))
		assert.LessOrEqual(t, pos, k+1, "light%d ran %d-th: %v", k, pos, names[:10])
		assert.NotZero(t, pos)
	}
	// Within a flow, FIFO.
	last := -1
	for _, n := range names {
		var i int
		if _, err := fmt.Sscanf(n, "heavy%d", &i); err == nil {
			assert.Greater(t, i, last)
			last = i
		}
	}
	assert.Equal(t, 49, last)
}

func TestFlowWeights(t *testing.T) {
	weights := map[string]int{"a": 3, "b": 1, "neg": -5}
	p, err := ants.NewPool(1, ants.WithQueueSize(1000),
		ants.WithFlowWeights(func(flow string) int { return weights[flow] }))
	require.NoError(t, err)
	defer p.Release()
	g := holdWorker(t, p)
	o := newOrder(200)
	for i := 0; i < 40; i++ {
		require.NoError(t, p.SubmitContext(flowCtx("a"), o.task("a")))
		require.NoError(t, p.SubmitContext(flowCtx("b"), o.task("b")))
	}
	g.open()
	names := o.await(t, 80)
	assert.Equal(t, "aaab", strings.Join(names[:4], ""))
	count := map[string]int{}
	for _, n := range names[:40] {
		count[n]++
	}
	assert.Equal(t, map[string]int{"a": 30, "b": 10}, count, "3:1 while both are backlogged")

	t.Run("a weight below 1 is 1", func(t *testing.T) {
		g := holdWorker(t, p)
		o := newOrder(20)
		for i := 0; i < 4; i++ {
			require.NoError(t, p.SubmitContext(flowCtx("neg"), o.task("n")))
			require.NoError(t, p.SubmitContext(flowCtx("b"), o.task("b")))
		}
		g.open()
		assert.Equal(t, "nbnbnbnb", strings.Join(o.await(t, 8), ""))
	})
}

func TestFlowWeightBadFunctions(t *testing.T) {
	t.Run("a weight that panics counts as 1", func(t *testing.T) {
		var logged strings.Builder
		var mu sync.Mutex
		p, err := ants.NewPool(1, ants.WithQueueSize(10),
			ants.WithLogger(loggerFunc(func(format string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				fmt.Fprintf(&logged, format, args...)
			})),
			ants.WithFlowWeights(func(flow string) int {
				if flow == "bad" {
					panic("no weight")
				}
				return 2
			}))
		require.NoError(t, err)
		defer p.Release()
		g := holdWorker(t, p)
		o := newOrder(10)
		for i := 0; i < 3; i++ {
			require.NoError(t, p.SubmitContext(flowCtx("bad"), o.task("x")))
			require.NoError(t, p.SubmitContext(flowCtx("good"), o.task("g")))
		}
		g.open()
		assert.Equal(t, "xggxgx", strings.Join(o.await(t, 6), ""))
		mu.Lock()
		assert.Contains(t, logged.String(), "no weight")
		mu.Unlock()
	})
	t.Run("a weight that blocks holds only its own submit", func(t *testing.T) {
		release := make(chan struct{})
		p, err := ants.NewPool(1, ants.WithQueueSize(10),
			ants.WithFlowWeights(func(flow string) int {
				if flow == "slow" {
					<-release
				}
				return 1
			}))
		require.NoError(t, err)
		defer p.Release()
		g := holdWorker(t, p)
		o := newOrder(10)
		slow := async(func() error { return p.SubmitContext(flowCtx("slow"), o.task("slow")) })
		require.NoError(t, p.SubmitContext(flowCtx("fast"), o.task("fast")))
		assert.Equal(t, 1, p.Stats().Queued)
		g.open()
		assert.Equal(t, []string{"fast"}, o.await(t, 1))
		close(release)
		require.NoError(t, recv(t, slow, "the slow submit"))
		assert.Equal(t, []string{"fast", "slow"}, o.await(t, 1))
	})
}

type loggerFunc func(format string, args ...any)

func (f loggerFunc) Printf(format string, args ...any) { f(format, args...) }

func TestFlowBlockedCallers(t *testing.T) {
	p, err := ants.NewPool(1)
	require.NoError(t, err)
	defer p.Release()
	g := holdWorker(t, p)
	o := newOrder(20)
	var errs []<-chan error
	for i := 0; i < 6; i++ {
		errs = append(errs, blocked(t, p, i+1, func() error {
			return p.SubmitContext(flowCtx("heavy"), o.task("h"))
		}))
	}
	errs = append(errs, blocked(t, p, 7, func() error {
		return p.SubmitContext(flowCtx("light"), o.task("l"))
	}))
	g.open()
	names := o.await(t, 7)
	assert.LessOrEqual(t, position(names, "l"), 2, "%v", names)
	for _, e := range errs {
		require.NoError(t, recv(t, e, "a blocked submit"))
	}
}

func TestFlowLoneFlowAsToday(t *testing.T) {
	p, err := ants.NewPool(1, ants.WithQueueSize(100))
	require.NoError(t, err)
	defer p.Release()
	g := holdWorker(t, p)
	o := newOrder(20)
	var want []string
	for i := 0; i < 10; i++ {
		name := fmt.Sprint(i)
		want = append(want, name)
		require.NoError(t, p.SubmitContext(flowCtx("only"), o.task(name)))
	}
	g.open()
	assert.Equal(t, want, o.await(t, 10))
}

func TestFlowLevelsStayStrict(t *testing.T) {
	p, err := ants.NewPool(1, ants.WithQueueSize(100))
	require.NoError(t, err)
	defer p.Release()
	g := holdWorker(t, p)
	o := newOrder(20)
	low := ants.ContextWithPriority(context.Background(), -1)
	high := ants.ContextWithPriority(context.Background(), 1)
	for i := 0; i < 3; i++ {
		require.NoError(t, p.SubmitContext(ants.ContextWithFlow(low, "a"), o.task("la")))
		require.NoError(t, p.SubmitContext(ants.ContextWithFlow(low, "b"), o.task("lb")))
	}
	require.NoError(t, p.SubmitContext(ants.ContextWithFlow(high, "a"), o.task("ha")))
	require.NoError(t, p.SubmitContext(ants.ContextWithFlow(high, "c"), o.task("hc")))
	g.open()
	assert.Equal(t, []string{"ha", "hc", "la", "lb", "la", "lb", "la", "lb"}, o.await(t, 8))
}

// TestFlowsEverywhere checks that the flow travels with the context of each
// way in: a light flow's task that comes after a heavy flow's backlog runs
// within two grants.
func TestFlowsEverywhere(t *testing.T) {
	type way struct {
		name string
		// submit runs task through the way on p, in flow.
		submit func(t *testing.T, p *ants.Pool, flow string, task func())
	}
	ways := []way{
		{"SubmitContext", func(t *testing.T, p *ants.Pool, flow string, task func()) {
			require.NoError(t, p.SubmitContext(flowCtx(flow), task))
		}},
		{"Go", func(t *testing.T, p *ants.Pool, flow string, task func()) {
			ants.Go(flowCtx(flow), p, func() (int, error) { task(); return 0, nil })
		}},
		{"NewGroupContext", func(t *testing.T, p *ants.Pool, flow string, task func()) {
			g, _ := ants.NewGroupContext(flowCtx(flow), p)
			g.Go(func() error { task(); return nil })
		}},
		{"Keyed.SubmitContext", func(t *testing.T, p *ants.Pool, flow string, task func()) {
			k := ants.NewKeyed[int](p)
			require.NoError(t, k.SubmitContext(flowCtx(flow), 1, task))
		}},
		{"Subpool.SubmitContext", func(t *testing.T, p *ants.Pool, flow string, task func()) {
			require.NoError(t, ants.NewSubpool(p, 100).SubmitContext(flowCtx(flow), task))
		}},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			p, err := ants.NewPool(1, ants.WithQueueSize(100))
			require.NoError(t, err)
			defer p.Release()
			g := holdWorker(t, p)
			o := newOrder(20)
			for i := 0; i < 5; i++ {
				w.submit(t, p, "heavy", o.task("h"))
			}
			w.submit(t, p, "light", o.task("l"))
			waitUntil(t, "every task to be buffered", func() bool { return p.Stats().Queued == 6 })
			g.open()
			names := o.await(t, 6)
			assert.LessOrEqual(t, position(names, "l"), 2, "%v", names)
		})
	}
	t.Run("WorkerPool", func(t *testing.T) {
		o := newOrder(20)
		g := newGate(t)
		p, err := ants.NewWorkerPool(1, func(int) ants.Worker[string, int] { return orderWorker{o, g} },
			ants.WithQueueSize(100))
		require.NoError(t, err)
		defer p.Release()
		p.Go(context.Background(), "hold")
		waitUntil(t, "the worker to be busy", func() bool { return p.Stats().Running == 1 && p.Stats().Idle == 0 })
		for i := 0; i < 5; i++ {
			p.Go(flowCtx("heavy"), "h")
		}
		p.Go(flowCtx("light"), "l")
		waitUntil(t, "every task to be buffered", func() bool { return p.Stats().Queued == 6 })
		g.open()
		names := o.await(t, 7)[1:]
		assert.LessOrEqual(t, position(names, "l"), 2, "%v", names)
	})
	t.Run("a Subpool's own waiting callers take turns", func(t *testing.T) {
		p, err := ants.NewPool(4)
		require.NoError(t, err)
		defer p.Release()
		s := ants.NewSubpool(p, 1)
		g := newGate(t)
		started := make(chan struct{}, 1)
		require.NoError(t, s.Submit(g.task(started)))
		recv(t, started, "the sub-pool to be busy")
		o := newOrder(20)
		var errs []<-chan error
		for i := 0; i < 4; i++ {
			errs = append(errs, blocked(t, s, i+1, func() error { return s.SubmitContext(flowCtx("heavy"), o.task("h")) }))
		}
		errs = append(errs, blocked(t, s, 5, func() error { return s.SubmitContext(flowCtx("light"), o.task("l")) }))
		g.open()
		names := o.await(t, 5)
		assert.LessOrEqual(t, position(names, "l"), 2, "%v", names)
		for _, e := range errs {
			require.NoError(t, recv(t, e, "a blocked submit"))
		}
	})
}

// orderWorker is a WorkerPool Worker that holds "hold" until g opens and
// records every arg.
type orderWorker struct {
	o *order
	g *gate
}

func (w orderWorker) Process(_ context.Context, arg string) (int, error) {
	if arg == "hold" {
		<-w.g.ch
	}
	w.o.task(arg)()
	return 0, nil
}
func (orderWorker) Close() {}

// TestFlowsLeaveNothingBehind sends work of many distinct flows through a
// pool whose worker is held, so that each waits: once the pool is quiet,
// it holds no flow.
func TestFlowsLeaveNothingBehind(t *testing.T) {
	p, err := ants.NewPool(1, ants.WithQueueSize(64))
	require.NoError(t, err)
	defer p.Release()
	for round := 0; round < 40; round++ {
		g := holdWorker(t, p)
		var wg sync.WaitGroup
		for i := 0; i < 50; i++ {
			wg.Add(1)
			require.NoError(t, p.SubmitContext(flowCtx(fmt.Sprintf("flow-%d-%d", round, i)), wg.Done))
		}
		assert.Equal(t, 50, p.FlowEntries())
		g.open()
		wg.Wait()
		waitUntil(t, "the pool to be quiet", func() bool { return p.Stats().Queued == 0 })
		assert.Zero(t, p.FlowEntries())
	}
	assert.LessOrEqual(t, p.FlowsKept(), 64, "emptied flows kept for reuse")
	require.NoError(t, p.CheckInvariants())
}
