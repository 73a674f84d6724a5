package antsprom_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	antsprom "github.com/e62cffed/ants/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// fixed is a StatsSource that returns the same snapshot every time and
// counts its calls.
type fixed struct {
	stats ants.Stats
	calls int
}

func (f *fixed) Stats() ants.Stats {
	f.calls++
	return f.stats
}

// limited is a fixed that also has a rate limit, as the pools of package
// ants do, and counts the calls of RateLimit.
type limited struct {
	fixed
	perSecond  float64
	burst      int
	limitCalls int
}

func (l *limited) RateLimit() (float64, int) {
	l.limitCalls++
	return l.perSecond, l.burst
}

// series is one series of a scrape as the text format shows it.
type series struct {
	name, kind, help string
	value            float64
}

// expose is the text format of a scrape of a collector named name that
// exports series.
func expose(name string, series []series) string {
	var b strings.Builder
	for _, m := range series {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n%s{pool=%q} %g\n", m.name, m.help, m.name, m.kind, m.name, name, m.value)
	}
	return b.String()
}

// exposition is the text format a scrape of a pool's collector named name
// over stats s must produce.
func exposition(name string, s ants.Stats) string {
	return expose(name, []series{
		{"ants_pool_capacity_workers", "gauge", "Most worker goroutines the pool runs at once (its Cap); -1 if unlimited.", float64(s.Cap)},
		{"ants_pool_running_workers", "gauge", "Worker goroutines of the pool, busy or idle.", float64(s.Running)},
		{"ants_pool_idle_workers", "gauge", "Worker goroutines waiting for a task.", float64(s.Idle)},
		{"ants_pool_waiting_callers", "gauge", "Callers blocked in a submit, waiting for a worker.", float64(s.Waiting)},
		{"ants_pool_queued_tasks", "gauge", "Tasks in the pool's task buffer, accepted and not yet started.", float64(s.Queued)},
		{"ants_pool_paused", "gauge", "1 if the pool is paused (Pause): it starts no task until Resume; else 0.", b01(s.Paused)},
		{"ants_pool_submitted_tasks_total", "counter", "Tasks accepted: their submit call returned nil.", float64(s.Submitted)},
		{"ants_pool_completed_tasks_total", "counter", "Tasks that returned.", float64(s.Completed)},
		{"ants_pool_panicked_tasks_total", "counter", "Tasks that panicked (or called runtime.Goexit).", float64(s.Panicked)},
		{"ants_pool_rejected_tasks_total", "counter", "Submit calls that returned an error: pool full, closed, context done or nil task.", float64(s.Rejected)},
		{"ants_pool_dropped_tasks_total", "counter", "Tasks accepted and then dropped before they ran: queue timeout, queue target, or context done while waiting.", float64(s.Dropped)},
	})
}

// subpoolExposition is exposition for a sub-pool's collector: its figures
// count tasks, and Idle and Queued are not exported.
func subpoolExposition(name string, s ants.Stats) string {
	return expose(name, []series{
		{"ants_subpool_capacity_tasks", "gauge", "Most tasks of the sub-pool that hold a slot at once (its Cap); -1 if it has no limit of its own.", float64(s.Cap)},
		{"ants_subpool_running_tasks", "gauge", "Tasks of the sub-pool running on its parent's workers: started and not finished.", float64(s.Running)},
		{"ants_subpool_waiting_callers", "gauge", "Callers waiting for a slot of the sub-pool.", float64(s.Waiting)},
		{"ants_subpool_paused", "gauge", "1 if the sub-pool is paused (Pause): it hands none of its tasks to its parent until Resume; else 0.", b01(s.Paused)},
		{"ants_subpool_submitted_tasks_total", "counter", "Tasks of the sub-pool that its parent accepted.", float64(s.Submitted)},
		{"ants_subpool_completed_tasks_total", "counter", "Tasks of the sub-pool that returned.", float64(s.Completed)},
		{"ants_subpool_panicked_tasks_total", "counter", "Tasks of the sub-pool that panicked (or called runtime.Goexit).", float64(s.Panicked)},
		{"ants_subpool_rejected_tasks_total", "counter", "Submit calls to the sub-pool that returned an error, whoever refused them.", float64(s.Rejected)},
		{"ants_subpool_dropped_tasks_total", "counter", "Tasks of the sub-pool accepted and then dropped before they ran, whoever dropped them.", float64(s.Dropped)},
	})
}

// limitExposition is the text format of the rate limit's series of a
// pool's collector named name: rate and burst, +Inf for no limit.
func limitExposition(name string, rate, burst float64) string {
	return expose(name, []series{
		{"ants_pool_rate_limit_tasks_per_second", "gauge", "Most tasks the pool starts a second on average (its RateLimit); +Inf if it has no rate limit.", rate},
		{"ants_pool_rate_limit_burst_tasks", "gauge", "Most tasks the pool starts in a row under its rate limit (its burst); +Inf if it has no rate limit.", burst},
	})
}

