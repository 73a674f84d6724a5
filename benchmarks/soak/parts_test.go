package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	"gonum.org/v1/plot/plotter"
)

func TestLedger(t *testing.T) {
	t.Run("a run matched by its answer is no violation", func(t *testing.T) {
		l := newLedger()
		l.ran("1")
		l.answered(1, true)
		l.answered(2, false)
		if v := l.finish(); v.broken() != 0 {
			t.Fatalf("violations %+v; want none", v)
		}
	})
	t.Run("each broken promise is counted", func(t *testing.T) {
		l := newLedger()
		l.ran("1")
		l.ran("1")
		l.answered(1, true) // ran twice
		l.answered(2, true) // never ran
		l.ran("3")
		l.answered(3, false) // shed, yet ran
		l.ran("4")           // ran, never answered
		l.ran("5")
		l.answered(5, true)
		l.ran("5") // ran again after its answer
		l.ran("x") // no id
		l.badAnswer()
		l.ran("6")
		l.lost(6) // outcome unknown: not a violation
		want := violations{DoubleRuns: 1, MissingRuns: 1, ShedRan: 1, UnknownIDs: 2, Unmatched: 2, LostOutcomes: 1}
		if v := l.finish(); v != want || v.broken() != 7 {
			t.Fatalf("violations %+v (%d broken); want %+v (7)", v, v.broken(), want)
		}
	})
}

func TestIDOf(t *testing.T) {
	for url, want := range map[string]uint64{"http://h/work?id=42": 42, "http://h/work?id=0": 0} {
		if id, ok := idOf(url); !ok || id != want {
			t.Errorf("idOf(%q) = %d, %v; want %d", url, id, ok, want)
		}
	}
	for _, url := range []string{"http://h/work", "http://h/work?id=", "http://h/work?id=x"} {
		if _, ok := idOf(url); ok {
			t.Errorf("idOf(%q) found an id", url)
		}
	}
}

func TestQuantiles(t *testing.T) {
	xs := make([]float64, 0, 100)
	for i := 100; i >= 1; i-- {
		xs = append(xs, float64(i))
	}
	if p50, p99, m := quantiles(xs); p50 != 50 || p99 != 99 || m != 100 {
		t.Fatalf("quantiles of 1..100 = %v, %v, %v; want 50, 99, 100", p50, p99, m)
	}
	if p50, p99, m := quantiles(nil); p50 != 0 || p99 != 0 || m != 0 {
		t.Fatalf("quantiles of nothing = %v, %v, %v; want zeros", p50, p99, m)
	}
}

// flatReport is a report of a run that kept every promise: 30 s of steady
// figures.
func flatReport() *report {
	cfg := testConfig()
	cfg.Duration = 30 * time.Second
	rep := &report{Config: cfg, Accepted: latencies{N: 100}, Shed: latencies{N: 50, P99ms: 1}, SideAccepted: 8, SideRan: 8}
	for i := 1; i <= 30; i++ {
		rep.Seconds = append(rep.Seconds, second{T: i, Accepted: 4, Shed: 2, RSSMiB: 30, HeapMiB: 5, Goroutines: 200, Cap: 8})
	}
	levels(rep)
	return rep
}

func TestEvaluate(t *testing.T) {
	if rep := flatReport(); !evaluate(rep) {
		t.Fatalf("a flat, clean run failed: %+v", rep.Checks)
	}
	for name, spoil := range map[string]func(r *report){
		"every accepted request's task ran exactly once": func(r *report) { r.Violations.DoubleRuns = 1 },
		"shed requests got 503 fast":                     func(r *report) { r.Shed.P99ms = ms(r.Config.Work) },
		"no goroutine left after shutdown":               func(r *report) { r.LeftoverGoroutines = 1 },
		"every task the side pool accepted ran":          func(r *report) { r.SideRan-- },
		"every /metrics scrape served the pool's series": func(r *report) { r.ScrapeErrors = 1 },
		"RSS flat after warm-up": func(r *report) {
			for i := range r.Seconds[20:] {
				r.Seconds[20+i].RSSMiB = 30*growthFactor + rssSlackMiB + 1
			}
		},
		"goroutines flat after warm-up": func(r *report) {
			for i := range r.Seconds[20:] {
				r.Seconds[20+i].Goroutines = int(200*growthFactor) + goroutinesPerConn*r.Config.Workers + 1
			}
		},
	} {
		rep := flatReport()
		spoil(rep)
		levels(rep)
		if evaluate(rep) {
			t.Errorf("%s: spoiled, yet every check passed", name)
		}
		for _, c := range rep.Checks {
			if c.OK == (c.Name == name) {
				t.Errorf("spoiling %q: check %q ok = %v", name, c.Name, c.OK)
			}
		}
	}
}

