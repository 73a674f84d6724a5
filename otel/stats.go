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
//	ants.pool.tasks.submitted   Counter        {task}    Submitted: tasks accepted
//	ants.pool.tasks.completed   Counter        {task}    Completed: tasks that returned
//	ants.pool.tasks.panicked    Counter        {task}    Panicked: tasks that panicked
//	ants.pool.tasks.rejected    Counter        {call}    Rejected: submit calls that failed
//
// and a TaskObserver records, for each task the pool runs:
//
//	ants.pool.task.wait.duration  Histogram  s  from the submit call to the task's start
//	ants.pool.task.run.duration   Histogram  s  the task's running time, panicked or not
//
// The figures are UpDownCounters rather than Gauges because they add up
// across pools: the workers of all pools are the sum of each pool's, as
// OpenTelemetry's semantic conventions count a connection pool's
// connections. Busy workers are workers minus idle.
//
// What it costs: Register's one callback calls Stats once per collection,
// which takes the pool's lock once, and nothing runs between collections.
// TaskDone records two histogram measurements with an attribute set made
// once; with the SDK's explicit-bucket histograms that is a few hundred
// nanoseconds on the worker, and no allocation
// (BenchmarkTaskObserverTaskDone).
package antsotel

import (
	"context"
	"errors"

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
// collects.
type StatsSource interface {
	Stats() ants.Stats
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

// Register creates the nine asynchronous instruments of pool's Stats on
// meter (see the package doc) and one callback that observes them all from
// one Stats call per collection, each point with the attribute
// ants.pool.name=name. Register each pool once per meter, under a name of
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
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	observables := make([]metric.Observable, 0, len(gauges)+len(counters))
	for _, g := range gauges {
		observables = append(observables, g.inst)
	}
	for _, c := range counters {
		observables = append(observables, c.inst)
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
		return nil
	}, observables...)
}
