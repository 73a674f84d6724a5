// Package antsprom exports the Stats of an ants pool as Prometheus metrics.
//
// It is a module of its own (github.com/e62cffed/ants/prometheus), so that
// the ants module itself keeps no dependency: only programs that import
// antsprom pull in client_golang.
//
//	p, _ := ants.NewPool(64, ants.WithQueueSize(256))
//	prometheus.MustRegister(antsprom.NewCollector("work", p))
//
// A scrape then reads (with pool="work" on every series):
//
//	ants_pool_capacity_workers      gauge    Cap: most workers at once; -1 if unlimited
//	ants_pool_running_workers       gauge    Running: worker goroutines, busy or idle
//	ants_pool_idle_workers          gauge    Idle: workers waiting for a task
//	ants_pool_waiting_callers       gauge    Waiting: callers blocked in a submit
//	ants_pool_queued_tasks          gauge    Queued: tasks in the task buffer
//	ants_pool_paused                gauge    Paused: 1 if the pool is paused, else 0
//	ants_pool_submitted_tasks_total counter  Submitted: tasks accepted
//	ants_pool_completed_tasks_total counter  Completed: tasks that returned
//	ants_pool_panicked_tasks_total  counter  Panicked: tasks that panicked
//	ants_pool_rejected_tasks_total  counter  Rejected: submit calls that failed
//	ants_pool_dropped_tasks_total   counter  Dropped: tasks accepted, then dropped before they ran
//
// and, from the pool's RateLimit (every pool kind of package ants has one;
// a source of one's own without a RateLimit method gets neither series):
//
//	ants_pool_rate_limit_tasks_per_second  gauge  most tasks started a second on average; +Inf if no limit
//	ants_pool_rate_limit_burst_tasks       gauge  most tasks started in a row; +Inf if no limit
//
// Busy workers are running minus idle; tasks in flight are submitted minus
// completed minus panicked minus dropped. A shedding service alerts on
// rate(ants_pool_rejected_tasks_total[5m]), and, if its pool drops waiting
// work (ants.WithQueueTimeout, ants.WithQueueTarget, or a context that ended
// while its task was buffered), on rate(ants_pool_dropped_tasks_total[5m])
// as well: a task refused at its submit call is rejected, one accepted and
// given up later is dropped, and either is a request not served. A
// multi-pool is paused if any of its member pools is, and its limit is the
// one it was given, which its member pools share (see
// ants.MultiPool.SetRateLimit).
//
// No series carries a flow (ants.ContextWithFlow), by default or by
// option: flows are tenants, users or clients, unbounded in number, and a
// label per flow would make a series per tenant in every scrape. A program
// that wants per-tenant figures times its tasks itself, with the few
// labels it can afford.
//
// A pool with no rate limit exports +Inf for both, not 0 or nothing: no
// limit is a limit of +Inf, and the arithmetic then needs no special case.
// rate(ants_pool_submitted_tasks_total[1m]) / ants_pool_rate_limit_tasks_per_second
// is 0 for such a pool, and an alert on that ratio nearing 1 never fires,
// where 0 (read as a limit that lets nothing start) would make the ratio
// +Inf and fire it at once. A series that is always there also tells a pool with
// no limit from one that is not scraped. The pool's own "no limit" values
// (any perSecond <= 0 or +Inf, and a burst it does not check) all become
// this one.
//
// A sub-pool (*ants.Subpool) has no workers: its tasks run on its parent's,
// and its Stats count tasks and slots. So it gets series of its own, named
// for what they count, and none for Idle and Queued, which are always 0 for
// it (its tasks wait in the parent):
//
//	ants_subpool_capacity_tasks        gauge    Cap: most tasks holding a slot at once; -1 if no limit of its own
//	ants_subpool_running_tasks         gauge    Running: its tasks running on the parent's workers
//	ants_subpool_waiting_callers       gauge    Waiting: callers waiting for a slot
//	ants_subpool_paused                gauge    Paused: 1 if the sub-pool is paused (it hands no task to its parent), else 0
//	ants_subpool_submitted_tasks_total counter  Submitted: its tasks the parent accepted
//	ants_subpool_completed_tasks_total counter  Completed: its tasks that returned
//	ants_subpool_panicked_tasks_total  counter  Panicked: its tasks that panicked
//	ants_subpool_rejected_tasks_total  counter  Rejected: its submit calls that failed, whoever refused them
//	ants_subpool_dropped_tasks_total   counter  Dropped: its tasks accepted, then dropped before they ran
//
// and, from its RateLimit, which paces the tasks it hands to its parent:
//
//	ants_subpool_rate_limit_tasks_per_second  gauge  most tasks handed to the parent a second on average; +Inf if no limit
//	ants_subpool_rate_limit_burst_tasks       gauge  most tasks handed to the parent in a row; +Inf if no limit
//
// The parent's series count a sub-pool's tasks too, since its workers run
// them.
//
// The collector follows client_golang's collectors.NewDBStatsCollector: its
// descriptions are built once, every Collect takes one Stats snapshot and
// turns it into constant metrics, and nothing runs between scrapes (no
// goroutine, no cache). A scrape costs one Stats call, which takes the
// pool's lock once, one RateLimit call, which takes a lock once more, and
// the encoding of thirteen series (eleven for a sub-pool; two fewer, and no
// RateLimit call, for a source without that method).
//
// How long tasks wait for a worker and how long they run is what the
// counters cannot tell; a TaskObserver, given to the pool with
// ants.WithObserver and registered beside the collector, records both:
//
//	obs := antsprom.NewTaskObserver("work")
//	p, _ := ants.NewPool(64, ants.WithQueueSize(256), ants.WithObserver(obs))
//	prometheus.MustRegister(antsprom.NewCollector("work", p), obs)
//
//	ants_pool_task_wait_seconds       histogram  from the submit call to the task's start
//	ants_pool_task_run_seconds        histogram  the task's running time
//	ants_pool_task_drops_total        counter    tasks dropped before they ran, by reason
//	ants_pool_task_drop_wait_seconds  histogram  from the submit call to the task's drop
//
// The last two come from its TaskDropped, for a pool that drops waiting
// work (ants.WithQueueTimeout, ants.WithQueueTarget, or a context that
// ended while its task was buffered): a TaskObserver is an
// ants.DropObserver. The reason label is "timeout" for ants.ErrQueueTimeout,
// "canceled" for context.Canceled, "deadline" for
// context.DeadlineExceeded and "other" for anything else, four series
// exported from the start; no other label is added, so the series stay
// four however many tasks or callers there are. How many drops were timeouts
// of the queue's own and how many were callers giving up, and how long the
// dropped tasks had waited, is what the collector's
// ants_pool_dropped_tasks_total cannot tell:
//
//	sum by (reason) (rate(ants_pool_task_drops_total{pool="work"}[5m]))
//
// Its TaskDone makes two histogram observations on the worker, its
// TaskDropped one counter increment and one observation, and neither
// allocates; BenchmarkTaskObserverTaskDone and
// BenchmarkTaskObserverTaskDropped measure them.
package antsprom

