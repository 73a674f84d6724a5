package ants_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/e62cffed/ants"
)

// The benchmarks measure the pool's own cost per task: every task is a
// no-op that only marks itself done, and every baseline does the same.
//
// Like is compared with like. Without a task buffer a pool keeps ants'
// contract (at most capacity tasks accepted and unfinished), and so does
// BenchmarkChannelPoolUnbuffered: capacity workers receiving from an
// unbuffered channel. With WithQueueSize(capacity) a pool also holds
// capacity tasks no worker has taken yet, and so does BenchmarkChannelPool:
// the same workers over a channel of capacity slots. Each pool benchmark
// runs the same shapes (cap=C/submitters=S) as its baseline, so benchstat
// can put them side by side, baseline first:
//
//	go test -run '^$' -bench 'Submit$|SubmitBuffered$|Invoke$|InvokeGeneric$|MultiPool|ChannelPool' \
//	    -benchtime 200000x -count 6 . | tee new.txt
//	benchstat -col '.name@(ChannelPoolUnbuffered Submit Invoke InvokeGeneric MultiPool)' new.txt
//	benchstat -col '.name@(ChannelPool SubmitBuffered MultiPoolBuffered)' new.txt
//
// (benchstat is golang.org/x/perf/cmd/benchstat; `go run
// golang.org/x/perf/cmd/benchstat@latest` runs it without installing.)
// BenchmarkStartLatency (bench_latency_test.go) measures how long a task
// waits to start, BenchmarkManyCores (bench_cores_test.go) how the cost
// grows with cores.

// benchCaps are the two capacities measured: a large pool that never
// fills, and one of GOMAXPROCS workers that is always full.
func benchCaps() []int { return []int{1000, runtime.GOMAXPROCS(0)} }

// submitters is how many goroutines submit at once: one, 8 (the pool's lock
// is contended from both sides) and 64 (HTTP handlers, consumers: more
// submitters than cores).
var submitters = []int{1, 8, 64}

// benchPool is a started pool under benchmark, bound to one task: submit
// hands it that task once (for the PoolWithFunc kinds, one call of the
// function), and pool releases it.
type benchPool struct {
	submit func() error
	pool   releaser
}

type releaser interface{ ReleaseTimeout(d time.Duration) error }

// starter starts a pool of capacity workers bound to task; it fails b if
// it cannot.
type starter func(b *testing.B, capacity int, task func()) benchPool

// funcPool is a pool that takes a func() per submission: a Pool, a
// MultiPool or a chanPool. The latency benchmark needs one, to hand a
// different task each time.
type funcPool interface {
	Submit(task func()) error
	releaser
}

// funcPoolStarter starts a funcPool of capacity workers.
type funcPoolStarter func(b *testing.B, capacity int) funcPool

// bound turns a funcPool into a starter that submits one task.
func (s funcPoolStarter) bound() starter {
	return func(b *testing.B, capacity int, task func()) benchPool {
		p := s(b, capacity)
		return benchPool{submit: func() error { return p.Submit(task) }, pool: p}
	}
}

// queueOf returns WithQueueSize(capacity) if buffered, else no option.
func queueOf(buffered bool, capacity int) []ants.Option {
	if buffered {
		return []ants.Option{ants.WithQueueSize(capacity)}
	}
	return nil
}

