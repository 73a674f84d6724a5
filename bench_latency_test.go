package ants_test

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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
// the benchmarks/ module:
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
		for _, burst := range latencyBursts {
			b.Run(fmt.Sprintf("burst=%d/lib=%s", burst, k.name), func(b *testing.B) {
				p := k.start(b, latencyCapacity)
				defer releasePool(b, p)
				benchStartLatency(b, p, burst)
			})
		}
	}
}

func benchStartLatency(b *testing.B, p funcPool, burst int) {
	r := newBurstRunner(p, burst)
	defer r.timer.Stop()
	if err := r.run(make([]time.Duration, burst)); err != nil {
		b.Fatal("warm-up: ", err)
	}
	lat := make([]time.Duration, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i += burst {
		if err := r.run(lat[i:min(i+burst, b.N)]); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(percentile(lat, 50)), "p50-ns")
	b.ReportMetric(float64(percentile(lat, 99)), "p99-ns")
}

// percentile returns the p-th percentile of sorted by the nearest-rank
// method: the smallest value with at least p% of the values at or below it.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (len(sorted)*p + 99) / 100 // ceil(n*p/100)
	return sorted[max(rank, 1)-1]
}

// burstRunner submits bursts of tasks and records each task's wait between
// its submit call and its start. Its tasks are made once, one per place in
// a burst, so the measurement allocates nothing per task.
// Its twin, kept in step, is in benchmarks/latency.go: the nested module's
// latency workload cannot import a test file of this package.
type burstRunner struct {
	pool  funcPool
	tasks []func()
	timer *time.Timer
	epoch time.Time // submitted and started are durations since epoch

	// Set by run before it submits the burst's tasks, read by them: the
	// submit hands each task over, which orders the write before the read.
	submitted []time.Duration // when the task at each place was submitted
	out       []time.Duration // where each place's wait goes

	started    atomic.Int32  // tasks of this burst that have started
	allStarted chan struct{} // the burst's last task to start sends here
	gate       sync.WaitGroup
	finished   sync.WaitGroup
}

func newBurstRunner(p funcPool, burst int) *burstRunner {
	r := &burstRunner{
		pool:       p,
		tasks:      make([]func(), burst),
		timer:      time.NewTimer(time.Hour),
		epoch:      time.Now(),
		submitted:  make([]time.Duration, burst),
		allStarted: make(chan struct{}, 1),
	}
	r.timer.Stop()
	for i := range r.tasks {
		r.tasks[i] = func() {
			r.out[i] = time.Since(r.epoch) - r.submitted[i]
			if int(r.started.Add(1)) == len(r.out) {
				r.allStarted <- struct{}{}
			}
			r.gate.Wait()
			r.finished.Done()
		}
	}
	return r
}

// run submits len(out) tasks back to back, waits until all have started
// (at most burstTimeout), lets them finish, and stores their waits in out.
// After a timeout it still lets every task run and finish before it
// returns the error.
func (r *burstRunner) run(out []time.Duration) error {
	n := len(out)
	r.out = out
	r.started.Store(0)
	r.gate.Add(1)
	r.finished.Add(n)
	for i := 0; i < n; i++ {
		r.submitted[i] = time.Since(r.epoch)
		if err := r.pool.Submit(r.tasks[i]); err != nil {
			r.finished.Add(i - n)
			r.gate.Done()
			r.finished.Wait()
			return err
		}
	}
	r.timer.Reset(burstTimeout)
	var err error
	select {
	case <-r.allStarted:
	case <-r.timer.C:
		err = fmt.Errorf("only %d of %d tasks started within %v while the pool had idle workers", r.started.Load(), n, burstTimeout)
	}
	if !r.timer.Stop() {
		// Fired as the burst completed: drain it, so that the next Reset
		// starts clean (a go 1.22 module keeps the old timer channels).
		select {
		case <-r.timer.C:
		default:
		}
	}
	r.gate.Done()
	r.finished.Wait()
	if err != nil {
		<-r.allStarted // sent by the last task once the gate opened
	}
	return err
}