import (
	"math"

	"github.com/e62cffed/ants"
	"github.com/prometheus/client_golang/prometheus"
)

// StatsSource is anything whose state and counters come as an ants.Stats:
// every pool kind of package ants (Pool, PoolWithFunc, PoolWithFuncGeneric,
// MultiPool, MultiPoolWithFunc, MultiPoolWithFuncGeneric, Subpool), or a
// type of one's own. Stats must be safe to call from the goroutine that
// scrapes. A source that also has a method
//
//	RateLimit() (perSecond float64, burst int)
//
// as every pool kind of package ants has, gets the rate limit's series
// too; RateLimit must then be safe to call from that goroutine as well.
type StatsSource interface {
	Stats() ants.Stats
}

// rateLimiter is a StatsSource's optional rate limit, as the pools of
// package ants report theirs: perSecond <= 0 or +Inf means none.
type rateLimiter interface {
	RateLimit() (perSecond float64, burst int)
}

// metric is one exported figure: how it is described and where in a Stats
// snapshot its value is.
type metric struct {
	desc      *prometheus.Desc
	valueType prometheus.ValueType
	value     func(ants.Stats) float64
}

// collector is the prometheus.Collector that NewCollector returns. Its
// fields are set once by NewCollector and only read afterwards, so it is
// safe for the concurrent Collect calls a registry makes.
type collector struct {
	source  StatsSource
	metrics []metric // in the order of ants.Stats' fields

	limiter             rateLimiter      // source, if it has RateLimit; else nil
	rateDesc, burstDesc *prometheus.Desc // the limit's series; nil without limiter
}

