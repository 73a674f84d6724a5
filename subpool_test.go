package ants_test

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// newSubpool returns a sub-pool of parent that is released, with every task
// that holds a slot finished, when the test ends. Create it after its parent
// and before its gates, so that the cleanups run in the right order.
func newSubpool(t *testing.T, parent ants.Submitter, size int) *ants.Subpool {
	t.Helper()
	s := ants.NewSubpool(parent, size)
	t.Cleanup(func() {
		s.Reboot()
		assert.NoError(t, s.ReleaseTimeout(long), "releasing the sub-pool at the end of the test")
	})
	return s
}

// subTestPool is newSubpool in the shape of the pool tests' testPool.
func subTestPool(t *testing.T, parent ants.Submitter, size int) *testPool {
	t.Helper()
	return taskShape(newSubpool(t, parent, size))
}

// queueBehind fills the n slots of s with tasks held by a new gate, then
// submits task from another goroutine and waits until the caller is
// queued. It returns the gate and the queued Submit's result.
func queueBehind(t *testing.T, s *testPool, n int, task func()) (*gate, <-chan error) {
	t.Helper()
	g := newGate(t)
	occupy(t, s, g, n)
	errc := blocked(t, s, 1, func() error { return s.submit(task) })
	return g, errc
}

// assertSubStats checks a sub-pool's Stats; Idle and Queued are always 0.
// A finishing task leaves Running before it gives its slot back and is
// counted (Subpool.finished), so a test that has just seen Running drop may
// read the counters a moment early: it waits, at most long, for them to
// settle on want before comparing.
func assertSubStats(t *testing.T, p *testPool, want ants.Stats) {
	t.Helper()
	deadline := time.Now().Add(long)
	for p.Stats() != want && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	assert.Equal(t, want, p.Stats())
}

func TestSubpoolLimit(t *testing.T) {
	t.Run("at most size tasks run at once, on the parent's workers", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			parent := k.exactParent(t, 8)
			s := subTestPool(t, parent, 2)
			ran := make(chan struct{}, 1)
			g, errc := queueBehind(t, s, 2, signal(ran))
			assert.Equal(t, 2, s.Running())
			assert.Equal(t, 0, s.Free())
			assert.Equal(t, 2, s.Cap())
			assert.Equal(t, uint64(2), parent.Stats().Submitted, "the tasks did not run on the parent")
			assertNoRecv(t, errc, "a Submit to a full sub-pool")
			require.NoError(t, parent.TrySubmit(func() {}), "the parent has room: the limit is the sub-pool's")
			assertSubStats(t, s, ants.Stats{Cap: 2, Running: 2, Waiting: 1, Submitted: 2})

			g.open()
			assert.NoError(t, recv(t, errc, "the waiting Submit"))
			recv(t, ran, "the waiting caller's task")
			waitRunning(t, s, 0)
			assertSubStats(t, s, ants.Stats{Cap: 2, Submitted: 3, Completed: 3})
			assert.Equal(t, 2, s.Free(), "the slots given back with the counters")
		})
	})
	t.Run("a sub-pool without a limit of its own is bounded by its parent", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			parent := k.exactParent(t, 2)
			for _, size := range []int{0, -1} {
				s := subTestPool(t, parent, size)
				assert.Equal(t, -1, s.Cap())
				assert.Equal(t, -1, s.Free())
				s.Tune(5)
				assert.Equal(t, -1, s.Cap(), "Tune changed a sub-pool without a limit")

				g := newGate(t)
				occupy(t, s, g, 2)
				assert.ErrorIs(t, submitNow(t, s.trySubmit, func() {}), ants.ErrPoolOverload)
				ran := make(chan struct{}, 1)
				errc := blocked(t, parent, 1, func() error { return s.submit(signal(ran)) }) // the caller waits in the parent
				assert.Equal(t, 0, s.Waiting())
				g.open()
				assert.NoError(t, recv(t, errc, "the Submit waiting in the parent"))
				recv(t, ran, "its task")
				waitRunning(t, s, 0)
				assertSubStats(t, s, ants.Stats{Cap: -1, Submitted: 3, Completed: 3, Rejected: 1})
			}
		})
	})
}

