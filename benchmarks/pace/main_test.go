package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// msec is n milliseconds.
func msec(n float64) time.Duration { return time.Duration(n * float64(time.Millisecond)) }

func TestWindows(t *testing.T) {
	starts := []time.Duration{0, msec(99), msec(100), msec(250), msec(300), msec(301)}
	got := windows(starts, msec(100), msec(300))
	if want := []int{2, 1, 1}; !slices.Equal(got, want) {
		t.Fatalf("windows = %v, want %v (the start at the end is out)", got, want)
	}
}

func TestMaxExcess(t *testing.T) {
	// 1000/s: one start a ms exceeds rate·T by exactly 1 (the first).
	var even []time.Duration
	for i := 0; i < 100; i++ {
		even = append(even, msec(float64(i)))
	}
	if got := maxExcess(even, 1000); got < 0.999 || got > 1.001 {
		t.Errorf("one a ms at 1000/s: excess %v, want 1", got)
	}
	// 10 at once after them, at 150 ms: the bucket refilled 50 ms, so 11
	// in [149ms, 150ms] less 1 token.
	burst := append([]time.Duration(nil), even...)
	for i := 0; i < 10; i++ {
		burst = append(burst, msec(150))
	}
	if got := maxExcess(burst, 1000); got < 9.999 || got > 10.001 {
		t.Errorf("a burst of 10: excess %v, want 10", got)
	}
	if got := maxExcess(nil, 1000); got != 0 {
		t.Errorf("no starts: excess %v", got)
	}
}

func TestGaps(t *testing.T) {
	starts := []time.Duration{0, msec(1), msec(31), msec(32)}
	longest, lost := gaps(starts, 1000, 10)
	if longest != msec(30) {
		t.Errorf("longest gap %v, want 30ms", longest)
	}
	if lost < 19.999 || lost > 20.001 {
		t.Errorf("lost %v tokens, want 20 (a 30 ms gap, 10 of which the bucket keeps)", lost)
	}
}

// synthetic is a result as a run would leave it, without the wait.
func synthetic() *result {
	cfg := short(true)
	r := &result{cfg: cfg}
	for _, c := range contenders() {
		var starts []time.Duration
		for d := time.Duration(0); d < cfg.steady.duration; d += time.Millisecond {
			starts = append(starts, d)
		}
		samples := []sample{{at: msec(10), held: 3, executing: 4, busy: 4}, {at: msec(20), busy: -1}}
		r.steady = append(r.steady, paceRun{name: c.name, starts: starts, samples: samples})
		r.burst = append(r.burst, paceRun{name: c.name, starts: starts, samples: samples})
		sh := sharedRun{name: c.name, throttled: starts, plain: starts, samples: samples,
			duration: cfg.shared.duration, withThrottledTasks: true}
		r.shared = append(r.shared, sh)
		sh.withThrottledTasks = false
		r.alone = append(r.alone, sh)
	}
	return r
}