// NewCollector returns a collector of s's Stats, each series labelled
// pool=name; give every pool that is registered with the same registry its
// own name (a registry refuses two collectors whose series are the same).
// A *ants.Subpool gets the ants_subpool_ series, any other source the
// ants_pool_ ones. Each Collect calls s.Stats once, and s.RateLimit once
// if s has that method (see StatsSource). It panics, with the prefix
// "antsprom:", if s is nil.
func NewCollector(name string, s StatsSource) prometheus.Collector {
	if s == nil {
		panic("antsprom: NewCollector with a nil StatsSource")
	}
	series, limit := poolSeries, poolLimit
	if _, ok := s.(*ants.Subpool); ok {
		series, limit = subpoolSeries, subpoolLimit
	}
	labels := prometheus.Labels{"pool": name}
	metrics := make([]metric, len(series))
	for i, f := range series {
		metrics[i] = metric{prometheus.NewDesc(f.name, f.help, nil, labels), f.valueType, f.value}
	}
	c := &collector{source: s, metrics: metrics}
	if l, ok := s.(rateLimiter); ok {
		c.limiter = l
		c.rateDesc = prometheus.NewDesc(limit.rate, limit.rateHelp, nil, labels)
		c.burstDesc = prometheus.NewDesc(limit.burst, limit.burstHelp, nil, labels)
	}
	return c
}

// figure is one series a collector exports, before it is labelled.
type figure struct {
	name, help string
	valueType  prometheus.ValueType
	value      func(ants.Stats) float64
}

// The ValueTypes of the series, short for the tables below.
const (
	gauge   = prometheus.GaugeValue
	counter = prometheus.CounterValue
)

// poolSeries are the series of a pool of workers, in the order of
// ants.Stats' fields.
var poolSeries = []figure{
	{"ants_pool_capacity_workers", "Most worker goroutines the pool runs at once (its Cap); -1 if unlimited.",
		gauge, func(s ants.Stats) float64 { return float64(s.Cap) }},
	{"ants_pool_running_workers", "Worker goroutines of the pool, busy or idle.",
		gauge, func(s ants.Stats) float64 { return float64(s.Running) }},
	{"ants_pool_idle_workers", "Worker goroutines waiting for a task.",
		gauge, func(s ants.Stats) float64 { return float64(s.Idle) }},
	{"ants_pool_waiting_callers", "Callers blocked in a submit, waiting for a worker.",
		gauge, func(s ants.Stats) float64 { return float64(s.Waiting) }},
	{"ants_pool_queued_tasks", "Tasks in the pool's task buffer, accepted and not yet started.",
		gauge, func(s ants.Stats) float64 { return float64(s.Queued) }},
	{"ants_pool_paused", "1 if the pool is paused (Pause): it starts no task until Resume; else 0.",
		gauge, func(s ants.Stats) float64 { return bool01(s.Paused) }},
	{"ants_pool_submitted_tasks_total", "Tasks accepted: their submit call returned nil.",
		counter, func(s ants.Stats) float64 { return float64(s.Submitted) }},
	{"ants_pool_completed_tasks_total", "Tasks that returned.",
		counter, func(s ants.Stats) float64 { return float64(s.Completed) }},
	{"ants_pool_panicked_tasks_total", "Tasks that panicked (or called runtime.Goexit).",
		counter, func(s ants.Stats) float64 { return float64(s.Panicked) }},
	{"ants_pool_rejected_tasks_total", "Submit calls that returned an error: pool full, closed, context done or nil task.",
		counter, func(s ants.Stats) float64 { return float64(s.Rejected) }},
	{"ants_pool_dropped_tasks_total", "Tasks accepted and then dropped before they ran: queue timeout, queue target, or context done while waiting.",
		counter, func(s ants.Stats) float64 { return float64(s.Dropped) }},
}

