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

// With long tasks, a worker that takes a blocked caller's task, and so
// wakes the caller, yields to it before it runs the task: on one P, the
// caller's Submit returns before the task starts. With short tasks the
// worker runs the task first (afterWakeLocked, wake.go).
func TestWorkerYieldsToWokenCaller(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector shuffles the order in which the scheduler runs the goroutines readied")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, tc := range []struct {
		name   string
		run    time.Duration
		yields bool
	}{
		{"long", 20 * ants.LongTaskRun, true},
		{"short", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ants.NewPool(1)
			require.NoError(t, err)
			defer p.Release()
			// Each Submit but the first waits for the worker, which takes
			// its task and wakes it; the task after one such wake-up in
			// eight is timed: 32 samples of tc.run.
			spin := func() {
				for start := time.Now(); time.Since(start) < tc.run; {
				}
			}
			var wg sync.WaitGroup
			wg.Add(257)
			for i := 0; i < 257; i++ {
				require.NoError(t, p.Submit(func() { spin(); wg.Done() }))
			}
			wg.Wait()
			if tc.yields {
				require.Greater(t, p.WokenRun(), ants.LongTaskRun)
			} else {
				require.Less(t, p.WokenRun(), ants.LongTaskRun)
			}

			require.Less(t, p.WokenRun(), time.Duration(ants.BlockingRun), "tasks that count as blocking make no worker yield")

			// The worker's task runs until the caller below waits; then the
			// worker takes the caller's task and wakes it. The yield puts
			// the worker in the global run queue, which the scheduler looks
			// at first one time in 61: then the worker runs first anyway.
			// So the order is counted over rounds.
			const rounds = 8
			callerFirst := 0
			for round := 0; round < rounds; round++ {
				require.NoError(t, p.Submit(func() {
					for p.Waiting() == 0 {
						runtime.Gosched()
					}
				}))
				events := make(chan string, 2)
				go func() {
					if err := p.Submit(func() { events <- "task ran" }); err != nil {
						events <- err.Error()
					}
					events <- "Submit returned"
				}()
				first, second := <-events, <-events
				require.ElementsMatch(t, []string{"task ran", "Submit returned"}, []string{first, second})
				if first == "Submit returned" {
					callerFirst++
				}
			}
			if tc.yields {
				require.GreaterOrEqual(t, callerFirst, rounds-3, "the caller should run before its task in most rounds")
			} else {
				require.Zero(t, callerFirst, "the task should run before its caller resumes")
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
