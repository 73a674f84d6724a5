package ants_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

func TestErrorsKeepTheMessagesOfAnts(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{ants.ErrLackPoolFunc, "must provide function for pool"},
		{ants.ErrInvalidPoolExpiry, "invalid expiry for pool"},
		{ants.ErrPoolClosed, "this pool has been closed"},
		{ants.ErrPoolOverload, "too many goroutines blocked on submit or Nonblocking is set"},
		{ants.ErrInvalidPreAllocSize, "can not set up a negative capacity under PreAlloc mode"},
		{ants.ErrTimeout, "operation timed out"},
		{ants.ErrInvalidPoolIndex, "invalid pool index"},
		{ants.ErrInvalidLoadBalancingStrategy, "invalid load-balancing strategy"},
		{ants.ErrInvalidMultiPoolSize, "invalid size for multiple pool"},
	} {
		assert.EqualError(t, tc.err, tc.want)
	}
}

func TestConstantsKeepTheValuesOfAnts(t *testing.T) {
	assert.Equal(t, 1<<31-1, ants.DefaultAntsPoolSize)
	assert.Equal(t, time.Second, ants.DefaultCleanIntervalTime)
	assert.Equal(t, 0, ants.OPENED)
	assert.Equal(t, 1, ants.CLOSED)
	assert.Equal(t, ants.LoadBalancingStrategy(2), ants.RoundRobin)
	assert.Equal(t, ants.LoadBalancingStrategy(4), ants.LeastTasks)
}

func TestPoolConstructors(t *testing.T) {
	t.Run("a size of zero or less makes an unlimited pool", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			for _, size := range []int{0, -1} {
				p := k.mustNew(t, size, ants.WithDisablePurge(true))
				assert.Equal(t, -1, p.Cap())
				assert.Equal(t, -1, p.Free())
				occupy(t, p, newGate(t), 5)
				assert.Equal(t, 5, p.Running())
				assert.Equal(t, -1, p.Free())
			}
		})
	})
	t.Run("PreAlloc with an unlimited size is refused", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p, err := k.new(0, ants.WithPreAlloc(true))
			assert.ErrorIs(t, err, ants.ErrInvalidPreAllocSize)
			assert.Nil(t, p)
		})
	})
	t.Run("a negative expiry is refused unless purging is disabled", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p, err := k.new(1, ants.WithExpiryDuration(-time.Second))
			assert.ErrorIs(t, err, ants.ErrInvalidPoolExpiry)
			assert.Nil(t, p)

			p = k.mustNew(t, 1, ants.WithExpiryDuration(-time.Second), ants.WithDisablePurge(true))
			done := make(chan struct{})
			require.NoError(t, p.submit(signal(done)))
			recv(t, done, "the task")
		})
	})
	t.Run("a PreAlloc pool runs tasks on at most size workers", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 3, ants.WithPreAlloc(true))
			assert.Equal(t, 3, p.Cap())
			g := newGate(t)
			occupy(t, p, g, 3)
			ran := make(chan struct{}, 1)
			errc := blocked(t, p, 1, func() error { return p.submit(signal(ran)) })
			assert.Equal(t, 3, p.Running())
			g.open()
			require.NoError(t, recv(t, errc, "the blocked Submit"))
			recv(t, ran, "the blocked caller's task")

			var wg sync.WaitGroup
			var n atomic.Int32
			for i := 0; i < 50; i++ {
				wg.Add(1)
				require.NoError(t, p.submit(func() { n.Add(1); wg.Done() }))
			}
			wg.Wait()
			assert.Equal(t, int32(50), n.Load())
			assert.LessOrEqual(t, p.Running(), 3)
		})
	})
	t.Run("WithOptions replaces the options given before it", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			_, err := k.new(1, ants.WithDisablePurge(true), ants.WithOptions(ants.Options{ExpiryDuration: -1}))
			assert.ErrorIs(t, err, ants.ErrInvalidPoolExpiry)

			p := k.mustNew(t, 1, ants.WithOptions(ants.Options{Nonblocking: true, DisablePurge: true}))
			occupy(t, p, newGate(t), 1)
			assert.ErrorIs(t, submitNow(t, p.submit, func() {}), ants.ErrPoolOverload)
		})
	})
}