func TestSubpoolWaiters(t *testing.T) {
	t.Run("waiting callers are served in FIFO order", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := subTestPool(t, k.exactParent(t, 8), 1)
			g := newGate(t)
			occupy(t, s, g, 1)
			const n = 5
			order := make(chan int, n)
			var errs [n]<-chan error
			for i := range n {
				errs[i] = blocked(t, s, i+1, func() error { return s.submit(func() { order <- i }) })
			}
			g.open()
			for i := range n {
				assert.Equal(t, i, recv(t, order, "a waiting caller's task"))
				assert.NoError(t, recv(t, errs[i], "a waiting Submit"))
			}
		})
	})
	t.Run("a caller whose context ends leaves, and the slot goes to the next", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := subTestPool(t, k.exactParent(t, 8), 1)
			g := newGate(t)
			occupy(t, s, g, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var cancelledRan atomic.Bool
			e1 := blocked(t, s, 1, func() error { return s.submitContext(ctx, func() { cancelledRan.Store(true) }) })
			ran := make(chan struct{}, 1)
			e2 := blocked(t, s, 2, func() error { return s.submit(signal(ran)) })

			cancel()
			assert.ErrorIs(t, recv(t, e1, "the cancelled SubmitContext"), context.Canceled)
			assert.Equal(t, 1, s.Waiting())
			g.open()
			assert.NoError(t, recv(t, e2, "the other waiting Submit"))
			recv(t, ran, "its task")
			waitRunning(t, s, 0)
			assert.False(t, cancelledRan.Load(), "the cancelled caller's task ran")
			waitUntil(t, "the slot is free", func() bool { return s.Free() == 1 })
			assertSubStats(t, s, ants.Stats{Cap: 1, Submitted: 2, Completed: 2, Rejected: 1})
		})
	})
	t.Run("mass cancellation of waiting callers leaks no slot", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			parent := k.exactParent(t, 8)
			s := subTestPool(t, parent, 2)
			g := newGate(t)
			occupy(t, s, g, 2)
			const n = 200
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var ran atomic.Int32
			errs := make(chan error, n)
			for range n {
				go func() { errs <- s.submitContext(ctx, func() { ran.Add(1) }) }()
			}
			waitWaiting(t, s, n)
			cancel()
			for range n {
				assert.ErrorIs(t, recv(t, errs, "a cancelled SubmitContext"), context.Canceled)
			}
			assert.Equal(t, 0, s.Waiting())
			assert.Equal(t, 0, parent.Waiting())
			g.open()
			waitRunning(t, s, 0)
			waitUntil(t, "both slots are free", func() bool { return s.Free() == 2 })
			occupy(t, s, newGate(t), 2) // both slots can be taken again
			assert.Zero(t, ran.Load(), "a cancelled caller's task ran")
			assert.Equal(t, uint64(n), s.Stats().Rejected)
		})
	})
	t.Run("a slot handed over as the caller's context ends is neither lost nor doubled", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := subTestPool(t, k.exactParent(t, 8), 1)
			var runs atomic.Int32
			var took, left int
			for round := 0; round < 200 && !t.Failed(); round++ {
				g := newGate(t)
				occupy(t, s, g, 1)
				ctx, cancel := context.WithCancel(context.Background())
				ran := make(chan struct{}, 1)
				errc := async(func() error {
					return s.submitContext(ctx, func() { runs.Add(1); ran <- struct{}{} })
				})
				waitWaiting(t, s, 1)
				if round%2 == 0 {
					go g.open()
					cancel()
				} else {
					go cancel()
					g.open()
				}
				if err := recv(t, errc, "the waiting SubmitContext"); err == nil {
					recv(t, ran, "the task of a SubmitContext that returned nil")
					took++
				} else {
					assert.ErrorIs(t, err, context.Canceled)
					left++
				}
				waitUntil(t, "the slot is free", func() bool { return s.Free() == 1 && s.Running() == 0 })
			}
			assert.Equal(t, int32(took), runs.Load())
			st := s.Stats()
			assert.Equal(t, st.Submitted, st.Completed)
			assert.Equal(t, uint64(took+200), st.Submitted)
			t.Logf("the caller got the slot %d times and left %d times", took, left)
		})
	})
	t.Run("a caller that finds its slot granted and its context done gives the slot back", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := subTestPool(t, k.exactParent(t, 8), 1)
			for round := 0; round < 20 && !t.Failed(); round++ {
				g := newGate(t)
				occupy(t, s, g, 1)
				ctx := lateContext{context.Background(), make(chan struct{})}
				errc := blocked(t, s, 1, func() error { return s.submitContext(ctx, func() { t.Error("a cancelled caller's task ran") }) })
				g.open()
				waitUntil(t, "the slot is granted", func() bool { return s.Waiting() == 0 })
				close(ctx.proceed)
				assert.ErrorIs(t, recv(t, errc, "the SubmitContext"), context.Canceled)
				waitUntil(t, "the slot is free", func() bool { return s.Free() == 1 && s.Running() == 0 })
			}
			assertSubStats(t, s, ants.Stats{Cap: 1, Submitted: 20, Completed: 20, Rejected: 20})
		})
	})
}