func TestVariants(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name+": an accepted task runs once and release waits for it", func(t *testing.T) {
			p, err := v.newWork(2, 2)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			runs := 0
			gate := make(chan struct{})
			started := make(chan struct{})
			if err := p.TrySubmit(func() { close(started); <-gate; mu.Lock(); runs++; mu.Unlock() }); err != nil {
				t.Fatal(err)
			}
			<-started
			if s := p.Stats(); s.Submitted != 1 || s.Running < 1 {
				t.Fatalf("Stats with one task running: %+v", s)
			}
			released := make(chan error, 1)
			go func() { released <- p.ReleaseContext(context.Background()) }()
			select {
			case err := <-released:
				t.Fatalf("ReleaseContext returned %v before the task ended", err)
			case <-time.After(20 * time.Millisecond):
			}
			close(gate)
			if err := <-released; err != nil {
				t.Fatalf("ReleaseContext: %v", err)
			}
			if runs != 1 {
				t.Fatalf("the task ran %d times", runs)
			}
			if err := p.TrySubmit(func() {}); err == nil {
				t.Fatal("TrySubmit after ReleaseContext returned nil")
			}
		})
		if v.tunes {
			t.Run(v.name+": a full pool sheds with ants.ErrPoolOverload", func(t *testing.T) {
				p, err := v.newWork(1, 0)
				if err != nil {
					t.Fatal(err)
				}
				gate := make(chan struct{})
				started := make(chan struct{})
				if err := p.TrySubmit(func() { close(started); <-gate }); err != nil {
					t.Fatal(err)
				}
				<-started
				if err := p.TrySubmit(func() {}); !errors.Is(err, ants.ErrPoolOverload) {
					t.Errorf("TrySubmit on a full pool: %v; want ants.ErrPoolOverload", err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				if err := p.SubmitContext(ctx, func() {}); err == nil {
					t.Error("SubmitContext with a done context on a full pool returned nil")
				}
				close(gate)
				if err := p.ReleaseContext(context.Background()); err != nil {
					t.Fatal(err)
				}
				if s := p.Stats(); s.Rejected != 2 || s.Completed != 1 {
					t.Fatalf("Stats %+v; want 2 rejected, 1 completed", s)
				}
			})
		}
		if v.newSide != nil {
			t.Run(v.name+": the side pool survives release and reboot", func(t *testing.T) {
				s, err := v.newSide(2)
				if err != nil {
					t.Fatal(err)
				}
				done := make(chan struct{}, 2)
				s.Release()
				s.Reboot()
				if err := s.Submit(func() { done <- struct{}{} }); err != nil {
					t.Fatalf("Submit after Release and Reboot: %v", err)
				}
				<-done
				if err := s.ReleaseContext(context.Background()); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
	if _, err := findVariant("nope"); err == nil {
		t.Fatal("findVariant found nope")
	}
}

func TestOutput(t *testing.T) {
	a, b := flatReport(), flatReport()
	b.Config.Variant = "goroutine-per-request"
	evaluate(a)
	evaluate(b)
	var md strings.Builder
	writeReport(&md, []*report{a, b})
	for _, want := range []string{"| | e62cffed/ants | goroutine-per-request |", "all 7 pass", "pass: shed requests got 503 fast"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, md.String())
		}
	}
	dir := t.TempDir()
	for _, name := range []string{"soak.svg", "soak.png"} {
		path := filepath.Join(dir, name)
		if err := writeChart(path, []*report{a, b}); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Stat(path); err != nil || st.Size() < 1000 {
			t.Fatalf("%s: %v, %v", name, st, err)
		}
	}
}

func TestPoints(t *testing.T) {
	var ss []second
	for i := 1; i <= 5; i++ {
		ss = append(ss, second{T: i, Accepted: i})
	}
	y := func(s second) float64 { return float64(s.Accepted) }
	mean := points(ss, 2, series{y: y})
	peak := points(ss, 2, series{y: y, peak: true})
	want := []plotter.XY{{X: 2, Y: 1.5}, {X: 4, Y: 3.5}, {X: 5, Y: 5}}
	wantPeak := []plotter.XY{{X: 2, Y: 2}, {X: 4, Y: 4}, {X: 5, Y: 5}}
	for i := range want {
		if mean[i] != want[i] || peak[i] != wantPeak[i] {
			t.Fatalf("points: mean %v, peak %v; want %v, %v", mean, peak, want, wantPeak)
		}
	}
	if n := len(points(ss, 1, series{y: y})); n != 5 {
		t.Fatalf("bucket 1: %d points; want 5", n)
	}
}

func TestReplot(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "soak.json")
	b, err := json.Marshal([]*report{flatReport()})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(js, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	svg := filepath.Join(dir, "soak.svg")
	if err := run([]string{"-replot", js, "-svg", svg}, &out, io.Discard); err != nil {
		t.Fatalf("-replot: %v", err)
	}
	if !strings.Contains(out.String(), "all 7 pass") {
		t.Fatalf("-replot printed:\n%s", out.String())
	}
	if _, err := os.Stat(svg); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"-replot", filepath.Join(dir, "none.json")}, io.Discard, io.Discard); err == nil {
		t.Fatal("-replot of a missing file returned nil")
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-duration", "1s"},
		{"-rate", "0"},
		{"-variants", "nope", "-duration", "10s"},
		{"-bogus"},
		{"-variants", ""},
	} {
		if err := run(args, io.Discard, io.Discard); err == nil {
			t.Errorf("run(%q) returned nil", args)
		}
	}
}