// subpoolLimitExposition is limitExposition for a sub-pool's collector.
func subpoolLimitExposition(name string, rate, burst float64) string {
	return expose(name, []series{
		{"ants_subpool_rate_limit_tasks_per_second", "gauge", "Most tasks the sub-pool hands to its parent a second on average (its RateLimit); +Inf if it has no rate limit.", rate},
		{"ants_subpool_rate_limit_burst_tasks", "gauge", "Most tasks the sub-pool hands to its parent in a row under its rate limit (its burst); +Inf if it has no rate limit.", burst},
	})
}

// b01 is 1 for true and 0 for false, as the paused series reads.
func b01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// inf is +Inf, what the rate limit's series read for no limit.
var inf = math.Inf(1)

func TestCollector(t *testing.T) {
	t.Run("every Stats field reaches its own series", func(t *testing.T) {
		// Distinct values, so a field exported under another's name shows.
		src := &fixed{stats: ants.Stats{
			Cap: 8, Running: 7, Idle: 3, Waiting: 2, Queued: 5, Paused: true,
			Submitted: 1000, Completed: 990, Panicked: 4, Rejected: 17, Dropped: 6,
		}}
		c := antsprom.NewCollector("work", src)
		if err := testutil.CollectAndCompare(c, strings.NewReader(exposition("work", src.stats))); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("an unlimited pool's capacity is -1", func(t *testing.T) {
		p, err := ants.NewPool(-1)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Release)
		c := antsprom.NewCollector("unbounded", p)
		want := exposition("unbounded", ants.Stats{Cap: -1}) + limitExposition("unbounded", inf, inf)
		if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a scrape reads the pool's state at that moment", func(t *testing.T) {
		p := busyPool(t)
		c := antsprom.NewCollector("busy", p)
		// Two workers hold their tasks, one task is buffered, one caller
		// waits, three tasks completed, one panicked, and one TrySubmit
		// plus one nil task were rejected.
		want := exposition("busy", ants.Stats{
			Cap: 2, Running: 2, Idle: 0, Waiting: 1, Queued: 1,
			Submitted: 7, Completed: 3, Panicked: 1, Rejected: 2,
		}) + limitExposition("busy", inf, inf)
		if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a sub-pool's figures are exported as tasks and slots, under series of their own", func(t *testing.T) {
		p, s := busySubpool(t)
		c := antsprom.NewCollector("part", s)
		// Two tasks hold the sub-pool's slots and run, one caller waits for
		// a slot, one task completed, and one TrySubmit was refused.
		want := subpoolExposition("part", ants.Stats{
			Cap: 2, Running: 2, Waiting: 1,
			Submitted: 3, Completed: 1, Rejected: 1,
		}) + subpoolLimitExposition("part", inf, inf)
		if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
			t.Fatal(err)
		}
		problems, err := testutil.CollectAndLint(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("promlint: %s: %s", p.Metric, p.Text)
		}
		// The parent and the sub-pool share a registry, and the parent's
		// series count the sub-pool's tasks, which its workers run.
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(antsprom.NewCollector("shared", p), c)
		if n, err := testutil.GatherAndCount(reg); err != nil || n != 24 {
			t.Fatalf("gathered %d series (err %v); want 24", n, err)
		}
		const parent = `# HELP ants_pool_submitted_tasks_total Tasks accepted: their submit call returned nil.
# TYPE ants_pool_submitted_tasks_total counter
ants_pool_submitted_tasks_total{pool="shared"} 3
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(parent), "ants_pool_submitted_tasks_total"); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("each Collect takes one snapshot and nothing runs between scrapes", func(t *testing.T) {
		src := &fixed{stats: ants.Stats{Cap: 1}}
		before := runtime.NumGoroutine()
		c := antsprom.NewCollector("lazy", src)
		if src.calls != 0 {
			t.Fatalf("NewCollector called Stats %d times; want 0", src.calls)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Fatalf("NewCollector started %d goroutines", n-before)
		}
		for i := 1; i <= 3; i++ {
			if n := testutil.CollectAndCount(c); n != 11 {
				t.Fatalf("scrape %d: %d series; want 11", i, n)
			}
			if src.calls != i {
				t.Fatalf("after %d scrapes Stats was called %d times", i, src.calls)
			}
		}
	})

	t.Run("promlint finds nothing", func(t *testing.T) {
		for _, c := range []prometheus.Collector{
			antsprom.NewCollector("work", &fixed{stats: ants.Stats{Cap: 4, Submitted: 1}}),
			antsprom.NewCollector("limited", &limited{fixed: fixed{stats: ants.Stats{Cap: 4, Paused: true}}, perSecond: 10, burst: 2}),
		} {
			problems, err := testutil.CollectAndLint(c)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("promlint: %s: %s", p.Metric, p.Text)
			}
		}
	})

	t.Run("pools with different names share a registry", func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(antsprom.NewCollector("a", &fixed{}), antsprom.NewCollector("b", &fixed{}))
		if n, err := testutil.GatherAndCount(reg); err != nil || n != 22 {
			t.Fatalf("gathered %d series (err %v); want 22", n, err)
		}
		if err := reg.Register(antsprom.NewCollector("a", &fixed{})); err == nil {
			t.Fatal("a second collector named a was registered; want an error")
		}
	})

	t.Run("a source with RateLimit gets the limit's series, +Inf for no limit", func(t *testing.T) {
		for _, tc := range []struct {
			perSecond      float64
			burst          int
			rate, burstOut float64
		}{
			{2.5, 4, 2.5, 4},
			{1e6, 1, 1e6, 1},
			{0, 0, inf, inf},           // the default: no limit
			{-1, 7, inf, inf},          // <= 0: no limit, and the burst is not one
			{math.Inf(1), 3, inf, inf}, // +Inf: no limit
		} {
			src := &limited{fixed: fixed{stats: ants.Stats{Cap: 2}}, perSecond: tc.perSecond, burst: tc.burst}
			c := antsprom.NewCollector("paced", src)
			want := exposition("paced", src.stats) + limitExposition("paced", tc.rate, tc.burstOut)
			if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
				t.Fatalf("RateLimit() = %v, %d: %v", tc.perSecond, tc.burst, err)
			}
			if src.calls != 1 || src.limitCalls != 1 {
				t.Fatalf("one scrape called Stats %d and RateLimit %d times; want 1 and 1", src.calls, src.limitCalls)
			}
		}
		// Without RateLimit, neither series is described or collected.
		if n := testutil.CollectAndCount(antsprom.NewCollector("plain", &fixed{}),
			"ants_pool_rate_limit_tasks_per_second", "ants_pool_rate_limit_burst_tasks"); n != 0 {
			t.Fatalf("a source without RateLimit: %d limit series; want 0", n)
		}
	})

	t.Run("a pool paused and limited, then resumed and unlimited", func(t *testing.T) {
		p, err := ants.NewPool(2)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Release)
		c := antsprom.NewCollector("gate", p)
		check := func(when string, paused bool, rate, burst float64) {
			t.Helper()
			want := exposition("gate", ants.Stats{Cap: 2, Paused: paused}) + limitExposition("gate", rate, burst)
			if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
				t.Fatalf("%s: %v", when, err)
			}
		}
		check("new", false, inf, inf)
		if err := p.Pause(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := p.SetRateLimit(50, 5); err != nil {
			t.Fatal(err)
		}
		check("paused, 50/s burst 5", true, 50, 5)
		p.Resume()
		if err := p.SetRateLimit(0, 0); err != nil {
			t.Fatal(err)
		}
		check("resumed, no limit", false, inf, inf)
	})

	t.Run("a sub-pool paused and limited, then resumed and unlimited", func(t *testing.T) {
		p, err := ants.NewPool(4)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Release)
		s := ants.NewSubpool(p, 2)
		c := antsprom.NewCollector("tenant", s)
		check := func(when string, paused bool, rate, burst float64) {
			t.Helper()
			want := subpoolExposition("tenant", ants.Stats{Cap: 2, Paused: paused}) + subpoolLimitExposition("tenant", rate, burst)
			if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
				t.Fatalf("%s: %v", when, err)
			}
		}
		check("new", false, inf, inf)
		if err := s.Pause(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := s.SetRateLimit(0.5, 1); err != nil {
			t.Fatal(err)
		}
		check("paused, 0.5/s burst 1", true, 0.5, 1)
		s.Resume()
		if err := s.SetRateLimit(math.Inf(1), 0); err != nil {
			t.Fatal(err)
		}
		check("resumed, no limit", false, inf, inf)
	})

	t.Run("a multi-pool exports the limit it was given, not its member pools' shares", func(t *testing.T) {
		mp, err := ants.NewMultiPool(3, 2, ants.RoundRobin, ants.WithRateLimit(30, 4))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = mp.ReleaseTimeout(10 * time.Second) })
		c := antsprom.NewCollector("multi", mp)
		if err := mp.Pause(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := exposition("multi", ants.Stats{Cap: 6, Paused: true}) + limitExposition("multi", 30, 4)
		if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
			t.Fatal(err)
		}
		mp.Resume()
		want = exposition("multi", ants.Stats{Cap: 6}) + limitExposition("multi", 30, 4)
		if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
			t.Fatalf("resumed: %v", err)
		}
	})

	t.Run("a nil source panics at construction", func(t *testing.T) {
		defer func() {
			if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "antsprom: ") {
				t.Fatalf("recovered %v; want a panic with the antsprom prefix", r)
			}
		}()
		antsprom.NewCollector("nil", nil)
	})
}

// busyPool returns a pool of 2 workers and a 1-task buffer in a known
// state: 3 tasks completed, 1 panicked, 2 running and held, 1 buffered, 1
// caller waiting, 2 submissions rejected. The cleanup lets everything go
// and waits for the pool's goroutines to exit.
func busyPool(t *testing.T) *ants.Pool {
	t.Helper()
	panicked := make(chan any, 1)
	p, err := ants.NewPool(2, ants.WithQueueSize(1),
		ants.WithPanicHandler(func(v any) { panicked <- v }))
	if err != nil {
		t.Fatal(err)
	}
	h := newHolder(t, p)
	for i := 0; i < 3; i++ {
		h.submit(p.Submit, func() {})
	}
	waitUntil(t, "3 tasks completed", func() bool { return p.Stats().Completed == 3 })
	h.submit(p.Submit, func() { panic("boom") })
	<-panicked
	waitUntil(t, "the panic counted", func() bool { return p.Stats().Panicked == 1 })

	h.hold(p.Submit, 2)
	h.submit(p.Submit, func() {}) // buffered
	h.wait(p.Submit, p.Waiting)
	if err := p.TrySubmit(func() {}); err == nil {
		t.Fatal("TrySubmit on a full pool returned nil")
	}
	if err := p.Submit(nil); err == nil {
		t.Fatal("Submit(nil) returned nil")
	}
	return p
}

// busySubpool returns a pool of 4 workers and a sub-pool of 2 slots on it,
// in a known state: 1 task of the sub-pool completed, 2 running and held,
// 1 caller waiting for a slot, 1 TrySubmit refused. The cleanup lets
// everything go and waits for the goroutines of the pool to exit.
func busySubpool(t *testing.T) (*ants.Pool, *ants.Subpool) {
	t.Helper()
	p, err := ants.NewPool(4)
	if err != nil {
		t.Fatal(err)
	}
	s := ants.NewSubpool(p, 2)
	h := newHolder(t, s, p)
	h.submit(s.Submit, func() {})
	waitUntil(t, "1 task completed", func() bool { return s.Stats().Completed == 1 })
	h.hold(s.Submit, 2)
	h.wait(s.Submit, s.Waiting)
	if err := s.TrySubmit(func() {}); err == nil {
		t.Fatal("TrySubmit on a full sub-pool returned nil")
	}
	return p, s
}

// holder puts pools in a known busy state for a test: it holds tasks until
// the test ends and keeps one caller waiting. When the test ends it lets
// them go, checks that the waiting caller's submit succeeded, and releases
// its pools in order, waiting for each.
type holder struct {
	t          *testing.T
	gate       chan struct{}
	waiterDone chan error // the waiting caller's result
	waiter     bool       // a caller was made to wait
}

func newHolder(t *testing.T, pools ...interface{ ReleaseContext(context.Context) error }) *holder {
	h := &holder{t: t, gate: make(chan struct{}), waiterDone: make(chan error, 1)}
	t.Cleanup(func() {
		close(h.gate)
		if h.waiter {
			if err := <-h.waiterDone; err != nil {
				t.Errorf("the waiting Submit returned %v", err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, p := range pools {
			if err := p.ReleaseContext(ctx); err != nil {
				t.Errorf("ReleaseContext: %v", err)
			}
		}
	})
	return h
}

// submit submits task, failing the test if submit refuses it.
func (h *holder) submit(submit func(func()) error, task func()) {
	h.t.Helper()
	if err := submit(task); err != nil {
		h.t.Fatalf("Submit: %v", err)
	}
}

// hold submits n tasks that wait for the end of the test, and waits until
// all of them run.
func (h *holder) hold(submit func(func()) error, n int) {
	h.t.Helper()
	started := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		h.submit(submit, func() { started <- struct{}{}; <-h.gate })
	}
	for i := 0; i < n; i++ {
		<-started
	}
}

// wait makes one caller submit from another goroutine and waits until
// waiting reports it blocked.
func (h *holder) wait(submit func(func()) error, waiting func() int) {
	h.t.Helper()
	h.waiter = true
	go func() { h.waiterDone <- submit(func() {}) }()
	waitUntil(h.t, "a caller waiting", func() bool { return waiting() == 1 })
}

// waitUntil yields until cond holds, failing the test after 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		runtime.Gosched()
	}
}
