package antsprom_test

import (
	"context"
	"math"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	antsprom "github.com/e62cffed/ants/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

const (
	waitName = "ants_pool_task_wait_seconds"
	runName  = "ants_pool_task_run_seconds"
)

// histogramOf gathers g and returns the histogram named name whose pool
// label is pool, failing the test if there is none.
func histogramOf(t *testing.T, g prometheus.Gatherer, name, pool string) *dto.Histogram {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		if mf.GetType() != dto.MetricType_HISTOGRAM {
			t.Fatalf("%s is a %v; want a histogram", name, mf.GetType())
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "pool" && l.GetValue() == pool {
					return m.GetHistogram()
				}
			}
		}
	}
	t.Fatalf("no %s{pool=%q} gathered", name, pool)
	return nil
}

// registryWith returns a registry holding only cs.
func registryWith(cs ...prometheus.Collector) *prometheus.Registry {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(cs...)
	return reg
}

// wantCountSum checks a histogram's count and sum (to within a nanosecond
// per observation, the resolution of time.Duration).
func wantCountSum(t *testing.T, what string, h *dto.Histogram, count uint64, sum float64) {
	t.Helper()
	if h.GetSampleCount() != count || math.Abs(h.GetSampleSum()-sum) > float64(count)*1e-9 {
		t.Fatalf("%s: count %d, sum %g; want %d, %g", what, h.GetSampleCount(), h.GetSampleSum(), count, sum)
	}
}

// cumulative returns the classic bucket count at upper bound le.
func cumulative(t *testing.T, h *dto.Histogram, le float64) uint64 {
	t.Helper()
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == le {
			return b.GetCumulativeCount()
		}
	}
	t.Fatalf("no bucket le=%g", le)
	return 0
}

func TestTaskObserver(t *testing.T) {
	t.Run("TaskDone counts and sums each task in both histograms", func(t *testing.T) {
		o := antsprom.NewTaskObserver("work")
		o.TaskDone(2*time.Microsecond, time.Second, false)
		o.TaskDone(3*time.Millisecond, 20*time.Millisecond, false)
		o.TaskDone(40*time.Second, 90*time.Second, false)
		reg := registryWith(o)
		wait, run := histogramOf(t, reg, waitName, "work"), histogramOf(t, reg, runName, "work")
		wantCountSum(t, "wait", wait, 3, 2e-6+3e-3+40)
		wantCountSum(t, "run", run, 3, 1+20e-3+90)

		if n := len(wait.GetBucket()); n != 24 {
			t.Fatalf("%d classic buckets; want 24, from 1 µs to 60 s", n)
		}
		if lo, hi := wait.GetBucket()[0].GetUpperBound(), wait.GetBucket()[23].GetUpperBound(); lo != 1e-6 || hi != 60 {
			t.Fatalf("classic buckets from %g to %g; want 1e-06 to 60", lo, hi)
		}
		for _, c := range []struct {
			what      string
			h         *dto.Histogram
			le        float64
			wantCount uint64
		}{
			{"wait", wait, 1e-6, 0},
			{"wait", wait, 2.5e-6, 1},
			{"wait", wait, 2.5e-3, 1},
			{"wait", wait, 5e-3, 2},
			{"wait", wait, 60, 3},
			{"run", run, 1e-2, 0},
			{"run", run, 2.5e-2, 1},
			{"run", run, 1, 2},
			{"run", run, 60, 2}, // 90 s only in +Inf
		} {
			if got := cumulative(t, c.h, c.le); got != c.wantCount {
				t.Errorf("%s: %d tasks at or under %g s; want %d", c.what, got, c.le, c.wantCount)
			}
		}
	})

	t.Run("native histograms are enabled", func(t *testing.T) {
		o := antsprom.NewTaskObserver("work")
		o.TaskDone(time.Millisecond, time.Millisecond, false)
		reg := registryWith(o)
		for _, name := range []string{waitName, runName} {
			h := histogramOf(t, reg, name, "work")
			// Factor 1.1 is schema 3: 2^(2^-3), 8 buckets per power of two.
			if h.Schema == nil || h.GetSchema() != 3 {
				t.Fatalf("%s: native schema %v; want 3", name, h.Schema)
			}
			var n uint64
			var count int64
			for _, d := range h.GetPositiveDelta() {
				count += d
				n += uint64(count)
			}
			if n != 1 {
				t.Fatalf("%s: %d observations in native buckets; want 1", name, n)
			}
		}
	})

	t.Run("a panicked task counts in run time like any other", func(t *testing.T) {
		o := antsprom.NewTaskObserver("work")
		o.TaskDone(time.Millisecond, 2*time.Second, true)
		o.TaskDone(time.Millisecond, 3*time.Second, false)
		reg := registryWith(o)
		wantCountSum(t, "run", histogramOf(t, reg, runName, "work"), 2, 5)
		wantCountSum(t, "wait", histogramOf(t, reg, waitName, "work"), 2, 2e-3)
	})

	t.Run("promlint finds nothing beside the collector on a pedantic registry", func(t *testing.T) {
		o := antsprom.NewTaskObserver("work")
		o.TaskDone(time.Millisecond, 5*time.Millisecond, false)
		reg := registryWith(antsprom.NewCollector("work", &fixed{stats: ants.Stats{Cap: 4}}), o)
		problems, err := testutil.GatherAndLint(reg)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("promlint: %s: %s", p.Metric, p.Text)
		}
		if n, err := testutil.GatherAndCount(reg, waitName, runName); err != nil || n != 2 {
			t.Fatalf("gathered %d histograms (err %v); want 2", n, err)
		}
	})

	t.Run("pools with different names share a registry", func(t *testing.T) {
		reg := registryWith(antsprom.NewTaskObserver("a"), antsprom.NewTaskObserver("b"))
		if n, err := testutil.GatherAndCount(reg); err != nil || n != 14 {
			t.Fatalf("gathered %d series (err %v); want 14: per observer, 3 histograms and 4 reasons of the drop counter", n, err)
		}
		if err := reg.Register(antsprom.NewTaskObserver("a")); err == nil {
			t.Fatal("a second observer named a was registered; want an error")
		}
	})

	t.Run("TaskDone from many goroutines while a registry gathers", func(t *testing.T) {
		const goroutines, each = 8, 1000
		o := antsprom.NewTaskObserver("work")
		reg := registryWith(o)
		var wg sync.WaitGroup
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					o.TaskDone(time.Microsecond, time.Millisecond, i%10 == 0)
				}
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
	gather:
		for {
			select {
			case <-done:
				break gather
			default:
				if _, err := reg.Gather(); err != nil {
					t.Fatal(err)
				}
			}
		}
		wantCountSum(t, "wait", histogramOf(t, reg, waitName, "work"), goroutines*each, goroutines*each*1e-6)
		wantCountSum(t, "run", histogramOf(t, reg, runName, "work"), goroutines*each, goroutines*each*1e-3)
	})
}

