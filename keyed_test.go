package ants_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// waitKeyed returns a channel that delivers the result of k.Wait.
func waitKeyed[K comparable](k *ants.Keyed[K]) <-chan error { return async(k.Wait) }

// holdKey submits a task for key that waits for l, and waits until it runs.
func holdKey[K comparable](t *testing.T, k *ants.Keyed[K], key K, l *gate) {
	t.Helper()
	started := make(chan struct{}, 1)
	require.NoError(t, k.Submit(key, l.task(started)))
	recv(t, started, "the key's first task to start")
}

func TestKeyed(t *testing.T) {
	forParents(t, testKeyed)
}

func testKeyed(t *testing.T, kind poolKind) {
	t.Run("the tasks of a key run one at a time, in the order of Submit", func(t *testing.T) {
		p := kind.parent(t, 4)
		k := ants.NewKeyed[string](p)
		log := newOrderLog(t)
		for i := range 1000 {
			require.NoError(t, k.Submit("a", log.put(i)))
		}
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
		assert.Equal(t, upTo(1000), log.got)
		assert.Zero(t, k.Keys())
	})

	t.Run("tasks of different keys run at the same time", func(t *testing.T) {
		p := kind.parent(t, 2)
		k := ants.NewKeyed[int](p)
		bStarted := make(chan struct{})
		aSawB := make(chan struct{}, 1)
		require.NoError(t, k.Submit(1, func() {
			<-bStarted // only if key 2 runs while key 1 does
			aSawB <- struct{}{}
		}))
		require.NoError(t, k.Submit(2, func() { close(bStarted) }))
		recv(t, aSawB, "key 1's task to see key 2's task run")
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
	})

	t.Run("a busy key holds one worker and queues without waiting", func(t *testing.T) {
		p := kind.parent(t, 2)
		r := &refusing{Submitter: p}
		k := ants.NewKeyed[string](r)
		l := newGate(t)
		holdKey(t, k, "a", l)
		log := newOrderLog(t)
		for i := range 100 {
			assert.NoError(t, submitNow(t, func(task func()) error { return k.Submit("a", task) }, log.put(i)))
		}
		assert.Equal(t, 1, k.Keys())
		// Another key still gets a worker.
		done := make(chan struct{}, 1)
		require.NoError(t, k.Submit("b", signal(done)))
		recv(t, done, "key b's task")
		l.open()
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
		assert.Equal(t, upTo(100), log.got)
		assert.Equal(t, int32(2), r.calls.Load(), "one submission per busy stretch of a key")
		assert.LessOrEqual(t, r.maxRun.Load(), int32(2))
	})

	t.Run("Submit for an idle key waits for the pool, and later Submits of the key wait with it", func(t *testing.T) {
		p := kind.parent(t, 1)
		k := ants.NewKeyed[string](p)
		l := newGate(t)
		occupyPool(t, p, l, p.Cap())
		log := newOrderLog(t)
		first := blocked(t, p, 1, func() error { return k.Submit("a", log.put(0)) })
		second := async(func() error { return k.Submit("a", log.put(1)) })
		assertNoRecv(t, first, "Submit returning while the pool is full")
		assertNoRecv(t, second, "a second Submit of a starting key returning")
		assert.Equal(t, 1, k.Keys(), "a key waiting for the pool counts")
		l.open()
		require.NoError(t, recv(t, first, "the first Submit"))
		require.NoError(t, recv(t, second, "the second Submit"))
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
		assert.Equal(t, []int{0, 1}, log.got)
	})

	t.Run("an idle key's Submit refused by the pool returns its error and the task never runs", func(t *testing.T) {
		p := kind.parent(t, 1)
		k := ants.NewKeyed[string](p)
		l := newGate(t)
		occupyPool(t, p, l, p.Cap())
		var ran atomic.Int32
		ctx, cancel := context.WithCancel(context.Background())
		byCtx := blocked(t, p, 1, func() error { return k.SubmitContext(ctx, "a", func() { ran.Add(1) }) })
		behind := async(func() error { return k.Submit("a", func() { ran.Add(1) }) })
		assertNoRecv(t, behind, "a Submit of a key whose first task waits for the pool returning")
		cancel()
		assert.ErrorIs(t, recv(t, byCtx, "SubmitContext to give up"), context.Canceled)
		// The Submit that waited behind it now starts the key itself.
		waitWaiting(t, p, 1)
		p.Release()
		assert.ErrorIs(t, recv(t, behind, "Submit on a released pool"), ants.ErrPoolClosed)
		assert.ErrorIs(t, k.Submit("b", func() { ran.Add(1) }), ants.ErrPoolClosed)
		l.open()
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
		assert.Zero(t, ran.Load())
		assert.Zero(t, k.Keys())
	})

	t.Run("a Submit that returned nil runs its task even if the pool is released meanwhile", func(t *testing.T) {
		p := kind.parent(t, 2)
		k := ants.NewKeyed[string](p)
		l := newGate(t)
		holdKey(t, k, "a", l)
		log := newOrderLog(t)
		for i := range 50 {
			require.NoError(t, k.Submit("a", log.put(i)))
		}
		assert.ErrorIs(t, k.SubmitContext(cancelledContext(), "a", log.put(-1)), context.Canceled,
			"a ctx already done, even for a busy key with room")
		p.Release()
		for i := 50; i < 100; i++ {
			require.NoError(t, k.Submit("a", log.put(i)), "a busy key queues on a released pool")
		}
		assert.ErrorIs(t, k.Submit("b", func() {}), ants.ErrPoolClosed, "an idle key needs the pool")
		l.open()
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
		assert.Equal(t, upTo(100), log.got)
		assert.Zero(t, k.Keys())
	})

	t.Run("a panic does not stop the key's later tasks and Wait returns the first", func(t *testing.T) {
		var handled atomic.Int32
		p := kind.parent(t, 2, ants.WithPanicHandler(func(any) { handled.Add(1) }))
		k := ants.NewKeyed[string](p)
		log := newOrderLog(t)
		require.NoError(t, k.Submit("a", func() { panic("first") }))
		require.NoError(t, k.Submit("a", log.put(1)))
		require.NoError(t, k.Submit("a", func() { panic("second") }))
		require.NoError(t, k.Submit("a", log.put(3)))
		err := recv(t, waitKeyed(k), "Wait")
		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "first", pe.Value)
		assert.Contains(t, string(pe.Stack), "keyed_test.go")
		assert.Equal(t, []int{1, 3}, log.got)
		assert.Zero(t, handled.Load(), "the pool's PanicHandler saw a keyed task's panic")
		assert.Zero(t, k.Keys())
	})

	t.Run("Wait waits for the queued tasks", func(t *testing.T) {
		p := kind.parent(t, 2)
		k := ants.NewKeyed[string](p)
		require.NoError(t, recv(t, waitKeyed(k), "Wait with nothing submitted"))
		l := newGate(t)
		holdKey(t, k, "a", l)
		var ran atomic.Int32
		require.NoError(t, k.Submit("a", func() { ran.Add(1) }))
		wait := asyncChecked(k.Wait, func() {
			assert.Equal(t, int32(1), ran.Load(), "Wait returned before the queued task ran")
		})
		assertNoRecv(t, wait, "Wait returning while a task is queued")
		l.open()
		require.NoError(t, recv(t, wait, "Wait"))
	})

	t.Run("a nil task gives ErrNilTask and a nil ctx is taken as Background", func(t *testing.T) {
		p := kind.parent(t, 1)
		k := ants.NewKeyed[string](p)
		assert.ErrorIs(t, k.Submit("a", nil), ants.ErrNilTask)
		assert.Zero(t, k.Keys())
		done := make(chan struct{}, 1)
		var nilCtx context.Context
		require.NoError(t, k.SubmitContext(nilCtx, "a", signal(done)))
		recv(t, done, "the task")
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
	})

	t.Run("every key is dropped once idle", func(t *testing.T) {
		const keys = 20000
		p := kind.parent(t, 4)
		k := ants.NewKeyed[int](p)
		var ran atomic.Int32
		l := newGate(t)
		holdKey(t, k, -1, l)
		holdKey(t, k, -2, l)
		assert.Equal(t, 2, k.Keys())
		for i := range keys {
			require.NoError(t, k.Submit(i, func() { ran.Add(1) }))
		}
		l.open()
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
		assert.Equal(t, int32(keys), ran.Load())
		assert.Zero(t, k.Keys())
	})
}

