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

// This file tests SubmitContext, InvokeContext and TrySubmit, and holds the
// helpers that the tests of the other additions to ants (groups, the task
// buffer, Stats) share.

// async runs call on a new goroutine and returns its result.
func async(call func() error) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- call() }()
	return errc
}

// notify returns a task that sends on ch.
func notify(ch chan<- struct{}) func() {
	return func() { ch <- struct{}{} }
}

// cancelledContext returns a context that is already cancelled.
func cancelledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// poolUnderTest gives the six pool kinds one shape. The function pools run
// func() arguments, so every kind runs arbitrary tasks.
type poolUnderTest struct {
	capacity int // total: a multi-pool's is the sum of its sub-pools'
	subPools int // 1 for a single pool

	submit         func(task func()) error
	submitCtx      func(ctx context.Context, task func()) error
	trySubmit      func(task func()) error
	stats          func() ants.Stats
	waiting        func() int
	tune           func(size int)
	release        func() // no wait
	releaseTimeout func(timeout time.Duration) error
	reboot         func()
}

// poolMaker builds pools of one kind; size is per sub-pool.
type poolMaker struct {
	name   string
	single bool
	make   func(size int, opts ...ants.Option) (*poolUnderTest, error)
}

func runArg(arg any) { arg.(func())() }

func runFunc(task func()) { task() }

// multiSubPools is the number of sub-pools of every multi-pool under test.
const multiSubPools = 2

var poolMakers = []poolMaker{
	{name: "Pool", single: true, make: func(size int, opts ...ants.Option) (*poolUnderTest, error) {
		p, err := ants.NewPool(size, opts...)
		if err != nil {
			return nil, err
		}
		return &poolUnderTest{
			capacity: p.Cap(), subPools: 1,
			submit: p.Submit, submitCtx: p.SubmitContext, trySubmit: p.TrySubmit,
			stats: p.Stats, waiting: p.Waiting, tune: p.Tune,
			release: p.Release, releaseTimeout: p.ReleaseTimeout, reboot: p.Reboot,
		}, nil
	}},
	{name: "PoolWithFunc", single: true, make: func(size int, opts ...ants.Option) (*poolUnderTest, error) {
		p, err := ants.NewPoolWithFunc(size, runArg, opts...)
		if err != nil {
			return nil, err
		}
		return &poolUnderTest{
			capacity: p.Cap(), subPools: 1,
			submit:    func(task func()) error { return p.Invoke(task) },
			submitCtx: func(ctx context.Context, task func()) error { return p.InvokeContext(ctx, task) },
			trySubmit: func(task func()) error { return p.TryInvoke(task) },
			stats:     p.Stats, waiting: p.Waiting, tune: p.Tune,
			release: p.Release, releaseTimeout: p.ReleaseTimeout, reboot: p.Reboot,
		}, nil
	}},
	{name: "PoolWithFuncGeneric", single: true, make: func(size int, opts ...ants.Option) (*poolUnderTest, error) {
		p, err := ants.NewPoolWithFuncGeneric(size, runFunc, opts...)
		if err != nil {
			return nil, err
		}
		return &poolUnderTest{
			capacity: p.Cap(), subPools: 1,
			submit: p.Invoke, submitCtx: p.InvokeContext, trySubmit: p.TryInvoke,
			stats: p.Stats, waiting: p.Waiting, tune: p.Tune,
			release: p.Release, releaseTimeout: p.ReleaseTimeout, reboot: p.Reboot,
		}, nil
	}},
	{name: "MultiPool", make: func(size int, opts ...ants.Option) (*poolUnderTest, error) {
		mp, err := ants.NewMultiPool(multiSubPools, size, ants.RoundRobin, opts...)
		if err != nil {
			return nil, err
		}
		return &poolUnderTest{
			capacity: mp.Cap(), subPools: multiSubPools,
			submit: mp.Submit, submitCtx: mp.SubmitContext, trySubmit: mp.TrySubmit,
			stats: mp.Stats, waiting: mp.Waiting, tune: mp.Tune,
			release:        mp.Release,
			releaseTimeout: mp.ReleaseTimeout, reboot: mp.Reboot,
		}, nil
	}},
	{name: "MultiPoolWithFunc", make: func(size int, opts ...ants.Option) (*poolUnderTest, error) {
		mp, err := ants.NewMultiPoolWithFunc(multiSubPools, size, runArg, ants.LeastTasks, opts...)
		if err != nil {
			return nil, err
		}
		return &poolUnderTest{
			capacity: mp.Cap(), subPools: multiSubPools,
			submit:    func(task func()) error { return mp.Invoke(task) },
			submitCtx: func(ctx context.Context, task func()) error { return mp.InvokeContext(ctx, task) },
			trySubmit: func(task func()) error { return mp.TryInvoke(task) },
			stats:     mp.Stats, waiting: mp.Waiting, tune: mp.Tune,
			release:        mp.Release,
			releaseTimeout: mp.ReleaseTimeout, reboot: mp.Reboot,
		}, nil
	}},
	{name: "MultiPoolWithFuncGeneric", make: func(size int, opts ...ants.Option) (*poolUnderTest, error) {
		mp, err := ants.NewMultiPoolWithFuncGeneric(multiSubPools, size, runFunc, ants.RoundRobin, opts...)
		if err != nil {
			return nil, err
		}
		return &poolUnderTest{
			capacity: mp.Cap(), subPools: multiSubPools,
			submit: mp.Invoke, submitCtx: mp.InvokeContext, trySubmit: mp.TryInvoke,
			stats: mp.Stats, waiting: mp.Waiting, tune: mp.Tune,
			release:        mp.Release,
			releaseTimeout: mp.ReleaseTimeout, reboot: mp.Reboot,
		}, nil
	}},
}

