package main

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// burstTimeout bounds how long a burst of the latency workload may take to
// start all its tasks. Only a pool that leaves a task queued behind a busy
// worker while an idle one sleeps needs longer: forever, since every task
// of a burst stays busy until the whole burst has started.
// A variable so that a test can shorten it.
var burstTimeout = 10 * time.Second

// measureLatency runs the latency workload: w.tasks tasks in bursts of
// w.burst, submitted back to back from one goroutine, on a pool of far more
// workers than a burst. For each task it records the time from the submit
// call to the task's first line; the result's P50Ns and P99Ns are the
// median and 99th percentile over all tasks.
//
// Every task of a burst stays busy until the whole burst has started, so
// each must start on a goroutine of its own: a pool that leaves a task
// behind a busy worker while an idle one sleeps fails the run after
// burstTimeout instead of skewing the figures. One untimed burst runs
// first, so that pools that start workers on demand have a burst's worth
// of idle ones. ns/task is the whole cycle (submit, start, wait for the
// burst, finish) over the timed bursts; allocs and bytes include the
// pool's creation and stop, as in measure.
func measureLatency(lib library, w workload) (result, error) {
	lat := make([]time.Duration, w.tasks)
	runtime.GC()
	samples := startSampler()
	base := runtime.NumGoroutine() // includes the sampler
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)

	r := lib.start(w.cfg, w.work)
	br := newBurstRunner(r, w.burst)
	// A burst's goroutines are all alive once all its tasks have started;
	// a pool like pond's, whose workers exit when idle, would show none to
	// a sampler that ticks between bursts.
	br.allRunning = samples.observe
	err := br.run(make([]time.Duration, w.burst))
	if err != nil {
		err = fmt.Errorf("warm-up burst: %w", err)
	}
	t0 := time.Now()
	for i := 0; i < w.tasks && err == nil; i += w.burst {
		err = br.run(lat[i:min(i+w.burst, w.tasks)])
	}
	busy := time.Since(t0)
	br.timer.Stop()
	samples.observe()
	r.stop()
	peak := samples.stop()
	if err != nil {
		return result{}, err
	}
	runtime.ReadMemStats(&after)

	slices.Sort(lat)
	n := float64(w.tasks)
	return result{
		Lib:            lib.name(),
		Workload:       w.name,
		Tasks:          w.tasks,
		NsPerTask:      float64(busy.Nanoseconds()) / n,
		AllocsPerTask:  float64(after.Mallocs-before.Mallocs) / n,
		BytesPerTask:   float64(after.TotalAlloc-before.TotalAlloc) / n,
		PeakGoroutines: peak - base,
		HWMKiB:         highWaterKiB(),
		P50Ns:          float64(percentile(lat, 50)),
		P99Ns:          float64(percentile(lat, 99)),
	}, nil
}

// percentile returns the p-th percentile of sorted by the nearest-rank
// method: the smallest value with at least p% of the values at or below it;
// 0 for no values.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (len(sorted)*p + 99) / 100 // ceil(n*p/100)
	return sorted[max(rank, 1)-1]
}

// burstRunner submits bursts of tasks to a runner and records each task's
// wait between its submit call and its start. Its tasks are made once, one
// per place in a burst, so the measurement allocates nothing per task.
// Its twin, kept in step, is in the repository root's bench_latency_test.go
// (BenchmarkStartLatency): that module cannot import this one.
type burstRunner struct {
	r          runner
	allRunning func() // if set, called once every task of a burst has started
	tasks      []func()
	timer      *time.Timer // reused by every burst, so that a burst allocates nothing
	epoch      time.Time   // submitted and the waits are measured from it

	// Set by run before it submits the burst's tasks, read by them: the
	// submit hands each task over, which orders the write before the read.
	submitted []time.Duration // when the task at each place was submitted
	out       []time.Duration // where each place's wait goes

	started    atomic.Int32  // tasks of this burst that have started
	allStarted chan struct{} // the burst's last task to start sends here
	gate       sync.WaitGroup
	finished   sync.WaitGroup
}

func newBurstRunner(r runner, burst int) *burstRunner {
	br := &burstRunner{
		r:          r,
		tasks:      make([]func(), burst),
		timer:      time.NewTimer(time.Hour),
		epoch:      time.Now(),
		submitted:  make([]time.Duration, burst),
		allStarted: make(chan struct{}, 1),
	}
	br.timer.Stop()
	for i := range br.tasks {
		br.tasks[i] = func() {
			br.out[i] = time.Since(br.epoch) - br.submitted[i]
			if int(br.started.Add(1)) == len(br.out) {
				br.allStarted <- struct{}{}
			}
			br.gate.Wait()
			br.finished.Done()
		}
	}
	return br
}

// run submits len(out) tasks back to back, waits until all have started
// (at most burstTimeout), lets them finish, and stores their waits in out.
// After a timeout it still lets every task start and finish before it
// returns the error.
func (br *burstRunner) run(out []time.Duration) error {
	n := len(out)
	br.out = out
	br.started.Store(0)
	br.gate.Add(1)
	br.finished.Add(n)
	for i := 0; i < n; i++ {
		br.submitted[i] = time.Since(br.epoch)
		br.r.submitFunc(br.tasks[i])
	}
	var err error
	br.timer.Reset(burstTimeout)
	select {
	case <-br.allStarted:
		if br.allRunning != nil {
			br.allRunning()
		}
	case <-br.timer.C:
		err = fmt.Errorf("only %d of %d tasks started within %v while the pool had idle workers", br.started.Load(), n, burstTimeout)
	}
	if !br.timer.Stop() {
		// Fired as the burst completed: drain it, so that the next Reset
		// starts clean (a go 1.22 module keeps the old timer channels).
		select {
		case <-br.timer.C:
		default:
		}
	}
	br.gate.Done()
	br.finished.Wait()
	if err != nil {
		<-br.allStarted // sent by the last task once the gate opened
	}
	return err
}