func TestPoolCapacity(t *testing.T) {
	t.Run("Running has grown by the time Submit returns", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 3, ants.WithDisablePurge(true))
			g := newGate(t)
			assert.Equal(t, 3, p.Cap())
			assert.Equal(t, 3, p.Free())
			for i := 1; i <= 3; i++ {
				require.NoError(t, p.submit(g.task(nil)))
				assert.Equal(t, i, p.Running())
				assert.Equal(t, 3-i, p.Free())
			}
		})
	})
	t.Run("a full pool blocks callers until a worker is free", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p, g := k.mustNewFull(t, 1, ants.WithDisablePurge(true))

			ran := make(chan struct{}, 3)
			results := blockedSubmits(t, p, 3, signal(ran))
			assertNoRecv(t, ran, "a task of a blocked caller")

			g.open()
			for _, errc := range results {
				assert.NoError(t, recv(t, errc, "a blocked Submit to return"))
			}
			for i := 0; i < 3; i++ {
				recv(t, ran, "the task of a blocked caller")
			}
			assert.Equal(t, 0, p.Waiting())
			assert.Equal(t, 1, p.Running())
		})
	})
	t.Run("a Nonblocking pool refuses tasks when full", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p, _ := k.mustNewFull(t, 2, ants.WithNonblocking(true), ants.WithDisablePurge(true))
			assert.ErrorIs(t, submitNow(t, p.submit, func() {}), ants.ErrPoolOverload)
			assert.Equal(t, 0, p.Waiting())
		})
	})
	t.Run("MaxBlockingTasks lets that many callers wait and refuses the next", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p, g := k.mustNewFull(t, 1, ants.WithMaxBlockingTasks(2), ants.WithDisablePurge(true))

			ran := make(chan struct{}, 2)
			first := submitAsync(p.submit, signal(ran))
			second := blocked(t, p, 2, func() error { return p.submit(signal(ran)) })
			assert.ErrorIs(t, submitNow(t, p.submit, func() {}), ants.ErrPoolOverload)

			g.open()
			assert.NoError(t, recv(t, first, "the first blocked Submit"))
			assert.NoError(t, recv(t, second, "the second blocked Submit"))
			recv(t, ran, "a blocked caller's task")
			recv(t, ran, "a blocked caller's task")
		})
	})
	t.Run("a negative MaxBlockingTasks lets no caller wait, as in ants", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 1, ants.WithMaxBlockingTasks(-1), ants.WithDisablePurge(true))
			occupy(t, p, newGate(t), 1)
			assert.ErrorIs(t, submitNow(t, p.submit, func() {}), ants.ErrPoolOverload)
		})
	})
	t.Run("sequential tasks reuse one idle worker", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 10, ants.WithDisablePurge(true))
			done := make(chan struct{})
			for i := 0; i < 20; i++ {
				require.NoError(t, p.submit(signal(done)))
				recv(t, done, "the task")
				waitIdle(t, p, 1)
				assert.Equal(t, 1, p.Running())
			}
		})
	})
}

func TestPoolSubmitNil(t *testing.T) {
	p, err := ants.NewPool(1)
	require.NoError(t, err)
	assert.ErrorIs(t, p.Submit(nil), ants.ErrNilTask)
	p.Release()
	assert.ErrorIs(t, p.Submit(nil), ants.ErrPoolClosed)
	assert.Equal(t, 0, p.Running(), "a nil task must not cost a worker")
}

