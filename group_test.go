package ants_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// waitFor returns a channel that delivers the result of g.Wait.
func waitFor(g *ants.Group) <-chan error {
	return async(g.Wait)
}

var errTask = errors.New("task failed")

func TestGroup(t *testing.T) {
	t.Run("Wait returns nil once every task has run", func(t *testing.T) {
		p := newGroupPool(t, 4)
		g := ants.NewGroup(p)
		var ran atomic.Int32
		for range 100 {
			g.Go(func() error { ran.Add(1); return nil })
		}
		require.NoError(t, recv(t, waitFor(g), "Wait"))
		assert.Equal(t, int32(100), ran.Load())
	})

	t.Run("without a context every task runs and Wait returns the first error", func(t *testing.T) {
		p := newGroupPool(t, 1) // one worker: tasks run in the order of Go
		g := ants.NewGroup(p)
		errSecond := errors.New("second")
		var ran atomic.Int32
		g.Go(func() error { ran.Add(1); return errTask })
		g.Go(func() error { ran.Add(1); return errSecond })
		g.Go(func() error { ran.Add(1); return nil })
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), errTask)
		assert.Equal(t, int32(3), ran.Load())
	})

	t.Run("Go waits while the pool is full", func(t *testing.T) {
		p := newGroupPool(t, 1)
		l := newGate(t)
		occupyPool(t, p, l, 1)
		g := ants.NewGroup(p)
		var ran atomic.Int32
		goReturned := blocked(t, p, 1, func() error { g.Go(func() error { ran.Add(1); return nil }); return nil })
		l.open()
		recv(t, goReturned, "Go")
		require.NoError(t, recv(t, waitFor(g), "Wait"))
		assert.Equal(t, int32(1), ran.Load())
	})

	t.Run("Go gives up when the group's context is done and the task never runs", func(t *testing.T) {
		p := newGroupPool(t, 1)
		l := newGate(t)
		occupyPool(t, p, l, 1)
		parent, cancel := context.WithCancel(context.Background())
		g, _ := ants.NewGroupContext(parent, p)
		var ran atomic.Int32
		goReturned := blocked(t, p, 1, func() error { g.Go(func() error { ran.Add(1); return nil }); return nil })
		cancel()
		recv(t, goReturned, "Go to give up")
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), context.Canceled)

		l.open()
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Zero(t, ran.Load())
	})

	t.Run("the group's context is cancelled at the first error", func(t *testing.T) {
		p := newGroupPool(t, 2)
		g, ctx := ants.NewGroupContext(context.Background(), p)
		g.Go(func() error { return errTask })
		recv(t, ctx.Done(), "the group's context to be cancelled before Wait")
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), errTask)
	})

	t.Run("a nil context is taken as Background", func(t *testing.T) {
		p := newGroupPool(t, 1)
		var nilCtx context.Context
		g, ctx := ants.NewGroupContext(nilCtx, p)
		require.NotNil(t, ctx)
		g.Go(func() error { return nil })
		require.NoError(t, recv(t, waitFor(g), "Wait"))
		rg, ctx := ants.NewResultGroupContext[int](nilCtx, p)
		require.NotNil(t, ctx)
		rg.Go(func() (int, error) { return 7, nil })
		results, err := rg.Wait()
		require.NoError(t, err)
		assert.Equal(t, []int{7}, results)
	})

	t.Run("the group's context is cancelled when Wait returns", func(t *testing.T) {
		p := newGroupPool(t, 2)
		g, ctx := ants.NewGroupContext(context.Background(), p)
		g.Go(func() error { return nil })
		g.Go(func() error { return nil })
		require.NoError(t, recv(t, waitFor(g), "Wait"))
		assert.ErrorIs(t, ctx.Err(), context.Canceled)
	})

	t.Run("tasks not yet started at the first error are skipped", func(t *testing.T) {
		p := newGroupPool(t, 1, ants.WithQueueSize(10))
		l := newGate(t)
		g, _ := ants.NewGroupContext(context.Background(), p)
		started := make(chan struct{}, 1)
		held := l.task(started)
		g.Go(func() error { held(); return errTask })
		recv(t, started, "the failing task")
		var ran atomic.Int32
		for range 9 {
			g.Go(func() error { ran.Add(1); return nil }) // buffered behind the failing task
		}
		require.Equal(t, 9, p.Stats().Queued)
		l.open()
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), errTask)
		assert.Zero(t, ran.Load(), "tasks after the first error ran")
	})

	t.Run("a task skipped because the parent context was cancelled is reported by Wait", func(t *testing.T) {
		// Go accepted the tasks, so only Wait can tell the caller that they
		// never ran; a nil error would claim they succeeded, and a
		// ResultGroup would hand back zero values as results.
		p := newGroupPool(t, 1, ants.WithQueueSize(4))
		l := newGate(t)
		occupyPool(t, p, l, 1)
		parent, cancel := context.WithCancel(context.Background())
		g, _ := ants.NewResultGroupContext[int](parent, p)
		var ran atomic.Int32
		g.Go(func() (int, error) { ran.Add(1); return 1, nil }) // buffered
		g.Go(func() (int, error) { ran.Add(1); return 2, nil }) // buffered
		cancel()
		l.open()
		results, err := g.Wait()
		assert.Zero(t, ran.Load())
		assert.Equal(t, []int{0, 0}, results)
		assert.ErrorIs(t, err, context.Canceled, "Wait reported success for tasks that never ran")
	})

	t.Run("a task waiting for the pool at the first error never runs and Wait keeps the task's error", func(t *testing.T) {
		p := newGroupPool(t, 1)
		l := newGate(t)
		g, _ := ants.NewGroupContext(context.Background(), p)
		started := make(chan struct{}, 1)
		held := l.task(started)
		g.Go(func() error { held(); return errTask })
		recv(t, started, "the failing task")
		var ran atomic.Int32
		goReturned := blocked(t, p, 1, func() error { g.Go(func() error { ran.Add(1); return nil }); return nil })
		l.open()
		recv(t, goReturned, "Go")
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), errTask)
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Zero(t, ran.Load())
	})

	t.Run("Go from inside a task is waited for", func(t *testing.T) {
		p := newGroupPool(t, 4)
		g := ants.NewGroup(p)
		var inner atomic.Int32
		g.Go(func() error {
			g.Go(func() error { inner.Add(1); return nil })
			return nil
		})
		require.NoError(t, recv(t, waitFor(g), "Wait"))
		assert.Equal(t, int32(1), inner.Load())
	})

	t.Run("a nil task is reported by Wait as ErrNilTask", func(t *testing.T) {
		p := newGroupPool(t, 1)
		g := ants.NewGroup(p)
		g.Go(nil)
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), ants.ErrNilTask)
		g = ants.NewGroup(p)
		assert.False(t, g.TryGo(nil))
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), ants.ErrNilTask)
	})

	t.Run("Wait returns ErrPoolClosed when the pool is released mid-way", func(t *testing.T) {
		for _, withContext := range []bool{false, true} {
			p := newGroupPool(t, 1)
			l := newGate(t)
			g := ants.NewGroup(p)
			if withContext {
				g, _ = ants.NewGroupContext(context.Background(), p)
			}
			started := make(chan struct{}, 1)
			held := l.task(started)
			var heldRan, lateRan atomic.Int32
			g.Go(func() error { held(); heldRan.Add(1); return nil })
			recv(t, started, "the first task")
			goReturned := async(func() error {
				for range 3 {
					g.Go(func() error { lateRan.Add(1); return nil })
				}
				return nil
			})
			waitUntil(t, "Go waits for the pool", func() bool { return p.Waiting() == 1 })

			p.Release()
			recv(t, goReturned, "the calls to Go")
			wait := asyncChecked(g.Wait, func() {
				assert.Equal(t, int32(1), heldRan.Load(), "Wait returned before the accepted task ran to its end")
			})
			assertNoRecv(t, wait, "Wait returning while an accepted task runs")
			l.open()
			assert.ErrorIs(t, recv(t, wait, "Wait"), ants.ErrPoolClosed)
			assert.Zero(t, lateRan.Load())
		}
	})

	t.Run("TryGo on a full pool returns false and the task never runs", func(t *testing.T) {
		p := newGroupPool(t, 1)
		l := newGate(t)
		occupyPool(t, p, l, 1)
		g := ants.NewGroup(p)
		var ran atomic.Int32
		assert.False(t, g.TryGo(func() error { ran.Add(1); return nil }))
		assert.Zero(t, p.Waiting(), "TryGo waits")

		l.open()
		require.NoError(t, recv(t, waitFor(g), "Wait"), "a full pool is not an error")
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Zero(t, ran.Load())
	})

	t.Run("TryGo on a free pool runs the task", func(t *testing.T) {
		p := newGroupPool(t, 1)
		g := ants.NewGroup(p)
		var ran atomic.Int32
		assert.True(t, g.TryGo(func() error { ran.Add(1); return errTask }))
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), errTask)
		assert.Equal(t, int32(1), ran.Load())
	})

	t.Run("TryGo returns false once the group's context is done", func(t *testing.T) {
		p := newGroupPool(t, 1)
		g, ctx := ants.NewGroupContext(context.Background(), p)
		g.Go(func() error { return errTask })
		recv(t, ctx.Done(), "the group's context to be cancelled")
		var ran atomic.Int32
		assert.False(t, g.TryGo(func() error { ran.Add(1); return nil }))
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), errTask)
		assert.Zero(t, ran.Load())
	})

	t.Run("TryGo on a released pool returns false and Wait reports ErrPoolClosed", func(t *testing.T) {
		p := newGroupPool(t, 1)
		p.Release()
		g := ants.NewGroup(p)
		assert.False(t, g.TryGo(func() error { return nil }))
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), ants.ErrPoolClosed)
	})

	t.Run("TryGo needs a pool with TrySubmit", func(t *testing.T) {
		p := newGroupPool(t, 1)
		g := ants.NewGroup(submitOnly{p})
		assert.False(t, g.TryGo(func() error { return nil }))
		g.Go(func() error { return nil })
		assert.NoError(t, recv(t, waitFor(g), "Wait"))
	})

	t.Run("a group runs on a MultiPool", func(t *testing.T) {
		mp, err := ants.NewMultiPool(2, 2, ants.RoundRobin)
		require.NoError(t, err)
		t.Cleanup(func() { mp.Reboot(); assert.NoError(t, mp.ReleaseTimeout(long)) })
		g := ants.NewGroup(mp)
		var sum atomic.Int64
		assert.True(t, g.TryGo(func() error { sum.Add(1000); return nil }), "TryGo on an idle MultiPool")
		for i := range 50 {
			g.Go(func() error { sum.Add(int64(i)); return nil })
		}
		require.NoError(t, recv(t, waitFor(g), "Wait"))
		assert.Equal(t, int64(1000+49*50/2), sum.Load())

		l := newGate(t)
		occupyPool(t, mp, l, 4)
		g = ants.NewGroup(mp)
		var ran atomic.Int32
		assert.False(t, g.TryGo(func() error { ran.Add(1); return nil }), "TryGo on a full MultiPool")
		l.open()
		g.Go(func() error { ran.Add(1); return errTask })
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), errTask)
		require.NoError(t, mp.ReleaseTimeout(long))
		assert.Equal(t, int32(1), ran.Load())
	})

	t.Run("a group on a released MultiPool reports ErrPoolClosed", func(t *testing.T) {
		mp, err := ants.NewMultiPool(2, 1, ants.LeastTasks)
		require.NoError(t, err)
		t.Cleanup(func() { mp.Reboot(); assert.NoError(t, mp.ReleaseTimeout(long)) })
		require.NoError(t, mp.ReleaseTimeout(long))
		g, ctx := ants.NewGroupContext(context.Background(), mp)
		g.Go(func() error { return nil })
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait"), ants.ErrPoolClosed)
		assert.Error(t, ctx.Err())
	})
}

