package ants_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// taskRecorder is an Observer that records every report.
type taskRecorder struct {
	mu    sync.Mutex
	tasks []report
}

type report struct {
	wait, run time.Duration
	panicked  bool
}

func (r *taskRecorder) TaskDone(wait, run time.Duration, panicked bool) {
	r.mu.Lock()
	r.tasks = append(r.tasks, report{wait, run, panicked})
	r.mu.Unlock()
}

func (r *taskRecorder) reports() []report {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]report(nil), r.tasks...)
}

// holdFor returns once at least d has passed since start, by the clock the
// pool reads too: a bound the report times must reach, with no sleep
// that a slow machine could stretch into a pass.
func holdFor(start time.Time, d time.Duration) {
	for time.Since(start) < d {
		time.Sleep(d / 4)
	}
}

const heldFor = 5 * time.Millisecond

func TestObserverReportsEveryTaskOfEveryKind(t *testing.T) {
	forKinds(t, func(poolKind) bool { return true }, func(t *testing.T, k poolKind) {
		rec := new(taskRecorder)
		p := k.mustNew(t, 2, ants.WithObserver(rec))
		const n = 50
		var wg sync.WaitGroup
		wg.Add(n)
		for range n {
			require.NoError(t, p.submit(wg.Done))
		}
		wg.Wait()
		for _, q := range p.levels() {
			require.NoError(t, q.ReleaseTimeout(long))
		}
		got := rec.reports()
		require.Len(t, got, n, "one report per task, none twice")
		for _, o := range got {
			assert.False(t, o.panicked)
			assert.GreaterOrEqual(t, o.wait, time.Duration(0))
			assert.GreaterOrEqual(t, o.run, time.Duration(0))
		}
	})
}

// TestObserverWaitAndRun holds one task on a gate while a second waits for
// the pool: the second's wait covers the time the gate was held, and the
// first's run covers it too.
func TestObserverWaitAndRun(t *testing.T) {
	for _, queue := range []int{0, 1} {
		rec := new(taskRecorder)
		p, err := ants.NewPool(1, ants.WithObserver(rec), ants.WithQueueSize(queue))
		require.NoError(t, err)
		gate := make(chan struct{})
		started := make(chan struct{})
		require.NoError(t, p.Submit(func() { close(started); <-gate }))
		<-started
		second := make(chan error, 1)
		go func() { second <- p.Submit(func() {}) }()
		if queue == 0 {
			waitUntil(t, "blocked", func() bool { return p.Waiting() == 1 })
		} else {
			require.NoError(t, <-second)
		}
		// The second task was stamped as its Submit began, before it
		// blocked or returned: its wait is counted from before begin.
		begin := time.Now()
		holdFor(begin, heldFor)
		close(gate)
		if queue == 0 {
			require.NoError(t, <-second)
		}
		require.NoError(t, p.ReleaseTimeout(long))
		got := rec.reports()
		require.Len(t, got, 2)
		assert.GreaterOrEqual(t, got[0].run, heldFor, "the held task's run, queue %d", queue)
		assert.GreaterOrEqual(t, got[1].wait, heldFor, "the waiting task's wait, queue %d", queue)
	}
}

func TestObserverSkipsRefusedTasks(t *testing.T) {
	rec := new(taskRecorder)
	p, err := ants.NewPool(1, ants.WithObserver(rec), ants.WithNonblocking(true))
	require.NoError(t, err)
	gate := make(chan struct{})
	require.NoError(t, p.Submit(func() { <-gate }))
	assert.ErrorIs(t, p.Submit(func() {}), ants.ErrPoolOverload)
	assert.ErrorIs(t, p.TrySubmit(func() {}), ants.ErrPoolOverload)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	assert.ErrorIs(t, p.SubmitContext(ctx, func() {}), context.Canceled)
	f := ants.Go(ctx, p, func() (int, error) { return 1, nil })
	_, err = f.Wait()
	assert.ErrorIs(t, err, context.Canceled)
	close(gate)
	require.NoError(t, p.ReleaseTimeout(long))
	assert.Len(t, rec.reports(), 1, "only the task that ran")
}

func TestObserverSeesPanics(t *testing.T) {
	boom := func() { panic("boom") }
	t.Run("a pool's task, with a PanicHandler", func(t *testing.T) {
		rec := new(taskRecorder)
		p, err := ants.NewPool(1, ants.WithObserver(rec), ants.WithPanicHandler(func(any) {}))
		require.NoError(t, err)
		require.NoError(t, p.Submit(boom))
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Equal(t, []bool{true}, panics(rec.reports()))
	})
	t.Run("caught as a *PanicError by Go, a group, a stream and Keyed", func(t *testing.T) {
		rec := new(taskRecorder)
		p, err := ants.NewPool(4, ants.WithObserver(rec))
		require.NoError(t, err)

		_, err = ants.Go(context.Background(), p, func() (int, error) { boom(); return 0, nil }).Wait()
		var pe *ants.PanicError
		assert.ErrorAs(t, err, &pe)

		g := ants.NewGroup(p)
		g.Go(func() error { boom(); return nil })
		assert.ErrorAs(t, g.Wait(), &pe)

		s := ants.NewStream(p)
		s.Go(func() func() { boom(); return nil })
		assert.ErrorAs(t, s.Wait(), &pe)

		k := ants.NewKeyed[int](p)
		require.NoError(t, k.Submit(1, boom))
		assert.ErrorAs(t, k.Wait(), &pe)

		require.NoError(t, p.ReleaseTimeout(long))
		assert.Equal(t, []bool{true, true, true, true}, panics(rec.reports()))
	})
}

