package ants_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

func TestStats(t *testing.T) {
	forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
		t.Run("a snapshot reports every field", func(t *testing.T) {
			var handled atomic.Int32
			p := k.mustNew(t, 2, ants.WithQueueSize(1), ants.WithDisablePurge(true),
				ants.WithPanicHandler(func(any) { handled.Add(1) }))
			sp := p.members
			assert.Equal(t, ants.Stats{Cap: 2 * sp}, p.Stats(), "a new pool")

			l := newGate(t)
			occupy(t, p, l, p.Cap())
			for range sp {
				require.NoError(t, p.submit(func() {}))
			}
			waiter := blocked(t, p, 1, func() error { return p.submit(func() {}) })
			assert.Equal(t, ants.Stats{
				Cap: 2 * sp, Running: 2 * sp, Waiting: 1, Queued: sp, Submitted: uint64(3 * sp),
			}, p.Stats(), "a full pool")

			assert.ErrorIs(t, p.trySubmit(func() {}), ants.ErrPoolOverload)
			assert.ErrorIs(t, p.submitContext(cancelledContext(), func() {}), context.Canceled)
			assert.Equal(t, uint64(2), p.Stats().Rejected)

			l.open()
			require.NoError(t, recv(t, waiter, "the waiting caller"))
			waitUntil(t, "every worker is idle", func() bool { return p.Stats().Idle == 2*sp })
			assert.Equal(t, ants.Stats{
				Cap: 2 * sp, Running: 2 * sp, Idle: 2 * sp,
				Submitted: uint64(3*sp + 1), Completed: uint64(3*sp + 1), Rejected: 2,
			}, p.Stats(), "a quiet pool")

			require.NoError(t, p.submit(func() { panic("counted") }))
			waitUntil(t, "the panic is counted", func() bool { return p.Stats().Panicked == 1 })
			require.NoError(t, p.ReleaseTimeout(long))
			assert.ErrorIs(t, p.submit(func() {}), ants.ErrPoolClosed)
			assert.Equal(t, ants.Stats{
				Cap:       2 * sp,
				Submitted: uint64(3*sp + 2), Completed: uint64(3*sp + 1), Panicked: 1, Rejected: 3,
			}, p.Stats(), "a released pool")
			assert.Equal(t, int32(1), handled.Load())
		})

		t.Run("the counters add up under concurrent load", func(t *testing.T) {
			var handled atomic.Uint64
			p := k.mustNew(t, 2, ants.WithQueueSize(2), ants.WithPanicHandler(func(any) { handled.Add(1) }))
			cancelled := cancelledContext()

			const goroutines, calls = 8, 300
			var accepted, acceptedPanics, refused, refusedTry, ran atomic.Uint64
			var wg sync.WaitGroup
			for range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range calls {
						panics := i%7 == 0
						task := func() {
							if panics {
								panic("load")
							}
							ran.Add(1)
						}
						var err error
						switch i % 4 {
						case 0:
							err = p.submit(task)
						case 1:
							err = p.submitContext(context.Background(), task)
						case 2:
							err = p.trySubmit(task)
							if err != nil {
								refusedTry.Add(1)
								assert.ErrorIs(t, err, ants.ErrPoolOverload)
							}
						case 3:
							err = p.submitContext(cancelled, task)
							assert.ErrorIs(t, err, context.Canceled)
						}
						if err != nil {
							refused.Add(1)
							continue
						}
						accepted.Add(1)
						if panics {
							acceptedPanics.Add(1)
						}
					}
				}()
			}
			wg.Wait()
			require.NoError(t, p.ReleaseTimeout(long)) // every accepted task has ended
			t.Logf("%d tasks accepted, %d TrySubmit calls refused", accepted.Load(), refusedTry.Load())

			s := p.Stats()
			assert.Equal(t, accepted.Load(), s.Submitted)
			assert.Equal(t, ran.Load(), s.Completed)
			assert.Equal(t, acceptedPanics.Load(), s.Panicked)
			assert.Equal(t, handled.Load(), s.Panicked)
			assert.Equal(t, s.Submitted, s.Completed+s.Panicked, "a quiet pool has finished every task it accepted")
			assert.Equal(t, refused.Load(), s.Rejected, "Rejected must count the errors the callers saw")
			assert.GreaterOrEqual(t, s.Rejected, uint64(goroutines*calls/4), "every call with a cancelled context is rejected")
			assert.Zero(t, s.Running)
			assert.Zero(t, s.Queued)
			assert.Zero(t, s.Waiting)
		})
	})

	t.Run("a MultiPool sums its sub-pools", func(t *testing.T) {
		mp, err := ants.NewMultiPool(3, 2, ants.LeastTasks, ants.WithQueueSize(1), ants.WithDisablePurge(true))
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, mp.ReleaseTimeout(long)) })
		l := newGate(t)
		started := make(chan struct{}, 6)
		for range 6 {
			require.NoError(t, mp.Submit(l.task(started)))
		}
		for range 6 {
			recv(t, started, "a held task")
		}
		for range 3 {
			require.NoError(t, mp.Submit(func() {}))
		}
		assert.Equal(t, ants.Stats{Cap: 6, Running: 6, Queued: 3, Submitted: 9}, mp.Stats())
	})

	t.Run("a MultiPool counts each of its own refused calls once", func(t *testing.T) {
		for _, lbs := range []ants.LoadBalancingStrategy{ants.RoundRobin, ants.LeastTasks} {
			mp, err := ants.NewMultiPool(2, 1, lbs, ants.WithNonblocking(true))
			require.NoError(t, err)
			t.Cleanup(func() { assert.NoError(t, mp.ReleaseTimeout(long)) })
			l := newGate(t)
			started := make(chan struct{}, 2)
			require.NoError(t, mp.Submit(l.task(started)))
			require.NoError(t, mp.Submit(l.task(started)))
			recv(t, started, "a held task")
			recv(t, started, "a held task")

			assert.ErrorIs(t, mp.Submit(func() {}), ants.ErrPoolOverload)
			assert.ErrorIs(t, mp.TrySubmit(func() {}), ants.ErrPoolOverload)
			assert.ErrorIs(t, mp.SubmitContext(cancelledContext(), func() {}), context.Canceled)
			assert.ErrorIs(t, mp.Submit(nil), ants.ErrNilTask)
			assert.Equal(t, uint64(4), mp.Stats().Rejected, "strategy %d", lbs)
		}
	})

	t.Run("panics in group tasks are counted as Panicked", func(t *testing.T) {
		p, err := ants.NewPool(1)
		require.NoError(t, err)
		t.Cleanup(func() { p.Release() })
		g := ants.NewGroup(p)
		g.Go(func() error { panic("in a group") })
		var pe *ants.PanicError
		require.ErrorAs(t, g.Wait(), &pe)
		require.NoError(t, p.ReleaseTimeout(long))
		s := p.Stats()
		assert.Zero(t, s.Completed)
		assert.Equal(t, uint64(1), s.Panicked)
	})
}