func TestGroupPanic(t *testing.T) {
	// newPanicPool returns a pool whose PanicHandler counts its calls.
	newPanicPool := func(t *testing.T) (*ants.Pool, *atomic.Int32) {
		var handled atomic.Int32
		p := newGroupPool(t, 2, ants.WithPanicHandler(func(any) { handled.Add(1) }))
		return p, &handled
	}

	t.Run("a panicking task becomes a *PanicError from Wait and never reaches the PanicHandler", func(t *testing.T) {
		p, handled := newPanicPool(t)
		g := ants.NewGroup(p)
		g.Go(func() error { panic("boom") })
		err := recv(t, waitFor(g), "Wait")

		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "boom", pe.Value)
		assert.NotEmpty(t, pe.Stack)
		assert.Contains(t, string(pe.Stack), "group_test.go", "the stack must show where the task panicked")
		assert.Contains(t, pe.Error(), "boom")
		assert.Nil(t, pe.Unwrap(), "a panic value that is not an error unwraps to nil")

		require.NoError(t, p.ReleaseTimeout(long))
		assert.Zero(t, handled.Load(), "the pool's PanicHandler saw a group task's panic")
	})

	t.Run("panic(err) unwraps to err", func(t *testing.T) {
		p, handled := newPanicPool(t)
		g := ants.NewGroup(p)
		wrapped := fmt.Errorf("while fetching: %w", errTask)
		g.Go(func() error { panic(wrapped) })
		err := recv(t, waitFor(g), "Wait")

		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Same(t, wrapped, pe.Unwrap())
		assert.ErrorIs(t, err, errTask)
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Zero(t, handled.Load())
	})

	t.Run("panic(nil) is reported too", func(t *testing.T) {
		p, _ := newPanicPool(t)
		g := ants.NewGroup(p)
		g.Go(func() error { panic(nil) })
		err := recv(t, waitFor(g), "Wait")
		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		var pn *runtime.PanicNilError
		assert.ErrorAs(t, err, &pn)
	})

	t.Run("a panic cancels the group's context and skips tasks not yet started", func(t *testing.T) {
		p, _ := newPanicPool(t)
		p.Tune(1)
		l := newGate(t)
		g, ctx := ants.NewGroupContext(context.Background(), p)
		started := make(chan struct{}, 1)
		held := l.task(started)
		g.Go(func() error { held(); panic("boom") })
		recv(t, started, "the panicking task")
		var ran atomic.Int32
		goReturned := blocked(t, p, 1, func() error { g.Go(func() error { ran.Add(1); return nil }); return nil })
		l.open()
		recv(t, ctx.Done(), "the group's context to be cancelled")
		recv(t, goReturned, "Go")
		err := recv(t, waitFor(g), "Wait")
		var pe *ants.PanicError
		assert.ErrorAs(t, err, &pe)
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Zero(t, ran.Load())
	})

	t.Run("many panicking tasks neither crash the process nor exhaust the pool", func(t *testing.T) {
		p, handled := newPanicPool(t)
		g := ants.NewGroup(p)
		for i := range 100 {
			g.Go(func() error {
				if i%2 == 0 {
					panic(i)
				}
				return nil
			})
		}
		var pe *ants.PanicError
		require.ErrorAs(t, recv(t, waitFor(g), "Wait"), &pe)
		assert.Equal(t, 2, p.Cap())
		done := make(chan struct{}, 1)
		require.NoError(t, p.Submit(signal(done)))
		recv(t, done, "a task after the panics")
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Zero(t, handled.Load())
		s := p.Stats()
		assert.Equal(t, uint64(51), s.Completed, "the 50 tasks that returned, and the one after")
		assert.Equal(t, uint64(50), s.Panicked, "a panic the group caught is the pool's all the same")
	})
}