// lateContext is a context that is not done until proceed is closed, and
// whose Done blocks until then: a caller waiting on it in a select has been
// granted whatever it waits for by the time it sees the context end, so the
// select finds both ready. It relies on the sub-pool calling Done only once
// the caller is queued, and Err before.
type lateContext struct {
	context.Context
	proceed chan struct{}
}

func (c lateContext) Done() <-chan struct{} {
	<-c.proceed
	return c.proceed
}

func (c lateContext) Err() error {
	select {
	case <-c.proceed:
		return context.Canceled
	default:
		return nil
	}
}

func TestSubpoolTrySubmit(t *testing.T) {
	t.Run("a full sub-pool refuses at once", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := subTestPool(t, k.exactParent(t, 8), 1)
			occupy(t, s, newGate(t), 1)
			assert.ErrorIs(t, submitNow(t, s.trySubmit, func() { t.Error("a refused task ran") }), ants.ErrPoolOverload)
		})
	})
	t.Run("a full parent refuses at once, and the slot is given back", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			parent := k.exactParent(t, 2)
			s := subTestPool(t, parent, 4)
			occupyPool(t, parent, newGate(t), 2)
			assert.ErrorIs(t, submitNow(t, s.trySubmit, func() { t.Error("a refused task ran") }), ants.ErrPoolOverload)
			assert.Equal(t, 4, s.Free())
			assertSubStats(t, s, ants.Stats{Cap: 4, Rejected: 1})
		})
	})
	t.Run("on a parent without TrySubmit it always refuses", func(t *testing.T) {
		s := subTestPool(t, submitOnly{newGroupPool(t, 4)}, 2)
		assert.ErrorIs(t, s.trySubmit(func() { t.Error("a refused task ran") }), ants.ErrPoolOverload)
		assert.Equal(t, 2, s.Free())
		ran := make(chan struct{}, 1)
		require.NoError(t, s.submit(signal(ran)))
		recv(t, ran, "a task submitted through Submit")
		assert.False(t, ants.NewGroup(s.poolAPI.(*ants.Subpool)).TryGo(func() error { return nil }))
	})
}

func TestSubpoolPanics(t *testing.T) {
	t.Run("a panic frees the slot and reaches the parent's PanicHandler", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			panics := make(chan any, 1)
			parent := k.exactParent(t, 4, ants.WithPanicHandler(func(v any) { panics <- v }))
			s := subTestPool(t, parent, 1)
			g := newGate(t)
			started := make(chan struct{}, 1)
			require.NoError(t, s.submit(func() {
				g.task(started)()
				panic("boom")
			}))
			recv(t, started, "the panicking task")
			ran := make(chan struct{}, 1)
			errc := blocked(t, s, 1, func() error { return s.submit(signal(ran)) })
			g.open()
			assert.Equal(t, "boom", recv(t, panics, "the PanicHandler"))
			assert.NoError(t, recv(t, errc, "the Submit waiting behind the panicking task"))
			recv(t, ran, "its task")
			waitRunning(t, s, 0)
			assertSubStats(t, s, ants.Stats{Cap: 1, Submitted: 2, Completed: 1, Panicked: 1})
			waitUntil(t, "the parent counts the panic", func() bool { return parent.Stats().Panicked == 1 })
		})
	})
	t.Run("runtime.Goexit frees the slot", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := subTestPool(t, k.exactParent(t, 4), 1)
			require.NoError(t, s.submit(runtime.Goexit))
			ran := make(chan struct{}, 1)
			require.NoError(t, s.submit(signal(ran)))
			recv(t, ran, "the task after the one that called runtime.Goexit")
			waitRunning(t, s, 0)
			assertSubStats(t, s, ants.Stats{Cap: 1, Submitted: 2, Completed: 1, Panicked: 1})
		})
	})
}

