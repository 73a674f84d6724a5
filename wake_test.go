package ants_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	"github.com/stretchr/testify/require"
)

// wakeRound submits n tasks running task to p, and waits for them; with
// every worker idle before it, each task wakes one. It records in ends
// when each task ended (see endRecorder).
func wakeRound(t *testing.T, p *ants.Pool, n int, task func(), ends *endRecorder) {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(n)
	ends.mark()
	for i := 0; i < n; i++ {
		require.NoError(t, p.Submit(func() { task(); ends.end(); wg.Done() }))
	}
	ends.mark()
	wg.Wait()
	require.Eventually(t, func() bool { return p.Stats().Idle == n }, 5*time.Second, time.Millisecond)
}

// endRecorder bounds the samples a pool takes for its average woken run
// (Pool.WokenRun), on one P, from the times its tasks end. On one P one
// goroutine runs at a time, so a worker takes its wake-up time after the
// test's last mark and after the end of every task before its own: each
// sample is at most the time from the last mark or task end before a
// task's end to that end. A machine that took the P's thread away for a
// while, as a loaded one does, shows as a long step, and the samples it
// stretched are no evidence of what the pool measures.
type endRecorder struct {
	mu      sync.Mutex
	last    time.Time
	maxStep time.Duration
}

// mark records a point in time before which no sample begins: a start of
// submits that wake workers, or the end of them.
func (r *endRecorder) mark() {
	r.mu.Lock()
	r.last = time.Now()
	r.mu.Unlock()
}

// end records the end of a task.
func (r *endRecorder) end() {
	now := time.Now()
	r.mu.Lock()
	r.maxStep = max(r.maxStep, now.Sub(r.last))
	r.last = now
	r.mu.Unlock()
}

// longest returns the longest step recorded: a bound on every sample.
func (r *endRecorder) longest() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.maxStep
}

// premiseAttempts is how many times the tests below run the measurement
// of a pool's woken run before they give up on a machine that keeps
// stretching it.
const premiseAttempts = 20

// heldUpOrFail settles a measurement whose average the tasks alone cannot
// explain: if no step between the ends of its tasks reached BlockingRun,
// the machine held none up and the pool erred, so the test fails with
// msg; otherwise the attempt is the machine's, and the test is skipped at
// the last attempt, or goes on to the next.
func heldUpOrFail(t *testing.T, attempt int, ends *endRecorder, msg string) {
	t.Helper()
	step := ends.longest()
	require.GreaterOrEqual(t, step, time.Duration(ants.BlockingRun), msg)
	if attempt == premiseAttempts {
		t.Skipf("the machine held up a task by up to %v in each of %d attempts: the pool's measure of the tasks shows nothing", step, attempt)
	}
}

// promptBurst is the longest a burst of submits on one P may take for
// idleAfterBurst's count to show what the submits did: the runtime
// preempts a goroutine that has run for 10 ms, which lets the woken
// workers run before the test blocks.
const promptBurst = 5 * time.Millisecond

// idleAfterBurst submits n tasks that block until the returned release is
// called, on one P, and returns the pool's idle workers right after the
// last Submit: on one P no woken worker runs before the test blocks, so
// the count shows how many workers the submits themselves woke. It also
// returns how long the submits took: a count taken after a burst longer
// than promptBurst shows nothing (the runtime may have preempted it).
func idleAfterBurst(t *testing.T, p *ants.Pool, n int) (idle int, took time.Duration, release func()) {
	t.Helper()
	gate := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(n)
	runtime.Gosched() // a fresh time slice for the burst
	start := time.Now()
	for i := 0; i < n; i++ {
		require.NoError(t, p.Submit(func() { <-gate; wg.Done() }))
	}
	idle = p.Stats().Idle
	return idle, time.Since(start), func() { close(gate); wg.Wait() }
}

// With tasks that block, once more than HandBacklog tasks wait for the
// chain of woken workers, the submitter hands each to an idle worker of
// its own, as in ants; with tasks that compute, one woken worker wakes the
// next however many wait (the wake rule, wake.go).
//
// The first subtest checks that the pool tells the two apart from the
// woken runs it measures; the second, the wake rule for each, with the
// pool's average pinned (PinWokenRun), so that it does not rest on the
// clock.
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
		t.Run(tc.name+"/measured", func(t *testing.T) {
			for attempt := 1; ; attempt++ {
				p, err := ants.NewPool(workers, ants.WithDisablePurge(true))
				require.NoError(t, err)
				// Every worker must be woken eight times for one timed
				// wake-up.
				var ends endRecorder
				for round := 0; round < 12; round++ {
					wakeRound(t, p, workers, tc.task, &ends)
				}
				run := p.WokenRun()
				p.Release()
				if tc.blocking {
					// A task that sleeps 1 ms makes every sample at least
					// that long, however loaded the machine.
					require.Greater(t, run, time.Duration(ants.BlockingRun))
					return
				}
				if run < time.Duration(ants.BlockingRun) {
					return
				}
				// Samples under BlockingRun average under it: an average
				// above it from such samples is the pool's error, one with
				// a longer step may be the machine's doing.
				heldUpOrFail(t, attempt, &ends, fmt.Sprintf(
					"an average woken run of %v from computing tasks, none of which took as long", run))
			}
		})
		t.Run(tc.name+"/wake rule", func(t *testing.T) {
			pin := time.Duration(0)
			if tc.blocking {
				pin = time.Millisecond
			}
			for attempt := 1; ; attempt++ {
				p, err := ants.NewPool(workers, ants.WithDisablePurge(true))
				require.NoError(t, err)
				wakeRound(t, p, workers, func() {}, new(endRecorder)) // start every worker
				require.True(t, p.PinWokenRun(pin), "every worker is idle")
				idle, took, release := idleAfterBurst(t, p, burst)
				release()
				p.Release()
				if took >= promptBurst {
					if attempt == premiseAttempts {
						t.Skipf("the burst of submits took up to %v in each of %d attempts: the runtime may have let the woken workers run", took, attempt)
					}
					continue
				}
				if tc.blocking {
					// The first woken worker searches; when the backlog
					// passes HandBacklog, the submitter hands out all of it.
					require.Equal(t, workers-1-ants.HandBacklog, idle, "the backlog should have been handed out")
				} else {
					require.Equal(t, workers-1, idle, "one woken worker should search for the rest")
				}
				return
			}
		})
	}
}