func TestResultGroup(t *testing.T) {
	t.Run("results come in the order of Go even when the tasks finish in reverse", func(t *testing.T) {
		const n = 6
		p := newGroupPool(t, n)
		g := ants.NewResultGroup[int](p)
		// Task i finishes only after task i+1 has: the last one first.
		finished := make([]chan struct{}, n+1)
		for i := range finished {
			finished[i] = make(chan struct{})
		}
		close(finished[n])
		finishOrder := make(chan int, n)
		for i := range n {
			g.Go(func() (int, error) {
				<-finished[i+1]
				finishOrder <- i
				close(finished[i])
				return i * 10, nil
			})
		}
		results, err := g.Wait()
		require.NoError(t, err)
		assert.Equal(t, []int{0, 10, 20, 30, 40, 50}, results)
		for i := n - 1; i >= 0; i-- {
			assert.Equal(t, i, <-finishOrder, "the tasks did not finish in reverse order")
		}
	})

	t.Run("a failed task leaves the zero value and Wait returns its error", func(t *testing.T) {
		p := newGroupPool(t, 2)
		g := ants.NewResultGroup[string](p)
		g.Go(func() (string, error) { return "a", nil })
		g.Go(func() (string, error) { return "ignored", errTask })
		g.Go(func() (string, error) { return "c", nil })
		results, err := g.Wait()
		assert.ErrorIs(t, err, errTask)
		assert.Equal(t, []string{"a", "", "c"}, results)
	})

	t.Run("a panicking task leaves the zero value", func(t *testing.T) {
		p := newGroupPool(t, 2)
		g := ants.NewResultGroup[int](p)
		g.Go(func() (int, error) { return 1, nil })
		g.Go(func() (int, error) { panic("boom") })
		results, err := g.Wait()
		var pe *ants.PanicError
		assert.ErrorAs(t, err, &pe)
		assert.Equal(t, []int{1, 0}, results)
	})

	t.Run("with a context, tasks after the first error are skipped and keep the zero value", func(t *testing.T) {
		p := newGroupPool(t, 1, ants.WithQueueSize(8))
		l := newGate(t)
		g, ctx := ants.NewResultGroupContext[int](context.Background(), p)
		started := make(chan struct{}, 1)
		held := l.task(started)
		g.Go(func() (int, error) { return 1, nil })
		g.Go(func() (int, error) { held(); return 2, errTask })
		recv(t, started, "the failing task")
		var ran atomic.Int32
		for range 3 {
			g.Go(func() (int, error) { ran.Add(1); return 3, nil })
		}
		l.open()
		results, err := g.Wait()
		assert.ErrorIs(t, err, errTask)
		assert.Equal(t, []int{1, 0, 0, 0, 0}, results)
		assert.Zero(t, ran.Load())
		assert.Error(t, ctx.Err())
	})

	t.Run("a TryGo that returns false has no place in the results", func(t *testing.T) {
		p := newGroupPool(t, 1)
		l := newGate(t)
		occupyPool(t, p, l, 1)
		g := ants.NewResultGroup[int](p)
		var ran atomic.Int32
		assert.False(t, g.TryGo(func() (int, error) { ran.Add(1); return 1, nil }))
		l.open()
		g.Go(func() (int, error) { return 2, nil })
		results, err := g.Wait()
		require.NoError(t, err)
		assert.Equal(t, []int{2}, results)
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Zero(t, ran.Load())
	})

	t.Run("a task the pool refuses keeps its place with the zero value", func(t *testing.T) {
		p := newGroupPool(t, 1)
		g := ants.NewResultGroup[int](p)
		g.Go(func() (int, error) { return 1, nil })
		results, err := g.Wait()
		require.NoError(t, err)
		require.Equal(t, []int{1}, results)

		p.Release()
		g = ants.NewResultGroup[int](p)
		g.Go(func() (int, error) { return 1, nil })
		g.Go(nil)
		results, err = g.Wait()
		assert.ErrorIs(t, err, ants.ErrPoolClosed)
		assert.Equal(t, []int{0, 0}, results)
	})

	t.Run("a result group runs on a MultiPool", func(t *testing.T) {
		mp, err := ants.NewMultiPool(3, 2, ants.LeastTasks)
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, mp.ReleaseTimeout(long)) })
		g, _ := ants.NewResultGroupContext[string](context.Background(), mp)
		want := make([]string, 40)
		for i := range want {
			want[i] = strings.Repeat("x", i)
			g.Go(func() (string, error) { return strings.Repeat("x", i), nil })
		}
		results, err := g.Wait()
		require.NoError(t, err)
		assert.Equal(t, want, results)
	})
}

