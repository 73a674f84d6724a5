package ants_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// WithMinWorkers on the pool kinds other than WorkerPool (whose own test is
// TestWorkerPoolMinWorkers): the purge keeps n workers, workers still start
// lazily, and Release stops them all.
func TestMinWorkers(t *testing.T) {
	const expiry = time.Second
	t.Run("a negative n is ErrInvalidMinWorkers for every constructor", func(t *testing.T) {
		bad := ants.WithMinWorkers(-1)
		_, err := ants.NewPool(1, bad)
		assert.ErrorIs(t, err, ants.ErrInvalidMinWorkers)
		_, err = ants.NewPoolWithFunc(1, func(any) {}, bad)
		assert.ErrorIs(t, err, ants.ErrInvalidMinWorkers)
		_, err = ants.NewPoolWithFuncGeneric(1, func(int) {}, bad)
		assert.ErrorIs(t, err, ants.ErrInvalidMinWorkers)
		_, err = ants.NewMultiPool(2, 1, ants.RoundRobin, bad)
		assert.ErrorIs(t, err, ants.ErrInvalidMinWorkers)
	})
	t.Run("the purge keeps n workers and workers still start lazily", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			c := ants.NewFakeClock()
			p := k.mustNew(t, 4, ants.WithFakeClock(c), ants.WithExpiryDuration(expiry), ants.WithMinWorkers(2))
			assert.Equal(t, 0, p.Running(), "a worker started before the first task")
			g := newGate(t)
			occupy(t, p, g, 4)
			g.open()
			waitIdle(t, p, 4)
			require.True(t, c.Advance(expiry))
			require.True(t, c.Advance(expiry))
			require.True(t, c.Sync())
			waitRunning(t, p, 2)
			for range 4 {
				require.True(t, c.Advance(expiry), "the purge goroutine stays while it keeps workers")
			}
			require.True(t, c.Sync())
			assert.Equal(t, 2, p.Running())
			assert.Equal(t, 2, p.Stats().Idle)

			require.NoError(t, p.ReleaseTimeout(long))
			assert.Equal(t, 0, p.Running(), "Release stops the kept workers")
		})
	})
	// idleThenExpired returns a Pool of size (0: unlimited) keeping n
	// workers, after started tasks ran at once and four expiries passed.
	idleThenExpired := func(t *testing.T, size, n, started int) *ants.Pool {
		c := ants.NewFakeClock()
		p, err := ants.NewPool(size, ants.WithFakeClock(c), ants.WithExpiryDuration(expiry), ants.WithMinWorkers(n))
		require.NoError(t, err)
		t.Cleanup(func() { _ = p.ReleaseTimeout(long) })
		g := newGate(t)
		occupyWith(t, p.Submit, g, started)
		g.open()
		waitIdle(t, p, started)
		for range 4 {
			require.True(t, c.Advance(expiry))
		}
		require.True(t, c.Sync())
		return p
	}
	t.Run("n above the capacity is the capacity", func(t *testing.T) {
		p := idleThenExpired(t, 3, 10, 3)
		assert.Equal(t, 3, p.Running())
	})
	t.Run("an unlimited pool keeps n", func(t *testing.T) {
		p := idleThenExpired(t, 0, 2, 5)
		waitRunning(t, p, 2)
	})
	t.Run("each member of a MultiPool keeps n", func(t *testing.T) {
		c := ants.NewFakeClock()
		mp, err := ants.NewMultiPool(2, 3, ants.RoundRobin, ants.WithFakeClock(c), ants.WithExpiryDuration(expiry), ants.WithMinWorkers(1))
		require.NoError(t, err)
		t.Cleanup(func() { _ = mp.ReleaseTimeout(long) })
		g := newGate(t)
		occupyWith(t, mp.Submit, g, 6)
		g.open()
		waitIdle(t, mp, 6)
		running := func(i int) int {
			n, err := mp.RunningByIndex(i)
			require.NoError(t, err)
			return n
		}
		// The members' purge goroutines share the fake clock's ticks, and
		// one of them can take every tick while the other waits to run (the
		// scheduler's runnext hand-off between the test and the purge
		// goroutine that takes the tick): yield between ticks until both
		// have reaped, then tick some more.
		waitUntil(t, "both members reap down to MinWorkers", func() bool {
			if running(0) == 1 && running(1) == 1 {
				return true
			}
			c.Advance(expiry)
			return false
		})
		for range 8 {
			require.True(t, c.Advance(expiry))
			runtime.Gosched()
		}
		require.True(t, c.Sync())
		assert.Equal(t, 1, running(0))
		assert.Equal(t, 1, running(1))
	})
}
