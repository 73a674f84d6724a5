package ants_test

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// The pool kinds are handles, as in ants: one pointer inside, so that a
// copy of a pool value is the same pool. These tests copy the pool of every
// kind that is a handle (testPool.copied) and use the copy.

// isHandle is the set of kinds whose pool value is a handle: all but the
// sub-pools, which must not be copied.
func isHandle(k poolKind) bool { return k.family != sub }

// TestCopiedHandleIsThePool uses a copy made before the first task, as
// `&taskPool{Pool: *pool}` right after NewPool does: what is done through
// the copy is seen through the original, and the other way round.
func TestCopiedHandleIsThePool(t *testing.T) {
	forKinds(t, isHandle, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 2)
		c := p.copied()

		g := newGate(t)
		occupy(t, c, g, 1)
		assert.Equal(t, 1, p.Running(), "a task submitted through the copy, seen through the original")
		assert.Equal(t, p.Stats(), c.Stats())

		c.Tune(5)
		assert.Equal(t, 5*p.members, p.Cap(), "Tune through the copy, seen through the original")
		p.Tune(3)
		assert.Equal(t, 3*c.members, c.Cap(), "Tune through the original, seen through the copy")

		g.open()
		require.NoError(t, c.ReleaseTimeout(long))
		assert.True(t, p.IsClosed(), "ReleaseTimeout through the copy closes the original")
		assert.Equal(t, 0, p.Running())
		require.ErrorIs(t, p.submit(func() {}), ants.ErrPoolClosed)

		p.Reboot()
		assert.False(t, c.IsClosed(), "Reboot through the original reopens the copy")
		done := make(chan struct{})
		require.NoError(t, c.submit(func() { close(done) }))
		recv(t, done, "a task submitted through the copy after Reboot")
	})
}

// serviceCopy is a service that holds its pool by value, as code built on
// ants does with `type taskPool struct{ ants.Pool }`.
type serviceCopy struct {
	ants.Pool
}

// TestEmbeddedCopyServesBlockingSubmitters is the service above at
// capacity 2 with 8 submitters that block on the copy: every task runs.
// With a pool that held its lock and sync.Cond by value, the copy's Cond
// pointed at the original's lock and the submitters livelocked, so a
// watchdog fails the test instead of hanging the suite.
func TestEmbeddedCopyServesBlockingSubmitters(t *testing.T) {
	pool, err := ants.NewPool(2)
	require.NoError(t, err)
	defer func() { assert.NoError(t, pool.ReleaseTimeout(long)) }()
	svc := &serviceCopy{Pool: *pool}

	const submitters, perSubmitter = 8, 125
	var ran atomic.Int64
	var wg sync.WaitGroup
	wg.Add(submitters)
	for i := 0; i < submitters; i++ {
		go func() {
			defer wg.Done()
			for j := 0; j < perSubmitter; j++ {
				if err := svc.Submit(func() { ran.Add(1) }); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(long):
		t.Fatalf("submitters through the embedded copy still blocked after %v: %d tasks ran", long, ran.Load())
	}
	require.Eventually(t, func() bool { return ran.Load() == submitters*perSubmitter },
		long, time.Millisecond, "every accepted task runs")
	assert.Equal(t, 0, svc.Waiting())
}

// TestCopiesBlockOnOneLock blocks callers on the original and on a copy of
// the handle of every kind: they wait in one line, and freeing the pool
// through either lets all of them in.
func TestCopiesBlockOnOneLock(t *testing.T) {
	forKinds(t, isHandle, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1)
		c := p.copied()
		g := newGate(t)
		occupy(t, p, g, p.Cap())

		var ran atomic.Int32
		task := func() { ran.Add(1) }
		errs := []<-chan error{submitAsync(p.submit, task)}
		waitWaiting(t, p, 1)
		errs = append(errs, submitAsync(c.submit, task))
		waitWaiting(t, p, 2)
		assert.Equal(t, 2, c.Waiting(), "callers blocked through either handle, seen through the copy")

		g.open()
		for _, e := range errs {
			require.NoError(t, recv(t, e, "a blocked submit to return"))
		}
		require.Eventually(t, func() bool { return ran.Load() == 2 }, long, time.Millisecond)
	})
}

// TestPoolIsComparable: a Pool compares, as ants' does, and two handles of
// one pool are equal while handles of two pools are not.
func TestPoolIsComparable(t *testing.T) {
	assert.True(t, reflect.TypeOf(ants.Pool{}).Comparable(), "ants.Pool is comparable")

	p1, err := ants.NewPool(1)
	require.NoError(t, err)
	defer p1.Release()
	p2, err := ants.NewPool(1)
	require.NoError(t, err)
	defer p2.Release()

	a, b := *p1, *p1
	assert.True(t, a == b, "two copies of one pool's handle")
	assert.False(t, a == *p2, "handles of two pools")
	assert.Equal(t, 1, map[ants.Pool]int{a: 1}[b], "a handle as a map key finds its pool")
}

// TestPoolTypeNames: %T names each kind as ants does: PoolWithFunc and
// MultiPoolWithFunc are types of their own, not the generic ones of any.
func TestPoolTypeNames(t *testing.T) {
	want := map[string]string{
		"Pool":                     "*ants.Pool",
		"PoolWithFunc":             "*ants.PoolWithFunc",
		"PoolWithFuncGeneric":      "*ants.PoolWithFuncGeneric[int]",
		"MultiPool":                "*ants.MultiPool",
		"MultiPoolWithFunc":        "*ants.MultiPoolWithFunc",
		"MultiPoolWithFuncGeneric": "*ants.MultiPoolWithFuncGeneric[int]",
		"Subpool":                  "*ants.Subpool",
	}
	forEveryKind(t, func(t *testing.T, k poolKind) {
		name := k.name
		if i := strings.IndexByte(name, ' '); i >= 0 {
			name = name[:i] // "Subpool nested on MultiPool"
		}
		require.Contains(t, want, name)
		p := k.mustNew(t, 1)
		assert.Equal(t, want[name], fmt.Sprintf("%T", p.poolAPI))
		if p.copied != nil {
			assert.Equal(t, want[name], fmt.Sprintf("%T", p.copied().poolAPI), "a copy's type")
		}
	})

	pf, err := ants.NewPoolWithFunc(1, func(any) {})
	require.NoError(t, err)
	defer pf.Release()
	mpf, err := ants.NewMultiPoolWithFunc(1, 1, func(any) {}, ants.RoundRobin)
	require.NoError(t, err)
	defer mpf.Release()
	for _, v := range []any{pf, mpf} {
		switch v.(type) {
		case *ants.PoolWithFuncGeneric[any], *ants.MultiPoolWithFuncGeneric[any]:
			t.Errorf("%T matched the generic type of any in a type switch", v)
		case *ants.PoolWithFunc, *ants.MultiPoolWithFunc:
		default:
			t.Errorf("%T matched no case", v)
		}
	}
}
