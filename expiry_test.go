package ants_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

func TestPoolExpiry(t *testing.T) {
	const expiry = time.Minute
	t.Run("an idle worker is reaped at the second tick after it went idle", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			testReapedAtSecondTick(t, k, expiry)
		})
	})
	t.Run("an idle worker of a PreAlloc pool is reaped at the second tick after it went idle", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			testReapedAtSecondTick(t, k, expiry, ants.WithPreAlloc(true))
		})
	})
	t.Run("workers idle since different ticks expire one tick apart", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
