package ants_test

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// The defects found when the wrappers were tried as a new user would, each
// as it was first seen. Run them many times, at several GOMAXPROCS:
//
//	GOMAXPROCS=1 go test -race -count=20 -run Reproducer .

// A task that calls runtime.Goexit (t.FailNow does) used to strand its
// key: the next task of the key, accepted with a nil error, never ran, and
// Wait never returned.
func TestReproducerKeyedGoexitDoesNotStrandItsKey(t *testing.T) {
	p := newGroupPool(t, 2)
	k := ants.NewKeyed[int](p)
	gate, ran := make(chan struct{}), make(chan struct{})
	require.NoError(t, k.Submit(1, func() { <-gate; runtime.Goexit() }))
	require.NoError(t, k.Submit(1, func() { close(ran) }))
	close(gate)
	recv(t, ran, "the task queued behind the one that called runtime.Goexit")

	err := recv(t, async(k.Wait), "Keyed.Wait")
	var pe *ants.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, pe.Error(), "runtime.Goexit")
	assert.Zero(t, k.Keys(), "the key is idle once its tasks ran")

	// The key takes tasks again, and so does the pool.
	again := make(chan struct{})
	require.NoError(t, k.Submit(1, func() { close(again) }))
	recv(t, again, "a task of the key after the Goexit")
	recv(t, async(k.Wait), "Keyed.Wait")
}

// A callback that called runtime.Goexit used to leave the stream draining
// for ever: Wait never returned, and no later callback ran.
func TestReproducerStreamCallbackGoexitDoesNotHangWait(t *testing.T) {
	p := newGroupPool(t, 2)
	s := ants.NewStream(p)
	var order []int
	s.Go(func() func() { return runtime.Goexit })
	for i := range 3 {
		s.Go(func() func() { return func() { order = append(order, i) } })
	}
	err := recv(t, async(s.Wait), "Stream.Wait")
	var pe *ants.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, pe.Error(), "runtime.Goexit")
	assert.Equal(t, []int{0, 1, 2}, order, "the callbacks after the one that called runtime.Goexit, in order")
}

// A NaN key was never dropped from Keyed's map (a map cannot find NaN
// again), and tasks under "the same" NaN key ran concurrently. All keys not
// equal to themselves are now one key.
func TestReproducerKeyedNaNKeysAreOneKeyAndForgotten(t *testing.T) {
	p := newGroupPool(t, 4)
	type point struct{ x, y float64 }
	keys := map[string]func(t *testing.T) int{
		"float64": func(t *testing.T) int { return nanLedger(t, ants.NewKeyed[float64](p), math.NaN()) },
		"float32": func(t *testing.T) int {
			return nanLedger(t, ants.NewKeyed[float32](p), float32(math.NaN()))
		},
		"struct": func(t *testing.T) int {
			return nanLedger(t, ants.NewKeyed[point](p), point{1, math.NaN()})
		},
		"array": func(t *testing.T) int {
			return nanLedger(t, ants.NewKeyed[[2]float64](p), [2]float64{math.NaN(), 2})
		},
		"interface": func(t *testing.T) int { return nanLedger(t, ants.NewKeyed[any](p), any(math.NaN())) },
		"complex": func(t *testing.T) int {
			return nanLedger(t, ants.NewKeyed[complex128](p), complex(0, math.NaN()))
		},
	}
	for name, run := range keys {
		t.Run(name, func(t *testing.T) { run(t) })
	}
}

