package ants_test

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// waitStream returns a channel that delivers the result of s.Wait.
func waitStream(s *ants.Stream) <-chan error { return async(s.Wait) }

// upTo returns 0, 1, ..., n-1.
func upTo(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestStream(t *testing.T) {
	forParents(t, testStream)
}

func testStream(t *testing.T, k poolKind) {
	t.Run("callbacks run in the order of Go, each after its task, even when the tasks finish in reverse", func(t *testing.T) {
		const n = 6
		p := k.parent(t, n)
		s := ants.NewStream(p)
		out := newOrderLog(t)
		// Task i finishes only after task i+1 has: the last one first.
		finished := make([]chan struct{}, n+1)
		for i := range finished {
			finished[i] = make(chan struct{})
		}
		close(finished[n])
		var taskDone [n]atomic.Bool
		for i := range n {
			s.Go(func() func() {
				<-finished[i+1]
				taskDone[i].Store(true)
				close(finished[i])
				return func() {
					assert.True(t, taskDone[i].Load(), "callback %d ran before its task", i)
					out.put(i)()
				}
			})
		}
		require.NoError(t, recv(t, waitStream(s), "Wait"))
		assert.Equal(t, upTo(n), out.got)
	})

	t.Run("many tasks: callbacks one at a time, in order", func(t *testing.T) {
		const n = 2000
		p := k.parent(t, 4)
		s := ants.NewStream(p)
		out := newOrderLog(t)
		for i := range n {
			s.Go(func() func() { return out.put(i) })
		}
		require.NoError(t, recv(t, waitStream(s), "Wait"))
		assert.Equal(t, upTo(n), out.got)
	})

	t.Run("Go from many goroutines keeps each one's order", func(t *testing.T) {
		const goroutines, per = 8, 200
		p := k.parent(t, 4)
		s := ants.NewStream(p)
		out := newOrderLog(t)
		fromSources(goroutines, per, func(g, i int) {
			s.Go(func() func() { return out.put(g*per + i) })
		})
		require.NoError(t, recv(t, waitStream(s), "Wait"))
		counts := assertOrderPerSource(t, out.got, per, goroutines)
		for g, n := range counts {
			assert.Equal(t, per, n, "goroutine %d: callbacks run", g)
		}
	})

	t.Run("a nil callback is skipped and a nil task keeps its place with ErrNilTask", func(t *testing.T) {
		p := k.parent(t, 2)
		s := ants.NewStream(p)
		out := newOrderLog(t)
		var ran atomic.Int32
		s.Go(func() func() { return out.put(0) })
		s.Go(func() func() { ran.Add(1); return nil })
		s.Go(nil)
		s.Go(func() func() { return out.put(3) })
		assert.ErrorIs(t, recv(t, waitStream(s), "Wait"), ants.ErrNilTask)
		assert.Equal(t, []int{0, 3}, out.got)
		assert.Equal(t, int32(1), ran.Load())
	})

	t.Run("a panicking task is reported and the later callbacks still run", func(t *testing.T) {
		var handled atomic.Int32
		p := k.parent(t, 2, ants.WithPanicHandler(func(any) { handled.Add(1) }))
		s := ants.NewStream(p)
		out := newOrderLog(t)
		s.Go(func() func() { return out.put(0) })
		s.Go(func() func() { panic("task boom") })
		s.Go(func() func() { return out.put(2) })
		err := recv(t, waitStream(s), "Wait")
		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "task boom", pe.Value)
		assert.Contains(t, string(pe.Stack), "stream_test.go")
		assert.Equal(t, []int{0, 2}, out.got)
		assert.Zero(t, handled.Load(), "the pool's PanicHandler saw a stream's panic")
	})

	t.Run("a panicking callback is reported, the later callbacks still run, and Wait keeps the first", func(t *testing.T) {
		p := k.parent(t, 2)
		s := ants.NewStream(p)
		out := newOrderLog(t)
		s.Go(func() func() { return out.put(0) })
		s.Go(func() func() { return func() { panic("callback boom") } })
		s.Go(func() func() { return out.put(2) })
		s.Go(func() func() { return func() { panic("second") } })
		s.Go(func() func() { return out.put(4) })
		err := recv(t, waitStream(s), "Wait")
		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "callback boom", pe.Value)
		assert.Equal(t, []int{0, 2, 4}, out.got)

		s.Go(func() func() { return out.put(5) })
		assert.Same(t, err, recv(t, waitStream(s), "Wait again"), "Wait keeps the first error")
		assert.Equal(t, []int{0, 2, 4, 5}, out.got, "the stream is usable after Wait")
	})

	t.Run("a refused task keeps its place and does not hold back the later callbacks", func(t *testing.T) {
		p := k.parent(t, 2)
		errRefused := errors.New("refused")
		r := &refusing{Submitter: p, refuse: func(n int) error {
			if n%3 == 1 {
				return errRefused
			}
			return nil
		}}
		s := ants.NewStream(r)
		out := newOrderLog(t)
		var want []int
		for i := range 30 {
			s.Go(func() func() { return out.put(i) })
			if i%3 != 1 {
				want = append(want, i)
			}
		}
		assert.ErrorIs(t, recv(t, waitStream(s), "Wait"), errRefused)
		assert.Equal(t, want, out.got)
	})

	t.Run("a stream on a released pool reports ErrPoolClosed and runs nothing", func(t *testing.T) {
		p := k.parent(t, 2)
		p.Release()
		s := ants.NewStream(p)
		var ran atomic.Int32
		for range 3 {
			s.Go(func() func() { ran.Add(1); return func() { ran.Add(1) } })
		}
		assert.ErrorIs(t, recv(t, waitStream(s), "Wait"), ants.ErrPoolClosed)
		assert.Zero(t, ran.Load())
	})

	t.Run("Wait waits for the callbacks and returns nil with nothing to wait for", func(t *testing.T) {
		p := k.parent(t, 2)
		s := ants.NewStream(p)
		require.NoError(t, recv(t, waitStream(s), "Wait on a new stream"))
		l := newGate(t)
		started := make(chan struct{}, 1)
		var returned atomic.Bool
		held := l.task(started)
		s.Go(func() func() { return func() { held(); returned.Store(true) } })
		recv(t, started, "the callback to start")
		wait := asyncChecked(s.Wait, func() {
			assert.True(t, returned.Load(), "Wait returned before the callback did")
		})
		assertNoRecv(t, wait, "Wait returning while a callback runs")
		l.open()
		require.NoError(t, recv(t, wait, "Wait"))
	})

	t.Run("a stream never runs more than one submission per task", func(t *testing.T) {
		p := k.parent(t, 3)
		r := &refusing{Submitter: p}
		s := ants.NewStream(r)
		var ran atomic.Int32
		for range 50 {
			s.Go(func() func() { ran.Add(1); return nil })
		}
		require.NoError(t, recv(t, waitStream(s), "Wait"))
		assert.Equal(t, int32(50), r.calls.Load(), "one submission per task, none for callbacks")
		assert.Equal(t, int32(50), ran.Load())
	})
}