func panics(obs []report) []bool {
	var p []bool
	for _, o := range obs {
		p = append(p, o.panicked)
	}
	return p
}

// TestObserverThroughWrappers checks that a task that goes through a
// sub-pool, a keyed queue or a future is reported once, with its wait
// measured from its own submit call: the time it waited for the sub-pool's
// slot or behind its key's earlier task is in it.
func TestObserverThroughWrappers(t *testing.T) {
	t.Run("a Subpool's slot", func(t *testing.T) {
		rec := new(taskRecorder)
		p, err := ants.NewPool(4, ants.WithObserver(rec))
		require.NoError(t, err)
		sp := ants.NewSubpool(p, 1)
		gate := make(chan struct{})
		require.NoError(t, sp.Submit(func() { <-gate }))
		second := make(chan error, 1)
		go func() { second <- sp.Submit(func() {}) }()
		waitUntil(t, "blocked", func() bool { return sp.Waiting() == 1 })
		begin := time.Now() // after the second task's stamp, taken as its Submit began
		holdFor(begin, heldFor)
		close(gate)
		require.NoError(t, <-second)
		require.NoError(t, sp.ReleaseTimeout(long))
		require.NoError(t, p.ReleaseTimeout(long))
		got := rec.reports()
		require.Len(t, got, 2)
		assert.GreaterOrEqual(t, got[1].wait, heldFor)
	})
	t.Run("a key's queue", func(t *testing.T) {
		rec := new(taskRecorder)
		p, err := ants.NewPool(4, ants.WithObserver(rec))
		require.NoError(t, err)
		k := ants.NewKeyed[string](p)
		gate := make(chan struct{})
		started := make(chan struct{})
		require.NoError(t, k.Submit("a", func() { close(started); <-gate }))
		<-started
		require.NoError(t, k.Submit("a", func() {}))
		require.NoError(t, k.Submit("a", func() {}))
		begin := time.Now() // after the stamps of the two tasks, taken by their Submits
		holdFor(begin, heldFor)
		close(gate)
		require.NoError(t, k.Wait())
		require.NoError(t, p.ReleaseTimeout(long))
		got := rec.reports()
		require.Len(t, got, 3, "each keyed task on its own, not the key's run")
		assert.GreaterOrEqual(t, got[0].run, heldFor)
		assert.GreaterOrEqual(t, got[1].wait, heldFor)
		assert.GreaterOrEqual(t, got[2].wait, heldFor)
	})
	t.Run("Go on a Subpool on a MultiPool", func(t *testing.T) {
		rec := new(taskRecorder)
		mp, err := ants.NewMultiPool(2, 2, ants.RoundRobin, ants.WithObserver(rec))
		require.NoError(t, err)
		sp := ants.NewSubpool(mp, 2)
		const n = 20
		for i := range n {
			v, err := ants.Go(context.Background(), sp, func() (int, error) { return i, nil }).Wait()
			require.NoError(t, err)
			assert.Equal(t, i, v)
		}
		require.NoError(t, mp.ReleaseTimeout(long))
		assert.Len(t, rec.reports(), n, "once each, by the outermost wrapper")
	})
}

func TestObserverSkipsSkippedTasks(t *testing.T) {
	rec := new(taskRecorder)
	p, err := ants.NewPool(1, ants.WithObserver(rec), ants.WithQueueSize(4))
	require.NoError(t, err)
	gate := make(chan struct{})
	started := make(chan struct{})
	require.NoError(t, p.Submit(func() { close(started); <-gate }))
	<-started

	// A future whose ctx ends while its task waits in the buffer.
	ctx, cancel := context.WithCancel(context.Background())
	f := ants.Go(ctx, p, func() (int, error) { return 1, nil })
	cancel()

	// A group's task after the group's first error.
	g, _ := ants.NewGroupContext(context.Background(), p)
	failed := errors.New("first")
	g.Go(func() error { return failed })
	g.Go(func() error { return nil })

	close(gate)
	_, err = f.Wait()
	assert.ErrorIs(t, err, context.Canceled)
	assert.ErrorIs(t, g.Wait(), failed)
	require.NoError(t, p.ReleaseTimeout(long))
	// The gate task and the group's failing task ran; the future and the
	// group's second task were skipped.
	assert.Len(t, rec.reports(), 2)
}

// panicky is a Worker whose Process panics when its argument is negative.
type panicky struct{}

func (panicky) Process(_ context.Context, n int) (int, error) {
	if n < 0 {
		panic("negative")
	}
	return n, nil
}

func (panicky) Close() {}

func TestObserverSeesWorkerPoolTasks(t *testing.T) {
	rec := new(taskRecorder)
	p, err := ants.NewWorkerPool(2, func(int) ants.Worker[int, int] { return panicky{} }, ants.WithObserver(rec))
	require.NoError(t, err)
	v, err := p.Process(context.Background(), 1)
	require.NoError(t, err)
	assert.Equal(t, 1, v)
	_, err = p.Process(context.Background(), -1)
	var pe *ants.PanicError
	assert.ErrorAs(t, err, &pe)
	_, err = p.Go(context.Background(), 2).Wait()
	require.NoError(t, err)
	require.NoError(t, p.ReleaseTimeout(long))
	assert.Equal(t, []bool{false, true, false}, panics(rec.reports()))
}
