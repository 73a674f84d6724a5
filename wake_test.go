package ants_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	"github.com/stretchr/testify/require"
)

// wakeRound submits n tasks running task to p, and waits for them; with
// every worker idle before it, each task wakes one.
func wakeRound(t *testing.T, p *ants.Pool, n int, task func()) {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		require.NoError(t, p.Submit(func() { task(); wg.Done() }))
	}
	wg.Wait()
	require.Eventually(t, func() bool { return p.Stats().Idle == n }, 5*time.Second, time.Millisecond)
}

// idleAfterBurst submits n tasks that block until the returned release is
// called, on one P, and returns the pool's idle workers right after the
// last Submit: on one P no woken worker runs before the test blocks, so
// the count shows how many workers the submits themselves woke.
func idleAfterBurst(t *testing.T, p *ants.Pool, n int) (idle int, release func()) {
	t.Helper()
	gate := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		require.NoError(t, p.Submit(func() { <-gate; wg.Done() }))
	}
	idle = p.Stats().Idle
	return idle, func() { close(gate); wg.Wait() }
}

// With tasks that block, once more than HandBacklog tasks wait for the
// chain of woken workers, the submitter hands each to an idle worker of
// its own, as in ants; with tasks that compute, one woken worker wakes the
// next however many wait (the wake rule, wake.go).
func TestWakeRuleFollowsTasks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const workers, burst = 2 * ants.HandBacklog, ants.HandBacklog + ants.HandBacklog/2
	for _, tc := range []struct {
		name     string
		task     func()
		blocking bool
	}{
		{"blocking", func() { time.Sleep(time.Millisecond) }, true},
		{"computing", func() {}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ants.NewPool(workers)
			require.NoError(t, err)
			defer p.Release()
			// Every worker must be woken eight times for one timed wake-up.
			for round := 0; round < 12; round++ {
				wakeRound(t, p, workers, tc.task)
			}
			if tc.blocking {
				require.Greater(t, p.WokenRun(), time.Duration(ants.BlockingRun))
			} else {
				require.Less(t, p.WokenRun(), time.Duration(ants.BlockingRun))
			}
			idle, release := idleAfterBurst(t, p, burst)
			defer release()
			if tc.blocking {
				// The first woken worker searches; when the backlog passes
				// HandBacklog, the submitter hands out all of it.
				require.Equal(t, workers-1-ants.HandBacklog, idle, "the backlog should have been handed out")
			} else {
				require.Equal(t, workers-1, idle, "one woken worker should search for the rest")
			}
		})
	}
}

// The worker struct stays within the 128-byte size class, with the fields
// of its wake-up and of its task's end in its first cache line.
func TestWorkerFitsSizeClass(t *testing.T) {
	pool, withFunc := ants.WorkerSize()
	require.LessOrEqual(t, pool, uintptr(128))
	require.LessOrEqual(t, withFunc, uintptr(128))
}
