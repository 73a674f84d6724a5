package main

import (
	"runtime"
	"runtime/metrics"
)

// memSampler reads the process's heap and goroutine count through
// runtime/metrics, which, unlike runtime.ReadMemStats, does not stop the
// world: a sample a second must not disturb what it measures.
type memSampler struct {
	samples []metrics.Sample
}

func newMemSampler() *memSampler {
	return &memSampler{samples: []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/sched/goroutines:goroutines"},
	}}
}

// read returns the bytes of live and not-yet-swept heap objects, the
// goroutines, and the resident set size (0 where rssBytes cannot tell).
func (m *memSampler) read() (heap uint64, goroutines int, rss uint64) {
	metrics.Read(m.samples)
	heap = value(m.samples[0])
	goroutines = int(value(m.samples[1]))
	if goroutines == 0 { // a Go without the metric
		goroutines = runtime.NumGoroutine()
	}
	return heap, goroutines, rssBytes()
}

func value(s metrics.Sample) uint64 {
	if s.Value.Kind() == metrics.KindUint64 {
		return s.Value.Uint64()
	}
	return 0
}