// newPool starts a Pool, with a buffer of capacity tasks if buffered, and
// the options extra.
func newPool(buffered bool, extra ...ants.Option) funcPoolStarter {
	return func(b *testing.B, capacity int) funcPool {
		p, err := ants.NewPool(capacity, append(queueOf(buffered, capacity), extra...)...)
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
}

// newMultiPool starts a MultiPool of capacity workers in all: 8 sub-pools
// (8 x 125 at capacity 1000), fewer when capacity is not a
// multiple of 8, so that the total stays capacity. buffered gives every
// sub-pool a buffer of its own size, capacity slots in all.
func newMultiPool(buffered bool, extra ...ants.Option) funcPoolStarter {
	return func(b *testing.B, capacity int) funcPool {
		size := min(8, capacity)
		for capacity%size != 0 {
			size--
		}
		per := capacity / size
		p, err := ants.NewMultiPool(size, per, ants.RoundRobin, append(queueOf(buffered, per), extra...)...)
		if err != nil {
			b.Fatal(err)
		}
		return p
	}
}

// newChanPool starts the baseline: capacity workers over a channel of
// capacity slots if buffered, else over an unbuffered one.
func newChanPool(buffered bool) funcPoolStarter {
	return func(_ *testing.B, capacity int) funcPool {
		slots := 0
		if buffered {
			slots = capacity
		}
		return startChanPool(capacity, slots)
	}
}

// chanPool is the pool everyone writes first: workers goroutines ranging
// over a channel of func(). Unbuffered, a send completes only when a worker
// takes the task, so at most workers tasks are accepted and unfinished
// (ants' semantics); with slots it also holds that many tasks no worker has
// taken (WithQueueSize's). Its workers never expire.
type chanPool struct {
	tasks   chan func()
	workers sync.WaitGroup
}

// startChanPool starts the workers; each exits when ReleaseTimeout closes
// the channel, and ReleaseTimeout waits for them.
func startChanPool(workers, slots int) *chanPool {
	c := &chanPool{tasks: make(chan func(), slots)}
	c.workers.Add(workers)
	for i := 0; i < workers; i++ {
		go func() {
			defer c.workers.Done()
			for t := range c.tasks {
				t()
			}
		}()
	}
	return c
}

func (c *chanPool) Submit(task func()) error { c.tasks <- task; return nil }

// ReleaseTimeout stops the workers and waits for them; the benchmarks give
// it only after every task has finished, so it never times out.
func (c *chanPool) ReleaseTimeout(time.Duration) error {
	close(c.tasks)
	c.workers.Wait()
	return nil
}

// invokePool starts a PoolWithFunc whose function calls task, with a
// buffer of capacity calls if buffered.
func invokePool(buffered bool, extra ...ants.Option) starter {
	return func(b *testing.B, capacity int, task func()) benchPool {
		p, err := ants.NewPoolWithFunc(capacity, func(any) { task() }, append(queueOf(buffered, capacity), extra...)...)
		if err != nil {
			b.Fatal(err)
		}
		return benchPool{submit: func() error { return p.Invoke(1) }, pool: p}
	}
}

// invokeGenericPool starts a PoolWithFuncGeneric[int] whose function calls
// task.
func invokeGenericPool() starter {
	return func(b *testing.B, capacity int, task func()) benchPool {
		p, err := ants.NewPoolWithFuncGeneric(capacity, func(int) { task() })
		if err != nil {
			b.Fatal(err)
		}
		return benchPool{submit: func() error { return p.Invoke(1) }, pool: p}
	}
}

// runSubmitters runs b.N calls of submit, spread over n goroutines, and
// waits for every task to be done.
func runSubmitters(b *testing.B, n int, wg *sync.WaitGroup, submit func() error) {
	b.Helper()
	b.ReportAllocs()
	wg.Add(b.N)
	b.ResetTimer()
	var sub sync.WaitGroup
	per, extra := b.N/n, b.N%n
	for i := 0; i < n; i++ {
		k := per
		if i < extra {
			k++
		}
		sub.Add(1)
		go func() {
			defer sub.Done()
			for j := 0; j < k; j++ {
				if err := submit(); err != nil {
					b.Error(err)
					wg.Done()
				}
			}
		}()
	}
	sub.Wait()
	wg.Wait()
	b.StopTimer()
}

// eachShape runs b.N no-op tasks through the pool start makes, at every
// capacity and submitter count, as sub-benchmarks cap=C/submitters=S.
func eachShape(b *testing.B, start starter) {
	for _, c := range benchCaps() {
		for _, s := range submitters {
			b.Run(fmt.Sprintf("cap=%d/submitters=%d", c, s), func(b *testing.B) {
				var wg sync.WaitGroup
				p := start(b, c, wg.Done)
				defer releasePool(b, p.pool)
				runSubmitters(b, s, &wg, p.submit)
			})
		}
	}
}

func releasePool(b *testing.B, p releaser) {
	if err := p.ReleaseTimeout(10 * time.Second); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSubmit is Pool.Submit with ants' semantics (no task buffer); its
// baseline is BenchmarkChannelPoolUnbuffered.
func BenchmarkSubmit(b *testing.B) { eachShape(b, newPool(false).bound()) }

// BenchmarkSubmitBuffered is Pool.Submit with WithQueueSize(capacity); its
// baseline is BenchmarkChannelPool.
func BenchmarkSubmitBuffered(b *testing.B) { eachShape(b, newPool(true).bound()) }

// BenchmarkInvoke is PoolWithFunc.Invoke without a buffer; its baseline is
// BenchmarkChannelPoolUnbuffered.
func BenchmarkInvoke(b *testing.B) { eachShape(b, invokePool(false)) }

// BenchmarkInvokeGeneric is PoolWithFuncGeneric.Invoke without a buffer;
// its baseline is BenchmarkChannelPoolUnbuffered.
func BenchmarkInvokeGeneric(b *testing.B) { eachShape(b, invokeGenericPool()) }

// BenchmarkMultiPool is MultiPool.Submit (RoundRobin, 8 sub-pools where
// capacity allows) without a buffer; its baseline is
// BenchmarkChannelPoolUnbuffered.
func BenchmarkMultiPool(b *testing.B) { eachShape(b, newMultiPool(false).bound()) }

// BenchmarkMultiPoolBuffered is BenchmarkMultiPool with a buffer of
// capacity tasks in all; its baseline is BenchmarkChannelPool.
func BenchmarkMultiPoolBuffered(b *testing.B) { eachShape(b, newMultiPool(true).bound()) }

// BenchmarkChannelPool is the baseline of the buffered modes: capacity
// goroutines ranging over a channel buffered to capacity.
func BenchmarkChannelPool(b *testing.B) { eachShape(b, newChanPool(true).bound()) }

// BenchmarkChannelPoolUnbuffered is the baseline of ants' semantics:
// capacity goroutines ranging over an unbuffered channel, so that at most
// capacity tasks are accepted and unfinished.
func BenchmarkChannelPoolUnbuffered(b *testing.B) { eachShape(b, newChanPool(false).bound()) }

// BenchmarkGoroutines is the other baseline: a new goroutine per task.
func BenchmarkGoroutines(b *testing.B) {
	for _, n := range submitters {
		b.Run(fmt.Sprintf("submitters=%d", n), func(b *testing.B) {
			var wg sync.WaitGroup
			task := func() { wg.Done() }
			runSubmitters(b, n, &wg, func() error { go task(); return nil })
		})
	}
}

// BenchmarkSubmitParallel submits from GOMAXPROCS goroutines with
// b.RunParallel, to a pool that is never full. BenchmarkManyCores does the
// same for every kind and its baselines.
func BenchmarkSubmitParallel(b *testing.B) {
	p, _ := ants.NewPool(1000)
	defer releasePool(b, p)
	var wg sync.WaitGroup
	task := func() { wg.Done() }
	b.ReportAllocs()
	wg.Add(b.N)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := p.Submit(task); err != nil {
				b.Error(err)
				wg.Done()
			}
		}
	})
	wg.Wait()
}

