package ants_test

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// Priority levels: the order in which waiting work gets a free worker, as
// the tasks themselves observe it.

// isOneQueue is the set of kinds with one queue of waiting work, where the
// order of every submit can be observed: Pool, the function pools and the
// sub-pools. A multi-pool's member pools each order their own.
func isOneQueue(k poolKind) bool { return k.family != multi }

// runLog records the order in which tasks ran.
type runLog struct {
	mu  sync.Mutex
	ran []int
}

func (l *runLog) task(i int) func() {
	return func() {
		l.mu.Lock()
		l.ran = append(l.ran, i)
		l.mu.Unlock()
	}
}

// wait waits until n tasks have run and returns their order.
func (l *runLog) wait(t *testing.T, n int) []int {
	t.Helper()
	waitUntil(t, "every task to run", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.ran) >= n
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.ran...)
}

// atLevel submits task to p with a context of level lv.
func atLevel(p *testPool, lv int) func(task func()) error {
	ctx := ants.ContextWithPriority(context.Background(), lv)
	return func(task func()) error { return p.submitContext(ctx, task) }
}

// TestPriorityOrdersBlockedCallers: on a pool of capacity 1 with its worker
// held, callers blocked at levels 0, 5, 1, 5, 3, each known to be waiting
// before the next arrives, run as 5, 5, 3, 1, 0.
func TestPriorityOrdersBlockedCallers(t *testing.T) {
	forKinds(t, isOneQueue, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1)
		g := newGate(t)
		occupy(t, p, g, 1)
		var log runLog
		var errs []<-chan error
		for i, lv := range []int{0, 5, 1, 5, 3} {
			errs = append(errs, submitAsync(atLevel(p, lv), log.task(i)))
			waitWaiting(t, p, i+1)
		}
		g.open()
		for _, e := range errs {
			require.NoError(t, recv(t, e, "a blocked submit to return"))
		}
		assert.Equal(t, []int{1, 3, 4, 2, 0}, log.wait(t, 5))
	})
}

// TestPriorityOrdersBufferedTasks is the same with a buffer that holds
// every task: Submit returns at once, and the buffer runs by level.
func TestPriorityOrdersBufferedTasks(t *testing.T) {
	forKinds(t, isSingle, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1, ants.WithQueueSize(5))
		g := newGate(t)
		occupy(t, p, g, 1)
		var log runLog
		for i, lv := range []int{0, 5, 1, 5, 3} {
			require.NoError(t, atLevel(p, lv)(log.task(i)))
		}
		assert.Equal(t, 5, p.Stats().Queued)
		g.open()
		assert.Equal(t, []int{1, 3, 4, 2, 0}, log.wait(t, 5))
	})
}

// TestPriorityBlockedCallerOutranksBufferedTasks: with the buffer full of
// level-0 tasks, a blocked caller of level 3 takes the first free slot;
// the room its slot frees in the buffer then goes to a later blocked
// caller of level 0, behind the buffered ones.
func TestPriorityBlockedCallerOutranksBufferedTasks(t *testing.T) {
	forKinds(t, isSingle, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1, ants.WithQueueSize(2))
		g := newGate(t)
		occupy(t, p, g, 1)
		var log runLog
		require.NoError(t, atLevel(p, 0)(log.task(0)))
		require.NoError(t, atLevel(p, 0)(log.task(1)))
		high := submitAsync(atLevel(p, 3), log.task(2))
		waitWaiting(t, p, 1)
		low := submitAsync(atLevel(p, 0), log.task(3))
		waitWaiting(t, p, 2)
		g.open()
		require.NoError(t, recv(t, high, "the level-3 submit"))
		require.NoError(t, recv(t, low, "the level-0 submit"))
		assert.Equal(t, []int{2, 0, 1, 3}, log.wait(t, 4))
	})
}

// TestPriorityAging: a level-0 task waits behind a stream of level-1 tasks,
// which arrive one d apart while it waits. With strict levels it runs after
// all of them. With WithPriorityAging(d), when the slots free (all at once,
// at the time of the last arrival) it goes ahead of every level-1 task that
// arrived d or more after it, and so of every one that arrived 2d or more
// after it, as the bound promises; the one that arrived with it still goes
// first.
func TestPriorityAging(t *testing.T) {
	const d = time.Minute
	const stream = 6
	for _, c := range []struct {
		name  string
		aging time.Duration
		want  []int // -1 is the level-0 task
	}{
		{"strict", 0, []int{0, 1, 2, 3, 4, 5, -1}},
		{"aging", d, []int{0, -1, 1, 2, 3, 4, 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			forKinds(t, isSingle, func(t *testing.T, k poolKind) {
				clk := ants.NewFakeClock()
				p := k.mustNew(t, 1, ants.WithDisablePurge(true), ants.WithFakeClock(clk),
					ants.WithPriorityAging(c.aging))
				g := newGate(t)
				occupy(t, p, g, 1)

				var log runLog
				errs := []<-chan error{submitAsync(atLevel(p, 0), log.task(-1))}
				waitWaiting(t, p, 1)
				for i := 0; i < stream; i++ {
					if i > 0 {
						clk.Forward(d)
					}
					errs = append(errs, submitAsync(atLevel(p, 1), log.task(i)))
					waitWaiting(t, p, i+2)
				}
				g.open()
				for _, e := range errs {
					require.NoError(t, recv(t, e, "a blocked submit"))
				}
				assert.Equal(t, c.want, log.wait(t, stream+1))
			})
		})
	}
}