func TestGroupConstructorsRejectANilSubmitter(t *testing.T) {
	for name, build := range map[string]func(){
		"NewGroup":              func() { ants.NewGroup(nil) },
		"NewGroupContext":       func() { ants.NewGroupContext(context.Background(), nil) },
		"NewResultGroup":        func() { ants.NewResultGroup[int](nil) },
		"NewResultGroupContext": func() { ants.NewResultGroupContext[int](context.Background(), nil) },
	} {
		t.Run(name, func(t *testing.T) {
			assert.PanicsWithValue(t, "ants: nil Submitter", build)
		})
	}
}

// A TryGo that returned false used to leave a zero value in Wait's results,
// which a caller that fell back to Go could not tell from a real result
// ([0 7] where one task ran).
func TestResultGroupTryGoThatReturnsFalseLeavesNoPhantomResult(t *testing.T) {
	t.Run("a caller that falls back to Go gets one result", func(t *testing.T) {
		p := newGroupPool(t, 1)
		l := newGate(t)
		occupyPool(t, p, l, 1)
		g := ants.NewResultGroup[int](p)
		task := func() (int, error) { return 7, nil }
		if !g.TryGo(task) {
			l.open()
			g.Go(task)
		}
		results, err := g.Wait()
		require.NoError(t, err)
		assert.Equal(t, []int{7}, results)
	})

	t.Run("results follow the order of the calls that count", func(t *testing.T) {
		p := newGroupPool(t, 1, ants.WithQueueSize(3))
		l := newGate(t)
		occupyPool(t, p, l, 1)
		g := ants.NewResultGroup[int](p)
		value := func(v int) func() (int, error) { return func() (int, error) { return v, nil } }
		require.True(t, g.TryGo(value(10)), "a buffer slot is free")
		g.Go(value(20))
		require.True(t, g.TryGo(value(30)), "a buffer slot is free")
		require.False(t, g.TryGo(value(40)), "the buffer is full")
		require.False(t, g.TryGo(value(50)), "the buffer is full")
		l.open()
		g.Go(value(60))
		results, err := g.Wait()
		require.NoError(t, err)
		assert.Equal(t, []int{10, 20, 30, 60}, results)

		require.False(t, g.TryGo(nil), "a nil task")
		g.Go(value(70))
		results, err = g.Wait()
		assert.ErrorIs(t, err, ants.ErrNilTask)
		assert.Equal(t, []int{10, 20, 30, 60, 70}, results, "a second round after Wait")
	})

	t.Run("racing Go and TryGo calls keep one place per counted call, in each caller's order", func(t *testing.T) {
		const callers, per = 8, 200
		p := newGroupPool(t, 2)
		g := ants.NewResultGroup[int](p)
		var counted [callers]int
		fromSources(callers, per, func(c, i int) {
			v := c*per + i
			task := func() (int, error) { return v, nil }
			if i%2 == 0 {
				g.Go(task)
				counted[c]++
			} else if g.TryGo(task) {
				counted[c]++
			}
		})
		results, err := g.Wait()
		require.NoError(t, err)
		want := 0
		for _, n := range counted {
			want += n
		}
		require.Equal(t, want, len(results), "one result per Go and per TryGo that returned true")
		seen := assertOrderPerSource(t, results, per, callers)
		assert.Equal(t, counted[:], seen, "one result per Go and per TryGo that returned true")
	})
}

