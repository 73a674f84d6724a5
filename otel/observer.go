package antsotel

import (
	"context"
	"errors"
	"time"

	"github.com/e62cffed/ants"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// TaskBoundaries are the explicit bucket boundaries, in seconds, that a
// TaskObserver advises for both its histograms: 1, 2.5 and 5 times each
// power of ten from 1 µs to 25 s, then 60 s, the classic buckets of
// antsprom's TaskObserver. The SDK's default boundaries (0 to 10000) are
// made for milliseconds and would put every task's time in the first
// bucket or two. A view can replace them, or choose a base-2 exponential
// histogram instead (sdk/metric's AggregationBase2ExponentialHistogram).
func TaskBoundaries() []float64 {
	return []float64{
		1e-6, 2.5e-6, 5e-6,
		1e-5, 2.5e-5, 5e-5,
		1e-4, 2.5e-4, 5e-4,
		1e-3, 2.5e-3, 5e-3,
		1e-2, 2.5e-2, 5e-2,
		0.1, 0.25, 0.5,
		1, 2.5, 5,
		10, 25, 60,
	}
}

// TaskObserver records the wait and run time of a pool's tasks in two
// histograms, ants.pool.task.wait.duration and ants.pool.task.run.duration,
// in seconds, each point with the attribute ants.pool.name. Give it to the
// pool with ants.WithObserver. A task that panicked counts in both like
// any other; ants.pool.tasks.panicked (Register) counts the panics.
//
// A TaskObserver is created by NewTaskObserver. It is safe for concurrent
// use by multiple goroutines, as the pool's workers use it, and starts no
// goroutine.
type TaskObserver struct {
	wait, run metric.Float64Histogram
	// opts holds the one option, the pool's attribute set, made once and
	// passed as it is, so that a measurement allocates no option slice.
	opts []metric.RecordOption
}

var _ ants.Observer = (*TaskObserver)(nil)

// NewTaskObserver creates the two histograms on meter, with the unit s and
// TaskBoundaries as advice, and returns an observer that records in them
// with ants.pool.name=name. It returns an error if meter is nil or refuses
// an instrument.
func NewTaskObserver(meter metric.Meter, name string) (*TaskObserver, error) {
	if meter == nil {
		return nil, errors.New("antsotel: NewTaskObserver with a nil metric.Meter")
	}
	wait, werr := meter.Float64Histogram("ants.pool.task.wait.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Time from a task's submit call to its start."),
		metric.WithExplicitBucketBoundaries(TaskBoundaries()...))
	run, rerr := meter.Float64Histogram("ants.pool.task.run.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Running time of a task; tasks that panicked count too."),
		metric.WithExplicitBucketBoundaries(TaskBoundaries()...))
	if err := errors.Join(werr, rerr); err != nil {
		return nil, err
	}
	attrs := metric.WithAttributeSet(attribute.NewSet(PoolNameKey.String(name)))
	return &TaskObserver{wait: wait, run: run, opts: []metric.RecordOption{attrs}}, nil
}

// TaskDone records one task's wait and run, in seconds. The measurements
// carry no context: a task's trace, if any, is the submitter's business.
func (o *TaskObserver) TaskDone(wait, run time.Duration, panicked bool) {
	ctx := context.Background()
	o.wait.Record(ctx, wait.Seconds(), o.opts...)
	o.run.Record(ctx, run.Seconds(), o.opts...)
}