func TestPoolStats(t *testing.T) {
	t.Run("the counters add up", func(t *testing.T) {
		forSinglePools(t, testStatsCounters)
	})
	t.Run("Queued counts buffered tasks", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			p, g := k.mustNewFull(t, 1, ants.WithQueueSize(2), ants.WithDisablePurge(true))
			require.NoError(t, p.submit(func() {}))
			require.NoError(t, p.submit(func() {}))
			s := p.Stats()
			assert.Equal(t, 2, s.Queued)
			assert.Equal(t, 0, s.Waiting)
			g.open()
			waitIdle(t, p, 1)
			assert.Equal(t, 0, p.Stats().Queued)
			assert.Equal(t, uint64(3), p.Stats().Completed)
		})
	})
}

func testStatsCounters(t *testing.T, k poolKind) {
	p := k.mustNew(t, 1, ants.WithMaxBlockingTasks(1), ants.WithDisablePurge(true),
		ants.WithPanicHandler(func(any) {}))
	assert.Equal(t, ants.Stats{Cap: 1}, p.Stats())

	g := newGate(t)
	occupy(t, p, g, 1)
	ran := make(chan struct{}, 1)
	waiter := blocked(t, p, 1, func() error { return p.submit(signal(ran)) })
	assert.ErrorIs(t, submitNow(t, p.submit, func() {}), ants.ErrPoolOverload)
	s := p.Stats()
	assert.Equal(t, 1, s.Cap)
	assert.Equal(t, 1, s.Running)
	assert.Equal(t, 0, s.Idle)
	assert.Equal(t, 1, s.Waiting)
	assert.Equal(t, uint64(1), s.Submitted)
	assert.Equal(t, uint64(1), s.Rejected)

	g.open()
	require.NoError(t, recv(t, waiter, "the blocked Submit"))
	recv(t, ran, "the blocked caller's task")
	waitIdle(t, p, 1)
	require.NoError(t, p.submit(func() { panic("counted") }))
	waitUntil(t, "the panic is counted", func() bool { return p.Stats().Panicked == 1 })
	waitRunning(t, p, 0) // the panic ended the worker

	s = p.Stats()
	assert.Equal(t, uint64(3), s.Submitted)
	assert.Equal(t, uint64(2), s.Completed)
	assert.Equal(t, uint64(1), s.Panicked)
	assert.Equal(t, s.Submitted, s.Completed+s.Panicked, "a quiet pool has finished every task it accepted")

	p.Release()
	assert.ErrorIs(t, submitNow(t, p.submit, func() {}), ants.ErrPoolClosed)
	s = p.Stats()
	assert.Equal(t, uint64(2), s.Rejected)
	assert.Equal(t, 0, s.Idle)
	waitRunning(t, p, 0)
}