// A key whose queue is full makes Submit wait until its runner takes a task,
// and SubmitContext give up when its ctx is done; a busy key's full queue
// does not hold back other keys.
func TestKeyedQueueBound(t *testing.T) {
	forParents(t, func(t *testing.T, kind poolKind) {
		p := kind.parent(t, 2)
		k := ants.NewKeyed[string](p)
		l := newGate(t)
		holdKey(t, k, "a", l)
		log := newOrderLog(t)
		for i := range ants.KeyedQueueLimit {
			require.NoError(t, k.Submit("a", log.put(i)))
		}
		ctx, cancel := context.WithCancel(context.Background())
		var abandonedRan atomic.Int32
		abandoned := async(func() error { return k.SubmitContext(ctx, "a", func() { abandonedRan.Add(1) }) })
		blocked := async(func() error { return k.Submit("a", log.put(ants.KeyedQueueLimit)) })
		assertNoRecv(t, blocked, "Submit returning with the key's queue full")
		assertNoRecv(t, abandoned, "SubmitContext returning with the key's queue full")

		done := make(chan struct{}, 1)
		require.NoError(t, k.Submit("b", signal(done)), "another key")
		recv(t, done, "another key's task")

		cancel()
		assert.ErrorIs(t, recv(t, abandoned, "SubmitContext to give up"), context.Canceled)
		assert.ErrorIs(t, k.SubmitContext(cancelledContext(), "a", func() { abandonedRan.Add(1) }), context.Canceled,
			"a ctx already done with the key's queue full")
		l.open()
		require.NoError(t, recv(t, blocked, "Submit once the queue has room"))
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
		assert.Equal(t, upTo(ants.KeyedQueueLimit+1), log.got)
		assert.Zero(t, abandonedRan.Load())
		assert.Zero(t, k.Keys())
	})
}