// A stream whose first task is the slowest holds back every later callback,
// and bounds what piles up: once StreamWindow tasks are outstanding, Go
// waits until the first one finishes.
func TestStreamSlowFirstTaskBoundsMemory(t *testing.T) {
	forParents(t, func(t *testing.T, k poolKind) {
		p := k.parent(t, 4)
		s := ants.NewStream(p)
		out := newOrderLog(t)
		l := newGate(t)
		started := make(chan struct{}, 1)
		held := l.task(started)
		s.Go(func() func() { held(); return out.put(0) })
		recv(t, started, "the first task")
		var finished atomic.Int32
		for i := 1; i < ants.StreamWindow; i++ {
			s.Go(func() func() { finished.Add(1); return out.put(i) })
		}
		waitUntil(t, "every later task has finished", func() bool { return finished.Load() == ants.StreamWindow-1 })

		extra := async(func() error { s.Go(func() func() { return out.put(ants.StreamWindow) }); return nil })
		assertNoRecv(t, extra, "Go returning with the window full")
		assert.Empty(t, out.got, "a callback ran before the first one")

		l.open()
		recv(t, extra, "Go once the first task has finished")
		require.NoError(t, recv(t, waitStream(s), "Wait"))
		assert.Equal(t, upTo(ants.StreamWindow+1), out.got)
	})
}