// nanLedger submits tasks under nan, a key not equal to itself, and under
// an ordinary key beside it, and checks that the NaN tasks ran one at a
// time, in submit order, and that k forgets the key once they have run.
func nanLedger[K comparable](t *testing.T, k *ants.Keyed[K], nan K) int {
	const n = 2000
	var (
		mu      sync.Mutex
		order   []int
		running atomic.Int32
		overlap atomic.Bool
	)
	var zero K
	gate := make(chan struct{})
	require.NoError(t, k.Submit(nan, func() { <-gate }))
	require.NoError(t, k.Submit(nan, func() {})) // queued behind it: the same key
	assert.Equal(t, 1, k.Keys(), "one NaN key is busy")
	close(gate)
	for i := range n {
		require.NoError(t, k.Submit(nan, func() {
			if running.Add(1) != 1 {
				overlap.Store(true)
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			running.Add(-1)
		}))
		require.NoError(t, k.Submit(zero, func() {}))
	}
	recv(t, async(k.Wait), "Keyed.Wait")
	assert.False(t, overlap.Load(), "two tasks of the NaN key ran at the same time")
	require.Len(t, order, n, "every task of the NaN key ran once")
	for i, v := range order {
		if v != i {
			t.Fatalf("the NaN key's tasks ran out of order: %d at %d", v, i)
		}
	}
	assert.Zero(t, k.Keys(), "the NaN key is forgotten once idle")
	return len(order)
}

// An unhashable key (a slice in a Keyed[any]) used to panic with the
// Keyed's mutex held, so that every later call hung.
func TestReproducerKeyedUnhashableKeyPanicsAndLeavesItUsable(t *testing.T) {
	p := newGroupPool(t, 2)
	k := ants.NewKeyed[any](p)
	type holder struct{ v any }
	for _, key := range []any{[]int{1}, map[string]int{}, holder{[]int{1}}, func() {}} {
		assert.PanicsWithError(t, "runtime error: comparing uncomparable type "+uncomparableName(key),
			func() { _ = k.Submit(key, func() { t.Error("the task of an unhashable key ran") }) })
	}
	ran := make(chan struct{})
	require.NoError(t, k.Submit("ok", func() { close(ran) }))
	recv(t, ran, "a task after the panics")
	require.NoError(t, recv(t, async(k.Wait), "Keyed.Wait"), "nothing is counted for the refused keys")
	assert.Zero(t, k.Keys())
}

// uncomparableName is the type the runtime names when key == key panics.
func uncomparableName(key any) string {
	switch key.(type) {
	case []int:
		return "[]int"
	case map[string]int:
		return "map[string]int"
	case func():
		return "func()"
	}
	return "[]int" // the slice inside the holder
}

// An OnChange that panicked once was never called again (its guard stayed
// locked), and the panic, raised on a worker, was charged to the task that
// had just finished.
func TestReproducerOnChangePanicIsLoggedAndLaterChangesDelivered(t *testing.T) {
	var (
		mu    sync.Mutex
		calls [][2]int
	)
	logs := make(chan string, 16)
	var handled atomic.Int32
	p, err := ants.NewPool(4,
		ants.WithLogger(testLogger{logs}),
		ants.WithPanicHandler(func(any) { handled.Add(1) }),
		ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 1, Max: 64, OnChange: func(old, new int) {
			mu.Lock()
			calls = append(calls, [2]int{old, new})
			first := len(calls) == 1
			mu.Unlock()
			if first {
				panic("OnChange boom")
			}
		}}))
	require.NoError(t, err)
	defer p.Release()

	p.Tune(8) // the first call panics; the caller of Tune does not see it
	msg := recv(t, logs, "the log line of OnChange's panic")
	assert.Contains(t, msg, "AdaptiveCapacity.OnChange(4, 8) panicked: OnChange boom")
	p.Tune(16)
	p.Tune(2)
	mu.Lock()
	assert.Equal(t, [][2]int{{4, 8}, {8, 16}, {16, 2}}, calls, "every change, in order, after the panic")
	mu.Unlock()
	assert.Equal(t, 2, p.Cap(), "the changes stand")
	s := p.Stats()
	assert.Zero(t, s.Panicked, "no task panicked")
	assert.Zero(t, handled.Load(), "the PanicHandler is for tasks")
}

