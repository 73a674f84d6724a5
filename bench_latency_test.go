package ants_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/e62cffed/ants/internal/burst"
)

// latencyCapacity is the capacity of the pools of BenchmarkStartLatency:
// far more workers than any burst, so that idle workers always exist.
const latencyCapacity = 1000

// latencyBursts are the burst sizes of BenchmarkStartLatency: one task at a
// time (the cost of waking one idle worker), and 8 and 64 at once (as many
// as the submitters of the throughput benchmarks).
var latencyBursts = []int{1, 8, 64}

// burstTimeout bounds how long a burst may take to start all its tasks.
// Only a pool that leaves a task queued behind a busy worker while an idle
// one sleeps needs longer: it would need forever, since the busy worker
// waits for the whole burst to start.
const burstTimeout = 5 * time.Second

// BenchmarkStartLatency measures the time from the call that submits a
// task to the task's first line, while the pool has idle workers, and
// reports its median and 99th percentile over all b.N tasks (p50-ns,
// p99-ns; ns/op is the whole cycle per task and matters less).
//
// The submitter hands out bursts of 1, 8 or 64 tasks back to back, then
// waits. Every task of a burst stays busy until the whole burst has
// started, so each must start on a worker of its own: a task queued behind
// a busy worker while an idle one sleeps would never start, and the burst
// fails after burstTimeout instead of skewing the figures. Before the
// clock starts one burst is run untimed, so that a pool that starts
// workers on demand has a burst's worth of them idle.
//
// The pools are those of the throughput benchmarks with their baselines
// beside them; the peer libraries are compared by the latency workload of
// the benchmarks/ module, which measures with the same code
// (internal/burst):
//
//	go test -run '^$' -bench StartLatency -benchtime 20000x -count 6 . | tee lat.txt
//	benchstat -col /lib lat.txt
func BenchmarkStartLatency(b *testing.B) {
	for _, k := range []struct {
		name  string
		start funcPoolStarter
	}{
		{"Submit", newPool(false)},
		{"SubmitBuffered", newPool(true)},
		{"ChannelPoolUnbuffered", newChanPool(false)},
		{"ChannelPool", newChanPool(true)},
	} {
		for _, size := range latencyBursts {
			b.Run(fmt.Sprintf("burst=%d/lib=%s", size, k.name), func(b *testing.B) {
				p := k.start(b, latencyCapacity)
				defer releasePool(b, p)
				benchStartLatency(b, p, size)
			})
		}
	}
}

func benchStartLatency(b *testing.B, p funcPool, size int) {
	r := burst.NewRunner(p.Submit, size, burstTimeout)
	defer r.Stop()
	if err := r.Run(make([]time.Duration, size)); err != nil {
		b.Fatal("warm-up: ", err)
	}
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i += size {
		if err := r.Run(lat[i:min(i+size, b.N)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(burst.Percentile(lat, 50)), "p50-ns")
	b.ReportMetric(float64(burst.Percentile(lat, 99)), "p99-ns")
}