// mustMake returns a pool that is released, and whose goroutines have all
// exited, when the test ends.
func (m poolMaker) mustMake(t *testing.T, size int, opts ...ants.Option) *poolUnderTest {
	t.Helper()
	p, err := m.make(size, opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		p.reboot()
		assert.NoError(t, p.releaseTimeout(long), "releasing the pool at the end of the test")
	})
	return p
}

// forEveryPool runs test once per pool kind, as a subtest named for it.
func forEveryPool(t *testing.T, test func(t *testing.T, m poolMaker)) {
	t.Helper()
	runKinds(t, poolMakers, poolMaker.makerName, nil, test)
}

func (m poolMaker) makerName() string { return m.name }

// forEverySinglePool is forEveryPool for the three kinds that are one pool.
func forEverySinglePool(t *testing.T, test func(t *testing.T, m poolMaker)) {
	t.Helper()
	runKinds(t, poolMakers, poolMaker.makerName, func(m poolMaker) bool { return m.single }, test)
}

// occupyAll fills every worker of p with a task held by l and waits until
// all of them run.
func occupyAll(t *testing.T, p *poolUnderTest, l *gate) {
	t.Helper()
	started := make(chan struct{}, p.capacity)
	for i := 0; i < p.capacity; i++ {
		require.NoError(t, p.submit(l.task(started)))
	}
	for i := 0; i < p.capacity; i++ {
		recv(t, started, "a held task to start")
	}
}