// A Goexit in OnChange ends its goroutine, but not the delivery of the
// changes after it.
func TestReproducerOnChangeGoexitReleasesItsGuard(t *testing.T) {
	var calls atomic.Int32
	p, err := ants.NewPool(4, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 1, Max: 64,
		OnChange: func(old, new int) {
			if calls.Add(1) == 1 {
				runtime.Goexit()
			}
		}}))
	require.NoError(t, err)
	defer p.Release()
	done := make(chan struct{})
	go func() { defer close(done); p.Tune(8) }()
	recv(t, done, "the goroutine of the Tune whose OnChange called runtime.Goexit to end")
	p.Tune(16)
	assert.Equal(t, int32(2), calls.Load(), "the change after the Goexit is delivered")
}

// NewMultiPool(math.MaxInt, ...) used to panic in makeslice, and
// NewMultiPool(1<<40, ...) to kill the process out of memory.
func TestReproducerMultiPoolHugeSizeIsAnError(t *testing.T) {
	for _, size := range []int{math.MaxInt, 1 << 40, math.MaxInt32 + 1, 1<<16 + 1} {
		_, err := ants.NewMultiPool(size, 1, ants.RoundRobin)
		assert.ErrorIs(t, err, ants.ErrInvalidMultiPoolSize, "NewMultiPool(%d)", size)
		_, err = ants.NewMultiPoolWithFunc(size, 1, func(any) {}, ants.LeastTasks)
		assert.ErrorIs(t, err, ants.ErrInvalidMultiPoolSize, "NewMultiPoolWithFunc(%d)", size)
		_, err = ants.NewMultiPoolWithFuncGeneric(size, 1, func(int) {}, ants.RoundRobin)
		assert.ErrorIs(t, err, ants.ErrInvalidMultiPoolSize, "NewMultiPoolWithFuncGeneric(%d)", size)
	}
}

// A typed nil Submitter passed the nil check and panicked later, with a nil
// dereference inside Go or Submit.
func TestReproducerTypedNilSubmitterIsRefusedAtOnce(t *testing.T) {
	nils := map[string]ants.Submitter{
		"(*Pool)(nil)":      (*ants.Pool)(nil),
		"(*MultiPool)(nil)": (*ants.MultiPool)(nil),
		"(*Subpool)(nil)":   (*ants.Subpool)(nil),
		"&Pool{}":           &ants.Pool{},
		"&MultiPool{}":      &ants.MultiPool{},
		"&Subpool{}":        &ants.Subpool{},
	}
	for name, s := range nils {
		t.Run(name, func(t *testing.T) {
			for what, build := range map[string]func(){
				"NewGroup":              func() { ants.NewGroup(s) },
				"NewGroupContext":       func() { ants.NewGroupContext(context.Background(), s) },
				"NewResultGroup":        func() { ants.NewResultGroup[int](s) },
				"NewResultGroupContext": func() { ants.NewResultGroupContext[int](context.Background(), s) },
				"NewKeyed":              func() { ants.NewKeyed[int](s) },
				"NewStream":             func() { ants.NewStream(s) },
				"NewSubpool":            func() { ants.NewSubpool(s, 1) },
				"Go": func() {
					ants.Go(context.Background(), s, func() (int, error) { return 0, nil })
				},
			} {
				assert.PanicsWithValue(t, "ants: nil Submitter", build, what)
			}
		})
	}
	// A nil pointer of the user's own type may have working methods.
	own := (*nilSubmitter)(nil)
	_, err := ants.Go(context.Background(), own, func() (int, error) { return 1, nil }).Wait()
	assert.NoError(t, err, "a nil *nilSubmitter works")
}

// nilSubmitter runs each task at once, on the caller's goroutine, even on
// a nil receiver.
type nilSubmitter struct{}

func (*nilSubmitter) SubmitContext(_ context.Context, task func()) error {
	task()
	return nil
}
