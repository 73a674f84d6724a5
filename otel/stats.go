// Package antsotel exports an ants pool's Stats and its tasks' wait and run
// time as OpenTelemetry metrics.
//
// It is a module of its own (github.com/e62cffed/ants/otel), so that the
// ants module itself keeps no dependency: only programs that import
// antsotel pull in the OpenTelemetry metric API. It uses only that API
// (go.opentelemetry.io/otel/metric); the program picks the SDK, the
// exporter (OTLP, Prometheus, stdout) and any views.
//
//	meter := otel.Meter("github.com/e62cffed/ants/otel")
//	obs, _ := antsotel.NewTaskObserver(meter, "work")
//	p, _ := ants.NewPool(64, ants.WithQueueSize(256), ants.WithObserver(obs))
//	reg, _ := antsotel.Register(meter, "work", p)
//	defer reg.Unregister()
//
// Every point carries the attribute ants.pool.name="work". Register reads,
// at each collection:
//
//	ants.pool.capacity          UpDownCounter  {worker}  Cap: most workers at once; -1 if unlimited
//	ants.pool.workers           UpDownCounter  {worker}  Running: worker goroutines, busy or idle
//	ants.pool.idle              UpDownCounter  {worker}  Idle: workers waiting for a task
//	ants.pool.waiting           UpDownCounter  {caller}  Waiting: callers blocked in a submit
//	ants.pool.queued            UpDownCounter  {task}    Queued: tasks in the task buffer
//	ants.pool.paused            UpDownCounter  {pool}    Paused: 1 if the pool is paused, else 0
//	ants.pool.tasks.submitted   Counter        {task}    Submitted: tasks accepted
//	ants.pool.tasks.completed   Counter        {task}    Completed: tasks that returned
//	ants.pool.tasks.panicked    Counter        {task}    Panicked: tasks that panicked
//	ants.pool.tasks.rejected    Counter        {call}    Rejected: submit calls that failed
//	ants.pool.tasks.dropped     Counter        {task}    Dropped: tasks accepted, then dropped before they ran
//
// and, from the pool's RateLimit (every pool kind of package ants, and
// Subpool, has one; a source of one's own without a RateLimit method gets
// neither instrument), as float64:
//
//	ants.pool.rate_limit.rate   UpDownCounter  {task}/s  most tasks started a second on average; +Inf if no limit
//	ants.pool.rate_limit.burst  UpDownCounter  {task}    most tasks started in a row; +Inf if no limit
//
// and a TaskObserver records, for each task the pool runs:
//
//	ants.pool.task.wait.duration  Histogram  s  from the submit call to the task's start
//	ants.pool.task.run.duration   Histogram  s  the task's running time, panicked or not
//
// and, for each task the pool drops before it ran (ants.WithQueueTimeout,
// ants.WithQueueTarget, or a context that ended while its task was
// buffered), as it is an ants.DropObserver:
//
//	ants.pool.task.drops               Counter    {task}  tasks dropped, with ants.pool.drop.reason
//	ants.pool.task.drop.wait.duration  Histogram  s       from the submit call to the task's drop
//
// ants.pool.drop.reason (DropReasonKey) is "timeout" for
// ants.ErrQueueTimeout, "canceled" for context.Canceled, "deadline" for
// context.DeadlineExceeded and "other" for any other error: four values,
// and no attribute beside it and the pool's name, so that a pool has at
// most four points of the counter however many tasks or callers there
// are. Register's ants.pool.tasks.dropped counts every drop; the observer's
// counter tells which were the queue's own timeouts and which were callers
// giving up, and its histogram how long the dropped tasks had waited. A
// task that is refused at its submit call is rejected, not dropped.
//
// The figures are UpDownCounters rather than Gauges because they add up
// across pools: the workers of all pools are the sum of each pool's, as
// OpenTelemetry's semantic conventions count a connection pool's
// connections. Busy workers are workers minus idle; tasks in flight are
// submitted minus completed minus panicked minus dropped. The paused
// instrument adds up to the number of pools paused (a multi-pool counts as
// paused if any of its member pools is); the rate limits add up to a bound
// on the rate at which the pools together start tasks, as the semantic
// conventions' db.client.connection.max is an UpDownCounter. A sub-pool's
// rate limit paces the tasks it hands to its parent; a multi-pool's is the
// limit it was given, which its member pools share.
//
// A pool with no rate limit reports +Inf for both, not 0 and not nothing:
// no limit is a limit of +Inf, and the arithmetic then needs no special
// case. The rate of started tasks divided by the limit is 0 for such a
// pool, and an alert on that ratio nearing 1 never fires, where 0 (read as
// a limit that lets nothing start) would make the ratio +Inf and fire it
// at once; a sum over pools of which one has no limit is +Inf, as the
// bound on their total is. A point that is always there also tells a pool
// with no limit from one that is not collected. The pool's own "no limit"
// values (any perSecond <= 0 or +Inf, and a burst it does not check) all
// become this one.
//
// What it costs: Register's one callback calls Stats once per collection,
// which takes the pool's lock once, and RateLimit once, which takes a lock
// once more, and nothing runs between collections.
// TaskDone records two histogram measurements with an attribute set made
// once, on the worker, and allocates nothing, as does TaskDropped, one
// counter and one histogram measurement; BenchmarkTaskObserverTaskDone and
// BenchmarkTaskObserverTaskDropped measure them.
package antsotel