// Many goroutines submit to a few shared keys and many keys of their own:
// the tasks of each key run one at a time, each submitter's tasks of a key
// in the order it submitted them, and every task exactly once.
func TestKeyedManySubmitters(t *testing.T) {
	forParents(t, func(t *testing.T, kind poolKind) {
		const (
			submitters = 8
			per        = 500
			shared     = 16
		)
		p := kind.parent(t, 4)
		r := &refusing{Submitter: p}
		k := ants.NewKeyed[string](r)
		var logs sync.Map // key -> *orderLog
		logOf := func(key string) *orderLog {
			l, _ := logs.LoadOrStore(key, newOrderLog(t))
			return l.(*orderLog)
		}
		fromSources(submitters, per, func(g, i int) {
			key := fmt.Sprintf("shared-%d", i%shared)
			if i%2 == 1 {
				key = fmt.Sprintf("own-%d-%d", g, i%7)
			}
			if err := k.Submit(key, logOf(key).put(g*per+i)); err != nil {
				t.Error(err)
			}
		})
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
		assert.Zero(t, k.Keys())
		assert.LessOrEqual(t, int(r.maxRun.Load()), p.Cap())

		total := 0
		logs.Range(func(key, l any) bool {
			for _, n := range assertOrderPerSource(t, l.(*orderLog).got, per, submitters) {
				total += n
			}
			return true
		})
		assert.Equal(t, submitters*per, total, "every task exactly once")
	})
}

// Thousands of keys busy at once (their runners waiting in the pool's task
// buffer) leave nothing but a bounded number of reusable key states once
// they are idle: the map that held them is replaced.
func TestKeyedManyBusyKeysCostNothingOnceIdle(t *testing.T) {
	forParentsWithOwnOptions(t, func(t *testing.T, kind poolKind) {
		const keys = 3000
		p := kind.parent(t, 1, ants.WithQueueSize(keys))
		l := newGate(t)
		occupyPool(t, p, l, p.Cap())
		k := ants.NewKeyed[int](p)
		var log [keys]*orderLog
		for i := range keys {
			log[i] = newOrderLog(t)
			require.NoError(t, submitNow(t, func(task func()) error { return k.Submit(i, task) }, log[i].put(0)))
			require.NoError(t, k.Submit(i, log[i].put(1)))
		}
		assert.Equal(t, keys, k.Keys())
		l.open()
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
		assert.Zero(t, k.Keys())
		peak, free := ants.KeyedFootprint(k)
		assert.Zero(t, peak, "the map of keys was not replaced")
		assert.LessOrEqual(t, free, 256, "key states kept for reuse")
		for i := range keys {
			require.Equal(t, []int{0, 1}, log[i].got, "key %d", i)
		}

		done := make(chan struct{}, 1)
		require.NoError(t, k.Submit(7, signal(done)), "a Keyed is usable once idle")
		recv(t, done, "the task")
		require.NoError(t, recv(t, waitKeyed(k), "Wait"))
	})
}
