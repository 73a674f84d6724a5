package ants_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// This file tests SubmitContext, InvokeContext and TrySubmit.

func TestSubmitContext(t *testing.T) {
	forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
		t.Run("a live context submits like Submit", func(t *testing.T) {
			p := k.mustNew(t, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{}, 1)
			require.NoError(t, p.submitContext(ctx, signal(done)))
			recv(t, done, "the task")
		})

		t.Run("a context already done returns its error at once and the task never runs", func(t *testing.T) {
			p := k.mustNew(t, 1)
			expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			defer cancel()
			var ran atomic.Int32
			task := func() { ran.Add(1) }

			assert.ErrorIs(t, p.submitContext(cancelledContext(), task), context.Canceled)
			assert.ErrorIs(t, p.submitContext(expired, task), context.DeadlineExceeded)

			require.NoError(t, p.ReleaseTimeout(long))
			assert.Zero(t, ran.Load(), "a task submitted with a done context ran")
			s := p.Stats()
			assert.Zero(t, s.Submitted)
			assert.Equal(t, uint64(2), s.Rejected)
		})

		t.Run("a nil context waits for a worker like Background", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1)
			var ctx context.Context // nil
			done := make(chan struct{}, 1)
			errc := blocked(t, p, 1, func() error { return p.submitContext(ctx, signal(done)) })
			l.open()
			require.NoError(t, recv(t, errc, "SubmitContext with a nil context"))
			recv(t, done, "the task")
		})

		t.Run("a waiting caller gives up when its context is cancelled and its task never runs", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1)
			ctx, cancel := context.WithCancel(context.Background())
			var ran atomic.Int32
			errc := blocked(t, p, 1, func() error { return p.submitContext(ctx, func() { ran.Add(1) }) })

			cancel()
			assert.ErrorIs(t, recv(t, errc, "the cancelled caller"), context.Canceled)
			assert.Zero(t, p.Waiting(), "a caller that gave up still counts as waiting")

			l.open()
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Zero(t, ran.Load(), "the task of a caller that gave up ran")
		})

		t.Run("a waiting caller gives up at its deadline", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
			defer cancel()
			var ran atomic.Int32
			errc := async(func() error { return p.submitContext(ctx, func() { ran.Add(1) }) })
			assert.ErrorIs(t, recv(t, errc, "the caller to give up"), context.DeadlineExceeded)

			l.open()
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Zero(t, ran.Load())
		})

		t.Run("a task accepted before its context is cancelled still runs", func(t *testing.T) {
			p := k.mustNew(t, 1)
			l := newGate(t)
			ctx, cancel := context.WithCancel(context.Background())
			started := make(chan struct{}, 1)
			var finished atomic.Int32
			held := l.task(started)
			require.NoError(t, p.submitContext(ctx, func() { held(); finished.Add(1) }))
			recv(t, started, "the task")
			cancel()
			l.open()
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Equal(t, int32(1), finished.Load())
		})

		t.Run("cancelling many waiting callers returns every one of them and runs none of their tasks", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1)
			ctx, cancel := context.WithCancel(context.Background())
			const callers = 50
			var ran atomic.Int32
			errs := make(chan error, callers)
			for range callers {
				go func() { errs <- p.submitContext(ctx, func() { ran.Add(1) }) }()
			}
			waitUntil(t, "every caller waits", func() bool { return p.Waiting() == callers })

			cancel()
			for range callers {
				assert.ErrorIs(t, recv(t, errs, "a cancelled caller"), context.Canceled)
			}
			assert.Zero(t, p.Waiting())

			l.open()
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Zero(t, ran.Load(), "tasks of cancelled callers ran")
			s := p.Stats()
			assert.Equal(t, uint64(p.Cap()), s.Submitted)
			assert.Equal(t, uint64(p.Cap()), s.Completed)
			assert.Equal(t, uint64(callers), s.Rejected)
		})

		t.Run("when some contexts are cancelled only the other callers are served, exactly once", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1)
			doomed, cancelDoomed := context.WithCancel(context.Background())
			kept, cancelKept := context.WithCancel(context.Background())
			defer cancelKept()

			const callers = 40 // even-numbered callers use doomed
			ran := make([]atomic.Int32, callers)
			errs := make([]<-chan error, callers)
			for i := range callers {
				ctx := kept
				if i%2 == 0 {
					ctx = doomed
				}
				errs[i] = async(func() error { return p.submitContext(ctx, func() { ran[i].Add(1) }) })
			}
			waitUntil(t, "every caller waits", func() bool { return p.Waiting() == callers })

			cancelDoomed()
			for i := 0; i < callers; i += 2 {
				assert.ErrorIs(t, recv(t, errs[i], "a cancelled caller"), context.Canceled)
			}
			assert.Equal(t, callers/2, p.Waiting(), "callers with a live context stopped waiting")

			l.open()
			for i := 1; i < callers; i += 2 {
				assert.NoError(t, recv(t, errs[i], "a caller with a live context"))
			}
			require.NoError(t, p.ReleaseTimeout(long))
			for i := range callers {
				assert.Equal(t, int32(i%2), ran[i].Load(), "runs of the task of caller %d", i)
			}
			s := p.Stats()
			assert.Equal(t, uint64(p.Cap()+callers/2), s.Submitted)
			assert.Equal(t, s.Submitted, s.Completed)
			assert.Equal(t, uint64(callers/2), s.Rejected)
		})

		t.Run("a cancellation racing a free worker either runs the task once or returns the error", func(t *testing.T) {
			for range 20 {
				p, l := k.mustNewFull(t, 1)
				ctx, cancel := context.WithCancel(context.Background())
				const callers = 6
				var ran [callers]atomic.Int32
				errs := make([]<-chan error, callers)
				for i := range callers {
					errs[i] = async(func() error { return p.submitContext(ctx, func() { ran[i].Add(1) }) })
				}
				waitUntil(t, "every caller waits", func() bool { return p.Waiting() == callers })

				go cancel()
				l.open()
				results := make([]error, callers)
				for i := range callers {
					results[i] = recv(t, errs[i], "a caller")
				}
				require.NoError(t, p.ReleaseTimeout(long))
				accepted := 0
				for i, err := range results {
					if err == nil {
						accepted++
						assert.Equal(t, int32(1), ran[i].Load(), "runs of an accepted task")
					} else {
						assert.ErrorIs(t, err, context.Canceled)
						assert.Zero(t, ran[i].Load(), "runs of a task whose caller gave up")
					}
				}
				s := p.Stats()
				assert.Equal(t, uint64(p.Cap()+accepted), s.Submitted)
				assert.Equal(t, s.Submitted, s.Completed)
				assert.Equal(t, uint64(callers-accepted), s.Rejected)
			}
		})
	})
}