func TestPoolExpiry(t *testing.T) {
	const expiry = time.Minute
	t.Run("an idle worker is reaped at the second tick after it went idle", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			testReapedAtSecondTick(t, k, expiry)
		})
	})
	t.Run("an idle worker of a PreAlloc pool is reaped at the second tick after it went idle", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			testReapedAtSecondTick(t, k, expiry, ants.WithPreAlloc(true))
		})
	})
	t.Run("workers idle since different ticks expire one tick apart", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			c := ants.NewFakeClock()
			p := k.mustNew(t, 4, ants.WithFakeClock(c), ants.WithExpiryDuration(expiry))
			busy, a, b := newGate(t), newGate(t), newGate(t)
			occupy(t, p, busy, 1)
			occupy(t, p, a, 1)
			occupy(t, p, b, 1)

			a.open()
			waitIdle(t, p, 1)
			require.True(t, c.Advance(expiry)) // tick 1
			require.True(t, c.Sync())
			b.open()
			waitIdle(t, p, 2)
			require.True(t, c.Advance(expiry)) // tick 2: a has been idle since tick 0
			require.True(t, c.Sync())
			assert.Equal(t, 1, p.Stats().Idle)
			waitRunning(t, p, 2)               // a's goroutine exits a moment after it is stopped
			require.True(t, c.Advance(expiry)) // tick 3: b has been idle since tick 1
			require.True(t, c.Sync())
			assert.Equal(t, 0, p.Stats().Idle)
			waitRunning(t, p, 1)
		})
	})
	t.Run("the purge goroutine starts with the first worker and exits with the last", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			ignore := goleak.IgnoreCurrent()
			c := ants.NewFakeClock()
			p := k.mustNew(t, 3, ants.WithFakeClock(c), ants.WithExpiryDuration(expiry))
			assert.Equal(t, ants.PoolProbe{}, p.probe(), "a goroutine runs before the first task")

			for round := 0; round < 2; round++ {
				done := make(chan struct{})
				require.NoError(t, p.submit(signal(done)))
				recv(t, done, "the task")
				waitIdle(t, p, 1)
				require.True(t, c.Advance(expiry), "round %d: no purge goroutine took the tick", round)
				require.True(t, c.Advance(expiry), "round %d: no purge goroutine took the tick", round)

				// The pass of the second tick reaps the worker and ends the
				// purge goroutine: none of the pool's goroutines is left.
				goleak.VerifyNone(t, ignore)
				assert.Equal(t, 0, p.Running())
				pr := p.probe()
				assert.False(t, pr.Purging, "the purge goroutine outlived the last worker")
				assert.Zero(t, pr.Live, "a goroutine of the pool outlived the last worker")
			}
		})
	})
	t.Run("WithDisablePurge keeps idle workers", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			c := ants.NewFakeClock()
			p := k.mustNew(t, 3, ants.WithFakeClock(c), ants.WithExpiryDuration(expiry), ants.WithDisablePurge(true))
			done := make(chan struct{})
			require.NoError(t, p.submit(signal(done)))
			recv(t, done, "the task")
			waitIdle(t, p, 1)
			pr := p.probe()
			assert.False(t, pr.Purging, "a purge goroutine runs with purging disabled")
			assert.Equal(t, 1, pr.Live, "goroutines of the pool")
			assert.Equal(t, 1, p.Running())
		})
	})
	t.Run("an expiry of zero means one second", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			c := ants.NewFakeClock()
			p := k.mustNew(t, 3, ants.WithFakeClock(c), ants.WithExpiryDuration(0))
			occupy(t, p, newGate(t), 1)
			done := make(chan struct{})
			require.NoError(t, p.submit(signal(done)))
			recv(t, done, "the task")
			waitIdle(t, p, 1)

			// Idle for 600 ms at the first tick: kept, so the expiry is more
			// than 600 ms.
			require.True(t, c.Advance(600*time.Millisecond))
			require.True(t, c.Sync())
			assert.Equal(t, 2, p.Running())
			// Idle for 1.2 s at the second: reaped, so it is at most 1.2 s.
			require.True(t, c.Advance(600*time.Millisecond))
			require.True(t, c.Sync())
			assert.Equal(t, 0, p.Stats().Idle)
			waitRunning(t, p, 1)
		})
	})
}

// testReapedAtSecondTick checks that a worker that went idle after tick k is
// kept at tick k+1 and reaped at tick k+2.
func testReapedAtSecondTick(t *testing.T, k poolKind, expiry time.Duration, opts ...ants.Option) {
	c := ants.NewFakeClock()
	p := k.mustNew(t, 3, append(opts, ants.WithFakeClock(c), ants.WithExpiryDuration(expiry))...)
	// A busy worker keeps the purge goroutine alive, so that Sync
	// always finds it.
	occupy(t, p, newGate(t), 1)

	// Twice: once for a worker that went idle before the first tick,
	// once for one that went idle after some ticks.
	for round := 0; round < 2; round++ {
		done := make(chan struct{})
		require.NoError(t, p.submit(signal(done)))
		recv(t, done, "the task")
		waitIdle(t, p, 1)

		require.True(t, c.Advance(expiry))
		require.True(t, c.Sync())
		assert.Equal(t, 2, p.Running(), "round %d: reaped at the first tick", round)

		require.True(t, c.Advance(expiry))
		require.True(t, c.Sync())
		assert.Equal(t, 0, p.Stats().Idle, "round %d: still idle after the second tick", round)
		waitRunning(t, p, 1)
	}
}