// TestTaskObserverThroughPool runs tasks on a real pool with the observer.
// Task 1 holds the pool's one worker while task 2 waits in the buffer, so
// that task 2's wait is at least the time between its Submit returning and
// task 1's release. Task 3 panics and is observed too. No task waits or
// runs longer than the test.
//
// It needs the engine to call the Observer (WithObserver's wiring).
func TestTaskObserverThroughPool(t *testing.T) {
	o := antsprom.NewTaskObserver("work")
	p, err := ants.NewPool(1, ants.WithQueueSize(2), ants.WithObserver(o),
		ants.WithPanicHandler(func(any) {}))
	if err != nil {
		t.Fatal(err)
	}
	const hold = 2 * time.Millisecond
	begin := time.Now()
	gate := make(chan struct{})
	started1 := make(chan time.Time, 1)
	started2 := make(chan time.Time, 1)
	if err := p.Submit(func() { started1 <- time.Now(); <-gate }); err != nil {
		t.Fatal(err)
	}
	start1 := <-started1
	if err := p.Submit(func() { started2 <- time.Now() }); err != nil {
		t.Fatal(err)
	}
	submitted2 := time.Now()
	if err := p.Submit(func() { panic("observed") }); err != nil {
		t.Fatal(err)
	}
	// Task 2 cannot start before the gate opens; open it once hold has
	// passed since its Submit returned. This waits for the clock, not for
	// another goroutine, so it cannot flake.
	for time.Since(submitted2) < hold {
		runtime.Gosched()
	}
	released := time.Now()
	close(gate)
	<-started2
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.ReleaseContext(ctx); err != nil { // the workers have exited, so every TaskDone has returned
		t.Fatal(err)
	}
	end := time.Now()

	reg := registryWith(antsprom.NewCollector("work", p), o)
	wait, run := histogramOf(t, reg, waitName, "work"), histogramOf(t, reg, runName, "work")
	if wait.GetSampleCount() != 3 || run.GetSampleCount() != 3 {
		t.Fatalf("observed %d waits and %d runs; want 3 of each (the panicked task too)",
			wait.GetSampleCount(), run.GetSampleCount())
	}
	most := 3 * end.Sub(begin).Seconds()
	// Task 2 waited at least from its Submit's return to the gate's opening.
	if lo, got := released.Sub(submitted2).Seconds(), wait.GetSampleSum(); got < lo || got > most {
		t.Fatalf("waits add up to %g s; want from %g s (task 2 alone) to %g s", got, lo, most)
	}
	if cumulative(t, wait, 1e-3) == 3 {
		t.Fatalf("every wait under 1 ms; task 2 waited at least %v", hold)
	}
	// Task 1 ran from its start at least until the gate opened.
	if lo, got := released.Sub(start1).Seconds(), run.GetSampleSum(); got < lo || got > most {
		t.Fatalf("runs add up to %g s; want from %g s (task 1 alone) to %g s", got, lo, most)
	}
	if s := p.Stats(); s.Completed != 2 || s.Panicked != 1 {
		t.Fatalf("Stats %+v; want 2 completed, 1 panicked", s)
	}
}

// BenchmarkTaskObserverTaskDone measures TaskDone, two observations in
// histograms with classic and native buckets, from parallel goroutines as
// workers call it.
func BenchmarkTaskObserverTaskDone(b *testing.B) {
	o := antsprom.NewTaskObserver("work")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			o.TaskDone(3*time.Microsecond, 40*time.Microsecond, false)
		}
	})
}
