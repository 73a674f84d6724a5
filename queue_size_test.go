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

// recorder returns a task that sends i on order.
func recorder(order chan<- int, i int) func() {
	return func() { order <- i }
}

func TestQueueSize(t *testing.T) {
	forSinglePools(t, func(t *testing.T, k poolKind) {
		t.Run("Submit returns at once while the buffer has room", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1, ants.WithQueueSize(3))
			var ran atomic.Int32
			for range 3 {
				require.NoError(t, p.submit(func() { ran.Add(1) })) // would block without the buffer
			}
			s := p.Stats()
			assert.Equal(t, 3, s.Queued)
			assert.Zero(t, s.Waiting)
			assert.Zero(t, p.Waiting(), "buffered tasks count as blocked callers")
			assert.Equal(t, uint64(4), s.Submitted)

			l.open()
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Equal(t, int32(3), ran.Load())
		})

		t.Run("buffered tasks run in FIFO order", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1, ants.WithQueueSize(10))
			order := make(chan int, 10)
			for i := range 10 {
				require.NoError(t, p.submit(recorder(order, i)))
			}
			l.open()
			for i := range 10 {
				assert.Equal(t, i, recv(t, order, "a buffered task"))
			}
		})

		t.Run("callers wait only when the buffer is full and are served after it, in order", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1, ants.WithQueueSize(1))
			order := make(chan int, 4)
			require.NoError(t, p.submit(recorder(order, 0)))
			errs := make([]<-chan error, 0, 3)
			for i := 1; i <= 3; i++ {
				errs = append(errs, blocked(t, p, i, func() error { return p.submit(recorder(order, i)) }))
			}
			s := p.Stats()
			assert.Equal(t, 1, s.Queued)
			assert.Equal(t, 3, s.Waiting)

			l.open()
			for i := range 4 {
				assert.Equal(t, i, recv(t, order, "a task"))
			}
			for _, errc := range errs {
				assert.NoError(t, recv(t, errc, "a waiting caller"))
			}
		})

		t.Run("a full buffer makes non-waiting submissions fail with ErrPoolOverload", func(t *testing.T) {
			for _, c := range []struct {
				name   string
				opts   []ants.Option
				submit func(p *testPool) func(func()) error
			}{
				{"TrySubmit", nil, func(p *testPool) func(func()) error { return p.trySubmit }},
				{"Nonblocking", []ants.Option{ants.WithNonblocking(true)}, func(p *testPool) func(func()) error { return p.submit }},
			} {
				t.Run(c.name, func(t *testing.T) {
					p, l := k.mustNewFull(t, 1, append(c.opts, ants.WithQueueSize(2))...)
					submit := c.submit(p)
					var ran atomic.Int32
					task := func() { ran.Add(1) }
					require.NoError(t, submit(task), "the buffer refused its first task")
					require.NoError(t, submit(task), "the buffer refused its second task")
					assert.ErrorIs(t, submit(task), ants.ErrPoolOverload)
					assert.Zero(t, p.Waiting())

					l.open()
					require.NoError(t, p.ReleaseTimeout(long))
					assert.Equal(t, int32(2), ran.Load())
				})
			}
		})

		t.Run("MaxBlockingTasks counts the callers waiting behind a full buffer", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1, ants.WithQueueSize(1), ants.WithMaxBlockingTasks(1))
			var ran atomic.Int32
			task := func() { ran.Add(1) }
			require.NoError(t, p.submit(task))
			errc := blocked(t, p, 1, func() error { return p.submit(task) })
			assert.ErrorIs(t, p.submit(task), ants.ErrPoolOverload)

			l.open()
			assert.NoError(t, recv(t, errc, "the waiting caller"))
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Equal(t, int32(2), ran.Load())
		})

		t.Run("a negative size buffers without bound", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1, ants.WithQueueSize(-1))
			const n = 1000
			var ran atomic.Int32
			for range n {
				require.NoError(t, p.trySubmit(func() { ran.Add(1) }))
			}
			assert.Equal(t, n, p.Stats().Queued)
			assert.Zero(t, p.Waiting())

			l.open()
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Equal(t, int32(n), ran.Load())
			s := p.Stats()
			assert.Equal(t, uint64(n+1), s.Completed)
			assert.Zero(t, s.Queued)
		})

		t.Run("a context-aware caller waits only for a full buffer and can give up", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1, ants.WithQueueSize(1))
			ctx, cancel := context.WithCancel(context.Background())
			var buffered, cancelled atomic.Int32
			require.NoError(t, p.submitContext(ctx, func() { buffered.Add(1) }))
			errc := blocked(t, p, 1, func() error { return p.submitContext(ctx, func() { cancelled.Add(1) }) })
			cancel()
			assert.ErrorIs(t, recv(t, errc, "the cancelled caller"), context.Canceled)

			l.open()
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Equal(t, int32(1), buffered.Load(), "a buffered task whose context was cancelled must still run")
			assert.Zero(t, cancelled.Load())
		})

		t.Run("growing the pool with Tune starts buffered tasks at once", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1, ants.WithQueueSize(4))
			started := make(chan struct{}, 2)
			require.NoError(t, p.submit(l.task(started)))
			require.NoError(t, p.submit(l.task(started)))
			assert.Equal(t, 2, p.Stats().Queued)

			p.Tune(3)
			recv(t, started, "a buffered task on a new worker")
			recv(t, started, "a buffered task on a new worker")
			s := p.Stats()
			assert.Zero(t, s.Queued)
			assert.Equal(t, 3, s.Running)
		})

		t.Run("a buffer keeps its order across Release and Reboot", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1, ants.WithQueueSize(3))
			order := make(chan int, 3)
			require.NoError(t, p.submit(recorder(order, 0)))
			require.NoError(t, p.submit(recorder(order, 1)))
			p.Release()
			assert.ErrorIs(t, p.submit(recorder(order, -1)), ants.ErrPoolClosed)
			p.Reboot()
			require.NoError(t, p.submit(recorder(order, 2)), "the rebooted pool refused a task with room in its buffer")

			l.open()
			for i := range 3 {
				assert.Equal(t, i, recv(t, order, "a buffered task"))
			}
		})
	})
}