func TestPoolTune(t *testing.T) {
	t.Run("Tune is ignored for unlimited pools, sizes of zero or less and PreAlloc pools", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
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
		forEachKind(t, func(t *testing.T, k poolKind) {
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
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 4, ants.WithDisablePurge(true))
			startIdle(t, p, 4)

			p.Tune(1)
			assert.Equal(t, 1, p.Stats().Idle, "the surplus idle workers are stopped by Tune itself")
			waitRunning(t, p, 1)
			assert.Equal(t, 0, p.Free())
		})
	})
	t.Run("busy workers above a shrunk capacity exit after their task", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
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
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 2, ants.WithNonblocking(true), ants.WithDisablePurge(true))
			startIdle(t, p, 2)

			p.Tune(1)
			occupy(t, p, newGate(t), 1)
			assert.ErrorIs(t, submitNow(t, p.submit, func() {}), ants.ErrPoolOverload)
			waitRunning(t, p, 1)
		})
	})
}

func TestPoolPanics(t *testing.T) {
	t.Run("the panic handler receives the panic value", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			values := make(chan any, 1)
			p := k.mustNew(t, 1, ants.WithPanicHandler(func(v any) { values <- v }))
			require.NoError(t, p.submit(func() { panic("boom") }))
			assert.Equal(t, "boom", recv(t, values, "the panic handler"))
		})
	})
	t.Run("without a handler the logger reports the panic", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			logger := testLogger{ch: make(chan string, 1)}
			p := k.mustNew(t, 1, ants.WithLogger(logger))
			require.NoError(t, p.submit(func() { panic("kaboom") }))
			msg := recv(t, logger.ch, "a log message")
			assert.Contains(t, msg, "kaboom")
			assert.Contains(t, msg, "goroutine", "the message has no stack trace")
		})
	})
	t.Run("a panic ends its worker, as in ants, and the pool keeps its capacity", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			values := make(chan any, 1)
			running := make(chan int, 1)
			var p *testPool
			p = k.mustNew(t, 1, ants.WithNonblocking(true), ants.WithDisablePurge(true),
				ants.WithPanicHandler(func(v any) { running <- p.Running(); values <- v }))
			for i := 0; i < 5; i++ {
				require.NoError(t, p.submit(func() { panic(i) }), "a size-1 pool refuses a task after %d panics", i)
				assert.Equal(t, 0, recv(t, running, "the panic handler"), "the worker still counts in Running() when the handler runs")
				assert.Equal(t, i, recv(t, values, "the panic handler"))
			}
			done := make(chan struct{})
			require.NoError(t, p.submit(signal(done)), "a size-1 pool refuses tasks after panics")
			recv(t, done, "a task after the panics")
			assert.Equal(t, 1, p.Running())
			waitIdle(t, p, 1)
			assert.Equal(t, uint64(5), p.Stats().Panicked)
		})
	})
}

