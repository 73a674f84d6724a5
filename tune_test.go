package ants_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/e62cffed/ants"
)

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
