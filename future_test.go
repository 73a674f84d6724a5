package ants_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// waitFuture returns a channel that delivers the error of f.Wait, and
// checks its value against want.
func waitFuture[T any](t *testing.T, f *ants.Future[T], want T) <-chan error {
	return async(func() error {
		v, err := f.Wait()
		assert.Equal(t, want, v)
		return err
	})
}

// counted returns an fn that counts its calls in ran and returns v.
func counted[T any](ran *atomic.Int32, v T) func() (T, error) {
	return func() (T, error) { ran.Add(1); return v, nil }
}

func TestFuture(t *testing.T) {
	forParents(t, testFuture)
}

func testFuture(t *testing.T, k poolKind) {
	t.Run("Wait returns the value and the error of fn", func(t *testing.T) {
		p := k.parent(t, 2)
		ok := ants.Go(context.Background(), p, func() (int, error) { return 42, nil })
		failed := ants.Go(context.Background(), p, func() (string, error) { return "partial", errTask })
		v, err := ok.Wait()
		assert.NoError(t, err)
		assert.Equal(t, 42, v)
		s, err := failed.Wait()
		assert.ErrorIs(t, err, errTask)
		assert.Equal(t, "partial", s, "a value returned with an error is kept")
	})

	t.Run("Wait and Done may be used many times from many goroutines", func(t *testing.T) {
		p := k.parent(t, 1)
		l := newGate(t)
		started := make(chan struct{}, 1)
		held := l.task(started)
		f := ants.Go(context.Background(), p, func() (int, error) { held(); return 7, nil })
		recv(t, started, "fn to start")
		assertNoRecv(t, f.Done(), "Done before fn returned")

		var waiters []<-chan error
		for range 8 {
			waiters = append(waiters, waitFuture(t, f, 7))
			waiters = append(waiters, async(func() error { <-f.Done(); return nil }))
		}
		assertNoRecv(t, waiters[0], "Wait before fn returned")
		l.open()
		for _, w := range waiters {
			assert.NoError(t, recv(t, w, "Wait or Done"))
		}
		recv(t, f.Done(), "Done after the future is done")
		v, err := f.Wait()
		assert.Equal(t, 7, v)
		assert.NoError(t, err)
	})

	t.Run("Done on a future already done is closed", func(t *testing.T) {
		p := k.parent(t, 1)
		f := ants.Go(context.Background(), p, func() (int, error) { return 1, nil })
		_, _ = f.Wait()
		recv(t, f.Done(), "Done")
		recv(t, f.Done(), "Done a second time")
	})

	t.Run("Go waits for the pool's capacity", func(t *testing.T) {
		p := k.parent(t, 1)
		l := newGate(t)
		occupyPool(t, p, l, p.Cap())
		var ran atomic.Int32
		futures := make(chan *ants.Future[int], 1)
		go func() { futures <- ants.Go(context.Background(), p, counted(&ran, 5)) }()
		waitWaiting(t, p, 1)
		assertNoRecv(t, futures, "Go returning while the pool is full")
		l.open()
		f := recv(t, futures, "Go")
		assert.NoError(t, recv(t, waitFuture(t, f, 5), "Wait"))
		assert.Equal(t, int32(1), ran.Load())
	})

	t.Run("a ctx done while Go waits makes the future done with its error and fn never runs", func(t *testing.T) {
		p := k.parent(t, 1)
		l := newGate(t)
		occupyPool(t, p, l, p.Cap())
		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Int32
		futures := make(chan *ants.Future[int], 1)
		go func() { futures <- ants.Go(ctx, p, counted(&ran, 5)) }()
		waitWaiting(t, p, 1)
		cancel()
		f := recv(t, futures, "Go to give up")
		recv(t, f.Done(), "the future to be done at once")
		assert.ErrorIs(t, recv(t, waitFuture(t, f, 0), "Wait"), context.Canceled)
		l.open()
		require.NoError(t, recv(t, waitFuture(t, ants.Go(context.Background(), p, counted(&ran, 1)), 1), "a later future"))
		assert.Equal(t, int32(1), ran.Load(), "only the later fn ran")
	})

	t.Run("a ctx already done makes the future done with its error and fn never runs", func(t *testing.T) {
		p := k.parent(t, 1)
		var ran atomic.Int32
		f := ants.Go(cancelledContext(), p, counted(&ran, 5))
		recv(t, f.Done(), "the future to be done at once")
		_, err := f.Wait()
		assert.ErrorIs(t, err, context.Canceled)
		assert.Zero(t, ran.Load())
	})

	t.Run("a task the pool refuses makes the future done with the pool's error and fn never runs", func(t *testing.T) {
		p := k.parent(t, 1)
		p.Release()
		var ran atomic.Int32
		f := ants.Go(context.Background(), p, counted(&ran, 5))
		recv(t, f.Done(), "the future to be done at once")
		_, err := f.Wait()
		assert.ErrorIs(t, err, ants.ErrPoolClosed)
		assert.Zero(t, ran.Load())
	})

	t.Run("a panic in fn becomes a *PanicError and the pool carries on", func(t *testing.T) {
		var handled atomic.Int32
		p := k.parent(t, 1, ants.WithPanicHandler(func(any) { handled.Add(1) }))
		f := ants.Go(context.Background(), p, func() (int, error) { panic("boom") })
		v, err := f.Wait()
		assert.Zero(t, v)
		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "boom", pe.Value)
		assert.Contains(t, string(pe.Stack), "future_test.go", "the stack must show where fn panicked")

		var ran atomic.Int32
		for range 2 * p.Cap() {
			assert.NoError(t, recv(t, waitFuture(t, ants.Go(context.Background(), p, counted(&ran, 3)), 3), "a later future"))
		}
		assert.Equal(t, int32(2*p.Cap()), ran.Load())
		assert.Zero(t, handled.Load(), "the pool's PanicHandler saw a future's panic")
	})

	t.Run("a nil fn gives ErrNilTask and a nil ctx is taken as Background", func(t *testing.T) {
		p := k.parent(t, 1)
		_, err := ants.Go[int](context.Background(), p, nil).Wait()
		assert.ErrorIs(t, err, ants.ErrNilTask)
		var nilCtx context.Context
		v, err := ants.Go(nilCtx, p, func() (int, error) { return 9, nil }).Wait()
		assert.NoError(t, err)
		assert.Equal(t, 9, v)
	})
}