func TestPoolStats(t *testing.T) {
	t.Run("the counters add up", func(t *testing.T) {
		forEachKind(t, testStatsCounters)
	})
	t.Run("Queued counts buffered tasks", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
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

func TestPoolRelease(t *testing.T) {
	t.Run("submitting to a released pool returns ErrPoolClosed", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 2)
			assert.False(t, p.IsClosed())
			p.Release()
			assert.True(t, p.IsClosed())
			ran := make(chan struct{}, 1)
			assert.ErrorIs(t, submitNow(t, p.submit, signal(ran)), ants.ErrPoolClosed)
			// Once no goroutine of the pool is left, none can run it later.
			p.Reboot()
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Empty(t, ran, "a task refused by a released pool ran")
		})
	})
	t.Run("Release wakes blocked callers with ErrPoolClosed", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p, _ := k.mustNewFull(t, 1, ants.WithDisablePurge(true))
			results := blockedSubmits(t, p, 3, func() { t.Error("a task refused by Release ran") })

			p.Release()
			for _, errc := range results {
				assert.ErrorIs(t, recv(t, errc, "a blocked Submit to return"), ants.ErrPoolClosed)
			}
			assert.Equal(t, 0, p.Waiting())
			assert.Equal(t, 1, p.Running(), "the busy worker exits only after its task")
		})
	})
	t.Run("releasing twice is a no-op", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 2)
			done := make(chan struct{})
			require.NoError(t, p.submit(signal(done)))
			recv(t, done, "the task")
			p.Release()
			p.Release()
			assert.True(t, p.IsClosed())
			assert.ErrorIs(t, p.ReleaseTimeout(long), ants.ErrPoolClosed)
			assert.ErrorIs(t, p.ReleaseContext(boundedContext(t)), ants.ErrPoolClosed)
			assert.True(t, p.IsClosed())
		})
	})
	t.Run("ReleaseTimeout waits for busy workers", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 2)
			g := newGate(t)
			var finished atomic.Bool
			started := make(chan struct{}, 1)
			require.NoError(t, p.submit(func() {
				g.task(started)()
				finished.Store(true)
			}))
			recv(t, started, "the task")

			errc := asyncChecked(func() error { return p.ReleaseTimeout(long) }, func() {
				assert.True(t, finished.Load(), "ReleaseTimeout returned before the task finished")
			})
			waitUntil(t, "the pool is closed", p.IsClosed)
			assertNoRecv(t, errc, "ReleaseTimeout returning while a task runs")
			g.open()
			assert.NoError(t, recv(t, errc, "ReleaseTimeout"))
			assert.Equal(t, 0, p.Running())
		})
	})
	t.Run("ReleaseTimeout returns ErrTimeout while a task outlasts it", func(t *testing.T) {
		forEveryPool(t, func(t *testing.T, k poolKind) {
			ignore := goleak.IgnoreCurrent()
			p := k.mustNew(t, 2)
			g := newGate(t)
			occupy(t, p, g, 1)
			err := p.ReleaseTimeout(10 * time.Millisecond)
			assert.ErrorIs(t, err, ants.ErrTimeout)
			if p.members > 1 {
				assert.EqualError(t, err, "pool 0: operation timed out", "the member pool that holds the task, and only it")
			}
			assert.True(t, p.IsClosed())

			// Once the task ends, nothing of the pool is left behind.
			g.open()
			p.Reboot()
			require.NoError(t, p.ReleaseTimeout(long))
			goleak.VerifyNone(t, ignore)
		})
	})
	t.Run("ReleaseContext returns the context's error if it ends first", func(t *testing.T) {
		forEveryPool(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 2)
			occupy(t, p, newGate(t), 1)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			err := p.ReleaseContext(ctx)
			assert.ErrorIs(t, err, context.Canceled)
			if p.members > 1 {
				assert.EqualError(t, err, "pool 0: context canceled")
			}
			assert.True(t, p.IsClosed())
		})
	})
	t.Run("ReleaseContext with a nil context returns without waiting", func(t *testing.T) {
		forEveryPool(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 2)
			occupy(t, p, newGate(t), 1) // held until the test ends
			var ctx context.Context
			assert.NoError(t, p.ReleaseContext(ctx))
			assert.True(t, p.IsClosed())
			assert.Equal(t, 1, p.Running())
		})
	})
	t.Run("no goroutine of the pool is left once ReleaseTimeout returns nil", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			ignore := goleak.IgnoreCurrent()
			// The system clock: the purge goroutine runs with a real ticker.
			p := k.mustNew(t, 4)
			idle, busy := newGate(t), newGate(t)
			occupy(t, p, idle, 3)
			occupy(t, p, busy, 1)
			idle.open()
			waitIdle(t, p, 3)

			errc := make(chan error, 1)
			go func() { errc <- p.ReleaseTimeout(long) }()
			waitUntil(t, "the pool is closed", p.IsClosed)
			busy.open()
			require.NoError(t, recv(t, errc, "ReleaseTimeout"))
			goleak.VerifyNone(t, ignore)
			assert.Equal(t, 0, p.Running())
		})
	})
	t.Run("Reboot reopens a released pool and leaves an open one alone", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 2)
			done := make(chan struct{})
			p.Reboot()
			assert.False(t, p.IsClosed())
			require.NoError(t, p.submit(signal(done)))
			recv(t, done, "a task before Release")

			require.NoError(t, p.ReleaseTimeout(long))
			p.Reboot()
			assert.False(t, p.IsClosed())
			assert.Equal(t, 2, p.Cap())
			require.NoError(t, p.submit(signal(done)))
			recv(t, done, "a task after Reboot")

			p.Release()
			p.Reboot()
			require.NoError(t, p.submit(signal(done)))
			recv(t, done, "a task after a Release without waiting and a Reboot")
		})
	})
	t.Run("concurrent releases close the pool once", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 4)
			g := newGate(t)
			occupy(t, p, g, 2)
			start := make(chan struct{})
			errs := make(chan error, 6)
			var wg sync.WaitGroup
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					switch i % 4 {
					case 0:
						p.Release()
					case 1:
						errs <- p.ReleaseContext(boundedContext(t))
					default:
						errs <- p.ReleaseTimeout(long)
					}
				}()
			}
			close(start)
			g.open()
			wg.Wait()
			close(errs)
			succeeded := 0
			for err := range errs {
				if err == nil {
					succeeded++
				} else {
					assert.ErrorIs(t, err, ants.ErrPoolClosed)
				}
			}
			assert.LessOrEqual(t, succeeded, 1, "more than one call closed the pool")
			assert.True(t, p.IsClosed())
		})
	})
	t.Run("of concurrent ReleaseTimeout calls exactly one succeeds", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 4)
			g := newGate(t)
			occupy(t, p, g, 2)
			start := make(chan struct{})
			errs := make(chan error, 6)
			for i := 0; i < 6; i++ {
				go func() {
					<-start
					errs <- p.ReleaseTimeout(long)
				}()
			}
			close(start)
			g.open()
			succeeded := 0
			for i := 0; i < 6; i++ {
				if err := recv(t, errs, "ReleaseTimeout"); err == nil {
					succeeded++
				} else {
					assert.ErrorIs(t, err, ants.ErrPoolClosed)
				}
			}
			assert.Equal(t, 1, succeeded)
		})
	})
	t.Run("a caller racing Release does not wait for a busy task", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			for i := 0; i < 50; i++ {
				p, err := k.new(1, ants.WithDisablePurge(true))
				require.NoError(t, err)
				g := &gate{ch: make(chan struct{})}
				occupy(t, p, g, 1)
				errc := submitAsync(p.submit, func() {})
				go p.Release()
				err = recv(t, errc, "a Submit racing Release")
				g.open()
				assert.ErrorIs(t, err, ants.ErrPoolClosed)
				p.Reboot()
				require.NoError(t, p.ReleaseTimeout(long))
			}
		})
	})
}