func TestReportAndChart(t *testing.T) {
	r := synthetic()
	var out bytes.Buffer
	writeReport(&out, r, contenders())
	for _, want := range []string{"Steady overload", "Burst after idle", "Shared pool", "| e62cffed/ants |", "| gammazero/workerpool |", "| go-pkgz/pool |", "Set-ups"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	for _, name := range []string{"pace.svg", "pace.png"} {
		path := filepath.Join(t.TempDir(), name)
		if err := writeChart(path, r); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || len(b) < 1000 {
			t.Fatalf("%s: read %d bytes, %v", name, len(b), err)
		}
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-steady", "1ms"}, {"-shared-burst", "0"}, {"extra"}, {"-nope"}} {
		var stderr bytes.Buffer
		if err := run(args, &bytes.Buffer{}, &stderr); err == nil {
			t.Errorf("run(%q) = nil, want an error", args)
		}
	}
}

// TestPaceShort runs every scenario for every library at a tiny scale, so
// that go test -short checks the harness and the set-ups in under 2 s.
// Its figures are too short to say much; it checks only what holds
// whatever the machine: our pool holds no worker while throttled.
func TestPaceShort(t *testing.T) {
	if !testing.Short() {
		t.Skip("TestPace runs the same at a larger scale")
	}
	r, err := measure(short(true), contenders(), newTestWriter(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, most := heldStats(r.steady[0].samples, 0, time.Hour); most != 0 {
		t.Errorf("steady overload: our pool held up to %d workers waiting for a token", most)
	}
	if f := r.sharedFigures(0); f.heldMost != 0 {
		t.Errorf("shared pool: our pool held up to %d workers waiting for a token", f.heldMost)
	}
}

// TestPace is the command at about a third of its length (about 10 s),
// with checks of what the figures must show whatever the machine, with
// margins for a shared one: the rate bound and the rate of our pool, no
// worker of ours held while throttled, and the plain tasks of the shared
// pool running several times faster on ours than beside the peers'
// throttled tasks.
//
//	cd benchmarks && go test -run TestPace -v ./pace
func TestPace(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s; TestPaceShort runs under -short")
	}
	cfg := short(false)
	cs := contenders()
	start := time.Now()
	r, err := measure(cfg, cs, newTestWriter(t))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	writeReport(&out, r, cs)
	t.Logf("%v\n%s", time.Since(start).Round(time.Millisecond), out.String())

	// Timestamps are taken as tasks start, on their own goroutines, which
	// a loaded machine deschedules for milliseconds: allow 10 ms of starts
	// beyond the bucket's bound.
	jitter := func(rate float64) int { return int(rate / 100) }
	s := r.steadyFigures(0)
	if j := jitter(cfg.steady.rate); s.excess > float64(cfg.steady.burst+j) {
		t.Errorf("steady overload: %.1f starts beyond rate·T, want at most the burst %d (+%d)", s.excess, cfg.steady.burst, j)
	}
	if low := 0.8 * cfg.steady.rate; s.perSecond < low {
		t.Errorf("steady overload: %.0f/s, want at least %.0f (limit %g; a stalled machine loses tokens beyond the burst: longest gap %v)",
			s.perSecond, low, cfg.steady.rate, s.longestGap)
	}
	if s.heldMost != 0 {
		t.Errorf("steady overload: our pool held up to %d workers waiting for a token", s.heldMost)
	}

	b := r.burstFigures(0)
	if j := jitter(cfg.burst.rate); b.excess > float64(cfg.burst.burst+j) {
		t.Errorf("burst after idle: %.1f starts beyond rate·T, want at most %d (+%d)", b.excess, cfg.burst.burst, j)
	}
	if b.first[0] < cfg.burst.burst || b.second[0] < cfg.burst.burst {
		t.Errorf("burst after idle: first windows %d and %d, want the burst %d at least in each: the bucket refills while idle",
			b.first[0], b.second[0], cfg.burst.burst)
	}

	ours := r.sharedFigures(0)
	if ours.heldMost != 0 {
		t.Errorf("shared pool: our pool held up to %d workers waiting for a token", ours.heldMost)
	}
	if ours.busy > ours.executing+1 {
		t.Errorf("shared pool: our pool's Stats show %.1f busy workers, beside %.1f tasks on a worker", ours.busy, ours.executing)
	}
	if ours.plain < 0.5*ours.alone {
		t.Errorf("shared pool: plain tasks %.0f/s beside throttled ones, %.0f/s alone: want at least half", ours.plain, ours.alone)
	}
	if ours.throttled < 0.5*cfg.shared.rate || ours.throttled > cfg.shared.rate+float64(cfg.shared.burst)/cfg.shared.duration.Seconds()+1 {
		t.Errorf("shared pool: throttled tasks %.1f/s, limit %g", ours.throttled, cfg.shared.rate)
	}
	for i := 1; i < len(cs); i++ {
		f := r.sharedFigures(i)
		if ours.plain < 3*f.plain {
			t.Errorf("shared pool: plain tasks %.0f/s on ours, %.0f/s on %s: want several times more", ours.plain, f.plain, cs[i].name)
		}
		if f.held < float64(cfg.shared.workers)/2 {
			t.Errorf("shared pool: %s held %.1f workers waiting for a token on average; it waits inside the task, so most of %d",
				cs[i].name, f.held, cfg.shared.workers)
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
