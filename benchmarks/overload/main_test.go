package main

import (
	"bytes"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/overloadfile"
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
	cfg := defaults().withDefaults()
	for _, l := range cfg.loads() {
		a := schedule(l, cfg.capacity(), rand.New(rand.NewSource(7)))
		b := schedule(l, cfg.capacity(), rand.New(rand.NewSource(7)))
		if !slices.Equal(a, b) {
			t.Errorf("%s: two schedules of one seed differ", l.name)
		}
		if !slices.IsSorted(a) {
			t.Errorf("%s: arrivals not in order", l.name)
		}
		if len(a) == 0 || a[0] < 0 || a[len(a)-1] >= l.duration {
			t.Errorf("%s: %d arrivals, not all within [0, %v)", l.name, len(a), l.duration)
		}
		if !l.sustained() {
			in := 0
			for _, x := range a {
				if x >= l.burstAt && x < l.burstAt+l.burstLen {
					in++
				}
			}
			if l.base == 0 && in != len(a) {
				t.Errorf("%s: %d of %d arrivals outside the burst of an idle load", l.name, len(a)-in, len(a))
			}
		}
	}
}

func TestQuantile(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i))
	}
	if q := study.Quantile(s, 0.5); q != 50 {
		t.Errorf("p50 of 1..100 = %v", q)
	}
	if q := study.Quantile(s, 0.99); q != 99 {
		t.Errorf("p99 of 1..100 = %v", q)
	}
	if q := study.Quantile(s, 1); q != 100 {
		t.Errorf("max of 1..100 = %v", q)
	}
	if q := study.Quantile(nil, 0.5); q != 0 {
		t.Errorf("p50 of nothing = %v", q)
	}
}

// TestMeasureAccountsForEveryRequest runs every load on every contender on
// a tiny configuration. Its figures mean nothing; it checks what holds
// whatever the machine: a row for each, every request that arrived
// counted exactly once, the pool's own count of drops between the
// requests it dropped and those plus the ones that expired (and the
// onset's, which the pool counts too), no drop where
// nothing drops and no refusal where nothing refuses.
func TestMeasureAccountsForEveryRequest(t *testing.T) {
	cfg := tiny()
	cs := contenders()
	start := time.Now()
	f := measure(cfg, cs, newTestWriter(t))
	t.Logf("%v for %d rows", time.Since(start).Round(time.Millisecond), len(f.Rows))
	if len(f.Failures) > 0 {
		t.Fatalf("failed rows: %+v", f.Failures)
	}
	loads := cfg.loads()
	if len(f.Rows) != len(loads)*len(cs) || len(f.Loads) != len(loads) || len(f.Contenders) != len(cs) {
		t.Fatalf("%d rows, %d loads, %d contenders; want %d × %d", len(f.Rows), len(f.Loads), len(f.Contenders), len(loads), len(cs))
	}
	for li, l := range loads {
		want := len(schedule(l, cfg.capacity(), rand.New(rand.NewSource(cfg.seed+int64(li)))))
		for _, c := range cs {
			r, ok := f.Row(c.name, l.name)
			if !ok {
				t.Errorf("no row for %s under %s", c.name, l.name)
				continue
			}
			if r.Offered+r.Onset != want {
				t.Errorf("%s under %s: %d offered and %d in the onset, the schedule has %d", c.name, l.name, r.Offered, r.Onset, want)
			}
			if r.OnsetSuccess > r.Onset || (l.onset > 0) != (r.OnsetSeconds > 0) {
				t.Errorf("%s under %s: onset of %v: %d requests, %d succeeded, over %gs", c.name, l.name, l.onset, r.Onset, r.OnsetSuccess, r.OnsetSeconds)
			}
			if !r.Accounted() {
				t.Errorf("%s under %s: %d success + %d late + %d expired + %d dropped + %d refused != %d offered",
					c.name, l.name, r.Success, r.Late, r.Expired, r.Dropped, r.Refused, r.Offered)
			}
			if (r.Success > 0) != (r.P50 > 0) || r.P50 > r.P99 || r.P99 > r.Max || (r.Ran() > 0) != (r.RanP99 > 0) {
				t.Errorf("%s under %s: %d successes, p50 %v, p99 %v, max %v", c.name, l.name, r.Success, r.P50, r.P99, r.Max)
			}
			if r.Ran() > 0 && r.RunMean < cfg.task {
				t.Errorf("%s under %s: a task's mean time %v, below its sleep %v", c.name, l.name, r.RunMean, cfg.task)
			}
			if r.PoolDropped >= 0 && (r.PoolDropped < int64(r.Dropped) || r.PoolDropped > int64(r.Dropped+r.Expired+r.Onset)) {
				t.Errorf("%s under %s: the pool counts %d dropped; the requests: %d dropped, %d expired, %d in the onset",
					c.name, l.name, r.PoolDropped, r.Dropped, r.Expired, r.Onset)
			}
			if !c.drops && r.Dropped != 0 {
				t.Errorf("%s under %s: %d dropped; only a queue target or timeout drops", c.name, l.name, r.Dropped)
			}
			if !c.refuses && r.Refused != 0 {
				t.Errorf("%s under %s: %d refused; it waits for a slot instead", c.name, l.name, r.Refused)
			}
		}
	}
	var out bytes.Buffer
	overloadfile.WriteSection(&out, f)
	for _, want := range []string{"| e62cffed/ants target |", "| large FIFO buffer |", "| ants v2.12.1 Nonblocking |", "**5× sustained**", "**burst on idle**", "The bounds the design aims at, for e62cffed/ants target"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the section lacks %q:\n%s", want, out.String())
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-workers", "0"}, {"-task", "0s"}, {"-onset", "-1s"}, {"-duration", "10ms"}, {"-queue-timeout", "-1s"}, {"extra"}, {"-nope"}} {
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