func TestPoolRunsEveryAcceptedTaskExactlyOnce(t *testing.T) {
	configs := []struct {
		name string
		opts []ants.Option
	}{
		{"without purge", []ants.Option{ants.WithDisablePurge(true)}},
		{"with a purge every millisecond", []ants.Option{ants.WithExpiryDuration(time.Millisecond)}},
		{"nonblocking", []ants.Option{ants.WithNonblocking(true), ants.WithDisablePurge(true)}},
	}
	for _, cfg := range configs {
		t.Run(cfg.name, func(t *testing.T) {
			forEachKind(t, func(t *testing.T, k poolKind) {
				testExactlyOnce(t, k.mustNew(t, 3, cfg.opts...))
			})
		})
	}
}

// testExactlyOnce submits tasks from several goroutines while another one
// releases, reboots and tunes the pool p, of capacity 3, and checks that
// each task whose Submit returned nil ran once and every other task never
// ran.
func testExactlyOnce(t *testing.T, p *testPool) {
	const submitters, actions, maxTasks = 4, 300, 50000
	runs := make([]atomic.Int32, maxTasks)
	accepted := make([]bool, maxTasks) // accepted[id] is written by one submitter
	var attempts atomic.Int32          // ids handed out so far

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for s := 0; s < submitters; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				id := int(attempts.Add(1)) - 1
				if id >= maxTasks {
					return
				}
				err := p.submit(func() { runs[id].Add(1) })
				accepted[id] = err == nil
				if err != nil && !errors.Is(err, ants.ErrPoolClosed) && !errors.Is(err, ants.ErrPoolOverload) {
					t.Errorf("task %d: unexpected error %v", id, err)
				}
			}
		}()
	}

	// Each action waits for a few submissions, so that the submitters see
	// the pool in every state.
	deadline := time.Now().Add(long)
	for i := 0; i < actions && time.Now().Before(deadline); i++ {
		for before := attempts.Load(); attempts.Load() < before+3 && attempts.Load() < maxTasks; {
			if time.Now().After(deadline) {
				t.Error("the submitters stopped making progress")
				break
			}
			runtime.Gosched()
		}
		switch i % 5 {
		case 0:
			p.Release()
		case 1, 3:
			p.Reboot()
		case 2:
			p.Tune(1 + i%4)
		case 4:
			_ = p.ReleaseTimeout(time.Millisecond)
		}
	}
	close(stop)
	p.Reboot() // let submitters blocked on a full pool through
	wg.Wait()

	require.NoError(t, p.ReleaseTimeout(long))
	var nAccepted, nRefused int
	for id := 0; id < min(int(attempts.Load()), maxTasks); id++ {
		want := int32(0)
		if accepted[id] {
			want = 1
			nAccepted++
		} else {
			nRefused++
		}
		if got := runs[id].Load(); got != want {
			t.Errorf("task %d (accepted: %v) ran %d times", id, accepted[id], got)
		}
	}
	assert.Positive(t, nAccepted, "no task was accepted: the test proved nothing")
	// Whether the interleaving refused any task depends on the scheduler
	// (with GOMAXPROCS=1 it often does not); a refusal is checked for sure
	// here, on the released pool.
	t.Logf("%d tasks accepted, %d refused", nAccepted, nRefused)
	var ranAfterRelease atomic.Bool
	assert.ErrorIs(t, p.submit(func() { ranAfterRelease.Store(true) }), ants.ErrPoolClosed)
	assert.False(t, ranAfterRelease.Load(), "a refused task ran")
}

