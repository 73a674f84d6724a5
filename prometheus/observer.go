package antsprom

import (
	"context"
	"errors"
	"time"

	"github.com/e62cffed/ants"
	"github.com/prometheus/client_golang/prometheus"
)

// taskBuckets are the upper bounds, in seconds, of the classic buckets of
// the histograms of a TaskObserver: 1, 2.5 and 5 times each power of ten
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
// Prometheus histograms, and the tasks the pool dropped before they ran in
// a counter and a histogram of their own, all labelled pool=name:
//
//	ants_pool_task_wait_seconds       histogram  from the submit call to the task's start
//	ants_pool_task_run_seconds        histogram  the task's running time, panicked or not
//	ants_pool_task_drops_total        counter    tasks dropped before they ran, by reason
//	ants_pool_task_drop_wait_seconds  histogram  from the submit call to the task's drop
//
// Give it to the pool with ants.WithObserver and register it with the
// registry that scrapes the pool's collector (NewCollector), under the same
// name. The histograms have classic buckets, 1, 2.5 and 5 times each
// power of ten from 1 µs to 25 s and then 60 s, and native buckets as well:
// a Prometheus that scrapes native histograms (in the protobuf format) gets
// fine-grained quantiles, one that does not gets the classic buckets.
//
// The drop series come from TaskDropped: a TaskObserver is an
// ants.DropObserver, so a pool that drops waiting work
// (ants.WithQueueTimeout, ants.WithQueueTarget, or a context that ended
// while its task was buffered) tells it of each drop. The counter's reason
// label is one of four values, from the drop's error:
//
//	timeout   ants.ErrQueueTimeout: it waited past the queue timeout, or past twice the queue target while the pool was overloaded
//	canceled  context.Canceled: its context was canceled while it waited
//	deadline  context.DeadlineExceeded: its context's deadline passed while it waited
//	other     any other error
//
// All four series of the counter are exported from the start, at 0, so
// that a rate over them is defined before the first drop. A dropped task
// is in neither ants_pool_task_wait_seconds nor ants_pool_task_run_seconds,
// which count the tasks that ran; the sum of the counter over its reasons
// is the collector's ants_pool_dropped_tasks_total, for the drops since the
// observer was given to the pool.
//
// A TaskObserver is created by NewTaskObserver. It is safe for concurrent
// use by multiple goroutines: the pool's workers call TaskDone and
// TaskDropped while a registry calls Collect. It starts no goroutine.
type TaskObserver struct {
	wait, run prometheus.Histogram
	dropWait  prometheus.Histogram
	drops     *prometheus.CounterVec
	// dropsBy are the counter's series, one per reason, resolved once so
	// that TaskDropped looks up no label.
	dropsBy [len(dropReasons)]prometheus.Counter
}

var (
	_ ants.Observer        = (*TaskObserver)(nil)
	_ ants.DropObserver    = (*TaskObserver)(nil)
	_ prometheus.Collector = (*TaskObserver)(nil)
)

// The values of the reason label of ants_pool_task_drops_total, in the
// order of dropReasons.
const (
	reasonTimeout = iota
	reasonCanceled
	reasonDeadline
	reasonOther
)

// dropReasons are the values of the reason label, indexed by the reason
// constants.
var dropReasons = [...]string{
	reasonTimeout:  "timeout",
	reasonCanceled: "canceled",
	reasonDeadline: "deadline",
	reasonOther:    "other",
}

// dropReason is the reason constant of a drop's error.
func dropReason(err error) int {
	switch {
	case errors.Is(err, ants.ErrQueueTimeout):
		return reasonTimeout
	case errors.Is(err, context.Canceled):
		return reasonCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return reasonDeadline
	default:
		return reasonOther
	}
}

// NewTaskObserver returns a TaskObserver whose series are labelled
// pool=name. Give each pool registered with one registry its own name.
func NewTaskObserver(name string) *TaskObserver {
	labels := prometheus.Labels{"pool": name}
	histogram := func(fqName, help string) prometheus.Histogram {
		return prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:                            fqName,
			Help:                            help,
			ConstLabels:                     labels,
			Buckets:                         taskBuckets,
			NativeHistogramBucketFactor:     nativeBucketFactor,
			NativeHistogramMaxBucketNumber:  nativeMaxBuckets,
			NativeHistogramMaxZeroThreshold: nativeMaxZeroThresh,
			NativeHistogramMinResetDuration: nativeMinResetDuration,
		})
	}
	o := &TaskObserver{
		wait: histogram("ants_pool_task_wait_seconds",
			"Time from a task's submit call to its start, in seconds."),
		run: histogram("ants_pool_task_run_seconds",
			"Running time of a task, in seconds; tasks that panicked count too."),
		dropWait: histogram("ants_pool_task_drop_wait_seconds",
			"Time from a dropped task's submit call to its drop, in seconds."),
		drops: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name:        "ants_pool_task_drops_total",
			Help:        "Tasks the pool accepted and dropped before they ran, by reason: timeout, canceled, deadline or other.",
			ConstLabels: labels,
		}, []string{"reason"}),
	}
	for i, reason := range dropReasons {
		o.dropsBy[i] = o.drops.WithLabelValues(reason)
	}
	return o
}

// TaskDone records one task: wait and run in their histograms. A task that
// panicked counts in both like any other; the collector's
// ants_pool_panicked_tasks_total counts the panics.
func (o *TaskObserver) TaskDone(wait, run time.Duration, panicked bool) {
	o.wait.Observe(wait.Seconds())
	o.run.Observe(run.Seconds())
}

// TaskDropped records one dropped task: one more in the counter, under the
// reason of err (see TaskObserver), and its wait in the drop wait
// histogram. Like TaskDone it allocates nothing.
func (o *TaskObserver) TaskDropped(wait time.Duration, err error) {
	o.dropsBy[dropReason(err)].Inc()
	o.dropWait.Observe(wait.Seconds())
}

// Describe sends the descriptions of the observer's series.
func (o *TaskObserver) Describe(ch chan<- *prometheus.Desc) {
	o.wait.Describe(ch)
	o.run.Describe(ch)
	o.drops.Describe(ch)
	o.dropWait.Describe(ch)
}

// Collect sends the observer's series as they are now.
func (o *TaskObserver) Collect(ch chan<- prometheus.Metric) {
	o.wait.Collect(ch)
	o.run.Collect(ch)
	o.drops.Collect(ch)
	o.dropWait.Collect(ch)
}
