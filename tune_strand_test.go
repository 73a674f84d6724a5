package ants_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// strandPool is what TestShrinkingTuneStrandsNoTask needs of a pool: a
// submit that accepts a func() task, Tune, and the counts of idle workers.
type strandPool struct {
	submit func(task func()) error
	tune   func(size int)
	stats  func() ants.Stats
	close  func() error
}

// strandKinds are the pools a shrinking Tune is tried on: the single
// kinds, a MultiPool of one member, and a WorkerPool, whose worker runs
// the task it is given.
func strandKinds() []struct {
	name string
	new  func(t *testing.T, size int, opts ...ants.Option) strandPool
} {
	fromKind := func(k poolKind) func(t *testing.T, size int, opts ...ants.Option) strandPool {
		return func(t *testing.T, size int, opts ...ants.Option) strandPool {
			p, err := k.new(size, opts...)
			require.NoError(t, err)
			return strandPool{p.submit, p.Tune, p.Stats, func() error { return p.ReleaseTimeout(long) }}
		}
	}
	kinds := []struct {
		name string
		new  func(t *testing.T, size int, opts ...ants.Option) strandPool
	}{}
	for _, k := range kindsWhere(isSingle) {
		kinds = append(kinds, struct {
			name string
			new  func(t *testing.T, size int, opts ...ants.Option) strandPool
		}{k.name, fromKind(k)})
	}
	kinds = append(kinds, struct {
		name string
		new  func(t *testing.T, size int, opts ...ants.Option) strandPool
	}{"MultiPool of one", func(t *testing.T, size int, opts ...ants.Option) strandPool {
		p, err := newPlainMulti(1, size, ants.RoundRobin, opts...)
		require.NoError(t, err)
		return strandPool{p.submit, p.Tune, p.Stats, func() error { return p.ReleaseTimeout(long) }}
	}}, struct {
		name string
		new  func(t *testing.T, size int, opts ...ants.Option) strandPool
	}{"WorkerPool", func(t *testing.T, size int, opts ...ants.Option) strandPool {
		wp, err := ants.NewWorkerPool(size, func(int) ants.Worker[func(), struct{}] { return funcWorker{} }, opts...)
		require.NoError(t, err)
		submit := func(task func()) error {
			// Go accepts the task, or fails, before it returns: a
			// refusal ends its future at once.
			f := wp.Go(context.Background(), task)
			select {
			case <-f.Done():
				_, err := f.Wait()
				return err
			default:
				return nil
			}
		}
		return strandPool{submit, wp.Tune, wp.Stats, func() error { return wp.ReleaseTimeout(long) }}
	}})
	return kinds
}

// TestShrinkingTuneStrandsNoTask is the promise that a task accepted with
// a worker slot starts without waiting for any other task, whatever Tune
// does meanwhile: a pool of 4 with one busy worker and three idle ones
// accepts two tasks, each with a free slot, and is then tuned down to 2.
// Both tasks must start while the busy one is still held, and while each
// other is (each waits, once it has started, for the busy one), as they do
// in ants, which hands each to a worker as it accepts it. The shrink stops
// idle workers that the accepted tasks were counting on, so the test
// catches an engine that lets them wait for a busy worker instead.
func TestShrinkingTuneStrandsNoTask(t *testing.T) {
	for _, procs := range []int{1, 2} {
		for _, queue := range []int{0, 8} {
			for _, k := range strandKinds() {
				name := fmt.Sprintf("GOMAXPROCS=%d/queue=%d/%s", procs, queue, k.name)
				t.Run(name, func(t *testing.T) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					opts := []ants.Option{ants.WithDisablePurge(true)}
					if queue > 0 {
						opts = append(opts, ants.WithQueueSize(queue))
					}
					p := k.new(t, 4, opts...)
					defer func() { require.NoError(t, p.close()) }()

					// Four workers, all idle; then one busy until the end.
					warm := newGate(t)
					occupyWith(t, p.submit, warm, 4)
					warm.open()
					waitUntil(t, "4 workers are idle", func() bool { return p.stats().Idle == 4 })
					busy := newGate(t)
					occupyWith(t, p.submit, busy, 1)
					defer busy.open()

					started := make(chan int, 2)
					for i := 1; i <= 2; i++ {
						require.NoError(t, p.submit(func() { started <- i; <-busy.ch }))
					}
					p.tune(2)
					got := map[int]bool{}
					for range 2 {
						got[recv(t, started, "an accepted task to start while the busy task is held")] = true
					}
					require.Equal(t, map[int]bool{1: true, 2: true}, got)
				})
			}
		}
	}
}