func TestSubmitContext(t *testing.T) {
	forEveryPool(t, func(t *testing.T, m poolMaker) {
		t.Run("a live context submits like Submit", func(t *testing.T) {
			p := m.mustMake(t, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan struct{}, 1)
			require.NoError(t, p.submitCtx(ctx, notify(done)))
			recv(t, done, "the task")
		})

		t.Run("a context already done returns its error at once and the task never runs", func(t *testing.T) {
			p := m.mustMake(t, 1)
			expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
			defer cancel()
			var ran atomic.Int32
			task := func() { ran.Add(1) }

			assert.ErrorIs(t, p.submitCtx(cancelledContext(), task), context.Canceled)
			assert.ErrorIs(t, p.submitCtx(expired, task), context.DeadlineExceeded)

			require.NoError(t, p.releaseTimeout(long))
			assert.Zero(t, ran.Load(), "a task submitted with a done context ran")
			s := p.stats()
			assert.Zero(t, s.Submitted)
			assert.Equal(t, uint64(2), s.Rejected)
		})

		t.Run("a nil context waits for a worker like Background", func(t *testing.T) {
			p := m.mustMake(t, 1)
			l := newGate(t)
			occupyAll(t, p, l)
			var ctx context.Context // nil
			done := make(chan struct{}, 1)
			errc := async(func() error { return p.submitCtx(ctx, notify(done)) })
			waitUntil(t, "the caller waits", func() bool { return p.waiting() == 1 })
			l.open()
			require.NoError(t, recv(t, errc, "SubmitContext with a nil context"))
			recv(t, done, "the task")
		})

		t.Run("a waiting caller gives up when its context is cancelled and its task never runs", func(t *testing.T) {
			p := m.mustMake(t, 1)
			l := newGate(t)
			occupyAll(t, p, l)
			ctx, cancel := context.WithCancel(context.Background())
			var ran atomic.Int32
			errc := async(func() error { return p.submitCtx(ctx, func() { ran.Add(1) }) })
			waitUntil(t, "the caller waits", func() bool { return p.waiting() == 1 })

			cancel()
			assert.ErrorIs(t, recv(t, errc, "the cancelled caller"), context.Canceled)
			assert.Zero(t, p.waiting(), "a caller that gave up still counts as waiting")

			l.open()
			require.NoError(t, p.releaseTimeout(long))
			assert.Zero(t, ran.Load(), "the task of a caller that gave up ran")
		})

		t.Run("a waiting caller gives up at its deadline", func(t *testing.T) {
			p := m.mustMake(t, 1)
			l := newGate(t)
			occupyAll(t, p, l)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
			defer cancel()
			var ran atomic.Int32
			errc := async(func() error { return p.submitCtx(ctx, func() { ran.Add(1) }) })
			assert.ErrorIs(t, recv(t, errc, "the caller to give up"), context.DeadlineExceeded)

			l.open()
			require.NoError(t, p.releaseTimeout(long))
			assert.Zero(t, ran.Load())
		})

		t.Run("a task accepted before its context is cancelled still runs", func(t *testing.T) {
			p := m.mustMake(t, 1)
			l := newGate(t)
			ctx, cancel := context.WithCancel(context.Background())
			started := make(chan struct{}, 1)
			var finished atomic.Int32
			held := l.task(started)
			require.NoError(t, p.submitCtx(ctx, func() { held(); finished.Add(1) }))
			recv(t, started, "the task")
			cancel()
			l.open()
			require.NoError(t, p.releaseTimeout(long))
			assert.Equal(t, int32(1), finished.Load())
		})

		t.Run("cancelling many waiting callers returns every one of them and runs none of their tasks", func(t *testing.T) {
			p := m.mustMake(t, 1)
			l := newGate(t)
			occupyAll(t, p, l)
			ctx, cancel := context.WithCancel(context.Background())
			const callers = 50
			var ran atomic.Int32
			errs := make(chan error, callers)
			for range callers {
				go func() { errs <- p.submitCtx(ctx, func() { ran.Add(1) }) }()
			}
			waitUntil(t, "every caller waits", func() bool { return p.waiting() == callers })

			cancel()
			for range callers {
				assert.ErrorIs(t, recv(t, errs, "a cancelled caller"), context.Canceled)
			}
			assert.Zero(t, p.waiting())

			l.open()
			require.NoError(t, p.releaseTimeout(long))
			assert.Zero(t, ran.Load(), "tasks of cancelled callers ran")
			s := p.stats()
			assert.Equal(t, uint64(p.capacity), s.Submitted)
			assert.Equal(t, uint64(p.capacity), s.Completed)
			assert.Equal(t, uint64(callers), s.Rejected)
		})

		t.Run("when some contexts are cancelled only the other callers are served, exactly once", func(t *testing.T) {
			p := m.mustMake(t, 1)
			l := newGate(t)
			occupyAll(t, p, l)
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
				errs[i] = async(func() error { return p.submitCtx(ctx, func() { ran[i].Add(1) }) })
			}
			waitUntil(t, "every caller waits", func() bool { return p.waiting() == callers })

			cancelDoomed()
			for i := 0; i < callers; i += 2 {
				assert.ErrorIs(t, recv(t, errs[i], "a cancelled caller"), context.Canceled)
			}
			assert.Equal(t, callers/2, p.waiting(), "callers with a live context stopped waiting")

			l.open()
			for i := 1; i < callers; i += 2 {
				assert.NoError(t, recv(t, errs[i], "a caller with a live context"))
			}
			require.NoError(t, p.releaseTimeout(long))
			for i := range callers {
				assert.Equal(t, int32(i%2), ran[i].Load(), "runs of the task of caller %d", i)
			}
			s := p.stats()
			assert.Equal(t, uint64(p.capacity+callers/2), s.Submitted)
			assert.Equal(t, s.Submitted, s.Completed)
			assert.Equal(t, uint64(callers/2), s.Rejected)
		})

		t.Run("a cancellation racing a free worker either runs the task once or returns the error", func(t *testing.T) {
			for range 20 {
				p := m.mustMake(t, 1)
				l := newGate(t)
				occupyAll(t, p, l)
				ctx, cancel := context.WithCancel(context.Background())
				const callers = 6
				var ran [callers]atomic.Int32
				errs := make([]<-chan error, callers)
				for i := range callers {
					errs[i] = async(func() error { return p.submitCtx(ctx, func() { ran[i].Add(1) }) })
				}
				waitUntil(t, "every caller waits", func() bool { return p.waiting() == callers })

				go cancel()
				l.open()
				results := make([]error, callers)
				for i := range callers {
					results[i] = recv(t, errs[i], "a caller")
				}
				require.NoError(t, p.releaseTimeout(long))
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
				s := p.stats()
				assert.Equal(t, uint64(p.capacity+accepted), s.Submitted)
				assert.Equal(t, s.Submitted, s.Completed)
				assert.Equal(t, uint64(callers-accepted), s.Rejected)
			}
		})
	})
}