func TestSubmitContextWithLimits(t *testing.T) {
	forSinglePools(t, func(t *testing.T, k poolKind) {
		t.Run("a full Nonblocking pool refuses at once with ErrPoolOverload", func(t *testing.T) {
			p, _ := k.mustNewFull(t, 1, ants.WithNonblocking(true))
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			assert.ErrorIs(t, p.submitContext(ctx, func() {}), ants.ErrPoolOverload)
			assert.Zero(t, p.Waiting())
		})

		t.Run("a caller that gives up frees its place under MaxBlockingTasks", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1, ants.WithMaxBlockingTasks(1))
			ctx, cancel := context.WithCancel(context.Background())
			errc := blocked(t, p, 1, func() error { return p.submitContext(ctx, func() {}) })
			assert.ErrorIs(t, p.submit(func() {}), ants.ErrPoolOverload)

			cancel()
			assert.ErrorIs(t, recv(t, errc, "the cancelled caller"), context.Canceled)
			done := make(chan struct{}, 1)
			errc = blocked(t, p, 1, func() error { return p.submit(signal(done)) })
			l.open()
			require.NoError(t, recv(t, errc, "the caller that took the place"))
			recv(t, done, "its task")
		})

		t.Run("Release returns ErrPoolClosed to a caller waiting with a context", func(t *testing.T) {
			p, l := k.mustNewFull(t, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var ran atomic.Int32
			errc := blocked(t, p, 1, func() error { return p.submitContext(ctx, func() { ran.Add(1) }) })
			p.Release()
			assert.ErrorIs(t, recv(t, errc, "the waiting caller"), ants.ErrPoolClosed)
			l.open()
			p.Reboot() // to wait for the workers with releaseTimeout
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Zero(t, ran.Load())
		})
	})
}

