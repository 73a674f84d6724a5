package antsotel_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	antsotel "github.com/e62cffed/ants/otel"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

const (
	dropsName    = "ants.pool.task.drops"
	dropWaitName = "ants.pool.task.drop.wait.duration"
)

// dropCounts returns the points of the drop counter of pool in ms, by
// reason; none if the counter has no point yet. It fails the test if the
// counter is not a monotonic int64 Sum with the unit {task}, or a point has
// other attributes than the pool's name and a reason.
func dropCounts(t *testing.T, ms map[string]metricdata.Metrics, pool string) map[string]int64 {
	t.Helper()
	counts := map[string]int64{}
	m, ok := ms[dropsName]
	if !ok {
		return counts
	}
	s, ok := m.Data.(metricdata.Sum[int64])
	if !ok {
		t.Fatalf("%s is a %T; want an int64 Sum", dropsName, m.Data)
	}
	if !s.IsMonotonic || s.Temporality != metricdata.CumulativeTemporality || m.Unit != "{task}" || m.Description == "" {
		t.Fatalf("%s: monotonic %v, %v, unit %q, description %q; want a cumulative Counter of {task} with a description",
			dropsName, s.IsMonotonic, s.Temporality, m.Unit, m.Description)
	}
	for _, p := range s.DataPoints {
		if name, _ := poolName(p.Attributes); name != pool {
			continue
		}
		reason, ok := p.Attributes.Value(antsotel.DropReasonKey)
		if !ok || p.Attributes.Len() != 2 {
			t.Fatalf("%s: attributes %v; want ants.pool.name and ants.pool.drop.reason alone", dropsName, p.Attributes.ToSlice())
		}
		counts[reason.AsString()] = p.Value
	}
	return counts
}

// wantDrops checks the drop counter of pool against want: the same
// reasons with the same counts.
func wantDrops(t *testing.T, ms map[string]metricdata.Metrics, pool string, want map[string]int64) {
	t.Helper()
	got := dropCounts(t, ms, pool)
	if len(got) != len(want) {
		t.Fatalf("%s{ants.pool.name=%q}: %v; want %v", dropsName, pool, got, want)
	}
	for reason, n := range want {
		if got[reason] != n {
			t.Fatalf("%s{ants.pool.name=%q}: %v; want %v", dropsName, pool, got, want)
		}
	}
}

func TestTaskObserverTaskDropped(t *testing.T) {
	t.Run("each drop counts under the reason of its error, and its wait is recorded", func(t *testing.T) {
		o, r, _ := newObserver(t)
		o.TaskDropped(10*time.Millisecond, ants.ErrQueueTimeout)
		o.TaskDropped(20*time.Millisecond, fmt.Errorf("wrapped: %w", ants.ErrQueueTimeout))
		o.TaskDropped(3*time.Microsecond, context.Canceled)
		o.TaskDropped(2*time.Second, context.DeadlineExceeded)
		o.TaskDropped(time.Millisecond, errors.New("something else"))
		o.TaskDropped(time.Millisecond, nil)
		ms := collect(t, r)
		wantDrops(t, ms, "work", map[string]int64{"timeout": 2, "canceled": 1, "deadline": 1, "other": 2})
		m := ms[dropWaitName]
		if m.Unit != "s" || m.Description == "" {
			t.Errorf("%s: unit %q, description %q; want unit s and a description", dropWaitName, m.Unit, m.Description)
		}
		drop := histogramPoint(t, ms, dropWaitName, "work")
		wantCountSum(t, "drop wait", drop, 6, 10e-3+20e-3+3e-6+2+2e-3)
		if drop.Attributes.Len() != 1 {
			t.Errorf("drop wait: attributes %v; want ants.pool.name alone", drop.Attributes.ToSlice())
		}
		if !slices.Equal(drop.Bounds, antsotel.TaskBoundaries()) {
			t.Errorf("drop wait: bounds %v; want TaskBoundaries", drop.Bounds)
		}
		if got := atOrUnder(t, drop, 5e-6); got != 1 {
			t.Errorf("%d drops at or under 5 µs; want 1", got)
		}
		if got := atOrUnder(t, drop, 2.5e-2); got != 5 {
			t.Errorf("%d drops at or under 25 ms; want 5", got)
		}
		// A dropped task never ran: the wait and run histograms are the
		// tasks that did, and have nothing yet.
		if _, ok := ms[waitName]; ok {
			t.Errorf("%s has points; want none, no task ran", waitName)
		}
	})

	t.Run("two pools' drops are told apart by name", func(t *testing.T) {
		meter, r := newMeter(t)
		a, err := antsotel.NewTaskObserver(meter, "a")
		if err != nil {
			t.Fatal(err)
		}
		b, err := antsotel.NewTaskObserver(meter, "b")
		if err != nil {
			t.Fatal(err)
		}
		a.TaskDropped(time.Millisecond, ants.ErrQueueTimeout)
		b.TaskDropped(time.Millisecond, context.Canceled)
		b.TaskDropped(time.Millisecond, context.Canceled)
		ms := collect(t, r)
		wantDrops(t, ms, "a", map[string]int64{"timeout": 1})
		wantDrops(t, ms, "b", map[string]int64{"canceled": 2})
	})

	t.Run("TaskDropped allocates nothing", func(t *testing.T) {
		o, _, _ := newObserver(t)
		o.TaskDropped(time.Millisecond, ants.ErrQueueTimeout) // the points exist
		if n := testing.AllocsPerRun(100, func() { o.TaskDropped(time.Millisecond, ants.ErrQueueTimeout) }); n != 0 {
			t.Fatalf("TaskDropped allocates %g times; want 0", n)
		}
	})
}