// Buffered tasks are accepted tasks: Release must not lose them.
func TestQueueSizeAcrossRelease(t *testing.T) {
	forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
		t.Run("every buffered task runs exactly once across Release, and ReleaseTimeout waits for them", func(t *testing.T) {
			const perPool = 5
			p, l := k.mustNewFull(t, 2, ants.WithQueueSize(perPool))
			n := perPool * p.members
			ran := make([]atomic.Int32, n)
			for i := range n {
				require.NoError(t, p.submit(func() { ran[i].Add(1) }))
			}
			require.Equal(t, n, p.Stats().Queued)
			var waiterRan atomic.Int32
			waiter := blocked(t, p, 1, func() error { return p.submit(func() { waiterRan.Add(1) }) })

			released := asyncChecked(func() error { return p.ReleaseTimeout(long) }, func() {
				for i := range n {
					assert.Equal(t, int32(1), ran[i].Load(), "runs of buffered task %d when ReleaseTimeout returned", i)
				}
			})
			assert.ErrorIs(t, recv(t, waiter, "the waiting caller"), ants.ErrPoolClosed)
			assert.ErrorIs(t, p.submit(func() {}), ants.ErrPoolClosed)
			assertNoRecv(t, released, "ReleaseTimeout returning while buffered tasks are held")

			l.open()
			require.NoError(t, recv(t, released, "ReleaseTimeout"))
			assert.Zero(t, waiterRan.Load(), "the task of a caller refused by Release ran")
			s := p.Stats()
			assert.Equal(t, uint64(p.Cap()+n), s.Submitted)
			assert.Equal(t, s.Submitted, s.Completed)
			assert.Equal(t, uint64(2), s.Rejected)
			assert.Zero(t, s.Queued)
			assert.Zero(t, s.Running)
		})

		t.Run("ReleaseTimeout times out while buffered tasks are held, and they still run", func(t *testing.T) {
			const perPool = 3
			p, l := k.mustNewFull(t, 1, ants.WithQueueSize(perPool))
			var wg sync.WaitGroup
			n := perPool * p.members
			wg.Add(n)
			for range n {
				require.NoError(t, p.submit(wg.Done))
			}
			assert.ErrorIs(t, p.ReleaseTimeout(brief), ants.ErrTimeout)

			l.open()
			drained := make(chan struct{})
			go func() { wg.Wait(); close(drained) }()
			recv(t, drained, "the buffered tasks")
		})
	})
}

// Growing a released pool that is still draining its buffer starts workers
// for the buffered tasks, as it should, but must not start a purge goroutine
// for the closed pool: nothing stops that one but a tick that finds no
// worker, so ReleaseTimeout waits for the next tick (up to ExpiryDuration
// with the system clock, forever with this fake one).
func TestQueueSizeTuneOnAReleasedPoolStartsNoPurgeGoroutine(t *testing.T) {
	clock := ants.NewFakeClock()
	p, err := ants.NewPool(1, ants.WithQueueSize(4), ants.WithFakeClock(clock))
	require.NoError(t, err)
	l := newGate(t)
	started := make(chan struct{}, 1)
	require.NoError(t, p.Submit(l.task(started)))
	recv(t, started, "the held task")
	var ran atomic.Int32
	for range 4 {
		require.NoError(t, p.Submit(func() { ran.Add(1) }))
	}

	released := async(func() error { return p.ReleaseTimeout(long) })
	waitUntil(t, "the pool is closed", p.IsClosed)
	p.Tune(3)
	l.open()
	require.NoError(t, recv(t, released, "ReleaseTimeout"), "ReleaseTimeout waited for a purge goroutine")
	assert.Equal(t, int32(4), ran.Load())
	pr := p.PoolProbe()
	assert.False(t, pr.Purging, "a purge goroutine outlived the released pool")
	assert.Zero(t, pr.Live, "a goroutine outlived the released pool")
}
