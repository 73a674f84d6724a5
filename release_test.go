package ants_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

func TestPoolRelease(t *testing.T) {
	t.Run("submitting to a released pool returns ErrPoolClosed", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
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
		forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
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
		forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
			p := k.mustNew(t, 2)
			occupy(t, p, newGate(t), 1) // held until the test ends
			var ctx context.Context
			assert.NoError(t, p.ReleaseContext(ctx))
			assert.True(t, p.IsClosed())
			assert.Equal(t, 1, p.Running())
		})
	})
	t.Run("no goroutine of the pool is left once ReleaseTimeout returns nil", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