// BenchmarkFuture is BenchmarkSubmit through Go: the difference is the
// cost of the Future.
func BenchmarkFuture(b *testing.B) {
	eachShape(b, func(b *testing.B, capacity int, task func()) benchPool {
		p := newPool(false)(b, capacity).(*ants.Pool)
		fn := func() (struct{}, error) { task(); return struct{}{}, nil }
		ctx := context.Background()
		// With a Background ctx and an open pool, Go is never refused, so
		// every fn runs and marks itself done.
		return benchPool{submit: func() error { ants.Go(ctx, p, fn); return nil }, pool: p}
	})
}

// BenchmarkKeyedSubmit is BenchmarkSubmit through a Keyed. With
// keys=distinct every submit finds its key idle and submits a runner to the
// pool; with keys=1 the submits queue behind one key's runner, which runs
// them all on one worker.
func BenchmarkKeyedSubmit(b *testing.B) {
	for _, keys := range []string{"distinct", "1"} {
		b.Run("keys="+keys, func(b *testing.B) {
			eachShape(b, func(b *testing.B, capacity int, task func()) benchPool {
				p := newPool(false)(b, capacity).(*ants.Pool)
				k := ants.NewKeyed[uint64](p)
				var next atomic.Uint64
				key := func() uint64 { return next.Add(1) }
				if keys == "1" {
					key = func() uint64 { return 0 }
				}
				return benchPool{submit: func() error { return k.Submit(key(), task) }, pool: p}
			})
		})
	}
}

// BenchmarkStream is BenchmarkSubmit through a Stream, with a nil callback.
func BenchmarkStream(b *testing.B) {
	eachShape(b, func(b *testing.B, capacity int, task func()) benchPool {
		p := newPool(false)(b, capacity).(*ants.Pool)
		s := ants.NewStream(p)
		fn := func() func() { task(); return nil }
		release := releaseFunc(func(d time.Duration) error {
			return errors.Join(s.Wait(), p.ReleaseTimeout(d))
		})
		return benchPool{submit: func() error { s.Go(fn); return nil }, pool: release}
	})
}