func TestFutureRefusedByAFullNonblockingPool(t *testing.T) {
	forParentsWithOwnOptions(t, func(t *testing.T, k poolKind) {
		p := k.parent(t, 1, ants.WithNonblocking(true))
		l := newGate(t)
		occupyPool(t, p, l, p.Cap())
		var ran atomic.Int32
		f := ants.Go(context.Background(), p, counted(&ran, 5))
		recv(t, f.Done(), "the future to be done at once")
		_, err := f.Wait()
		assert.ErrorIs(t, err, ants.ErrPoolOverload)
		assert.Zero(t, ran.Load())
	})
}

func TestFutureSkipsFnWhenCtxEndsWhileBuffered(t *testing.T) {
	forParentsWithOwnOptions(t, func(t *testing.T, k poolKind) {
		p := k.parent(t, 1, ants.WithQueueSize(1))
		l := newGate(t)
		occupyPool(t, p, l, p.Cap())
		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Int32
		f := ants.Go(ctx, p, counted(&ran, 5)) // returns at once: buffered
		assertNoRecv(t, f.Done(), "the future of a buffered task to be done")
		cancel()
		l.open()
		_, err := f.Wait()
		assert.ErrorIs(t, err, context.Canceled)
		assert.Zero(t, ran.Load())
	})
}

// Hundreds of futures wait for a full pool; cancelling the context of half
// of them ends those at once, without running them, while the others run
// once the pool has room.
func TestFutureMassCancellation(t *testing.T) {
	forParents(t, func(t *testing.T, k poolKind) {
		const n = 200
		p := k.parent(t, 2)
		l := newGate(t)
		occupyPool(t, p, l, p.Cap())
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var cancelledRan, keptRan atomic.Int32
		cancelled := make(chan *ants.Future[int], n)
		kept := make(chan *ants.Future[int], n)
		for i := range 2 * n {
			go func() {
				if i%2 == 0 {
					cancelled <- ants.Go(ctx, p, counted(&cancelledRan, i))
				} else {
					kept <- ants.Go(context.Background(), p, counted(&keptRan, i))
				}
			}()
		}
		waitWaiting(t, p, 2*n)
		cancel()
		for range n {
			f := recv(t, cancelled, "a cancelled Go to return")
			recv(t, f.Done(), "a cancelled future to be done")
			_, err := f.Wait()
			assert.ErrorIs(t, err, context.Canceled)
		}
		waitWaiting(t, p, n)
		assert.Zero(t, keptRan.Load())

		l.open()
		var wg sync.WaitGroup
		for range n {
			f := recv(t, kept, "a kept Go to return")
			wg.Add(1)
			go func() {
				defer wg.Done()
				v, err := f.Wait()
				assert.NoError(t, err)
				assert.Equal(t, 1, v%2, "the future of an odd Go")
			}()
		}
		wg.Wait()
		assert.Equal(t, int32(n), keptRan.Load())
		assert.Zero(t, cancelledRan.Load(), "a cancelled future ran")
	})
}

func TestFutureWithAContextDoneBeforeGoIsNoRejectionOfThePool(t *testing.T) {
	forKinds(t, takesTasks, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1)
		_, err := ants.Go(cancelledContext(), p.submitter(), func() (int, error) {
			t.Error("fn ran with a done context")
			return 0, nil
		}).Wait()
		assert.ErrorIs(t, err, context.Canceled)
		for i, l := range p.levels() {
			assert.Zero(t, l.Stats().Rejected, "level %d below the future", i)
		}
	})
}