// TestTaskObserverDropsThroughPool drops tasks of a real pool for each
// reason the pool has, and checks what the observer and Register report.
// The pool's one worker is held while four tasks wait in its buffer: one
// whose context is canceled and one whose context's deadline passes are
// dropped at once; the other two are dropped with ErrQueueTimeout when the
// worker is let go, after they have waited longer than the queue timeout.
// No task but the one that held the worker runs.
//
// It needs the engine to act on WithQueueTimeout and to call TaskDropped.
func TestTaskObserverDropsThroughPool(t *testing.T) {
	const (
		timeout  = 100 * time.Millisecond
		deadline = 20 * time.Millisecond // well under timeout: the context ends first
	)
	meter, r := newMeter(t)
	o, err := antsotel.NewTaskObserver(meter, "work")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ants.NewPool(1, ants.WithQueueSize(4), ants.WithQueueTimeout(timeout), ants.WithObserver(o))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := antsotel.Register(meter, "work", p); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	opened := false
	open := func() {
		if !opened {
			opened = true
			close(gate)
		}
	}
	t.Cleanup(func() {
		open()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = p.ReleaseContext(ctx)
	})

	begin := time.Now()
	started := make(chan struct{})
	if err := p.Submit(func() { close(started); <-gate }); err != nil {
		t.Fatal(err)
	}
	<-started
	var ran atomic.Int32
	for i := 0; i < 2; i++ {
		if err := p.Submit(func() { ran.Add(1) }); err != nil {
			t.Fatal(err)
		}
	}
	submitted := time.Now()
	canceled, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := p.SubmitContext(canceled, func() { ran.Add(1) }); err != nil {
		t.Fatal(err)
	}
	late, lateCancel := context.WithTimeout(context.Background(), deadline)
	defer lateCancel()
	if err := p.SubmitContext(late, func() { ran.Add(1) }); err != nil {
		t.Fatal(err)
	}
	cancel()
	// Both are dropped once their contexts end, on the goroutine that
	// handles the end, which may report after Stats counts: wait for the
	// observer.
	waitFor := time.Now().Add(10 * time.Second)
	for {
		c := dropCounts(t, collect(t, r), "work")
		if c["canceled"] == 1 && c["deadline"] == 1 {
			break
		}
		if time.Now().After(waitFor) {
			t.Fatalf("timed out waiting for the tasks whose contexts ended to be reported dropped: %v", c)
		}
		runtime.Gosched()
	}
	if s := p.Stats(); s.Dropped != 2 || s.Queued != 2 {
		t.Fatalf("after the contexts ended: Stats %+v; want 2 dropped and 2 still buffered", s)
	}
	// The other two can only be dropped once the worker is free; free it
	// once they have waited longer than the timeout. This waits for the
	// clock, not for another goroutine.
	for time.Since(submitted) <= timeout {
		runtime.Gosched()
	}
	open()
	ctx, cancelRelease := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelRelease()
	if err := p.ReleaseContext(ctx); err != nil { // the worker has exited: its drops are reported
		t.Fatal(err)
	}
	elapsed := time.Since(begin)

	if n := ran.Load(); n != 0 {
		t.Fatalf("%d dropped tasks ran", n)
	}
	ms := collect(t, r)
	wantDrops(t, ms, "work", map[string]int64{"timeout": 2, "canceled": 1, "deadline": 1})
	drop := histogramPoint(t, ms, dropWaitName, "work")
	if drop.Count != 4 {
		t.Fatalf("drop wait: %d drops recorded; want 4", drop.Count)
	}
	// The two timed-out tasks waited longer than timeout each; nothing
	// waited longer than the test.
	if lo, hi := 2*timeout.Seconds(), 4*elapsed.Seconds(); drop.Sum < lo || drop.Sum > hi {
		t.Fatalf("drop waits add up to %g s; want from %g s to %g s", drop.Sum, lo, hi)
	}
	if got := atOrUnder(t, drop, 5e-2); got != 2 {
		t.Errorf("%d drops waited at most 50 ms; want 2, those whose contexts ended", got)
	}
	if wait := histogramPoint(t, ms, waitName, "work"); wait.Count != 1 {
		t.Errorf("wait: %d tasks recorded; want 1, the one that ran", wait.Count)
	}
	wantStats(t, ms, "work", ants.Stats{Cap: 1, Submitted: 5, Completed: 1, Dropped: 4})
}

// BenchmarkTaskObserverTaskDropped measures TaskDropped on the real SDK,
// one counter and one histogram measurement, from parallel goroutines as
// workers call it.
func BenchmarkTaskObserverTaskDropped(b *testing.B) {
	meter, _ := newMeter(b)
	o, err := antsotel.NewTaskObserver(meter, "work")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			o.TaskDropped(3*time.Millisecond, ants.ErrQueueTimeout)
		}
	})
}
