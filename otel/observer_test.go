package antsotel_test

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	antsotel "github.com/e62cffed/ants/otel"
	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

const (
	waitName = "ants.pool.task.wait.duration"
	runName  = "ants.pool.task.run.duration"
)

// wantCountSum checks a histogram point's count and sum (to within a
// nanosecond per measurement, the resolution of time.Duration).
func wantCountSum(t *testing.T, what string, p metricdata.HistogramDataPoint[float64], count uint64, sum float64) {
	t.Helper()
	if p.Count != count || math.Abs(p.Sum-sum) > float64(count)*1e-9 {
		t.Fatalf("%s: count %d, sum %g; want %d, %g", what, p.Count, p.Sum, count, sum)
	}
}

// atOrUnder returns how many measurements of p are at or under the bound
// le, which must be one of its bounds.
func atOrUnder(t *testing.T, p metricdata.HistogramDataPoint[float64], le float64) uint64 {
	t.Helper()
	i := slices.Index(p.Bounds, le)
	if i < 0 {
		t.Fatalf("no bound %g in %v", le, p.Bounds)
	}
	var n uint64
	for _, c := range p.BucketCounts[:i+1] {
		n += c
	}
	return n
}

// newObserver returns an observer for pool "work" on a new meter, and a
// function that collects and returns its two histograms.
func newObserver(t *testing.T) (*antsotel.TaskObserver, *sdkmetric.ManualReader, func() (wait, run metricdata.HistogramDataPoint[float64])) {
	t.Helper()
	meter, r := newMeter(t)
	o, err := antsotel.NewTaskObserver(meter, "work")
	if err != nil {
		t.Fatal(err)
	}
	return o, r, func() (wait, run metricdata.HistogramDataPoint[float64]) {
		t.Helper()
		ms := collect(t, r)
		return histogramPoint(t, ms, waitName, "work"), histogramPoint(t, ms, runName, "work")
	}
}

