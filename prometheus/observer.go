package antsprom

import (
	"time"

	"github.com/e62cffed/ants"
	"github.com/prometheus/client_golang/prometheus"
)

// taskBuckets are the upper bounds, in seconds, of the classic buckets of
// both histograms of a TaskObserver: 1, 2.5 and 5 times each power of ten
// from 1 µs to 25 s, then 60 s; 24 buckets. Round bounds, so that a query
// can name one (le="0.001" is "within a millisecond"); three a decade, so
// that a quantile interpolated inside a bucket is within a factor of 2.5 of
// the truth. A no-op task's wait and run fall in the first buckets; a task
// that waits a minute is an outage, and beyond 60 s only +Inf counts it.
// Scrapers that take native histograms get 8 buckets per power of two
// instead.
var taskBuckets = []float64{
	1e-6, 2.5e-6, 5e-6,
	1e-5, 2.5e-5, 5e-5,
	1e-4, 2.5e-4, 5e-4,
	1e-3, 2.5e-3, 5e-3,
	1e-2, 2.5e-2, 5e-2,
	0.1, 0.25, 0.5,
	1, 2.5, 5,
	10, 25, 60,
}

// Native histogram settings, as client_golang's documentation recommends:
// a bucket factor of 1.1 gives 8 buckets per power of two (about 9% wide);
// at most 160 populated buckets, enough for 20 powers of two (1 µs to 1 s)
// at full resolution. Past that, sub-microsecond observations are folded
// into the zero bucket first (up to 2^-20 s, about 0.95 µs, where the
// classic buckets start), then the resolution is halved, and both are
// restored an hour after the last reset.
const (
	nativeBucketFactor     = 1.1
	nativeMaxBuckets       = 160
	nativeMaxZeroThresh    = 0x1p-20
	nativeMinResetDuration = time.Hour
)

// TaskObserver records the wait and run time of a pool's tasks in two
// Prometheus histograms, labelled pool=name:
//
//	ants_pool_task_wait_seconds  histogram  from the submit call to the task's start
//	ants_pool_task_run_seconds   histogram  the task's running time, panicked or not
//
// Give it to the pool with ants.WithObserver and register it with the
// registry that scrapes the pool's collector (NewCollector), under the same
// name. Both histograms have classic buckets, 1, 2.5 and 5 times each
// power of ten from 1 µs to 25 s and then 60 s, and native buckets as well:
// a Prometheus that scrapes native histograms (in the protobuf format) gets
// fine-grained quantiles, one that does not gets the classic buckets.
//
// A TaskObserver is created by NewTaskObserver. It is safe for concurrent
// use by multiple goroutines: the pool's workers call TaskDone while a
// registry calls Collect. It starts no goroutine.
type TaskObserver struct {
	wait, run prometheus.Histogram
}

var (
	_ ants.Observer        = (*TaskObserver)(nil)
	_ prometheus.Collector = (*TaskObserver)(nil)
)

// NewTaskObserver returns a TaskObserver whose series are labelled
// pool=name. Give each pool registered with one registry its own name.
func NewTaskObserver(name string) *TaskObserver {
	histogram := func(fqName, help string) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:                            fqName,
			Help:                            help,
			ConstLabels:                     prometheus.Labels{"pool": name},
			Buckets:                         taskBuckets,
			NativeHistogramBucketFactor:     nativeBucketFactor,
			NativeHistogramMaxBucketNumber:  nativeMaxBuckets,
			NativeHistogramMaxZeroThreshold: nativeMaxZeroThresh,
			NativeHistogramMinResetDuration: nativeMinResetDuration,
		})
	}
	return &TaskObserver{
		wait: histogram("ants_pool_task_wait_seconds",
			"Time from a task's submit call to its start, in seconds."),
		run: histogram("ants_pool_task_run_seconds",
			"Running time of a task, in seconds; tasks that panicked count too."),
	}
}

// TaskDone records one task: wait and run in their histograms. A task that
// panicked counts in both like any other; the collector's
// ants_pool_panicked_tasks_total counts the panics.
func (o *TaskObserver) TaskDone(wait, run time.Duration, panicked bool) {
	o.wait.Observe(wait.Seconds())
	o.run.Observe(run.Seconds())
}

// Describe sends the descriptions of the two histograms.
func (o *TaskObserver) Describe(ch chan<- *prometheus.Desc) {
	o.wait.Describe(ch)
	o.run.Describe(ch)
}

// Collect sends the two histograms as they are now.
func (o *TaskObserver) Collect(ch chan<- prometheus.Metric) {
	o.wait.Collect(ch)
	o.run.Collect(ch)
}
