package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/flowsfile"
	"github.com/e62cffed/ants/benchmarks/internal/study"
	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind. What
// ants v2 starts for its default pool when imported is there before any
// test, and stays.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

func TestScheduleIsSeededSortedAndWithinTheLoad(t *testing.T) {
	cfg := defaults()
	a, b := schedule(cfg, 7), schedule(cfg, 7)
	if !slices.Equal(a, b) {
		t.Fatal("two schedules of one seed differ")
	}
	if !slices.IsSortedFunc(a, func(x, y arrival) int { return int(x.at - y.at) }) {
		t.Error("arrivals not in order")
	}
	cfg.jitter = 0.5
	j := schedule(cfg, 7)
	for i := range a {
		if j[i].at != a[i].at || j[i].flow != a[i].flow || a[i].task != cfg.task || j[i].task < cfg.task/2 || j[i].task > cfg.task*3/2 {
			t.Fatalf("arrival %d: %+v without jitter, %+v with ±50%%", i, a[i], j[i])
		}
	}
	per := make([]int, cfg.lights+1)
	for _, x := range a {
		per[x.flow]++
		switch {
		case x.at < 0 || x.at >= cfg.heavyFor+cfg.tail:
			t.Fatalf("an arrival at %v, outside [0, %v)", x.at, cfg.heavyFor+cfg.tail)
		case x.flow == 0 && x.at >= cfg.heavyFor:
			t.Fatalf("a heavy arrival at %v, after the heavy flow stops at %v", x.at, cfg.heavyFor)
		case x.flow < 0 || x.flow > cfg.lights:
			t.Fatalf("an arrival of flow %d", x.flow)
		}
	}
	// The counts are Poisson: within five standard deviations of the mean.
	within := func(what string, n int, mean float64) {
		if d := float64(n) - mean; d*d > 25*mean {
			t.Errorf("%s: %d arrivals, the rate gives %.0f", what, n, mean)
		}
	}
	within("heavy", per[0], cfg.heavy*cfg.capacity()*cfg.heavyFor.Seconds())
	lights := len(a) - per[0]
	within("light", lights, cfg.light*cfg.capacity()*(cfg.heavyFor+cfg.tail).Seconds())
	for f := 1; f <= cfg.lights; f++ {
		if per[f] == 0 {
			t.Errorf("light flow %d has no arrival", f)
		}
	}
}

func TestQuantileAndOverlap(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i))
	}
	if q := study.Quantile(s, 0.99); q != 99 {
		t.Errorf("p99 of 1..100 = %v", q)
	}
	if q := study.Quantile(nil, 0.5); q != 0 {
		t.Errorf("p50 of nothing = %v", q)
	}
	for _, c := range []struct{ a, b, from, to, want time.Duration }{
		{0, 10, 5, 20, 5}, {0, 10, 10, 20, 0}, {2, 4, 0, 10, 2}, {0, 10, 2, 4, 2}, {8, 12, 0, 10, 2},
	} {
		if got := overlap(c.a, c.b, c.from, c.to); got != c.want {
			t.Errorf("overlap([%v, %v), [%v, %v)) = %v, want %v", c.a, c.b, c.from, c.to, got, c.want)
		}
	}
}

