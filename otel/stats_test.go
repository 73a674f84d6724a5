package antsotel_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	antsotel "github.com/e62cffed/ants/otel"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// fixed is a StatsSource that returns the same snapshot every time and
// counts its calls.
type fixed struct {
	mu    sync.Mutex
	stats ants.Stats
	calls int
}

func (f *fixed) Stats() ants.Stats {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	return f.stats
}

func (f *fixed) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
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
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limitCalls++
	return l.perSecond, l.burst
}

func (l *limited) limitCallCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.limitCalls
}

// statsInstrument is what one instrument of Register must be.
type statsInstrument struct {
	name, unit string
	monotonic  bool // a Counter; else an UpDownCounter
	value      func(ants.Stats) int64
}

var statsInstruments = []statsInstrument{
	{"ants.pool.capacity", "{worker}", false, func(s ants.Stats) int64 { return int64(s.Cap) }},
	{"ants.pool.workers", "{worker}", false, func(s ants.Stats) int64 { return int64(s.Running) }},
	{"ants.pool.idle", "{worker}", false, func(s ants.Stats) int64 { return int64(s.Idle) }},
	{"ants.pool.waiting", "{caller}", false, func(s ants.Stats) int64 { return int64(s.Waiting) }},
	{"ants.pool.queued", "{task}", false, func(s ants.Stats) int64 { return int64(s.Queued) }},
	{"ants.pool.paused", "{pool}", false, func(s ants.Stats) int64 {
		if s.Paused {
			return 1
		}
		return 0
	}},
	{"ants.pool.tasks.submitted", "{task}", true, func(s ants.Stats) int64 { return int64(s.Submitted) }},
	{"ants.pool.tasks.completed", "{task}", true, func(s ants.Stats) int64 { return int64(s.Completed) }},
	{"ants.pool.tasks.panicked", "{task}", true, func(s ants.Stats) int64 { return int64(s.Panicked) }},
	{"ants.pool.tasks.rejected", "{call}", true, func(s ants.Stats) int64 { return int64(s.Rejected) }},
	{"ants.pool.tasks.dropped", "{task}", true, func(s ants.Stats) int64 { return int64(s.Dropped) }},
}

// inf is +Inf, what the rate limit's instruments read for no limit.
var inf = math.Inf(1)

// wantLimit checks that ms has the two instruments of a rate limit, float64
// UpDownCounters, each with one point for pool: rate and burst.
func wantLimit(t *testing.T, ms map[string]metricdata.Metrics, pool string, rate, burst float64) {
	t.Helper()
	for _, want := range []struct {
		name, unit string
		value      float64
	}{
		{"ants.pool.rate_limit.rate", "{task}/s", rate},
		{"ants.pool.rate_limit.burst", "{task}", burst},
	} {
		m, sum, p := floatSumPoint(t, ms, want.name, pool)
		if m.Unit != want.unit || m.Description == "" {
			t.Errorf("%s: unit %q, description %q; want unit %q and a description", want.name, m.Unit, m.Description, want.unit)
		}
		if sum.IsMonotonic || sum.Temporality != metricdata.CumulativeTemporality {
			t.Errorf("%s: monotonic %v, %v; want an UpDownCounter, cumulative", want.name, sum.IsMonotonic, sum.Temporality)
		}
		if p.Value != want.value {
			t.Errorf("%s{ants.pool.name=%q} = %g; want %g", want.name, pool, p.Value, want.value)
		}
		if p.Attributes.Len() != 1 {
			t.Errorf("%s: attributes %v; want ants.pool.name alone", want.name, p.Attributes.ToSlice())
		}
	}
}

// wantStats checks that ms has the eleven instruments of Register, each with
// one point for pool whose value comes from s.
func wantStats(t *testing.T, ms map[string]metricdata.Metrics, pool string, s ants.Stats) {
	t.Helper()
	for _, want := range statsInstruments {
		m, ok := ms[want.name]
		if !ok {
			t.Fatalf("no %s collected", want.name)
		}
		if m.Unit != want.unit || m.Description == "" {
			t.Errorf("%s: unit %q, description %q; want unit %q and a description", want.name, m.Unit, m.Description, want.unit)
		}
		sum, p := sumPoint(t, m, pool)
		if sum.IsMonotonic != want.monotonic || sum.Temporality != metricdata.CumulativeTemporality {
			t.Errorf("%s: monotonic %v, %v; want monotonic %v, cumulative", want.name, sum.IsMonotonic, sum.Temporality, want.monotonic)
		}
		if p.Value != want.value(s) {
			t.Errorf("%s{ants.pool.name=%q} = %d; want %d", want.name, pool, p.Value, want.value(s))
		}
		if p.Attributes.Len() != 1 {
			t.Errorf("%s: attributes %v; want ants.pool.name alone", want.name, p.Attributes.ToSlice())
		}
	}
}