import (
	"context"
	"errors"
	"math"

	"github.com/e62cffed/ants"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// PoolNameKey is the attribute that names the pool on every point.
const PoolNameKey = attribute.Key("ants.pool.name")

// StatsSource is anything whose state and counters come as an ants.Stats:
// every pool kind of package ants (Pool, PoolWithFunc, PoolWithFuncGeneric,
// MultiPool, MultiPoolWithFunc, MultiPoolWithFuncGeneric, Subpool), or a
// type of one's own. Stats must be safe to call from the goroutine that
// collects. A source that also has a method
//
//	RateLimit() (perSecond float64, burst int)
//
// as every pool kind of package ants has, gets the rate limit's
// instruments too; RateLimit must then be safe to call from that goroutine
// as well.
type StatsSource interface {
	Stats() ants.Stats
}

// rateLimiter is a StatsSource's optional rate limit, as the pools of
// package ants report theirs: perSecond <= 0 or +Inf means none.
type rateLimiter interface {
	RateLimit() (perSecond float64, burst int)
}

// gauge is one UpDownCounter made from a Stats snapshot.
type gauge struct {
	inst  metric.Int64ObservableUpDownCounter
	value func(ants.Stats) int
}

// counter is one Counter made from a Stats snapshot.
type counter struct {
	inst  metric.Int64ObservableCounter
	value func(ants.Stats) uint64
}

// Register creates on meter the eleven asynchronous instruments of pool's
// Stats, and the two of its rate limit if pool has a RateLimit method (see
// the package doc), and one callback that observes them all from one Stats
// call (and one RateLimit call) per collection, each point with the
// attribute ants.pool.name=name. Register each pool once per meter, under a name of
// its own; Unregister the returned Registration when the pool is gone, or
// the callback keeps it alive and keeps reporting it. It returns an error
// if meter or pool is nil or meter refuses an instrument or the callback.
func Register(meter metric.Meter, name string, pool StatsSource) (metric.Registration, error) {
	if meter == nil {
		return nil, errors.New("antsotel: Register with a nil metric.Meter")
	}
	if pool == nil {
		return nil, errors.New("antsotel: Register with a nil StatsSource")
	}
	var errs []error
	gaugeOf := func(instName, unit, desc string, value func(ants.Stats) int) gauge {
		inst, err := meter.Int64ObservableUpDownCounter(instName,
			metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return gauge{inst, value}
	}
	counterOf := func(instName, unit, desc string, value func(ants.Stats) uint64) counter {
		inst, err := meter.Int64ObservableCounter(instName,
			metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return counter{inst, value}
	}
	gauges := []gauge{
		gaugeOf("ants.pool.capacity", "{worker}",
			"Most worker goroutines the pool runs at once (its Cap); -1 if unlimited.",
			func(s ants.Stats) int { return s.Cap }),
		gaugeOf("ants.pool.workers", "{worker}",
			"Worker goroutines of the pool, busy or idle.",
			func(s ants.Stats) int { return s.Running }),
		gaugeOf("ants.pool.idle", "{worker}",
			"Worker goroutines waiting for a task.",
			func(s ants.Stats) int { return s.Idle }),
		gaugeOf("ants.pool.waiting", "{caller}",
			"Callers blocked in a submit, waiting for a worker.",
			func(s ants.Stats) int { return s.Waiting }),
		gaugeOf("ants.pool.queued", "{task}",
			"Tasks in the pool's task buffer, accepted and not yet started.",
			func(s ants.Stats) int { return s.Queued }),
		gaugeOf("ants.pool.paused", "{pool}",
			"1 if the pool is paused (Pause): it starts no task until Resume; else 0.",
			func(s ants.Stats) int {
				if s.Paused {
					return 1
				}
				return 0
			}),
	}
	counters := []counter{
		counterOf("ants.pool.tasks.submitted", "{task}",
			"Tasks accepted: their submit call returned nil.",
			func(s ants.Stats) uint64 { return s.Submitted }),
		counterOf("ants.pool.tasks.completed", "{task}",
			"Tasks that returned.",
			func(s ants.Stats) uint64 { return s.Completed }),
		counterOf("ants.pool.tasks.panicked", "{task}",
			"Tasks that panicked (or called runtime.Goexit).",
			func(s ants.Stats) uint64 { return s.Panicked }),
		counterOf("ants.pool.tasks.rejected", "{call}",
			"Submit calls that returned an error: pool full, closed, context done or nil task.",
			func(s ants.Stats) uint64 { return s.Rejected }),
		counterOf("ants.pool.tasks.dropped", "{task}",
			"Tasks accepted and then dropped before they ran: queue timeout, queue target, or context done while waiting.",
			func(s ants.Stats) uint64 { return s.Dropped }),
	}
	limiter, _ := pool.(rateLimiter)
	var rate, burst metric.Float64ObservableUpDownCounter
	if limiter != nil {
		var err error
		rate, err = meter.Float64ObservableUpDownCounter("ants.pool.rate_limit.rate",
			metric.WithUnit("{task}/s"),
			metric.WithDescription("Most tasks the pool starts a second on average (its RateLimit); +Inf if it has no rate limit."))
		errs = append(errs, err)
		burst, err = meter.Float64ObservableUpDownCounter("ants.pool.rate_limit.burst",
			metric.WithUnit("{task}"),
			metric.WithDescription("Most tasks the pool starts in a row under its rate limit (its burst); +Inf if it has no rate limit."))
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	observables := make([]metric.Observable, 0, len(gauges)+len(counters)+2)
	for _, g := range gauges {
		observables = append(observables, g.inst)
	}
	for _, c := range counters {
		observables = append(observables, c.inst)
	}
	if limiter != nil {
		observables = append(observables, rate, burst)
	}
	attrs := metric.WithAttributeSet(attribute.NewSet(PoolNameKey.String(name)))
	return meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		s := pool.Stats()
		for _, g := range gauges {
			o.ObserveInt64(g.inst, int64(g.value(s)), attrs)
		}
		for _, c := range counters {
			// A uint64 counter passes 2^63 after centuries at a billion
			// tasks a second; the conversion cannot wrap in practice.
			o.ObserveInt64(c.inst, int64(c.value(s)), attrs)
		}
		if limiter != nil {
			r, b := limitValues(limiter.RateLimit())
			o.ObserveFloat64(rate, r, attrs)
			o.ObserveFloat64(burst, b, attrs)
		}
		return nil
	}, observables...)
}

// limitValues are the values of a rate limit's two instruments: perSecond
// and burst if they are a limit (0 < perSecond < +Inf), else +Inf for both.
func limitValues(perSecond float64, burst int) (rate, burstValue float64) {
	if !(perSecond > 0) || math.IsInf(perSecond, 1) {
		return math.Inf(1), math.Inf(1)
	}
	return perSecond, float64(burst)
}