// subpoolSeries are the series of a sub-pool, whose figures count tasks
// and slots, not workers: those of ants.Subpool.Stats but Idle and Queued.
var subpoolSeries = []figure{
	{"ants_subpool_capacity_tasks", "Most tasks of the sub-pool that hold a slot at once (its Cap); -1 if it has no limit of its own.",
		gauge, func(s ants.Stats) float64 { return float64(s.Cap) }},
	{"ants_subpool_running_tasks", "Tasks of the sub-pool running on its parent's workers: started and not finished.",
		gauge, func(s ants.Stats) float64 { return float64(s.Running) }},
	{"ants_subpool_waiting_callers", "Callers waiting for a slot of the sub-pool.",
		gauge, func(s ants.Stats) float64 { return float64(s.Waiting) }},
	{"ants_subpool_paused", "1 if the sub-pool is paused (Pause): it hands none of its tasks to its parent until Resume; else 0.",
		gauge, func(s ants.Stats) float64 { return bool01(s.Paused) }},
	{"ants_subpool_submitted_tasks_total", "Tasks of the sub-pool that its parent accepted.",
		counter, func(s ants.Stats) float64 { return float64(s.Submitted) }},
	{"ants_subpool_completed_tasks_total", "Tasks of the sub-pool that returned.",
		counter, func(s ants.Stats) float64 { return float64(s.Completed) }},
	{"ants_subpool_panicked_tasks_total", "Tasks of the sub-pool that panicked (or called runtime.Goexit).",
		counter, func(s ants.Stats) float64 { return float64(s.Panicked) }},
	{"ants_subpool_rejected_tasks_total", "Submit calls to the sub-pool that returned an error, whoever refused them.",
		counter, func(s ants.Stats) float64 { return float64(s.Rejected) }},
	{"ants_subpool_dropped_tasks_total", "Tasks of the sub-pool accepted and then dropped before they ran, whoever dropped them.",
		counter, func(s ants.Stats) float64 { return float64(s.Dropped) }},
}

// limitNames are the names and help of the two series of a rate limit,
// which come from a source's RateLimit, not its Stats.
type limitNames struct {
	rate, rateHelp   string
	burst, burstHelp string
}

// poolLimit and subpoolLimit are the rate limit's series of a pool of
// workers and of a sub-pool.
var (
	poolLimit = limitNames{
		"ants_pool_rate_limit_tasks_per_second", "Most tasks the pool starts a second on average (its RateLimit); +Inf if it has no rate limit.",
		"ants_pool_rate_limit_burst_tasks", "Most tasks the pool starts in a row under its rate limit (its burst); +Inf if it has no rate limit.",
	}
	subpoolLimit = limitNames{
		"ants_subpool_rate_limit_tasks_per_second", "Most tasks the sub-pool hands to its parent a second on average (its RateLimit); +Inf if it has no rate limit.",
		"ants_subpool_rate_limit_burst_tasks", "Most tasks the sub-pool hands to its parent in a row under its rate limit (its burst); +Inf if it has no rate limit.",
	}
)

// bool01 is 1 for true and 0 for false.
func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// limitValues are the values of a rate limit's two series: perSecond and
// burst if they are a limit (0 < perSecond < +Inf), else +Inf for both.
func limitValues(perSecond float64, burst int) (rate, burstValue float64) {
	if !(perSecond > 0) || math.IsInf(perSecond, 1) {
		return math.Inf(1), math.Inf(1)
	}
	return perSecond, float64(burst)
}

// Describe sends the descriptions of the collector's series.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.metrics {
		ch <- m.desc
	}
	if c.limiter != nil {
		ch <- c.rateDesc
		ch <- c.burstDesc
	}
}

// Collect takes one Stats snapshot, and one RateLimit reading if the
// source has one, and sends the series made from them.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.source.Stats()
	for _, m := range c.metrics {
		ch <- prometheus.MustNewConstMetric(m.desc, m.valueType, m.value(s))
	}
	if c.limiter != nil {
		rate, burst := limitValues(c.limiter.RateLimit())
		ch <- prometheus.MustNewConstMetric(c.rateDesc, gauge, rate)
		ch <- prometheus.MustNewConstMetric(c.burstDesc, gauge, burst)
	}
}