func TestSubpoolRelease(t *testing.T) {
	t.Run("Release refuses new tasks and wakes waiters; accepted tasks still run", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			parent := k.exactParent(t, 8)
			s := subTestPool(t, parent, 1)
			refused := func() { t.Error("a refused task ran") }
			g, e1 := queueBehind(t, s, 1, refused)
			e2 := blocked(t, s, 2, func() error { return s.submitContext(boundedContext(t), refused) })

			s.Release()
			assert.ErrorIs(t, recv(t, e1, "a waiting Submit"), ants.ErrPoolClosed)
			assert.ErrorIs(t, recv(t, e2, "a waiting SubmitContext"), ants.ErrPoolClosed)
			assert.True(t, s.IsClosed())
			assert.ErrorIs(t, s.submit(refused), ants.ErrPoolClosed)
			assert.ErrorIs(t, s.trySubmit(refused), ants.ErrPoolClosed)
			assert.ErrorIs(t, s.submitContext(context.Background(), refused), ants.ErrPoolClosed)
			assert.ErrorIs(t, s.submit(nil), ants.ErrPoolClosed)
			s.Release() // a no-op
			assert.ErrorIs(t, s.ReleaseTimeout(long), ants.ErrPoolClosed)
			assert.ErrorIs(t, s.ReleaseContext(context.Background()), ants.ErrPoolClosed)

			assert.False(t, parent.IsClosed(), "releasing the sub-pool released its parent")
			require.NoError(t, parent.TrySubmit(func() {}))
			assert.Equal(t, 1, s.Running(), "the accepted task stopped")
			g.open()
			waitRunning(t, s, 0)
			assertSubStats(t, s, ants.Stats{Cap: 1, Submitted: 1, Completed: 1, Rejected: 6})

			s.Reboot()
			assert.False(t, s.IsClosed())
			ran := make(chan struct{}, 1)
			require.NoError(t, s.submit(signal(ran)))
			recv(t, ran, "a task after Reboot")
			s.Reboot() // a no-op on an open sub-pool
			assert.False(t, s.IsClosed())
		})
	})
	t.Run("ReleaseTimeout waits for running tasks", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := subTestPool(t, k.exactParent(t, 8), 2)
			g := newGate(t)
			var finished atomic.Int32
			started := make(chan struct{}, 2)
			for range 2 {
				require.NoError(t, s.submit(func() { g.task(started)(); finished.Add(1) }))
			}
			recv(t, started, "a held task")
			recv(t, started, "a held task")
			errc := asyncChecked(func() error { return s.ReleaseTimeout(long) }, func() {
				assert.Equal(t, int32(2), finished.Load(), "ReleaseTimeout returned before the tasks finished")
			})
			assertNoRecv(t, errc, "ReleaseTimeout with tasks running")
			g.open()
			assert.NoError(t, recv(t, errc, "ReleaseTimeout"))
		})
	})
	t.Run("ReleaseTimeout and ReleaseContext give up when told to", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := subTestPool(t, k.exactParent(t, 8), 2)
			assert.NoError(t, s.ReleaseTimeout(0), "an idle sub-pool has nothing to wait for")
			s.Reboot()
			occupy(t, s, newGate(t), 1)
			assert.ErrorIs(t, s.ReleaseTimeout(brief), ants.ErrTimeout)
			s.Reboot()
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			assert.ErrorIs(t, s.ReleaseContext(ctx), context.Canceled)
			s.Reboot()
			var nilCtx context.Context
			assert.NoError(t, s.ReleaseContext(nilCtx), "ReleaseContext(nil) waited")
			assert.True(t, s.IsClosed())
		})
	})
	t.Run("ReleaseTimeout waits for a task the parent has accepted but not started", func(t *testing.T) {
		parent := newGroupPool(t, 1, ants.WithQueueSize(4))
		s := subTestPool(t, parent, 2)
		occupyPool(t, parent, newGate(t), 1)
		var ran atomic.Bool
		require.NoError(t, s.submit(func() { ran.Store(true) })) // buffered in the parent
		assert.Equal(t, 0, s.Running())
		assert.Equal(t, 1, s.Free(), "a buffered task holds a slot")
		assert.ErrorIs(t, s.ReleaseTimeout(brief), ants.ErrTimeout)
		s.Reboot()
		errc := asyncChecked(func() error { return s.ReleaseTimeout(long) }, func() {
			assert.True(t, ran.Load(), "ReleaseTimeout returned before the buffered task ran")
		})
		assertNoRecv(t, errc, "ReleaseTimeout with a task buffered in the parent")
		parent.Tune(2) // a second worker takes the buffered task
		assert.NoError(t, recv(t, errc, "ReleaseTimeout"))
	})
	t.Run("a released parent makes submits fail with its error, and the slot is given back", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			parent := k.exactParent(t, 4)
			s := subTestPool(t, parent, 1)
			refused := func() { t.Error("a refused task ran") }
			g, errc := queueBehind(t, s, 1, refused)
			var nilCtx context.Context
			require.NoError(t, parent.ReleaseContext(nilCtx))
			g.open()
			assert.ErrorIs(t, recv(t, errc, "the Submit waiting when the parent was released"), ants.ErrPoolClosed)
			assert.ErrorIs(t, s.submit(refused), ants.ErrPoolClosed)
			assert.ErrorIs(t, s.trySubmit(refused), ants.ErrPoolClosed)
			assert.False(t, s.IsClosed())
			waitRunning(t, s, 0)
			assert.Equal(t, 1, s.Free(), "a refused task kept its slot")
			assertSubStats(t, s, ants.Stats{Cap: 1, Submitted: 1, Completed: 1, Rejected: 3})

			parent.Reboot()
			ran := make(chan struct{}, 1)
			require.NoError(t, s.submit(signal(ran)))
			recv(t, ran, "a task after the parent's Reboot")
		})
	})
}

