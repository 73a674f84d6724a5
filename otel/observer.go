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

// DropReasonKey is the attribute that tells, on each point of
// ants.pool.task.drops, why the tasks were dropped: "timeout" for
// ants.ErrQueueTimeout (they waited past the queue timeout, or past twice
// the queue target while the pool was overloaded), "canceled" for
// context.Canceled, "deadline" for context.DeadlineExceeded, and "other"
// for any other error. These four are all its values.
const DropReasonKey = attribute.Key("ants.pool.drop.reason")

// The values of DropReasonKey, in the order of dropReasons.
const (
	reasonTimeout = iota
	reasonCanceled
	reasonDeadline
	reasonOther
)

// dropReasons are the values of DropReasonKey, indexed by the reason
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

// TaskObserver records the wait and run time of a pool's tasks in two
// histograms, ants.pool.task.wait.duration and ants.pool.task.run.duration,
// in seconds, each point with the attribute ants.pool.name. Give it to the
// pool with ants.WithObserver. A task that panicked counts in both like
// any other; ants.pool.tasks.panicked (Register) counts the panics.
//
// It is an ants.DropObserver as well: a pool that drops waiting work
// (ants.WithQueueTimeout, ants.WithQueueTarget, or a context that ended
// while its task was buffered) tells it of each drop, which it counts in
// ants.pool.task.drops, with the attributes ants.pool.name and
// ants.pool.drop.reason (DropReasonKey), and whose wait it records in
// ants.pool.task.drop.wait.duration, in seconds, with ants.pool.name. A
// dropped task is in neither of the first two histograms, which are the
// tasks that ran. The reason has four values, so a pool has at most four
// points of the counter; the sum over them is Register's
// ants.pool.tasks.dropped, for the drops since the observer was given to
// the pool.
//
// A TaskObserver is created by NewTaskObserver. It is safe for concurrent
// use by multiple goroutines, as the pool's workers use it, and starts no
// goroutine.
type TaskObserver struct {
	wait, run metric.Float64Histogram
	dropWait  metric.Float64Histogram
	drops     metric.Int64Counter
	// opts holds the one option, the pool's attribute set, made once and
	// passed as it is, so that a measurement allocates no option slice.
	opts []metric.RecordOption
	// dropOpts are, for each reason, the attribute set of the pool's name
	// and that reason, made once for the same purpose.
	dropOpts [len(dropReasons)][]metric.AddOption
}

var (
	_ ants.Observer     = (*TaskObserver)(nil)
	_ ants.DropObserver = (*TaskObserver)(nil)
)

// NewTaskObserver creates the instruments of a TaskObserver on meter: the
// three histograms with the unit s and TaskBoundaries as advice, and the
// drop counter with the unit {task}. It returns an observer that records
// in them with ants.pool.name=name. It returns an error if meter is nil or
// refuses an instrument.
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
	drops, derr := meter.Int64Counter("ants.pool.task.drops",
		metric.WithUnit("{task}"),
		metric.WithDescription("Tasks the pool accepted and dropped before they ran, by reason: timeout, canceled, deadline or other."))
	dropWait, dwerr := meter.Float64Histogram("ants.pool.task.drop.wait.duration",
		metric.WithUnit("s"),
		metric.WithDescription("Time from a dropped task's submit call to its drop."),
		metric.WithExplicitBucketBoundaries(TaskBoundaries()...))
	if err := errors.Join(werr, rerr, derr, dwerr); err != nil {
		return nil, err
	}
	pool := PoolNameKey.String(name)
	o := &TaskObserver{
		wait: wait, run: run, dropWait: dropWait, drops: drops,
		opts: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(pool))},
	}
	for i, reason := range dropReasons {
		o.dropOpts[i] = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(pool, DropReasonKey.String(reason)))}
	}
	return o, nil
}

// TaskDone records one task's wait and run, in seconds. The measurements
// carry no context: a task's trace, if any, is the submitter's business.
func (o *TaskObserver) TaskDone(wait, run time.Duration, panicked bool) {
	ctx := context.Background()
	o.wait.Record(ctx, wait.Seconds(), o.opts...)
	o.run.Record(ctx, run.Seconds(), o.opts...)
}

// TaskDropped counts one dropped task under the reason of err (see
// DropReasonKey) and records its wait, in seconds. Like TaskDone, its
// measurements carry no context and allocate no attributes.
func (o *TaskObserver) TaskDropped(wait time.Duration, err error) {
	ctx := context.Background()
	o.drops.Add(ctx, 1, o.dropOpts[dropReason(err)]...)
	o.dropWait.Record(ctx, wait.Seconds(), o.opts...)
}
