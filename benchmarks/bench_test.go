package main

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// BenchmarkNoop is the noop workload as standard Go benchmarks: no-op tasks
// on every library, at capacity 1000 and GOMAXPROCS, from one submitter
// (serial) and from GOMAXPROCS submitters (parallel, b.RunParallel). One op
// is one task, from submission to completion; starting the pool is not
// timed, and neither is stopping it after the last task finished.
//
// Run with: go test -run '^$' -bench Noop -benchtime 1000000x
func BenchmarkNoop(b *testing.B) {
	for _, capacity := range []int{1000, runtime.GOMAXPROCS(0)} {
		for _, lib := range libraries() {
			cfg := poolConfig{capacity: capacity}
			b.Run(fmt.Sprintf("cap=%d/%s/serial", capacity, lib.name()), func(b *testing.B) {
				benchNoop(b, lib, cfg, func(r runner) {
					for i := 0; i < b.N; i++ {
						r.submit()
					}
				})
			})
			b.Run(fmt.Sprintf("cap=%d/%s/parallel", capacity, lib.name()), func(b *testing.B) {
				benchNoop(b, lib, cfg, func(r runner) {
					b.RunParallel(func(pb *testing.PB) {
						for pb.Next() {
							r.submit()
						}
					})
				})
			})
		}
	}
}

// benchNoop starts lib, has submitAll submit b.N no-op tasks, and waits for
// them.
func benchNoop(b *testing.B, lib library, cfg poolConfig, submitAll func(runner)) {
	var done sync.WaitGroup
	r := lib.start(cfg, done.Done)
	done.Add(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	submitAll(r)
	done.Wait()
	b.StopTimer()
	r.stop()
}
