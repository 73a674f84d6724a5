package ants_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// TestShutdownRecipe runs the README's shutdown recipe as written: the
// pool is released by a context.AfterFunc when the service's context ends,
// and the deferred shutdown releases it (a no-op) and waits for it with
// WaitReleased. Once that returns nil, every accepted task has run.
func TestShutdownRecipe(t *testing.T) {
	for _, kind := range []struct {
		name string
		make func() (ants.Submitter, func(), func(context.Context) error, func(time.Duration) error)
	}{
		{"Pool", func() (ants.Submitter, func(), func(context.Context) error, func(time.Duration) error) {
			p, _ := ants.NewPool(2, ants.WithQueueSize(8))
			return p, p.Release, p.WaitReleased, p.ReleaseTimeout
		}},
		{"MultiPool", func() (ants.Submitter, func(), func(context.Context) error, func(time.Duration) error) {
			p, _ := ants.NewMultiPool(2, 1, ants.RoundRobin, ants.WithQueueSize(4))
			return p, p.Release, p.WaitReleased, p.ReleaseTimeout
		}},
	} {
		t.Run(kind.name, func(t *testing.T) {
			p, release, waitReleased, releaseTimeout := kind.make()
			ctx, stopService := context.WithCancel(context.Background())
			stop := context.AfterFunc(ctx, release) // released when ctx ends
			defer stop()

			gate := make(chan struct{})
			var mu sync.Mutex
			ran := map[int]bool{}
			for id := 0; id < 6; id++ {
				require.NoError(t, p.SubmitContext(context.Background(), func() {
					<-gate
					mu.Lock()
					ran[id] = true
					mu.Unlock()
				}))
			}
			stopService()
			waitUntil(t, "the context to release the pool", func() bool {
				return p.(interface{ IsClosed() bool }).IsClosed()
			})
			// What the recipe replaces: a release of a released pool
			// returns ErrPoolClosed at once, as in ants, and waits for
			// nothing.
			assert.ErrorIs(t, releaseTimeout(10*time.Second), ants.ErrPoolClosed)

			done := make(chan error, 1)
			go func() {
				release() // a no-op: the context released it first
				shutdown, cancel := context.WithTimeout(context.Background(), long)
				defer cancel()
				done <- waitReleased(shutdown)
			}()
			assertNoRecv(t, done, "WaitReleased before the tasks ran")
			close(gate)
			require.NoError(t, recv(t, done, "WaitReleased"))
			mu.Lock()
			defer mu.Unlock()
			assert.Len(t, ran, 6, "every accepted task ran before WaitReleased returned")
		})
	}
}

func TestWaitReleased(t *testing.T) {
	t.Run("on an open pool it waits for a release", func(t *testing.T) {
		p, err := ants.NewPool(1)
		require.NoError(t, err)
		errc := async(func() error { return p.WaitReleased(context.Background()) })
		assertNoRecv(t, errc, "WaitReleased on an open pool")
		p.Release()
		require.NoError(t, recv(t, errc, "WaitReleased after Release"))
	})
	t.Run("a context that ends first", func(t *testing.T) {
		p, err := ants.NewPool(1)
		require.NoError(t, err)
		defer p.Release()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		assert.ErrorIs(t, p.WaitReleased(ctx), context.Canceled)
		g := newGate(t)
		occupyWith(t, p.Submit, g, 1)
		p.Release()
		ctx, cancel = context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		assert.ErrorIs(t, p.WaitReleased(ctx), context.DeadlineExceeded, "a task still runs")
		g.open()
		//lint:ignore SA1012 a nil ctx waits as long as it takes, as documented
		require.NoError(t, p.WaitReleased(nil))
	})
	t.Run("after a Reboot it waits for the next release", func(t *testing.T) {
		p, err := ants.NewPool(1)
		require.NoError(t, err)
		p.Release()
		require.NoError(t, p.WaitReleased(context.Background()))
		p.Reboot()
		errc := async(func() error { return p.WaitReleased(context.Background()) })
		assertNoRecv(t, errc, "WaitReleased on a rebooted pool")
		p.Release()
		require.NoError(t, recv(t, errc, "WaitReleased"))
	})
	t.Run("Subpool and WorkerPool", func(t *testing.T) {
		parent, err := ants.NewPool(2)
		require.NoError(t, err)
		defer parent.Release()
		s := ants.NewSubpool(parent, 1)
		g := newGate(t)
		require.NoError(t, s.Submit(func() { <-g.ch }))
		s.Release()
		errc := async(func() error { return s.WaitReleased(context.Background()) })
		assertNoRecv(t, errc, "the sub-pool's task still runs")
		g.open()
		require.NoError(t, recv(t, errc, "Subpool.WaitReleased"))

		wp, err := ants.NewWorkerPool(1, func(int) ants.Worker[int, int] { return chanWorker{g} })
		require.NoError(t, err)
		wp.Release()
		require.NoError(t, wp.WaitReleased(context.Background()))
	})
}
