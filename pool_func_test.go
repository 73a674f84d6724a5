package ants_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

func TestPoolWithFuncRequiresAFunction(t *testing.T) {
	p, err := ants.NewPoolWithFunc(1, nil)
	assert.ErrorIs(t, err, ants.ErrLackPoolFunc)
	assert.Nil(t, p)

	g, err := ants.NewPoolWithFuncGeneric[int](1, nil)
	assert.ErrorIs(t, err, ants.ErrLackPoolFunc)
	assert.Nil(t, g)
}

func TestPoolWithFuncInvoke(t *testing.T) {
	t.Run("Invoke(nil) calls the function with nil", func(t *testing.T) {
		args := make(chan any, 1)
		p, err := ants.NewPoolWithFunc(1, func(arg any) { args <- arg })
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, p.ReleaseTimeout(long)) })

		require.NoError(t, p.Invoke(nil))
		assert.Nil(t, recv(t, args, "the function to be called with nil"))
		require.NoError(t, p.Invoke("after nil"))
		assert.Equal(t, "after nil", recv(t, args, "the function to be called after a nil argument"))
		assert.Equal(t, 1, p.Running(), "a nil argument must not cost a worker")
	})
	t.Run("each argument reaches the function once", func(t *testing.T) {
		var mu sync.Mutex
		seen := make(map[int]int)
		var wg sync.WaitGroup
		p, err := ants.NewPoolWithFuncGeneric(4, func(n int) {
			mu.Lock()
			seen[n]++
			mu.Unlock()
			wg.Done()
		})
		require.NoError(t, err)
		t.Cleanup(func() { assert.NoError(t, p.ReleaseTimeout(long)) })

		const n = 100
		wg.Add(n)
		for i := 0; i < n; i++ {
			require.NoError(t, p.Invoke(i))
		}
		wg.Wait()
		assert.Len(t, seen, n)
		for i := 0; i < n; i++ {
			assert.Equal(t, 1, seen[i], "argument %d", i)
		}
		assert.LessOrEqual(t, p.Running(), 4)
	})
	t.Run("Invoke on a released pool returns ErrPoolClosed and calls nothing", func(t *testing.T) {
		called := make(chan any, 1)
		p, err := ants.NewPoolWithFunc(1, func(arg any) { called <- arg })
		require.NoError(t, err)
		p.Release()
		assert.ErrorIs(t, p.Invoke(nil), ants.ErrPoolClosed)
		assert.ErrorIs(t, p.Invoke(1), ants.ErrPoolClosed)
		// Once no goroutine of the pool is left, none can call it later.
		p.Reboot()
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Empty(t, called, "a call on a released pool")
	})
}