func TestTrySubmit(t *testing.T) {
	forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
		t.Run("a pool with a free worker takes the task", func(t *testing.T) {
			p := k.mustNew(t, 1)
			done := make(chan struct{}, 1)
			require.NoError(t, p.trySubmit(signal(done)))
			recv(t, done, "the task")
		})

		t.Run("a full pool refuses at once with ErrPoolOverload and the task never runs", func(t *testing.T) {
			p := k.mustNew(t, 1) // blocking: Submit would wait here
			l := newGate(t)
			occupy(t, p, l, p.Cap())
			var ran atomic.Int32
			assert.ErrorIs(t, p.trySubmit(func() { ran.Add(1) }), ants.ErrPoolOverload)
			assert.Zero(t, p.Waiting())

			l.open()
			require.NoError(t, p.ReleaseTimeout(long))
			assert.Zero(t, ran.Load())
			assert.Equal(t, uint64(1), p.Stats().Rejected)
		})

		t.Run("a released pool refuses with ErrPoolClosed", func(t *testing.T) {
			p := k.mustNew(t, 1)
			require.NoError(t, p.ReleaseTimeout(long))
			assert.ErrorIs(t, p.trySubmit(func() {}), ants.ErrPoolClosed)
			assert.ErrorIs(t, p.submitContext(context.Background(), func() {}), ants.ErrPoolClosed)
		})
	})

	t.Run("a nil task is ErrNilTask", func(t *testing.T) {
		p, err := ants.NewPool(1)
		require.NoError(t, err)
		defer p.Release()
		assert.ErrorIs(t, p.TrySubmit(nil), ants.ErrNilTask)
		assert.ErrorIs(t, p.SubmitContext(context.Background(), nil), ants.ErrNilTask)
		mp, err := ants.NewMultiPool(2, 1, ants.RoundRobin)
		require.NoError(t, err)
		defer func() { assert.NoError(t, mp.ReleaseTimeout(long)) }()
		assert.ErrorIs(t, mp.TrySubmit(nil), ants.ErrNilTask)
		assert.ErrorIs(t, mp.SubmitContext(context.Background(), nil), ants.ErrNilTask)
	})
}