func TestSubmitContextWithLimits(t *testing.T) {
	forEverySinglePool(t, func(t *testing.T, m poolMaker) {
		t.Run("a full Nonblocking pool refuses at once with ErrPoolOverload", func(t *testing.T) {
			p := m.mustMake(t, 1, ants.WithNonblocking(true))
			l := newGate(t)
			occupyAll(t, p, l)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			assert.ErrorIs(t, p.submitCtx(ctx, func() {}), ants.ErrPoolOverload)
			assert.Zero(t, p.waiting())
		})

		t.Run("a caller that gives up frees its place under MaxBlockingTasks", func(t *testing.T) {
			p := m.mustMake(t, 1, ants.WithMaxBlockingTasks(1))
			l := newGate(t)
			occupyAll(t, p, l)
			ctx, cancel := context.WithCancel(context.Background())
			errc := async(func() error { return p.submitCtx(ctx, func() {}) })
			waitUntil(t, "the caller waits", func() bool { return p.waiting() == 1 })
			assert.ErrorIs(t, p.submit(func() {}), ants.ErrPoolOverload)

			cancel()
			assert.ErrorIs(t, recv(t, errc, "the cancelled caller"), context.Canceled)
			done := make(chan struct{}, 1)
			errc = async(func() error { return p.submit(notify(done)) })
			waitUntil(t, "another caller waits in its place", func() bool { return p.waiting() == 1 })
			l.open()
			require.NoError(t, recv(t, errc, "the caller that took the place"))
			recv(t, done, "its task")
		})

		t.Run("Release returns ErrPoolClosed to a caller waiting with a context", func(t *testing.T) {
			p := m.mustMake(t, 1)
			l := newGate(t)
			occupyAll(t, p, l)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var ran atomic.Int32
			errc := async(func() error { return p.submitCtx(ctx, func() { ran.Add(1) }) })
			waitUntil(t, "the caller waits", func() bool { return p.waiting() == 1 })
			p.release()
			assert.ErrorIs(t, recv(t, errc, "the waiting caller"), ants.ErrPoolClosed)
			l.open()
			p.reboot() // to wait for the workers with releaseTimeout
			require.NoError(t, p.releaseTimeout(long))
			assert.Zero(t, ran.Load())
		})
	})
}