// TestSlotJain: a flow counts in a slot only if it has work waiting
// throughout it; two flows backlogged throughout, one starting three tasks
// to the other's one, give (4)²/(2·10) = 0.8; a slot with one backlogged
// flow gives 1.
func TestSlotJain(t *testing.T) {
	cfg := defaults()
	cfg.heavyFor, cfg.slot = 20*time.Millisecond, 10*time.Millisecond
	tenants := []tenant{{name: "a", weight: 1}, {name: "b", weight: 1}}
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	// a: waiting from 0 to 20 ms (start at 1, 2, 3 and 15, 16, 20);
	// b: waiting from 0 to 9 ms (start at 9), then from 12 to 14 only.
	arrivals := []arrival{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 1, 0}, {ms(1), 0, 0}, {ms(1), 0, 0}, {ms(2), 0, 0}, {ms(12), 1, 0}}
	recs := []record{{start: ms(1)}, {start: ms(2)}, {start: ms(3)}, {start: ms(9)}, {start: ms(15)}, {start: ms(16)}, {start: ms(20)}, {start: ms(14)}}
	for i := range recs {
		recs[i].submit = arrivals[i].at
	}
	starts := make([][]time.Duration, 2)
	for i, a := range arrivals {
		starts[a.flow] = append(starts[a.flow], recs[i].start)
	}
	mean, lowest, backlogged, slots := slotJain(cfg, tenants, arrivals, recs, starts)
	// Slot [0, 10): a is backlogged throughout? a's spans: [0,3) merged
	// with [1,15),[1,16),[2,20) → [0, 20): yes; b: [0, 9): no. So slot 1
	// has a alone: 1. Slot [10, 20): a yes, b [12, 14) no: 1.
	if slots != 2 || mean != 1 || lowest != 1 || backlogged != 1 {
		t.Errorf("got mean %v, lowest %v, backlogged %v over %d slots; want 1, 1, 1 over 2", mean, lowest, backlogged, slots)
	}
	// Make b wait from 0 to 20 ms too, starting once in each slot.
	// (The arrivals stay in time order, as a schedule's are.)
	arrivals = slices.Insert(arrivals, 4, arrival{0, 1, 0})
	recs = slices.Insert(recs, 4, record{submit: 0, start: ms(20)})
	recs[8].start = ms(19)
	starts[1] = []time.Duration{ms(9), ms(19), ms(20)}
	mean, lowest, backlogged, slots = slotJain(cfg, tenants, arrivals, recs, starts)
	// Slot [0, 10): a starts 3 (1, 2, 3), b 1 (9): 16/20 = 0.8.
	// Slot [10, 20): a starts 2 (15, 16), b 1 (19): 9/10 = 0.9.
	if slots != 2 || backlogged != 2 || lowest != 0.8 || mean < 0.849 || mean > 0.851 {
		t.Errorf("got mean %v, lowest %v, backlogged %v over %d slots; want 0.85, 0.8, 2 over 2", mean, lowest, backlogged, slots)
	}
}

