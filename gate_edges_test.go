package ants_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// The gate's edges, as the doc comments state them: a Nonblocking pool
// with a rate limit refuses a task that finds no token even while workers
// are free; Pause returns nil once the pool is idle even if another
// goroutine resumed it meanwhile; priority levels order the work waiting
// in one pool, and a MultiPool orders within each member pool only.

// TestNonblockingRateLimitRefusesWithFreeWorkers: with no token left, a
// Nonblocking pool buffers the task while its buffer has room, then
// refuses with ErrPoolOverload, while Free() says workers are free; so
// does TrySubmit on any pool.
func TestNonblockingRateLimitRefusesWithFreeWorkers(t *testing.T) {
	forSinglePools(t, func(t *testing.T, k poolKind) {
		clk := ants.NewFakeClock()
		p := k.mustNew(t, 4, ants.WithFakeClock(clk), ants.WithDisablePurge(true), ants.WithNonblocking(true),
			ants.WithQueueSize(1), ants.WithRateLimit(1e-6, 1))
		g := newGate(t)
		occupy(t, p, g, 1) // takes the only token
		require.NoError(t, p.submit(func() {}), "into the buffer")
		assert.ErrorIs(t, p.submit(func() {}), ants.ErrPoolOverload)
		assert.ErrorIs(t, p.trySubmit(func() {}), ants.ErrPoolOverload)
		assert.Equal(t, 3, p.Free(), "free workers the refused tasks could not use")
		require.NoError(t, pacerOf(p).SetRateLimit(0, 0)) // the buffered task runs
	})
}

// TestPauseReturnsNilWhenAnotherGoroutineResumed: Pause waits for the
// running task; a Resume meanwhile undoes the pause, and Pause still
// returns nil once the task has finished, with the pool not paused.
func TestPauseReturnsNilWhenAnotherGoroutineResumed(t *testing.T) {
	forEveryKind(t, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 2)
		g := newGate(t)
		occupy(t, p, g, 1)
		pc := pacerOf(p)
		paused := async(func() error { return pc.Pause(boundedContext(t)) })
		waitUntil(t, "the pool to be paused", pc.Paused)
		pc.Resume()
		assert.False(t, pc.Paused())
		assertNoRecv(t, paused, "Pause while a task runs")
		g.open()
		require.NoError(t, recv(t, paused, "Pause"))
		assert.False(t, pc.Paused(), "Pause returned nil, but another goroutine resumed the pool")
	})
}

// TestPriorityOrdersWithinOnePoolOnly: in one pool, the waiting task of
// the higher level runs first; in a RoundRobin MultiPool of two member
// pools, a task of level 0 in one member pool runs as soon as its worker
// is free, while a task of level 5 still waits in the other.
func TestPriorityOrdersWithinOnePoolOnly(t *testing.T) {
	level := func(l int) context.Context { return ants.ContextWithPriority(context.Background(), l) }

	t.Run("one pool", func(t *testing.T) {
		p := poolKinds[0].mustNew(t, 1, ants.WithQueueSize(2))
		g := newGate(t)
		occupy(t, p, g, 1)
		order := make(chan int, 2)
		require.NoError(t, p.submitContext(level(0), func() { order <- 0 }))
		require.NoError(t, p.submitContext(level(5), func() { order <- 5 }))
		g.open()
		assert.Equal(t, 5, recv(t, order, "the first waiting task"))
		assert.Equal(t, 0, recv(t, order, "the second waiting task"))
	})

	t.Run("MultiPool", func(t *testing.T) {
		p := poolKinds[3].mustNewMulti(t, 2, 1, ants.RoundRobin, ants.WithQueueSize(1))
		first, second := newGate(t), newGate(t)
		started := make(chan struct{}, 2)
		// RoundRobin alternates: the first and third tasks go to one member
		// pool, the second and fourth to the other.
		require.NoError(t, p.submit(first.task(started)))
		require.NoError(t, p.submit(second.task(started)))
		recv(t, started, "a held task")
		recv(t, started, "a held task")
		low, high := make(chan struct{}, 1), make(chan struct{}, 1)
		require.NoError(t, p.submitContext(level(0), signal(low)))
		require.NoError(t, p.submitContext(level(5), signal(high)))
		first.open()
		recv(t, low, "the level-0 task of the member pool whose worker is free")
		assertNoRecv(t, high, "the level-5 task of the other member pool")
		second.open()
		recv(t, high, "the level-5 task")
	})
}
