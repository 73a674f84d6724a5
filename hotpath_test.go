package ants_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// Tests of the task path: tasks go through one ring, and parked workers are
// woken only when no woken worker is already on its way to it (wake.go).

func TestBurstOntoIdleWorkersStartsEveryTaskAtOnce(t *testing.T) {
	// Submit wakes one parked worker and the woken workers wake one another;
	// no task may be left waiting for a busy worker while an idle one sleeps.
	// Every task here blocks until all of them have started, so a task left
	// in the ring would hang the test.
	const n = 16
	forSinglePools(t, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, n, ants.WithFakeClock(ants.NewFakeClock()))
		startIdle(t, p, n)

		var started sync.WaitGroup
		started.Add(n)
		all := make(chan struct{})
		go func() { started.Wait(); close(all) }()
		release := newGate(t)
		for i := 0; i < n; i++ {
			require.NoError(t, p.submit(func() {
				started.Done()
				<-release.ch
			}))
		}
		recv(t, all, "every task of the burst to start on the idle workers")
		assert.Equal(t, n, p.Running())
		assert.Equal(t, 0, p.Stats().Idle)
		release.open()
		waitIdle(t, p, n)
	})
}

func TestTaskBehindABusyOneStartsOnAnIdleWorker(t *testing.T) {
	forSinglePools(t, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 2, ants.WithFakeClock(ants.NewFakeClock()))
		startIdle(t, p, 2)

		hold := newGate(t)
		first := make(chan struct{}, 1)
		second := make(chan struct{}, 1)
		// Back to back: the second task is queued while the worker woken for
		// the first may not have taken it yet.
		require.NoError(t, p.submit(hold.task(first)))
		require.NoError(t, p.submit(signal(second)))
		recv(t, first, "the first task")
		recv(t, second, "the second task, while the first holds its worker")
		hold.open()
	})
}

func TestRunningStaysWithinCapWhileThePurgeStopsWorkers(t *testing.T) {
	// Regression: Running() used to count workers the purge had told to
	// stop until their goroutines exited, so inside the tasks of a busy pool
	// it could exceed Cap() and Free() went negative. Here the purge runs
	// as often as the clock can be ticked while tasks sample both.
	const (
		size    = 64
		tasks   = 20_000
		callers = 4
	)
	forSinglePools(t, func(t *testing.T, k poolKind) {
		c := ants.NewFakeClock()
		p := k.mustNew(t, size, ants.WithFakeClock(c), ants.WithExpiryDuration(time.Nanosecond))
		var bad atomic.Int32
		var worst atomic.Pointer[string]
		sample := func() {
			r, f := p.Running(), p.Free()
			if r < 0 || r > size || f < 0 || f > size {
				if bad.Add(1) == 1 {
					s := fmt.Sprintf("Running() = %d, Free() = %d", r, f)
					worst.Store(&s)
				}
			}
		}
		stop := make(chan struct{})
		ticked := make(chan struct{})
		go func() {
			defer close(ticked)
			for {
				select {
				case <-stop:
					return
				default:
				}
				c.AdvanceWithin(time.Millisecond, time.Millisecond)
			}
		}()
		var wg sync.WaitGroup
		for i := 0; i < callers; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; j < tasks/callers; j++ {
					wg.Add(1)
					if err := p.submit(func() { defer wg.Done(); sample() }); err != nil {
						wg.Done()
						t.Errorf("submit: %v", err)
						return
					}
					if j%64 == 0 {
						sample()
					}
				}
			}()
		}
		wg.Wait()
		close(stop)
		<-ticked
		if n := bad.Load(); n > 0 {
			t.Fatalf("%d samples out of [0, Cap]; first: %s", n, *worst.Load())
		}
	})
}