// A Go or TryGo that the pool refused counted its task done before it
// recorded the error, so a Wait waiting for another task could return in
// between, without the error; under the race detector, its read of the
// error raced with the record. The group now records the error first, as
// errgroup does.
func TestGroupSubmissionRefusedWhileWaitWaitsIsReported(t *testing.T) {
	for _, c := range []struct {
		name string
		call func(g *ants.Group, task func() error)
	}{
		{"Go", func(g *ants.Group, task func() error) { g.Go(task) }},
		{"TryGo", func(g *ants.Group, task func() error) { g.TryGo(task) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			for round := 0; round < 50 && !t.Failed(); round++ {
				s := &lastRefused{p: newGroupPool(t, 1), gate: newGate(t), held: make(chan struct{})}
				g := ants.NewGroup(s)
				g.Go(func() error {
					defer close(s.held)
					<-s.gate.ch
					return nil
				})
				errc := waitFor(g)
				c.call(g, func() error { t.Error("a refused task ran"); return nil })
				assert.ErrorIs(t, recv(t, errc, "Wait"), errLastRefused, "Wait lost the error of a call it raced with")
			}
		})
	}
}

var errLastRefused = errors.New("refused after the held task finished")

// lastRefused is a TrySubmitter that runs the first task it is given on p,
// whichever method it comes through, and refuses every later one with
// errLastRefused, but only once the first task has run to its end (held):
// its group task is then about to count as done, so the refused one is the
// group's last.
type lastRefused struct {
	p     *ants.Pool
	gate  *gate         // holds the first task; opened by the refusal
	held  chan struct{} // closed by the first task when it returns
	calls atomic.Int32
}