func TestTrySubmit(t *testing.T) {
	forEveryPool(t, func(t *testing.T, m poolMaker) {
		t.Run("a pool with a free worker takes the task", func(t *testing.T) {
			p := m.mustMake(t, 1)
			done := make(chan struct{}, 1)
			require.NoError(t, p.trySubmit(notify(done)))
			recv(t, done, "the task")
		})

		t.Run("a full pool refuses at once with ErrPoolOverload and the task never runs", func(t *testing.T) {
			p := m.mustMake(t, 1) // blocking: Submit would wait here
			l := newGate(t)
			occupyAll(t, p, l)
			var ran atomic.Int32
			assert.ErrorIs(t, p.trySubmit(func() { ran.Add(1) }), ants.ErrPoolOverload)
			assert.Zero(t, p.waiting())

			l.open()
			require.NoError(t, p.releaseTimeout(long))
			assert.Zero(t, ran.Load())
			assert.Equal(t, uint64(1), p.stats().Rejected)
		})

		t.Run("a released pool refuses with ErrPoolClosed", func(t *testing.T) {
			p := m.mustMake(t, 1)
			require.NoError(t, p.releaseTimeout(long))
			assert.ErrorIs(t, p.trySubmit(func() {}), ants.ErrPoolClosed)
			assert.ErrorIs(t, p.submitCtx(context.Background(), func() {}), ants.ErrPoolClosed)
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
	forEverySinglePool(t, func(t *testing.T, m poolMaker) {
		for _, cancelFirst := range []bool{true, false} {
			name := "the other waiter is served when the second waiter gives up"
			if cancelFirst {
				name = "the other waiter is served when the first waiter gives up"
			}
			t.Run(name, func(t *testing.T) {
				p := m.mustMake(t, 1)
				l := newGate(t)
				occupyAll(t, p, l)
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
					task := notify(served)
					if ctx == doomed {
						task = func() { doomedRan.Add(1) }
					}
					errs[i] = async(func() error { return p.submitCtx(ctx, task) })
					waitUntil(t, "the caller waits", func() bool { return p.waiting() == i+1 })
				}
				doomedErr, keptErr := errs[1], errs[0]
				if cancelFirst {
					doomedErr, keptErr = errs[0], errs[1]
				}

				cancel()
				assert.ErrorIs(t, recv(t, doomedErr, "the cancelled waiter"), context.Canceled)
				assert.Equal(t, 1, p.waiting())
				l.open()
				assert.NoError(t, recv(t, keptErr, "the other waiter to be served"))
				recv(t, served, "the other waiter's task")
				require.NoError(t, p.releaseTimeout(long))
				assert.Zero(t, doomedRan.Load())
			})
		}

		t.Run("every waiter left after a cancellation returns as soon as its task is taken", func(t *testing.T) {
			// A cancellation wakes every waiter. Those that stay must queue
			// again in the order they go back to sleep, or a worker's wake-up
			// goes to the wrong one and a caller whose task runs never
			// returns. Serving one task at a time, and waiting for its caller
			// before the next, catches that.
			p := m.mustMake(t, 1)
			l := newGate(t)
			occupyAll(t, p, l)
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
				errs[i] = async(func() error { return p.submitCtx(ctx, func() { started <- i; <-proceed }) })
				waitUntil(t, "the caller waits", func() bool { return p.waiting() == i+1 })
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
				p := m.mustMake(t, 1)
				l := newGate(t)
				occupyAll(t, p, l)
				ctxA, cancelA := context.WithCancel(context.Background())
				var ranA, ranB atomic.Int32
				errA := async(func() error { return p.submitCtx(ctxA, func() { ranA.Add(1) }) })
				waitUntil(t, "A waits", func() bool { return p.waiting() == 1 })
				errB := async(func() error { return p.submitCtx(context.Background(), func() { ranB.Add(1) }) })
				waitUntil(t, "B waits", func() bool { return p.waiting() == 2 })

				go cancelA()
				l.open()
				require.NoError(t, recv(t, errB, "B to be served"))
				a := recv(t, errA, "A to return")
				require.NoError(t, p.releaseTimeout(long))
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
	require.NoError(t, ants.SubmitContext(context.Background(), notify(done)))
	recv(t, done, "a task from SubmitContext")
	var nilCtx context.Context
	require.NoError(t, ants.SubmitContext(nilCtx, notify(done)))
	recv(t, done, "a task from SubmitContext with a nil context")
	require.NoError(t, ants.TrySubmit(notify(done)))
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
	require.NoError(t, ants.TrySubmit(notify(done)))
	recv(t, done, "a task after Reboot")
}