func TestEveryFeatureParts(t *testing.T) {
	t.Run("levels", func(t *testing.T) {
		counts := make([]int, 3)
		for id := uint64(1); id <= 300; id++ {
			counts[levelOf(id, 3)]++
		}
		if counts[0] != 100 || counts[1] != 100 || counts[2] != 100 {
			t.Fatalf("levelOf spreads 300 ids as %v; want 100 each", counts)
		}
		var got int
		h := withLevels(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			got = ants.PriorityFromContext(r.Context())
		}), 3)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/work/wait?id=5", nil))
		if got != 2 {
			t.Fatalf("request 5 has priority %d; want 2", got)
		}
	})
	t.Run("the release at the end", func(t *testing.T) {
		p, err := ants.NewPool(2)
		if err != nil {
			t.Fatal(err)
		}
		c := &counted{featurePool: p}
		gate := make(chan struct{})
		for range 2 {
			if err := c.SubmitContext(context.Background(), func() { <-gate }); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		if err := c.ReleaseContext(ctx); !errors.Is(err, ants.ErrTimeout) || c.final.ok() {
			t.Fatalf("a release that timed out: %v, %+v ok %v", err, c.final, c.final.ok())
		}
		close(gate)
		p.Reboot()
		if err := c.SubmitContext(context.Background(), func() {}); err != nil {
			t.Fatal(err)
		}
		if err := c.ReleaseContext(context.Background()); err != nil || !c.final.ok() || c.final.Accepted != 3 {
			t.Fatalf("the release: %v, %+v", err, c.final)
		}
	})
	t.Run("checks", func(t *testing.T) {
		rep := flatReport()
		rep.Config.Variant = everyFeature
		rep.FinalRelease = finalRelease{Accepted: 10, Finished: 10, Done: true}
		if !evaluate(rep) || len(rep.Checks) != 9 {
			t.Fatalf("a clean every-feature run: %+v", rep.Checks)
		}
		rep.FinalRelease.Finished = 9
		rep.SideBroken = 1
		evaluate(rep)
		for _, c := range rep.Checks[7:] {
			if c.OK {
				t.Errorf("spoiled, yet %q passed", c.Name)
			}
		}
	})
}
