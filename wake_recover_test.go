package ants_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// The rule for blocking tasks ends once the tasks are short: from the
// highest average the samples allow, RecoverySamples samples of short
// tasks bring it below BlockingRun, and one fewer does not.
func TestBlockingRuleRecoveryBound(t *testing.T) {
	p, err := ants.NewPool(1)
	require.NoError(t, err)
	defer p.Release()
	for range 200 {
		require.True(t, p.NoteWokenRun(time.Hour), "samples of blocking tasks")
	}
	require.InDelta(t, float64(ants.MaxWokenRun), float64(p.WokenRun()), float64(ants.MaxWokenRun)/100,
		"a sample counts at most MaxWokenRun")
	for i := 1; i < ants.RecoverySamples; i++ {
		require.True(t, p.NoteWokenRun(time.Microsecond), "after %d short samples", i)
	}
	require.False(t, p.NoteWokenRun(time.Microsecond), "after %d short samples", ants.RecoverySamples)
}

// recoveryTasks is how many short tasks each path runs after the blocking
// ones: four times the bound of a pool of one worker, so that a few
// samples stretched by a busy machine do not hold the rule.
const recoveryTasks = 4 * (8*ants.RecoverySamples + 7)

// TestBlockingRuleFollowsEveryPath puts a pool of one worker in the rule
// for blocking tasks (its first task sleeps for MaxWokenRun, and a worker's start is timed), then runs
// short tasks that its worker takes in one way each: waking from the idle
// queue for each task, taking a blocked caller's task as its own ends
// (the worker never parks), or taking the next buffered task (the
// buffered fast path), from the highest average the samples allow. Each
// way must time its tasks while the rule is on, so that the measure
// follows the tasks down: the pool leaves the rule (which takes at least
// RecoverySamples samples from there), or, where the machine held the
// tasks up, it timed one in eight of them.
func TestBlockingRuleFollowsEveryPath(t *testing.T) {
	paths := []struct {
		name string
		opts []ants.Option
		run  func(t *testing.T, p *ants.Pool, task func())
	}{
		{"parked", nil, func(t *testing.T, p *ants.Pool, task func()) {
			for range recoveryTasks {
				require.NoError(t, p.Submit(task))
				waitIdle(t, p, 1) // the worker parks before the next task
			}
		}},
		{"caller to caller", nil, func(t *testing.T, p *ants.Pool, task func()) {
			g := newGate(t)
			occupyWith(t, p.Submit, g, 1)
			var wg sync.WaitGroup
			for range recoveryTasks {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := p.Submit(task); err != nil {
						t.Errorf("submit: %v", err)
					}
				}()
			}
			waitWaiting(t, p, recoveryTasks)
			g.open() // the worker takes each caller's task as its own ends
			wg.Wait()
		}},
		{"buffered fast path", []ants.Option{ants.WithQueueSize(recoveryTasks)}, func(t *testing.T, p *ants.Pool, task func()) {
			g := newGate(t)
			occupyWith(t, p.Submit, g, 1)
			for range recoveryTasks {
				require.NoError(t, p.Submit(task))
			}
			g.open() // the worker takes each buffered task as its own ends
		}},
	}
	for _, path := range paths {
		t.Run(path.name, func(t *testing.T) {
			p, err := ants.NewPool(1, append(path.opts, ants.WithDisablePurge(true))...)
			require.NoError(t, err)
			defer p.Release()
			require.NoError(t, p.Submit(func() { time.Sleep(ants.MaxWokenRun) }))
			waitIdle(t, p, 1)
			require.Greater(t, p.WokenRun(), time.Duration(ants.BlockingRun),
				"a worker's start is timed, and its task slept for MaxWokenRun")
			for range 200 {
				p.NoteWokenRun(time.Hour) // from the highest average the samples allow
			}

			before := p.WokenSamples()
			var done sync.WaitGroup
			done.Add(recoveryTasks)
			path.run(t, p, done.Done)
			done.Wait()
			samples := p.WokenSamples() - before
			if p.WokenRun() < time.Duration(ants.BlockingRun) {
				return // the measure followed the tasks down
			}
			// A machine that held the short tasks up can keep the average
			// up; the measure must then have followed them all the same,
			// one task in eight, the rule being on throughout.
			require.GreaterOrEqual(t, samples, uint64(recoveryTasks/8-1),
				fmt.Sprintf("the rule for blocking tasks is still on after %d short tasks, with %d samples", recoveryTasks, samples))
		})
	}
}

// A pool of more than LargePoolPerProc workers per P has its lock's
// waiters yield their goroutine; a smaller one, their thread first; and
// Tune moves a pool from one to the other.
func TestLockYieldFollowsCapacity(t *testing.T) {
	large := ants.LargePoolPerProc*runtime.GOMAXPROCS(0) + 1
	for _, tc := range []struct {
		size   int
		yields bool
	}{{1, false}, {large - 1, false}, {large, true}, {0, true}} {
		p, err := ants.NewPool(tc.size)
		require.NoError(t, err)
		require.Equal(t, tc.yields, p.LockYieldsGoroutine(), "capacity %d", tc.size)
		p.Release()
	}
	p, err := ants.NewPool(1)
	require.NoError(t, err)
	defer p.Release()
	p.Tune(large)
	require.True(t, p.LockYieldsGoroutine(), "tuned up to %d", large)
	p.Tune(1)
	require.False(t, p.LockYieldsGoroutine(), "tuned back down to 1")
}