// TestPriorityLeavesRefusalsAlone: levels change the order of waiting work
// and nothing else. A caller over MaxBlockingTasks, or on a Nonblocking
// pool, or in TrySubmit, is refused whatever its level; a waiting caller
// whose ctx ends leaves with ctx.Err() and its task never runs; Release
// wakes the waiting callers of every level with ErrPoolClosed.
func TestPriorityLeavesRefusalsAlone(t *testing.T) {
	top := ants.ContextWithPriority(context.Background(), math.MaxInt)
	forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
		t.Run("MaxBlockingTasks", func(t *testing.T) {
			p := k.mustNew(t, 1, ants.WithMaxBlockingTasks(1))
			g := newGate(t)
			occupy(t, p, g, p.Cap())
			blocked := blockedSubmits(t, p, p.members, func() {})
			assert.ErrorIs(t, submitNow(t, func(task func()) error { return p.submitContext(top, task) }, func() {}),
				ants.ErrPoolOverload)
			g.open()
			for _, e := range blocked {
				require.NoError(t, recv(t, e, "a blocked submit"))
			}
		})
		t.Run("Nonblocking", func(t *testing.T) {
			p := k.mustNew(t, 1, ants.WithNonblocking(true))
			g := newGate(t)
			occupy(t, p, g, p.Cap())
			ran := make(chan struct{}, 1)
			assert.ErrorIs(t, p.submitContext(top, func() { ran <- struct{}{} }), ants.ErrPoolOverload)
			assert.ErrorIs(t, p.trySubmit(func() { ran <- struct{}{} }), ants.ErrPoolOverload)
			g.open()
			assertNoRecv(t, ran, "a refused task to run")
		})
		t.Run("cancel and Release", func(t *testing.T) {
			p := k.mustNew(t, 1)
			g := newGate(t)
			occupy(t, p, g, p.Cap())
			ran := make(chan int, 8)
			ctx, cancel := context.WithCancel(ants.ContextWithPriority(context.Background(), 7))
			cancelled := submitAsync(func(task func()) error { return p.submitContext(ctx, task) }, func() { ran <- 7 })
			waitWaiting(t, p, 1)
			var closed []<-chan error
			for i, lv := range []int{-3, 0, 9} {
				closed = append(closed, submitAsync(atLevel(p, lv), func() { ran <- lv }))
				waitWaiting(t, p, i+2)
			}
			cancel()
			assert.ErrorIs(t, recv(t, cancelled, "the cancelled submit"), context.Canceled)
			waitWaiting(t, p, 3)
			p.Release()
			for _, e := range closed {
				assert.ErrorIs(t, recv(t, e, "a submit blocked at Release"), ants.ErrPoolClosed)
			}
			g.open()
			assertNoRecv(t, ran, "a task whose submit failed to run")
		})
	})
}

// TestPriorityBufferedTasksRunAfterRelease: after Release, buffered tasks
// still run, in the order of their levels.
func TestPriorityBufferedTasksRunAfterRelease(t *testing.T) {
	forKinds(t, isSingle, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1, ants.WithQueueSize(4))
		g := newGate(t)
		occupy(t, p, g, 1)
		var log runLog
		for i, lv := range []int{-1, 2, 0, 2} {
			require.NoError(t, atLevel(p, lv)(log.task(i)))
		}
		p.Release()
		g.open()
		assert.Equal(t, []int{1, 3, 2, 0}, log.wait(t, 4))
	})
}

func TestPriorityFromContext(t *testing.T) {
	assert.Equal(t, 0, ants.PriorityFromContext(context.Background()))
	var nilCtx context.Context // documented as context.Background()
	assert.Equal(t, 0, ants.PriorityFromContext(nilCtx))
	for _, lv := range []int{math.MinInt, -1, 0, 1, math.MaxInt} {
		ctx := ants.ContextWithPriority(context.Background(), lv)
		assert.Equal(t, lv, ants.PriorityFromContext(ctx))
		inner, cancel := context.WithCancel(ctx)
		assert.Equal(t, lv, ants.PriorityFromContext(inner), "a level survives a derived context")
		cancel()
	}
	assert.Equal(t, 4, ants.PriorityFromContext(ants.ContextWithPriority(nilCtx, 4)))
}

// TestPriorityAgingValidated: a negative aging is ErrInvalidPriorityAging
// from every constructor that takes options.
func TestPriorityAgingValidated(t *testing.T) {
	bad := ants.WithPriorityAging(-time.Nanosecond)
	forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
		_, err := k.new(2, bad)
		assert.ErrorIs(t, err, ants.ErrInvalidPriorityAging)
	})
	_, err := ants.NewWorkerPool(1, func(int) ants.Worker[int, int] { return nil }, bad)
	assert.ErrorIs(t, err, ants.ErrInvalidPriorityAging)
	opts := ants.Options{PriorityAging: time.Second}
	p, err := ants.NewPool(1, ants.WithOptions(opts))
	require.NoError(t, err)
	p.Release()
}

