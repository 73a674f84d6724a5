package ants_test

import (
	"runtime"
	"sync"
	"testing"
)

// BenchmarkManyCores submits no-op tasks from GOMAXPROCS goroutines at once
// (b.RunParallel), to show how the cost per task grows with the cores, on
// every pool kind with and without a buffer, on a MultiPool (eight
// sub-pools, each with its own lock: the answer to one lock per pool on a
// big machine) and on both channel-pool baselines. This machine has 2
// cores; on a bigger one run
//
//	go test -run '^$' -bench ManyCores -cpu 1,2,4,8,16,32,64 -benchtime 200000x -count 6 . | tee cores.txt
//	benchstat -filter '/cap:1000' -row /gomaxprocs -col /lib cores.txt
//	benchstat -filter '/cap:gomaxprocs' -row /gomaxprocs -col /lib cores.txt
//
// -cpu N sets GOMAXPROCS to N, and so the number of submitting goroutines
// and the cores they run on (up to runtime.NumCPU). Each library appears
// at cap=1000, a pool that fills only once the submitters outrun the
// workers, and at cap=gomaxprocs, one worker per core, always full: there
// every Submit waits for a worker, the case where the pool's lock and its
// waiting callers serialise. The sub-benchmark names do not depend on
// -cpu, so benchstat lines up each library's rows across core counts.
func BenchmarkManyCores(b *testing.B) {
	kinds := []struct {
		name  string
		start starter
	}{
		{"Submit", newPool(false).bound()},
		{"SubmitBuffered", newPool(true).bound()},
		{"Invoke", invokePool(false)},
		{"InvokeBuffered", invokePool(true)},
		{"MultiPool", newMultiPool(false).bound()},
		{"MultiPoolBuffered", newMultiPool(true).bound()},
		{"ChannelPoolUnbuffered", newChanPool(false).bound()},
		{"ChannelPool", newChanPool(true).bound()},
	}
	for _, c := range []struct {
		name     string
		capacity func() int
	}{
		{"1000", func() int { return 1000 }},
		{"gomaxprocs", func() int { return runtime.GOMAXPROCS(0) }},
	} {
		for _, k := range kinds {
			b.Run("cap="+c.name+"/lib="+k.name, func(b *testing.B) {
				var wg sync.WaitGroup
				p := k.start(b, c.capacity(), wg.Done)
				defer releasePool(b, p.pool)
				b.ReportAllocs()
				wg.Add(b.N)
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if err := p.submit(); err != nil {
							b.Error(err)
							wg.Done()
						}
					}
				})
				wg.Wait()
				b.StopTimer()
			})
		}
	}
}
