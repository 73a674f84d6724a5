package ants_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

// TestDefaultPool leaves the default pool open and without goroutines.
func TestDefaultPool(t *testing.T) {
	// Start from a known state, whatever an earlier test left: open, and
	// with no worker (ReleaseTimeout waits for them all).
	ants.Reboot()
	require.NoError(t, ants.ReleaseTimeout(long))
	ants.Reboot()
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		_ = ants.ReleaseTimeout(long)
		ants.Reboot()
	})

	t.Run("its getters start no goroutine", func(t *testing.T) {
		assert.Equal(t, ants.DefaultAntsPoolSize, ants.Cap())
		assert.Equal(t, 0, ants.Running())
		assert.Equal(t, ants.Cap(), ants.Free())
		goleak.VerifyNone(t, ignore)
	})
	t.Run("it runs submitted tasks", func(t *testing.T) {
		g := newGate(t)
		before := ants.Running()
		started := make(chan struct{}, 1)
		require.NoError(t, ants.Submit(g.task(started)))
		recv(t, started, "the task")
		assert.GreaterOrEqual(t, ants.Running(), before+1)
		assert.Equal(t, ants.Cap()-ants.Running(), ants.Free())
		g.open()
	})
	t.Run("ReleaseTimeout leaves no goroutine and Reboot restores the pool", func(t *testing.T) {
		done := make(chan struct{})
		require.NoError(t, ants.Submit(signal(done)))
		recv(t, done, "the task")

		require.NoError(t, ants.ReleaseTimeout(long))
		goleak.VerifyNone(t, ignore)
		assert.Equal(t, 0, ants.Running())
		assert.ErrorIs(t, ants.Submit(func() {}), ants.ErrPoolClosed)
		assert.ErrorIs(t, ants.ReleaseTimeout(long), ants.ErrPoolClosed)
		assert.ErrorIs(t, ants.ReleaseContext(boundedContext(t)), ants.ErrPoolClosed)
		ants.Release() // a no-op on a released pool

		ants.Reboot()
		require.NoError(t, ants.Submit(signal(done)))
		recv(t, done, "a task after Reboot")
	})
	t.Run("Release and ReleaseContext close it", func(t *testing.T) {
		ants.Reboot()
		ants.Release()
		assert.ErrorIs(t, ants.Submit(func() {}), ants.ErrPoolClosed)
		ants.Reboot()

		done := make(chan struct{})
		require.NoError(t, ants.Submit(signal(done)))
		recv(t, done, "a task after Release and Reboot")
		require.NoError(t, ants.ReleaseContext(boundedContext(t)))
		goleak.VerifyNone(t, ignore)
		assert.ErrorIs(t, ants.Submit(func() {}), ants.ErrPoolClosed)
		ants.Reboot()
		assert.Equal(t, 0, ants.Running(), "a rebooted pool starts with no worker")
	})
}
