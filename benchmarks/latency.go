package main

import (
	"fmt"
	"runtime"
	"slices"
	"time"

	"github.com/e62cffed/ants/internal/burst"
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
	br := burst.NewRunner(func(task func()) error { r.submitFunc(task); return nil }, w.burst, burstTimeout)
	// A burst's goroutines are all alive once all its tasks have started;
	// a pool like pond's, whose workers exit when idle, would show none to
	// a sampler that ticks between bursts.
	br.AllStarted = samples.observe
	err := br.Run(make([]time.Duration, w.burst))
	if err != nil {
		err = fmt.Errorf("warm-up burst: %w", err)
	}
	t0 := time.Now()
	for i := 0; i < w.tasks && err == nil; i += w.burst {
		err = br.Run(lat[i:min(i+w.burst, w.tasks)])
	}
	busy := time.Since(t0)
	br.Stop()
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
		P50Ns:          float64(burst.Percentile(lat, 50)),
		P99Ns:          float64(burst.Percentile(lat, 99)),
	}, nil
}