// releaseFunc is a releaser made of a function.
type releaseFunc func(d time.Duration) error

func (f releaseFunc) ReleaseTimeout(d time.Duration) error { return f(d) }

// BenchmarkStats measures reading the counters while tasks run.
func BenchmarkStats(b *testing.B) {
	p, _ := ants.NewPool(1000)
	defer releasePool(b, p)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = p.Stats()
	}
}

// BenchmarkSubpoolSubmit is BenchmarkSubmit through a sub-pool of the same
// capacity as its parent: the difference is the sub-pool's overhead. Compare
// them with
//
//	go test -run '^$' -bench 'Benchmark(Subpool)?Submit$' -count 6 | tee sub.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col .name sub.txt
func BenchmarkSubpoolSubmit(b *testing.B) {
	eachShape(b, func(b *testing.B, capacity int, task func()) benchPool {
		p := newPool(false)(b, capacity).(*ants.Pool)
		s := ants.NewSubpool(p, capacity)
		release := releaseFunc(func(d time.Duration) error {
			return errors.Join(s.ReleaseTimeout(d), p.ReleaseTimeout(d))
		})
		return benchPool{submit: func() error { return s.Submit(task) }, pool: release}
	})
}

// inlineSubmitter runs each task in SubmitContext itself: a parent that
// costs nothing, so that BenchmarkSubpoolOverhead measures the sub-pool's
// own bookkeeping without any scheduling.
type inlineSubmitter struct{}

func (inlineSubmitter) SubmitContext(_ context.Context, task func()) error {
	task()
	return nil
}

// BenchmarkSubpoolOverhead is the sub-pool's own cost per task: its submit
// and the bookkeeping around the task, on a parent that runs the task
// inline, with a plain call of the task as the baseline.
func BenchmarkSubpoolOverhead(b *testing.B) {
	var n int
	task := func() { n++ }
	b.Run("call", func(b *testing.B) {
		b.ReportAllocs()
		var submit ants.Submitter = inlineSubmitter{}
		for i := 0; i < b.N; i++ {
			_ = submit.SubmitContext(context.Background(), task)
		}
	})
	b.Run("Subpool", func(b *testing.B) {
		b.ReportAllocs()
		s := ants.NewSubpool(inlineSubmitter{}, 1)
		for i := 0; i < b.N; i++ {
			if err := s.Submit(task); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// nopObserver is an Observer that does nothing: with it, a benchmark
// measures what timing the tasks costs the pool.
type nopObserver struct{}

func (nopObserver) TaskDone(time.Duration, time.Duration, bool) {}

var observed = ants.WithObserver(nopObserver{})

// BenchmarkSubmitObserved is BenchmarkSubmit with an observer that does
// nothing; BenchmarkSubmit is its base:
//
//	benchstat -col '.name@(Submit SubmitObserved)' new.txt
func BenchmarkSubmitObserved(b *testing.B) { eachShape(b, newPool(false, observed).bound()) }

// BenchmarkSubmitBufferedObserved is BenchmarkSubmitBuffered with an
// observer that does nothing.
func BenchmarkSubmitBufferedObserved(b *testing.B) { eachShape(b, newPool(true, observed).bound()) }

// BenchmarkInvokeObserved is BenchmarkInvoke with an observer that does
// nothing.
func BenchmarkInvokeObserved(b *testing.B) { eachShape(b, invokePool(false, observed)) }

// BenchmarkMultiPoolObserved is BenchmarkMultiPool with an observer that
// does nothing.
func BenchmarkMultiPoolObserved(b *testing.B) { eachShape(b, newMultiPool(false, observed).bound()) }

// BenchmarkSubmitAdaptive is BenchmarkSubmit on a pool that adapts its
// capacity between 1 and the shape's capacity, starting there: what the
// timing and the controller cost a task (BenchmarkSubmit is its base).
func BenchmarkSubmitAdaptive(b *testing.B) {
	eachShape(b, func(b *testing.B, capacity int, task func()) benchPool {
		p, err := ants.NewPool(capacity, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 1, Max: capacity}))
		if err != nil {
			b.Fatal(err)
		}
		return benchPool{submit: func() error { return p.Submit(task) }, pool: p}
	})
}