func TestSubpoolTune(t *testing.T) {
	t.Run("growing admits waiting callers at once", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := subTestPool(t, k.exactParent(t, 8), 1)
			g := newGate(t)
			occupy(t, s, g, 1)
			started := make(chan struct{}, 3)
			var errs [3]<-chan error
			for i := range errs {
				errs[i] = blocked(t, s, i+1, func() error { return s.submit(g.task(started)) })
			}
			s.Tune(3)
			recv(t, started, "a waiting caller's task after Tune")
			recv(t, started, "a waiting caller's task after Tune")
			assert.NoError(t, recv(t, errs[0], "a Submit admitted by Tune"))
			assert.NoError(t, recv(t, errs[1], "a Submit admitted by Tune"))
			assert.Equal(t, 1, s.Waiting())
			assert.Equal(t, 3, s.Running())
			assert.Equal(t, 0, s.Free())
			s.Tune(0)
			s.Tune(-1)
			s.Tune(3)
			assert.Equal(t, 3, s.Cap(), "Tune(0) or Tune(-1) changed the limit")
			g.open()
			assert.NoError(t, recv(t, errs[2], "the last waiting Submit"))
		})
	})
	t.Run("shrinking admits new tasks only once the excess has finished", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := subTestPool(t, k.exactParent(t, 8), 3)
			gates := []*gate{newGate(t), newGate(t), newGate(t)}
			for _, g := range gates {
				occupy(t, s, g, 1)
			}
			s.Tune(1)
			assert.Equal(t, 1, s.Cap())
			assert.Equal(t, -2, s.Free())
			ran := make(chan struct{}, 1)
			errc := blocked(t, s, 1, func() error { return s.submit(signal(ran)) })
			for i, want := range []int{-1, 0} {
				gates[i].open()
				waitUntil(t, "a held task has finished", func() bool { return s.Free() == want })
				assert.Equal(t, 1, s.Waiting(), "a caller was admitted above the new limit")
			}
			gates[2].open()
			assert.NoError(t, recv(t, errc, "the waiting Submit"))
			recv(t, ran, "its task")
		})
	})
}