// With long tasks, a worker that takes a blocked caller's task, and so
// wakes the caller, yields to it before it runs the task: on one P, the
// caller's Submit returns before the task starts. With short tasks the
// worker runs the task first (afterWakeLocked, wake.go).
//
// The first subtest checks that the pool measures tasks of 20 LongTaskRun
// as long and not blocking, and tasks that do nothing as short; the
// second, the order of caller and task for each, with the pool's average
// pinned (PinWokenRun), so that it does not rest on the clock.
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
		t.Run(tc.name+"/measured", func(t *testing.T) {
			// Each Submit but the first waits for the worker, which takes
			// its task and wakes it; the task after one such wake-up in
			// eight is timed, and the first task from the worker's start:
			// 9 samples of tc.run, in under 2 ms, a window a loaded machine
			// leaves whole now and then.
			spin := func() {
				for start := time.Now(); time.Since(start) < tc.run; {
				}
			}
			for attempt := 1; ; attempt++ {
				p, err := ants.NewPool(1, ants.WithDisablePurge(true))
				require.NoError(t, err)
				var ends endRecorder
				var wg sync.WaitGroup
				wg.Add(65)
				ends.mark()
				for i := 0; i < 65; i++ {
					require.NoError(t, p.Submit(func() { spin(); ends.end(); wg.Done() }))
				}
				wg.Wait()
				run := p.WokenRun()
				p.Release()
				if tc.yields {
					// Every sample is at least tc.run, however loaded the
					// machine.
					require.Greater(t, run, ants.LongTaskRun)
					if run < time.Duration(ants.BlockingRun) {
						return
					}
				} else if run < ants.LongTaskRun {
					return
				}
				// Samples under BlockingRun average under it: a
				// blocking average from such samples is the pool's error,
				// and so is an average of short tasks over LongTaskRun
				// when no step shows the machine holding a task up; with
				// a longer step either may be the machine's doing.
				heldUpOrFail(t, attempt, &ends, fmt.Sprintf(
					"an average woken run of %v from tasks none of which took as long: tasks that count as blocking make no worker yield", run))
			}
		})
		t.Run(tc.name+"/order", func(t *testing.T) {
			p, err := ants.NewPool(1, ants.WithDisablePurge(true))
			require.NoError(t, err)
			defer p.Release()
			require.NoError(t, p.Submit(func() {})) // start the worker
			pin := time.Duration(0)
			if tc.yields {
				pin = tc.run
			}

			// The worker's task runs until the caller below waits; then the
			// worker takes the caller's task and wakes it. The yield puts
			// the worker in the global run queue, which the scheduler looks
			// at first one time in 61: then the worker runs first anyway.
			// So the order is counted over rounds.
			//
			// Without the yield, only the runtime's preemption of the
			// worker, after 10 ms on the P, lets the caller run first: a
			// round in which the worker's time on the P may have come to
			// promptBurst is not counted.
			const rounds = 8
			callerFirst, counted := 0, 0
			for attempt := 0; counted < rounds; attempt++ {
				if attempt == premiseAttempts*rounds {
					t.Skipf("the worker was held up for %v or more in %d of %d rounds", promptBurst, attempt-counted, attempt)
				}
				waitIdle(t, p, 1)
				require.True(t, p.PinWokenRun(pin), "the worker is idle")
				var sliceFrom, taskAt time.Time // on the worker's goroutine
				sliceFrom = time.Now()
				require.NoError(t, p.Submit(func() {
					for p.Waiting() == 0 {
						sliceFrom = time.Now()
						runtime.Gosched()
					}
				}))
				events := make(chan string, 2)
				go func() {
					if err := p.Submit(func() { taskAt = time.Now(); events <- "task ran" }); err != nil {
						events <- err.Error()
					}
					events <- "Submit returned"
				}()
				first, second := <-events, <-events
				require.ElementsMatch(t, []string{"task ran", "Submit returned"}, []string{first, second})
				if !tc.yields && taskAt.Sub(sliceFrom) >= promptBurst {
					continue
				}
				counted++
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
