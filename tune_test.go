package ants_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

func TestPoolTune(t *testing.T) {
	t.Run("Tune is ignored for unlimited pools, sizes of zero or less and PreAlloc pools", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			unlimited := k.mustNew(t, 0)
			unlimited.Tune(10)
			assert.Equal(t, -1, unlimited.Cap())

			p := k.mustNew(t, 4)
			p.Tune(0)
			p.Tune(-3)
			assert.Equal(t, 4, p.Cap())

			prealloc := k.mustNew(t, 4, ants.WithPreAlloc(true))
			prealloc.Tune(8)
			prealloc.Tune(2)
			assert.Equal(t, 4, prealloc.Cap())
		})
	})
	t.Run("growing starts the tasks of blocked callers at once", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			p, g := k.mustNewFull(t, 1, ants.WithDisablePurge(true))

			started := make(chan struct{}, 3)
			results := blockedSubmits(t, p, 3, g.task(started))

			p.Tune(3)
			assert.Equal(t, 3, p.Cap())
			recv(t, started, "a blocked caller's task after growing")
			recv(t, started, "a blocked caller's task after growing")
			assert.Equal(t, 1, p.Waiting())
			assert.Equal(t, 3, p.Running())
			assertNoRecv(t, started, "a third task beyond the capacity")

			p.Tune(4)
			recv(t, started, "the last blocked caller's task after growing")
			for _, errc := range results {
				assert.NoError(t, recv(t, errc, "a blocked Submit"))
			}
			assert.Equal(t, 0, p.Waiting())
		})
	})
	t.Run("shrinking stops surplus idle workers at once", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 4, ants.WithDisablePurge(true))
			startIdle(t, p, 4)

			p.Tune(1)
			assert.Equal(t, 1, p.Stats().Idle, "the surplus idle workers are stopped by Tune itself")
			waitRunning(t, p, 1)
			assert.Equal(t, 0, p.Free())
		})
	})
	t.Run("busy workers above a shrunk capacity exit after their task", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			p, g := k.mustNewFull(t, 3, ants.WithNonblocking(true), ants.WithDisablePurge(true))

			p.Tune(1)
			assert.Equal(t, 1, p.Cap())
			assert.Equal(t, 3, p.Running())
			assert.Equal(t, -2, p.Free())
			assert.ErrorIs(t, submitNow(t, p.submit, func() {}), ants.ErrPoolOverload)

			g.open()
			waitUntil(t, "the surplus workers exit", func() bool { return p.Running() == 1 })
			waitIdle(t, p, 1)
			assert.Equal(t, 0, p.Free())
		})
	})
	t.Run("a shrunk capacity binds new tasks at once", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 2, ants.WithNonblocking(true), ants.WithDisablePurge(true))
			startIdle(t, p, 2)

			p.Tune(1)
			occupy(t, p, newGate(t), 1)
			assert.ErrorIs(t, submitNow(t, p.submit, func() {}), ants.ErrPoolOverload)
			waitRunning(t, p, 1)
		})
	})
}

// TestTuneBackUpRestoresCapacityAtOnce shrinks a pool with idle workers and
// grows it back: with one task running and a capacity of 2, a second task
// must be taken at once.
func TestTuneBackUpRestoresCapacityAtOnce(t *testing.T) {
	p, err := ants.NewPool(2, ants.WithNonblocking(true), ants.WithDisablePurge(true))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := p.ReleaseTimeout(long); err != nil {
			t.Errorf("ReleaseTimeout: %v", err)
		}
	}()
	for i := 0; i < 100; i++ {
		// Two idle workers.
		var started, finished sync.WaitGroup
		gate := make(chan struct{})
		started.Add(2)
		finished.Add(2)
		for j := 0; j < 2; j++ {
			if err := p.Submit(func() { started.Done(); <-gate; finished.Done() }); err != nil {
				t.Fatalf("round %d: submit %d: %v", i, j, err)
			}
		}
		started.Wait()
		close(gate)
		finished.Wait()
		waitUntil(t, "two idle workers", func() bool { s := p.Stats(); return s.Idle == 2 && s.Running == 2 })

		p.Tune(1)
		p.Tune(2)
		busy := make(chan struct{})
		if err := p.Submit(func() { <-busy }); err != nil {
			t.Fatalf("round %d: the first task after Tune(1), Tune(2): %v", i, err)
		}
		err := p.TrySubmit(func() {})
		close(busy)
		if err != nil {
			t.Fatalf("round %d: with 1 task running and Cap() = %d, TrySubmit = %v (Running() = %d)", i, p.Cap(), err, p.Running())
		}
		waitUntil(t, "every worker idle", func() bool { s := p.Stats(); return s.Running == s.Idle })
	}
}