// TestPriorityFlowsThroughEveryWrapper: the level of the context a wrapper
// is given goes with its pool task. On a full Pool of capacity 1, the pool
// tasks of Go, a Group, a ResultGroup, a Keyed and a Subpool wait at their
// levels, beside a plain Submit at level 0, and run highest first.
func TestPriorityFlowsThroughEveryWrapper(t *testing.T) {
	pool := newGroupPool(t, 1)
	g := newGate(t)
	occupyPool(t, pool, g, 1)
	var log runLog
	at := func(lv int) context.Context { return ants.ContextWithPriority(context.Background(), lv) }
	sub := ants.NewSubpool(pool, 8)
	keyed := ants.NewKeyed[string](pool)
	group, _ := ants.NewGroupContext(at(2), pool)
	results, _ := ants.NewResultGroupContext[int](at(5), pool)
	var errs []<-chan error
	steps := []func(){
		func() { errs = append(errs, async(func() error { return pool.Submit(log.task(0)) })) },
		func() {
			errs = append(errs, async(func() error {
				f := ants.Go(at(1), pool, func() (int, error) { log.task(1)(); return 1, nil })
				_, err := f.Wait()
				return err
			}))
		},
		func() { group.Go(func() error { log.task(2)(); return nil }) },
		func() {
			errs = append(errs, async(func() error { return keyed.SubmitContext(at(3), "k", log.task(3)) }))
		},
		func() {
			errs = append(errs, async(func() error { return sub.SubmitContext(at(4), log.task(4)) }))
		},
		func() { results.Go(func() (int, error) { log.task(5)(); return 5, nil }) },
	}
	for i, step := range steps {
		if i == 2 || i == 5 { // a Group's Go blocks its caller: run it aside
			done := make(chan error, 1)
			go func() { step(); done <- nil }()
			errs = append(errs, done)
		} else {
			step()
		}
		waitWaiting(t, pool, i+1)
	}
	g.open()
	for _, e := range errs {
		require.NoError(t, recv(t, e, "a wrapper's submit"))
	}
	require.NoError(t, group.Wait())
	_, err := results.Wait()
	require.NoError(t, err)
	assert.Equal(t, []int{5, 4, 3, 2, 1, 0}, log.wait(t, 6))
}

// TestPriorityTryGoBuffersAtTheGroupsLevel: TryGo never waits, but the task
// it lands in a pool's buffer waits there at the level of the group's
// context.
func TestPriorityTryGoBuffersAtTheGroupsLevel(t *testing.T) {
	pool := newGroupPool(t, 1, ants.WithQueueSize(4))
	g := newGate(t)
	occupyPool(t, pool, g, 1)
	var log runLog
	low, _ := ants.NewGroupContext(ants.ContextWithPriority(context.Background(), -1), pool)
	high, _ := ants.NewGroupContext(ants.ContextWithPriority(context.Background(), 1), pool)
	require.True(t, low.TryGo(func() error { log.task(0)(); return nil }))
	require.True(t, low.TryGo(func() error { log.task(1)(); return nil }))
	require.True(t, high.TryGo(func() error { log.task(2)(); return nil }))
	g.open()
	require.NoError(t, low.Wait())
	require.NoError(t, high.Wait())
	assert.Equal(t, []int{2, 0, 1}, log.wait(t, 3))
}

// prioWorker is a Worker that runs the task it is given.
type prioWorker struct{}

func (prioWorker) Process(_ context.Context, task func()) (struct{}, error) {
	task()
	return struct{}{}, nil
}
func (prioWorker) Close() {}

// TestPriorityOrdersWorkerPoolCallers: Process and Go wait at the level of
// their ctx.
func TestPriorityOrdersWorkerPoolCallers(t *testing.T) {
	wp, err := ants.NewWorkerPool(1, func(int) ants.Worker[func(), struct{}] { return prioWorker{} })
	require.NoError(t, err)
	defer func() { assert.NoError(t, wp.ReleaseTimeout(long)) }()
	g := newGate(t)
	started := make(chan struct{})
	held := wp.Go(context.Background(), g.task(started))
	recv(t, started, "the held task")
	var log runLog
	var errs []<-chan error
	for i, lv := range []int{0, 3, 1} {
		ctx := ants.ContextWithPriority(context.Background(), lv)
		task := log.task(i)
		if i == 1 {
			errs = append(errs, async(func() error { _, err := wp.Go(ctx, task).Wait(); return err }))
		} else {
			errs = append(errs, async(func() error { _, err := wp.Process(ctx, task); return err }))
		}
		waitWaiting(t, wp, i+1)
	}
	g.open()
	_, err = held.Wait()
	require.NoError(t, err)
	for _, e := range errs {
		require.NoError(t, recv(t, e, "a WorkerPool call"))
	}
	assert.Equal(t, []int{1, 2, 0}, log.wait(t, 3))
}
