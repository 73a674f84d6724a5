package ants_test

import (
	"context"
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
// Run them side by side, for example:
//
//	go test -run '^$' -bench . -count 6 | tee new.txt
//	go run golang.org/x/perf/cmd/benchstat@latest new.txt

// benchCaps are the capacities of ants' issue 4 targets: a large pool that
// never fills, and one of GOMAXPROCS workers that is always full.
func benchCaps() []int { return []int{1000, runtime.GOMAXPROCS(0)} }

// submitters is how many goroutines submit at once; with 8 the pool's lock is
// contended from both sides.
var submitters = []int{1, 8}

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

func eachShape(b *testing.B, f func(b *testing.B, capacity, submitters int)) {
	for _, c := range benchCaps() {
		for _, s := range submitters {
			b.Run(fmt.Sprintf("cap=%d/submitters=%d", c, s), func(b *testing.B) { f(b, c, s) })
		}
	}
}

func releasePool(b *testing.B, p interface{ ReleaseTimeout(d time.Duration) error }) {
	if err := p.ReleaseTimeout(10 * time.Second); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkSubmit(b *testing.B) {
	eachShape(b, func(b *testing.B, capacity, n int) {
		p, _ := ants.NewPool(capacity)
		defer releasePool(b, p)
		var wg sync.WaitGroup
		task := func() { wg.Done() }
		runSubmitters(b, n, &wg, func() error { return p.Submit(task) })
	})
}

func BenchmarkSubmitBuffered(b *testing.B) {
	eachShape(b, func(b *testing.B, capacity, n int) {
		p, _ := ants.NewPool(capacity, ants.WithQueueSize(capacity))
		defer releasePool(b, p)
		var wg sync.WaitGroup
		task := func() { wg.Done() }
		runSubmitters(b, n, &wg, func() error { return p.Submit(task) })
	})
}

func BenchmarkInvoke(b *testing.B) {
	eachShape(b, func(b *testing.B, capacity, n int) {
		var wg sync.WaitGroup
		p, _ := ants.NewPoolWithFunc(capacity, func(any) { wg.Done() })
		defer releasePool(b, p)
		runSubmitters(b, n, &wg, func() error { return p.Invoke(1) })
	})
}

func BenchmarkInvokeGeneric(b *testing.B) {
	eachShape(b, func(b *testing.B, capacity, n int) {
		var wg sync.WaitGroup
		p, _ := ants.NewPoolWithFuncGeneric(capacity, func(int) { wg.Done() })
		defer releasePool(b, p)
		runSubmitters(b, n, &wg, func() error { return p.Invoke(1) })
	})
}

// BenchmarkChannelPool is the baseline of the speed targets: capacity
// goroutines ranging over a channel buffered to capacity.
func BenchmarkChannelPool(b *testing.B) {
	eachShape(b, func(b *testing.B, capacity, n int) {
		tasks := make(chan func(), capacity)
		var workers sync.WaitGroup
		for i := 0; i < capacity; i++ {
			workers.Add(1)
			go func() {
				defer workers.Done()
				for t := range tasks {
					t()
				}
			}()
		}
		defer func() { close(tasks); workers.Wait() }()
		var wg sync.WaitGroup
		task := func() { wg.Done() }
		runSubmitters(b, n, &wg, func() error { tasks <- task; return nil })
	})
}

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
// b.RunParallel, to a pool that is never full.
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
	eachShape(b, func(b *testing.B, capacity, n int) {
		p, _ := ants.NewPool(capacity)
		defer releasePool(b, p)
		var wg sync.WaitGroup
		fn := func() (struct{}, error) { wg.Done(); return struct{}{}, nil }
		ctx := context.Background()
		// With a Background ctx and an open pool, Go is never refused, so
		// every fn runs and marks itself done.
		runSubmitters(b, n, &wg, func() error { ants.Go(ctx, p, fn); return nil })
	})
}

// BenchmarkKeyedSubmit is BenchmarkSubmit through a Keyed. With
// keys=distinct every submit finds its key idle and submits a runner to the
// pool; with keys=1 the submits queue behind one key's runner, which runs
// them all on one worker.
func BenchmarkKeyedSubmit(b *testing.B) {
	for _, keys := range []string{"distinct", "1"} {
		b.Run("keys="+keys, func(b *testing.B) {
			eachShape(b, func(b *testing.B, capacity, n int) {
				p, _ := ants.NewPool(capacity)
				defer releasePool(b, p)
				k := ants.NewKeyed[uint64](p)
				var wg sync.WaitGroup
				task := func() { wg.Done() }
				var next atomic.Uint64
				key := func() uint64 { return next.Add(1) }
				if keys == "1" {
					key = func() uint64 { return 0 }
				}
				runSubmitters(b, n, &wg, func() error { return k.Submit(key(), task) })
			})
		})
	}
}

// BenchmarkStream is BenchmarkSubmit through a Stream, with a nil callback.
func BenchmarkStream(b *testing.B) {
	eachShape(b, func(b *testing.B, capacity, n int) {
		p, _ := ants.NewPool(capacity)
		defer releasePool(b, p)
		s := ants.NewStream(p)
		var wg sync.WaitGroup
		task := func() func() { wg.Done(); return nil }
		runSubmitters(b, n, &wg, func() error { s.Go(task); return nil })
		if err := s.Wait(); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkStats measures reading the counters while tasks run.
func BenchmarkStats(b *testing.B) {
	p, _ := ants.NewPool(1000)
	defer releasePool(b, p)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_ = p.Stats()
	}
}
