package ants_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

func TestPoolPanics(t *testing.T) {
	t.Run("the panic handler receives the panic value", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			values := make(chan any, 1)
			p := k.mustNew(t, 1, ants.WithPanicHandler(func(v any) { values <- v }))
			require.NoError(t, p.submit(func() { panic("boom") }))
			assert.Equal(t, "boom", recv(t, values, "the panic handler"))
		})
	})
	t.Run("without a handler the logger reports the panic", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
			logger := testLogger{ch: make(chan string, 1)}
			p := k.mustNew(t, 1, ants.WithLogger(logger))
			require.NoError(t, p.submit(func() { panic("kaboom") }))
			msg := recv(t, logger.ch, "a log message")
			assert.Contains(t, msg, "kaboom")
			assert.Contains(t, msg, "goroutine", "the message has no stack trace")
		})
	})
	t.Run("a panic ends its worker, as in ants, and the pool keeps its capacity", func(t *testing.T) {
		forSinglePools(t, func(t *testing.T, k poolKind) {
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