func TestSubpoolNested(t *testing.T) {
	t.Run("nested sub-pools under load never exceed either limit", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			outer := newSubpool(t, k.exactParent(t, 6), 4)
			a, b := newSubpool(t, outer, 2), newSubpool(t, outer, 3)
			var nA, nB, nOuter, maxA, maxB, maxOuter, ran atomic.Int32
			enter := func(n, peak *atomic.Int32) {
				v := n.Add(1)
				for old := peak.Load(); v > old && !peak.CompareAndSwap(old, v); old = peak.Load() {
				}
			}
			task := func(n, peak *atomic.Int32) func() {
				return func() {
					enter(n, peak)
					enter(&nOuter, &maxOuter)
					runtime.Gosched()
					nOuter.Add(-1)
					n.Add(-1)
					ran.Add(1)
				}
			}
			const submitters, perSubmitter = 8, 200
			var accepted atomic.Int32
			var wg sync.WaitGroup
			for i := range submitters {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, n, peak := a, &nA, &maxA
					if i%2 == 1 {
						s, n, peak = b, &nB, &maxB
					}
					for j := range perSubmitter {
						var err error
						switch j % 3 {
						case 0:
							err = s.Submit(task(n, peak))
						case 1:
							err = s.SubmitContext(context.Background(), task(n, peak))
						default:
							err = s.TrySubmit(task(n, peak))
						}
						switch {
						case err == nil:
							accepted.Add(1)
						case j%3 != 2 || !errors.Is(err, ants.ErrPoolOverload):
							t.Errorf("submit: %v", err)
						}
					}
				}()
			}
			wg.Wait()
			for _, s := range []*ants.Subpool{a, b, outer} {
				require.NoError(t, s.ReleaseTimeout(long))
			}
			assert.Equal(t, accepted.Load(), ran.Load(), "accepted and run tasks differ")
			assert.LessOrEqual(t, maxA.Load(), int32(2))
			assert.LessOrEqual(t, maxB.Load(), int32(3))
			assert.LessOrEqual(t, maxOuter.Load(), int32(4))
			sa, sb, so := a.Stats(), b.Stats(), outer.Stats()
			assert.Equal(t, uint64(accepted.Load()), sa.Completed+sb.Completed)
			assert.Equal(t, sa.Submitted+sb.Submitted, so.Submitted)
			assert.Equal(t, so.Submitted, so.Completed)
			t.Logf("%d tasks; at most %d, %d and %d at once", accepted.Load(), maxA.Load(), maxB.Load(), maxOuter.Load())
		})
	})
	t.Run("groups run on sub-pools", func(t *testing.T) {
		forParents(t, func(t *testing.T, k poolKind) {
			s := newSubpool(t, k.exactParent(t, 8), 2)
			rg := ants.NewResultGroup[int](s)
			for i := 1; i <= 5; i++ {
				rg.Go(func() (int, error) { return i * i, nil })
			}
			squares, err := rg.Wait()
			assert.NoError(t, err)
			assert.Equal(t, []int{1, 4, 9, 16, 25}, squares)

			occupyWith(t, s.Submit, newGate(t), 2)
			g := ants.NewGroup(s)
			assert.False(t, g.TryGo(func() error { return nil }), "TryGo took a task on a full sub-pool")
			assert.NoError(t, g.Wait())
		})
	})
}

func TestSubpoolRunsEveryAcceptedTaskExactlyOnce(t *testing.T) {
	forParents(t, func(t *testing.T, k poolKind) {
		testExactlyOnce(t, subTestPool(t, k.exactParent(t, 4), 3))
	})
	t.Run("Nonblocking parent", func(t *testing.T) {
		testExactlyOnce(t, subTestPool(t, newGroupPool(t, 4, ants.WithNonblocking(true)), 3))
	})
}

func TestSubpoolBadInput(t *testing.T) {
	t.Run("a nil parent panics", func(t *testing.T) {
		assert.PanicsWithValue(t, "ants: nil Submitter", func() { ants.NewSubpool(nil, 1) })
	})
	t.Run("a nil task is refused with ErrNilTask", func(t *testing.T) {
		s := subTestPool(t, newGroupPool(t, 1), 1)
		assert.ErrorIs(t, s.submit(nil), ants.ErrNilTask)
		assert.ErrorIs(t, s.trySubmit(nil), ants.ErrNilTask)
		assert.ErrorIs(t, s.submitContext(context.Background(), nil), ants.ErrNilTask)
		assertSubStats(t, s, ants.Stats{Cap: 1, Rejected: 3})
	})
	t.Run("a nil context is taken as Background, a done one refuses at once", func(t *testing.T) {
		s := subTestPool(t, newGroupPool(t, 1), 1)
		ran := make(chan struct{}, 1)
		var nilCtx context.Context
		require.NoError(t, s.submitContext(nilCtx, signal(ran)))
		recv(t, ran, "a task submitted with a nil context")
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.ErrorIs(t, s.submitContext(ctx, func() { t.Error("a refused task ran") }), context.Canceled)
		waitRunning(t, s, 0)
		assertSubStats(t, s, ants.Stats{Cap: 1, Submitted: 1, Completed: 1, Rejected: 1})
	})
}