func TestRegister(t *testing.T) {
	t.Run("every Stats field reaches its own instrument, with its unit and the pool's name", func(t *testing.T) {
		meter, r := newMeter(t)
		// Distinct values, so that a field reported under another's name shows.
		src := &fixed{stats: ants.Stats{
			Cap: 8, Running: 7, Idle: 3, Waiting: 2, Queued: 5, Paused: true,
			Submitted: 1000, Completed: 990, Panicked: 4, Rejected: 17, Dropped: 6,
		}}
		if _, err := antsotel.Register(meter, "work", src); err != nil {
			t.Fatal(err)
		}
		ms := collect(t, r)
		wantStats(t, ms, "work", src.stats)
		if len(ms) != len(statsInstruments) {
			t.Fatalf("collected %d instruments; want %d", len(ms), len(statsInstruments))
		}
	})

	t.Run("an unlimited pool's capacity is -1", func(t *testing.T) {
		meter, r := newMeter(t)
		p, err := ants.NewPool(-1)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Release)
		if _, err := antsotel.Register(meter, "unbounded", p); err != nil {
			t.Fatal(err)
		}
		ms := collect(t, r)
		wantStats(t, ms, "unbounded", ants.Stats{Cap: -1})
		wantLimit(t, ms, "unbounded", inf, inf)
	})

	t.Run("a source with RateLimit gets the limit's instruments, +Inf for no limit", func(t *testing.T) {
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
			meter, r := newMeter(t)
			src := &limited{fixed: fixed{stats: ants.Stats{Cap: 2}}, perSecond: tc.perSecond, burst: tc.burst}
			if _, err := antsotel.Register(meter, "paced", src); err != nil {
				t.Fatal(err)
			}
			ms := collect(t, r)
			wantStats(t, ms, "paced", src.stats)
			wantLimit(t, ms, "paced", tc.rate, tc.burstOut)
			if len(ms) != len(statsInstruments)+2 {
				t.Fatalf("collected %d instruments; want %d", len(ms), len(statsInstruments)+2)
			}
			if src.callCount() != 1 || src.limitCallCount() != 1 {
				t.Fatalf("one collection called Stats %d and RateLimit %d times; want 1 and 1", src.callCount(), src.limitCallCount())
			}
		}
	})

	t.Run("a pool paused and limited, then resumed and unlimited", func(t *testing.T) {
		meter, r := newMeter(t)
		p, err := ants.NewPool(2)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Release)
		if _, err := antsotel.Register(meter, "gate", p); err != nil {
			t.Fatal(err)
		}
		check := func(paused bool, rate, burst float64) {
			t.Helper()
			ms := collect(t, r)
			wantStats(t, ms, "gate", ants.Stats{Cap: 2, Paused: paused})
			wantLimit(t, ms, "gate", rate, burst)
		}
		check(false, inf, inf)
		if err := p.Pause(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := p.SetRateLimit(50, 5); err != nil {
			t.Fatal(err)
		}
		check(true, 50, 5)
		p.Resume()
		if err := p.SetRateLimit(0, 0); err != nil {
			t.Fatal(err)
		}
		check(false, inf, inf)
	})

	t.Run("a sub-pool and a multi-pool, paused and limited", func(t *testing.T) {
		meter, r := newMeter(t)
		p, err := ants.NewPool(4)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Release)
		s := ants.NewSubpool(p, 2)
		mp, err := ants.NewMultiPool(3, 2, ants.RoundRobin, ants.WithRateLimit(30, 4))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = mp.ReleaseTimeout(10 * time.Second) })
		if _, err := antsotel.Register(meter, "tenant", s); err != nil {
			t.Fatal(err)
		}
		if _, err := antsotel.Register(meter, "multi", mp); err != nil {
			t.Fatal(err)
		}
		for _, x := range []interface{ Pause(context.Context) error }{s, mp} {
			if err := x.Pause(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetRateLimit(0.5, 1); err != nil {
			t.Fatal(err)
		}
		ms := collect(t, r)
		wantStats(t, ms, "tenant", ants.Stats{Cap: 2, Paused: true})
		wantLimit(t, ms, "tenant", 0.5, 1)
		// The limit the multi-pool was given, not its member pools' shares.
		wantStats(t, ms, "multi", ants.Stats{Cap: 6, Paused: true})
		wantLimit(t, ms, "multi", 30, 4)
		s.Resume()
		mp.Resume()
		if err := s.SetRateLimit(math.Inf(1), 0); err != nil {
			t.Fatal(err)
		}
		ms = collect(t, r)
		wantStats(t, ms, "tenant", ants.Stats{Cap: 2})
		wantLimit(t, ms, "tenant", inf, inf)
		wantStats(t, ms, "multi", ants.Stats{Cap: 6})
	})

	t.Run("each collection calls Stats once, and nothing runs between them", func(t *testing.T) {
		meter, r := newMeter(t)
		src := &fixed{stats: ants.Stats{Cap: 1}}
		if _, err := antsotel.Register(meter, "lazy", src); err != nil {
			t.Fatal(err)
		}
		if n := src.callCount(); n != 0 {
			t.Fatalf("Register called Stats %d times; want 0", n)
		}
		for i := 1; i <= 3; i++ {
			collect(t, r)
			if n := src.callCount(); n != i {
				t.Fatalf("after %d collections Stats was called %d times", i, n)
			}
		}
	})

	t.Run("two pools on one meter are told apart by name", func(t *testing.T) {
		meter, r := newMeter(t)
		a := &fixed{stats: ants.Stats{Cap: 1, Submitted: 10}}
		b := &fixed{stats: ants.Stats{Cap: 2, Submitted: 20}}
		for name, src := range map[string]*fixed{"a": a, "b": b} {
			if _, err := antsotel.Register(meter, name, src); err != nil {
				t.Fatal(err)
			}
		}
		ms := collect(t, r)
		wantStats(t, ms, "a", a.stats)
		wantStats(t, ms, "b", b.stats)
	})

	t.Run("after Unregister the pool is no longer read", func(t *testing.T) {
		meter, r := newMeter(t)
		src := &fixed{stats: ants.Stats{Cap: 1}}
		reg, err := antsotel.Register(meter, "gone", src)
		if err != nil {
			t.Fatal(err)
		}
		collect(t, r)
		if err := reg.Unregister(); err != nil {
			t.Fatal(err)
		}
		collect(t, r)
		if n := src.callCount(); n != 1 {
			t.Fatalf("Stats called %d times; want 1, before Unregister", n)
		}
	})

	t.Run("a real pool's state at the moment of collection", func(t *testing.T) {
		meter, r := newMeter(t)
		p, err := ants.NewPool(1, ants.WithQueueSize(1))
		if err != nil {
			t.Fatal(err)
		}
		gate := make(chan struct{})
		started := make(chan struct{})
		t.Cleanup(func() {
			close(gate)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := p.ReleaseContext(ctx); err != nil {
				t.Errorf("ReleaseContext: %v", err)
			}
		})
		if err := p.Submit(func() { close(started); <-gate }); err != nil {
			t.Fatal(err)
		}
		<-started
		if err := p.Submit(func() {}); err != nil { // buffered
			t.Fatal(err)
		}
		if err := p.TrySubmit(func() {}); !errors.Is(err, ants.ErrPoolOverload) {
			t.Fatalf("TrySubmit on a full pool: %v; want ErrPoolOverload", err)
		}
		if _, err := antsotel.Register(meter, "busy", p); err != nil {
			t.Fatal(err)
		}
		ms := collect(t, r)
		wantStats(t, ms, "busy", ants.Stats{
			Cap: 1, Running: 1, Queued: 1, Submitted: 2, Rejected: 1,
		})
		wantLimit(t, ms, "busy", inf, inf)
	})

	t.Run("a nil meter or pool is an error", func(t *testing.T) {
		meter, _ := newMeter(t)
		if _, err := antsotel.Register(nil, "x", &fixed{}); err == nil {
			t.Fatal("Register with a nil meter returned no error")
		}
		if _, err := antsotel.Register(meter, "x", nil); err == nil {
			t.Fatal("Register with a nil pool returned no error")
		}
	})

	t.Run("an instrument the meter refuses is an error", func(t *testing.T) {
		meter, _ := newMeter(t)
		m := refusingMeter{Meter: meter, refuse: "ants.pool.tasks.panicked"}
		if _, err := antsotel.Register(m, "x", &fixed{}); !errors.Is(err, errRefused) {
			t.Fatalf("Register: %v; want the meter's error", err)
		}
		m.refuse = "ants.pool.rate_limit.burst"
		if _, err := antsotel.Register(m, "y", &limited{}); !errors.Is(err, errRefused) {
			t.Fatalf("Register of a source with RateLimit: %v; want the meter's error", err)
		}
	})
}