func TestTaskObserver(t *testing.T) {
	t.Run("TaskDone records each task in both histograms, in seconds, with the pool's name", func(t *testing.T) {
		meter, r := newMeter(t)
		o, err := antsotel.NewTaskObserver(meter, "work")
		if err != nil {
			t.Fatal(err)
		}
		o.TaskDone(2*time.Microsecond, time.Second, false)
		o.TaskDone(3*time.Millisecond, 20*time.Millisecond, false)
		o.TaskDone(40*time.Second, 90*time.Second, false)
		ms := collect(t, r)
		if len(ms) != 2 {
			t.Fatalf("collected %d instruments; want the two histograms", len(ms))
		}
		for _, name := range []string{waitName, runName} {
			m := ms[name]
			if m.Unit != "s" || m.Description == "" {
				t.Errorf("%s: unit %q, description %q; want unit s and a description", name, m.Unit, m.Description)
			}
			if h := m.Data.(metricdata.Histogram[float64]); h.Temporality != metricdata.CumulativeTemporality {
				t.Errorf("%s: %v; want cumulative", name, h.Temporality)
			}
		}
		wait, run := histogramPoint(t, ms, waitName, "work"), histogramPoint(t, ms, runName, "work")
		wantCountSum(t, "wait", wait, 3, 2e-6+3e-3+40)
		wantCountSum(t, "run", run, 3, 1+20e-3+90)
		if wait.Attributes.Len() != 1 {
			t.Fatalf("attributes %v; want ants.pool.name alone", wait.Attributes.ToSlice())
		}
		if !slices.Equal(wait.Bounds, antsotel.TaskBoundaries()) || !slices.Equal(run.Bounds, antsotel.TaskBoundaries()) {
			t.Fatalf("bounds %v and %v; want TaskBoundaries %v", wait.Bounds, run.Bounds, antsotel.TaskBoundaries())
		}
		for _, c := range []struct {
			what string
			p    metricdata.HistogramDataPoint[float64]
			le   float64
			want uint64
		}{
			{"wait", wait, 1e-6, 0},
			{"wait", wait, 2.5e-6, 1},
			{"wait", wait, 2.5e-3, 1},
			{"wait", wait, 5e-3, 2},
			{"wait", wait, 60, 3},
			{"run", run, 1e-2, 0},
			{"run", run, 2.5e-2, 1},
			{"run", run, 1, 2},
			{"run", run, 60, 2}, // 90 s only in the overflow bucket
		} {
			if got := atOrUnder(t, c.p, c.le); got != c.want {
				t.Errorf("%s: %d tasks at or under %g s; want %d", c.what, got, c.le, c.want)
			}
		}
	})

	t.Run("TaskBoundaries go from 1 µs to 60 s and are a fresh slice each time", func(t *testing.T) {
		b := antsotel.TaskBoundaries()
		if len(b) != 24 || b[0] != 1e-6 || b[len(b)-1] != 60 || !slices.IsSorted(b) {
			t.Fatalf("TaskBoundaries %v", b)
		}
		b[0] = 42
		if antsotel.TaskBoundaries()[0] != 1e-6 {
			t.Fatal("changing the returned slice changed the next one")
		}
	})

	t.Run("a panicked task counts in run time like any other", func(t *testing.T) {
		o, _, collect := newObserver(t)
		o.TaskDone(time.Millisecond, 2*time.Second, true)
		o.TaskDone(time.Millisecond, 3*time.Second, false)
		wait, run := collect()
		wantCountSum(t, "run", run, 2, 5)
		wantCountSum(t, "wait", wait, 2, 2e-3)
	})

	t.Run("TaskDone from many goroutines while the reader collects", func(t *testing.T) {
		const goroutines, each = 8, 1000
		o, r, histograms := newObserver(t)
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
	loop:
		for {
			select {
			case <-done:
				break loop
			default:
				collect(t, r) // the histograms appear with the first measurement
			}
		}
		wait, run := histograms()
		wantCountSum(t, "wait", wait, goroutines*each, goroutines*each*1e-6)
		wantCountSum(t, "run", run, goroutines*each, goroutines*each*1e-3)
	})

	t.Run("a nil meter is an error", func(t *testing.T) {
		if _, err := antsotel.NewTaskObserver(nil, "x"); err == nil {
			t.Fatal("NewTaskObserver with a nil meter returned no error")
		}
	})

	t.Run("a histogram the meter refuses is an error", func(t *testing.T) {
		meter, _ := newMeter(t)
		for _, name := range []string{waitName, runName, dropsName, dropWaitName} {
			m := refusingMeter{Meter: meter, refuse: name}
			if _, err := antsotel.NewTaskObserver(m, "x"); !errors.Is(err, errRefused) {
				t.Fatalf("refusing %s: %v; want the meter's error", name, err)
			}
		}
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
	meter, r := newMeter(t)
	o, err := antsotel.NewTaskObserver(meter, "work")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ants.NewPool(1, ants.WithQueueSize(2), ants.WithObserver(o),
		ants.WithPanicHandler(func(any) {}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := antsotel.Register(meter, "work", p); err != nil {
		t.Fatal(err)
	}
	const hold = 2 * time.Millisecond
	begin := time.Now()
	gate := make(chan struct{})
	started1 := make(chan time.Time, 1)
	if err := p.Submit(func() { started1 <- time.Now(); <-gate }); err != nil {
		t.Fatal(err)
	}
	start1 := <-started1
	done2 := make(chan struct{})
	if err := p.Submit(func() { close(done2) }); err != nil {
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
	<-done2
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.ReleaseContext(ctx); err != nil { // the workers have exited, so every TaskDone has returned
		t.Fatal(err)
	}
	end := time.Now()

	ms := collect(t, r)
	wait, run := histogramPoint(t, ms, waitName, "work"), histogramPoint(t, ms, runName, "work")
	if wait.Count != 3 || run.Count != 3 {
		t.Fatalf("recorded %d waits and %d runs; want 3 of each (the panicked task too)", wait.Count, run.Count)
	}
	most := 3 * end.Sub(begin).Seconds()
	if lo := released.Sub(submitted2).Seconds(); wait.Sum < lo || wait.Sum > most {
		t.Fatalf("waits add up to %g s; want from %g s (task 2 alone) to %g s", wait.Sum, lo, most)
	}
	if atOrUnder(t, wait, 1e-3) == 3 {
		t.Fatalf("every wait under 1 ms; task 2 waited at least %v", hold)
	}
	if lo := released.Sub(start1).Seconds(); run.Sum < lo || run.Sum > most {
		t.Fatalf("runs add up to %g s; want from %g s (task 1 alone) to %g s", run.Sum, lo, most)
	}
	wantStats(t, ms, "work", ants.Stats{Cap: 1, Submitted: 3, Completed: 2, Panicked: 1})
}

// BenchmarkTaskObserverTaskDone measures TaskDone on the real SDK with its
// default explicit-bucket aggregation, from parallel goroutines as workers
// call it, and, as a baseline, on the no-op meter.
func BenchmarkTaskObserverTaskDone(b *testing.B) {
	run := func(b *testing.B, o *antsotel.TaskObserver) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				o.TaskDone(3*time.Microsecond, 40*time.Microsecond, false)
			}
		})
	}
	b.Run("sdk", func(b *testing.B) {
		meter, _ := newMeter(b)
		o, err := antsotel.NewTaskObserver(meter, "work")
		if err != nil {
			b.Fatal(err)
		}
		run(b, o)
	})
	b.Run("noop", func(b *testing.B) {
		o, err := antsotel.NewTaskObserver(noop.NewMeterProvider().Meter("noop"), "work")
		if err != nil {
			b.Fatal(err)
		}
		run(b, o)
	})
}