func TestPoolLosesNoWakeUp(t *testing.T) {
	// Each case holds the only worker with a task, blocks a caller behind
	// it, and frees the worker one way: the caller must be woken. The pools
	// run with a fake clock that never ticks, so that the purge goroutine
	// cannot be what wakes it.
	for _, c := range []struct {
		name string
		opts []ants.Option
		// then is what the held task does once its gate opens.
		then func()
		// free frees the worker; nil: open the gate.
		free func(p *testPool)
		// want is the blocked caller's result; its task runs if it is nil.
		want error
		// after checks the pool once the caller's task has run.
		after func(t *testing.T, p *testPool)
	}{
		{name: "a worker finishing wakes a blocked caller", then: func() {}},
		{
			name: "a panicking task wakes a blocked caller",
			opts: []ants.Option{ants.WithPanicHandler(func(any) {})},
			then: func() { panic("release the worker") },
		},
		{name: "growing the pool wakes a blocked caller", free: func(p *testPool) { p.Tune(2) }},
		{
			name: "a task ending its goroutine with runtime.Goexit wakes a blocked caller",
			then: runtime.Goexit,
			after: func(t *testing.T, p *testPool) {
				waitIdle(t, p, 1)
				assert.Equal(t, 1, p.Running())
				assert.Equal(t, uint64(1), p.Stats().Panicked)
			},
		},
		{name: "Release wakes a blocked caller", free: func(p *testPool) { p.Release() }, want: ants.ErrPoolClosed},
	} {
		t.Run(c.name, func(t *testing.T) {
			forEachKind(t, func(t *testing.T, k poolKind) {
				p := k.mustNew(t, 1, append(c.opts, ants.WithFakeClock(ants.NewFakeClock()))...)
				g := newGate(t)
				started := make(chan struct{}, 1)
				require.NoError(t, p.submit(func() {
					g.task(started)()
					if c.then != nil {
						c.then()
					}
				}))
				recv(t, started, "the held task")
				ran := make(chan struct{}, 1)
				errc := blocked(t, p, 1, func() error { return p.submit(signal(ran)) })
				if c.free == nil {
					g.open()
				} else {
					c.free(p)
				}
				assert.ErrorIs(t, recv(t, errc, "the blocked Submit"), c.want)
				if c.want == nil {
					recv(t, ran, "the blocked caller's task")
				}
				if c.after != nil {
					c.after(t, p)
				}
			})
		})
	}
	t.Run("callers contending for few workers all get through", func(t *testing.T) {
		forEachKind(t, func(t *testing.T, k poolKind) {
			for _, size := range []int{1, 2} {
				p := k.mustNew(t, size, ants.WithFakeClock(ants.NewFakeClock()))
				const callers, perCaller = 8, 200
				var ran atomic.Int32
				done := make(chan struct{})
				var wg sync.WaitGroup
				for c := 0; c < callers; c++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := 0; i < perCaller; i++ {
							if err := p.submit(func() { ran.Add(1) }); err != nil {
								t.Errorf("submit: %v", err)
								return
							}
						}
					}()
				}
				go func() { wg.Wait(); close(done) }()
				recv(t, done, "every caller to get through (a lost wake-up?)")
				require.NoError(t, p.ReleaseTimeout(long))
				assert.Equal(t, int32(callers*perCaller), ran.Load())
			}
		})
	})
}