func (s *lastRefused) SubmitContext(ctx context.Context, task func()) error {
	if s.calls.Add(1) == 1 {
		return s.p.SubmitContext(ctx, task)
	}
	s.gate.open()
	<-s.held
	return errLastRefused
}

func (s *lastRefused) TrySubmit(task func()) error {
	return s.SubmitContext(context.Background(), task)
}

func TestResultGroupCancelledEarlyIsNoRejectionOfThePool(t *testing.T) {
	// Regression: a ResultGroup whose context was cancelled by its first
	// error handed each later task to the pool's SubmitContext, which
	// refused it and counted it as Rejected, though the pool shed nothing.
	const n = 1000
	forKinds(t, takesTasks, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 2)
		r, ctx := ants.NewResultGroupContext[int](context.Background(), p.submitter())
		r.Go(func() (int, error) { return 0, errTask })
		recv(t, ctx.Done(), "the group's context, cancelled by the first error")
		for i := 1; i < n; i++ {
			r.Go(func() (int, error) {
				t.Error("a task ran after the group's context was cancelled")
				return i, nil
			})
		}
		results, err := r.Wait()
		assert.ErrorIs(t, err, errTask)
		assert.Len(t, results, n, "a skipped task keeps its place")
		for i, l := range p.levels() {
			s := waitAtRest(t, l)
			assert.Zero(t, s.Rejected, "level %d below the group counted its skips as rejections", i)
			assert.Equal(t, uint64(1), s.Submitted, "level %d below the group: only the first task came", i)
		}
	})
}