// TestShrinkThenGrowServesAtOnce shrinks a pool with idle workers and grows
// it back at once, many times, so that growing finds the worker the shrink
// stopped still alive, or exiting, or gone. Whichever, the grown pool must
// take two tasks without waiting, serve a queued or waiting task at once,
// run each task once, and keep at most Cap workers once stopped ones have
// exited.
func TestShrinkThenGrowServesAtOnce(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	rounds := 60
	switch {
	case testing.Short():
		rounds = 15
	case longTests():
		rounds = 600
	}
	for _, queued := range []bool{false, true} {
		opts := []ants.Option{ants.WithDisablePurge(true)}
		if queued {
			opts = append(opts, ants.WithQueueSize(1))
		}
		p, err := ants.NewPool(2, opts...)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < rounds && !t.Failed(); i++ {
			shrinkThenGrowRound(t, p, i, queued)
		}
		if err := p.ReleaseTimeout(long); err != nil {
			t.Errorf("ReleaseTimeout: %v", err)
		}
	}
	goleak.VerifyNone(t, ignore)
}

// shrinkThenGrowRound is one round of TestShrinkThenGrowServesAtOnce on a
// pool of capacity 2 with every worker idle or gone.
func shrinkThenGrowRound(t *testing.T, p *ants.Pool, round int, queued bool) {
	t.Helper()
	var runs atomic.Int32
	count := func() { runs.Add(1) }
	twoIdle := func() {
		t.Helper()
		// Both tasks must start, on two workers, before either ends. The
		// second may wait for a worker that a shrink stopped and that has
		// not exited yet, which takes it rather than let a new worker start
		// above the goroutine bound.
		warm := make(chan struct{})
		var started sync.WaitGroup
		started.Add(2)
		for i := 0; i < 2; i++ {
			if err := p.Submit(func() { count(); started.Done(); <-warm }); err != nil {
				t.Fatalf("round %d: warming submit %d: %v", round, i, err)
			}
		}
		started.Wait()
		close(warm)
		waitUntil(t, "two idle workers", func() bool { s := p.Stats(); return s.Idle == 2 && s.Running == 2 })
	}
	atRest := func(want int32) {
		t.Helper()
		waitUntil(t, "every worker idle and every stopped one gone", func() bool {
			s := p.Stats()
			return s.Completed == s.Submitted && s.Running == s.Idle
		})
		if r := p.Running(); r > p.Cap() {
			t.Fatalf("round %d: Running() = %d > Cap() = %d at rest", round, r, p.Cap())
		}
		if n := runs.Load(); n != want {
			t.Fatalf("round %d: %d task runs, want %d", round, n, want)
		}
	}

	// Shrink and grow back with nothing to do: two tasks must fit at once.
	twoIdle()
	p.Tune(1)
	p.Tune(2)
	hold := make(chan struct{})
	for i := 0; i < 2; i++ {
		if err := p.TrySubmit(func() { count(); <-hold }); err != nil {
			t.Fatalf("round %d: TrySubmit %d right after Tune(1), Tune(2): %v", round, i, err)
		}
	}
	close(hold)
	atRest(4)

	// One task running, shrink, one more task (queued, or a waiting
	// caller), grow back: the second task must start at once.
	twoIdle()
	gate := make(chan struct{})
	if err := p.Submit(func() { count(); <-gate }); err != nil {
		t.Fatalf("round %d: %v", round, err)
	}
	p.Tune(1)
	ran := make(chan struct{})
	second := func() { count(); close(ran) }
	if queued {
		if err := p.Submit(second); err != nil {
			t.Fatalf("round %d: queued submit: %v", round, err)
		}
	} else {
		errc := make(chan error, 1)
		go func() { errc <- p.Submit(second) }()
		waitUntil(t, "the caller to wait", func() bool { return p.Waiting() == 1 })
		defer func() {
			if err := <-errc; err != nil {
				t.Errorf("round %d: the waiting caller: %v", round, err)
			}
		}()
	}
	p.Tune(2)
	select {
	case <-ran:
	case <-time.After(long):
		fatalHang(t, fmt.Sprintf("round %d: Tune(2) did not start the pending task", round))
	}
	close(gate)
	atRest(8)
}