// A waiter that gives up must not take with it the wake-up that a worker
// meant for another waiter.
func TestSubmitContextCancelledWaiterDoesNotStealAnotherWaitersWakeUp(t *testing.T) {
	forSinglePools(t, func(t *testing.T, k poolKind) {
		for _, cancelFirst := range []bool{true, false} {
			name := "the other waiter is served when the second waiter gives up"
			if cancelFirst {
				name = "the other waiter is served when the first waiter gives up"
			}
			t.Run(name, func(t *testing.T) {
				p, l := k.mustNewFull(t, 1)
				doomed, cancel := context.WithCancel(context.Background())
				kept, cancelKept := context.WithCancel(context.Background())
				defer cancelKept()
				ctxs := []context.Context{kept, doomed}
				if cancelFirst {
					ctxs = []context.Context{doomed, kept}
				}

				var doomedRan atomic.Int32
				served := make(chan struct{}, 1)
				var errs [2]<-chan error
				for i, ctx := range ctxs {
					task := signal(served)
					if ctx == doomed {
						task = func() { doomedRan.Add(1) }
					}
					errs[i] = blocked(t, p, i+1, func() error { return p.submitContext(ctx, task) })
				}
				doomedErr, keptErr := errs[1], errs[0]
				if cancelFirst {
					doomedErr, keptErr = errs[0], errs[1]
				}

				cancel()
				assert.ErrorIs(t, recv(t, doomedErr, "the cancelled waiter"), context.Canceled)
				assert.Equal(t, 1, p.Waiting())
				l.open()
				assert.NoError(t, recv(t, keptErr, "the other waiter to be served"))
				recv(t, served, "the other waiter's task")
				require.NoError(t, p.ReleaseTimeout(long))
				assert.Zero(t, doomedRan.Load())
			})
		}

		t.Run("every waiter left after a cancellation returns as soon as its task is taken", func(t *testing.T) {
			// A cancellation wakes every waiter. Those that stay must queue
			// again in the order they go back to sleep, or a worker's wake-up
			// goes to the wrong one and a caller whose task runs never
			// returns. Serving one task at a time, and waiting for its caller
			// before the next, catches that.
			p, l := k.mustNewFull(t, 1)
			doomed, cancel := context.WithCancel(context.Background())
			const callers = 9 // callers 1, 4 and 7 use doomed
			started := make(chan int, callers)
			proceed := make(chan struct{})
			errs := make([]<-chan error, callers)
			for i := range callers {
				ctx := context.Background()
				if i%3 == 1 {
					ctx = doomed
				}
				errs[i] = blocked(t, p, i+1, func() error { return p.submitContext(ctx, func() { started <- i; <-proceed }) })
			}
			cancel()
			for i := 1; i < callers; i += 3 {
				assert.ErrorIs(t, recv(t, errs[i], "a cancelled caller"), context.Canceled)
			}

			l.open()
			for range callers - callers/3 {
				i := recv(t, started, "the next task")
				assert.NotEqual(t, 1, i%3, "the task of a cancelled caller ran")
				require.NoError(t, recv(t, errs[i], "the caller of a running task"))
				proceed <- struct{}{}
			}
		})

		t.Run("the other waiter is served when the cancellation races the end of the running task", func(t *testing.T) {
			for range 50 {
				p, l := k.mustNewFull(t, 1)
				ctxA, cancelA := context.WithCancel(context.Background())
				var ranA, ranB atomic.Int32
				errA := blocked(t, p, 1, func() error { return p.submitContext(ctxA, func() { ranA.Add(1) }) })
				errB := blocked(t, p, 2, func() error { return p.submitContext(context.Background(), func() { ranB.Add(1) }) })

				go cancelA()
				l.open()
				require.NoError(t, recv(t, errB, "B to be served"))
				a := recv(t, errA, "A to return")
				require.NoError(t, p.ReleaseTimeout(long))
				assert.Equal(t, int32(1), ranB.Load())
				if a == nil {
					assert.Equal(t, int32(1), ranA.Load())
				} else {
					assert.ErrorIs(t, a, context.Canceled)
					assert.Zero(t, ranA.Load())
				}
			}
		})
	})
}

// The package-level functions use the default pool; the test leaves it
// released and rebooted, which holds no goroutine.
func TestPackageLevelSubmitContextAndTrySubmit(t *testing.T) {
	ants.Reboot() // in case an earlier test left it released
	t.Cleanup(func() {
		ants.Reboot()
		assert.NoError(t, ants.ReleaseTimeout(long))
		ants.Reboot()
		assert.Zero(t, ants.Running(), "the default pool keeps a worker after ReleaseTimeout and Reboot")
	})

	done := make(chan struct{}, 1)
	require.NoError(t, ants.SubmitContext(context.Background(), signal(done)))
	recv(t, done, "a task from SubmitContext")
	var nilCtx context.Context
	require.NoError(t, ants.SubmitContext(nilCtx, signal(done)))
	recv(t, done, "a task from SubmitContext with a nil context")
	require.NoError(t, ants.TrySubmit(signal(done)))
	recv(t, done, "a task from TrySubmit")

	var ran atomic.Int32
	assert.ErrorIs(t, ants.SubmitContext(cancelledContext(), func() { ran.Add(1) }), context.Canceled)
	assert.ErrorIs(t, ants.SubmitContext(context.Background(), nil), ants.ErrNilTask)
	assert.ErrorIs(t, ants.TrySubmit(nil), ants.ErrNilTask)

	require.NoError(t, ants.ReleaseTimeout(long))
	assert.Zero(t, ran.Load())
	assert.Zero(t, ants.Running())
	assert.ErrorIs(t, ants.SubmitContext(context.Background(), func() {}), ants.ErrPoolClosed)
	assert.ErrorIs(t, ants.TrySubmit(func() {}), ants.ErrPoolClosed)

	ants.Reboot()
	require.NoError(t, ants.TrySubmit(signal(done)))
	recv(t, done, "a task after Reboot")
}