// TestMeasureAccountsForEveryRequest runs everything on every contender on
// a tiny configuration. Its figures mean nothing; it checks what holds
// whatever the machine: a row for each, every request that arrived run
// exactly once (none refused: every contender waits for room), the waits
// in order, utilisation within [0, 1], the backlogged scenarios' counts
// and ratios consistent.
func TestMeasureAccountsForEveryRequest(t *testing.T) {
	cfg := tiny()
	cs := contenders()
	start := time.Now()
	f := measure(cfg, cs, newTestWriter(t))
	t.Logf("%v for %d rows and %d shares", time.Since(start).Round(time.Millisecond), len(f.Rows), len(f.Shares))
	if len(f.Failures) > 0 {
		t.Fatalf("failed runs: %+v", f.Failures)
	}
	scs := scenarios(cfg)
	if len(f.Rows) != len(cs) || len(f.Contenders) != len(cs) || len(f.Scenarios) != len(scs) || len(f.Shares) != len(cs)*len(scs) {
		t.Fatalf("%d rows, %d contenders, %d scenarios, %d shares; want %d, %d, %d, %d",
			len(f.Rows), len(f.Contenders), len(f.Scenarios), len(f.Shares), len(cs), len(cs), len(scs), len(cs)*len(scs))
	}
	want := schedule(cfg, cfg.seed)
	heavy := 0
	for _, a := range want {
		if a.flow == 0 {
			heavy++
		}
	}
	for _, c := range cs {
		r, ok := f.Row(c.name)
		if !ok {
			t.Errorf("no row for %s", c.name)
			continue
		}
		if r.Offered != len(want) || r.Heavy != heavy || !r.Accounted() || r.Refused != 0 || r.LightRuns != r.Ran-heavy {
			t.Errorf("%s: %d offered (%d heavy), %d ran (%d light), %d refused; the schedule has %d (%d heavy)",
				c.name, r.Offered, r.Heavy, r.Ran, r.LightRuns, r.Refused, len(want), heavy)
		}
		// The generator may submit a request up to aheadLimit before its
		// scheduled arrival, so a wait from the arrival may be that much
		// shorter than the wait from the submit call.
		if r.LightP99MaxFromArrival+aheadLimit < r.LightP99Max || r.LightP99Median > r.LightP99Max || r.LightP99Max > r.LightMax || r.LightP99Heavy > r.LightMax || r.LightP99Tail > r.LightMax || r.LightP99Worst == "" {
			t.Errorf("%s: light p99 median %v, worst %v (%q; %v from the arrival), while heavy %v, after %v, max %v",
				c.name, r.LightP99Median, r.LightP99Max, r.LightP99Worst, r.LightP99MaxFromArrival, r.LightP99Heavy, r.LightP99Tail, r.LightMax)
		}
		if r.RunMean < cfg.task {
			t.Errorf("%s: a task's mean time %v, below its sleep %v", c.name, r.RunMean, cfg.task)
		}
		// A little over 1 is a sleep's overshoot at the window's edge;
		// more is an accounting error.
		if r.UtilHeavy <= 0 || r.UtilHeavy > 1.05 || r.UtilTail < 0 || r.UtilTail > 1.05 {
			t.Errorf("%s: utilisation %v while heavy, %v after", c.name, r.UtilHeavy, r.UtilTail)
		}
		if r.HeavyRate <= 0 || r.Slots < 1 || r.Jain <= 0 || r.Jain > 1 || r.JainMin > r.Jain || r.Backlogged < 1 {
			t.Errorf("%s: heavy rate %v, Jain %v (lowest %v, %v backlogged) over %d slots", c.name, r.HeavyRate, r.Jain, r.JainMin, r.Backlogged, r.Slots)
		}
		for _, s := range scs {
			sr, ok := f.Share(s.Name, c.name)
			if !ok {
				t.Errorf("no row for %s in %s", c.name, s.Name)
				continue
			}
			if len(sr.Started) != len(s.Flows) || sr.Refused != 0 || sr.Jain <= 0 || sr.Jain > 1 || sr.Seconds <= 0 {
				t.Errorf("%s in %s: started %v, refused %d, Jain %v over %vs", c.name, s.Name, sr.Started, sr.Refused, sr.Jain, sr.Seconds)
			}
			if len(sr.Started) == 2 && sr.Started[1] > 0 && sr.Ratio != float64(sr.Started[0])/float64(sr.Started[1]) {
				t.Errorf("%s in %s: ratio %v of %v", c.name, s.Name, sr.Ratio, sr.Started)
			}
		}
	}
	var out bytes.Buffer
	flowsfile.WriteSection(&out, f)
	for _, want := range []string{"| e62cffed/ants flows |", "| one FIFO pool |", "| Subpool per tenant |",
		"**unequal backlogs, weights 1**", "**weights 3:1**", "The bounds the design aims at, for e62cffed/ants flows", "service ratio within ±5% of 3:1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the section lacks %q:\n%s", want, out.String())
		}
	}
}

func TestShares(t *testing.T) {
	cfg := defaults()
	if cfg.heavyShare() != 14 || cfg.lightShare() != 1 {
		t.Errorf("mixed shares %d and %d, want 14 and 1", cfg.heavyShare(), cfg.lightShare())
	}
	for _, s := range scenarios(cfg) {
		total := 0
		for _, f := range s.Flows {
			total += f.Share
		}
		if total != cfg.workers {
			t.Errorf("%s: shares %+v add up to %d, not the %d workers", s.Name, s.Flows, total, cfg.workers)
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-workers", "0"}, {"-task", "0s"}, {"-lights", "0"}, {"-heavy", "0"}, {"-tail", "-1s"},
		{"-slot", "10s"}, {"-window", "1s", "-warmup", "1s"}, {"extra"}, {"-nope"}} {
		var stderr bytes.Buffer
		if err := run(args, &bytes.Buffer{}, &stderr); err == nil {
			t.Errorf("run(%q) = nil, want an error", args)
		}
	}
}

// testWriter sends the progress lines to t.Log, with the time since the
// test started.
type testWriter struct {
	t     *testing.T
	start time.Time
}

func newTestWriter(t *testing.T) testWriter { return testWriter{t: t, start: time.Now()} }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Logf("%6.2fs %s", time.Since(w.start).Seconds(), strings.TrimSuffix(string(b), "\n"))
	return len(b), nil
}
