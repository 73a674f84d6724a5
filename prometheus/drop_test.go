package antsprom_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	antsprom "github.com/e62cffed/ants/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
)

const (
	dropsName    = "ants_pool_task_drops_total"
	dropWaitName = "ants_pool_task_drop_wait_seconds"
)

// dropCounts gathers g and returns the drop counter of pool by reason,
// failing the test if the counter is not there.
func dropCounts(t *testing.T, g prometheus.Gatherer, pool string) map[string]float64 {
	t.Helper()
	mfs, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != dropsName {
			continue
		}
		if mf.GetType() != dto.MetricType_COUNTER {
			t.Fatalf("%s is a %v; want a counter", dropsName, mf.GetType())
		}
		counts := map[string]float64{}
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if len(labels) != 2 {
				t.Fatalf("%s has labels %v; want pool and reason alone", dropsName, labels)
			}
			if labels["pool"] == pool {
				counts[labels["reason"]] = m.GetCounter().GetValue()
			}
		}
		return counts
	}
	t.Fatalf("no %s gathered", dropsName)
	return nil
}

// wantDrops checks the drop counter of pool against want, reason by
// reason; every reason is there, at 0 if want has none.
func wantDrops(t *testing.T, g prometheus.Gatherer, pool string, want map[string]float64) {
	t.Helper()
	got := dropCounts(t, g, pool)
	if len(got) != 4 {
		t.Fatalf("%s{pool=%q} has reasons %v; want timeout, canceled, deadline and other", dropsName, pool, got)
	}
	for _, reason := range []string{"timeout", "canceled", "deadline", "other"} {
		if got[reason] != want[reason] {
			t.Errorf("%s{pool=%q,reason=%q} = %g; want %g", dropsName, pool, reason, got[reason], want[reason])
		}
	}
}

func TestTaskObserverTaskDropped(t *testing.T) {
	t.Run("a new observer exports the four reasons at 0 and an empty drop wait histogram", func(t *testing.T) {
		reg := registryWith(antsprom.NewTaskObserver("work"))
		wantDrops(t, reg, "work", nil)
		wantCountSum(t, "drop wait", histogramOf(t, reg, dropWaitName, "work"), 0, 0)
		const want = `# HELP ants_pool_task_drops_total Tasks the pool accepted and dropped before they ran, by reason: timeout, canceled, deadline or other.
# TYPE ants_pool_task_drops_total counter
ants_pool_task_drops_total{pool="work",reason="canceled"} 0
ants_pool_task_drops_total{pool="work",reason="deadline"} 0
ants_pool_task_drops_total{pool="work",reason="other"} 0
ants_pool_task_drops_total{pool="work",reason="timeout"} 0
`
		if err := testutil.GatherAndCompare(reg, strings.NewReader(want), dropsName); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("each drop counts under the reason of its error, and its wait is recorded", func(t *testing.T) {
		o := antsprom.NewTaskObserver("work")
		o.TaskDropped(10*time.Millisecond, ants.ErrQueueTimeout)
		o.TaskDropped(20*time.Millisecond, fmt.Errorf("wrapped: %w", ants.ErrQueueTimeout))
		o.TaskDropped(3*time.Microsecond, context.Canceled)
		o.TaskDropped(2*time.Second, context.DeadlineExceeded)
		o.TaskDropped(time.Millisecond, errors.New("something else"))
		o.TaskDropped(time.Millisecond, nil)
		reg := registryWith(o)
		wantDrops(t, reg, "work", map[string]float64{"timeout": 2, "canceled": 1, "deadline": 1, "other": 2})
		drop := histogramOf(t, reg, dropWaitName, "work")
		wantCountSum(t, "drop wait", drop, 6, 10e-3+20e-3+3e-6+2+2e-3)
		if got := cumulative(t, drop, 5e-6); got != 1 {
			t.Errorf("%d drops at or under 5 µs; want 1", got)
		}
		if got := cumulative(t, drop, 2.5e-2); got != 5 {
			t.Errorf("%d drops at or under 25 ms; want 5", got)
		}
		// A dropped task never ran: the wait and run histograms are the
		// tasks that did.
		wantCountSum(t, "wait", histogramOf(t, reg, waitName, "work"), 0, 0)
		wantCountSum(t, "run", histogramOf(t, reg, runName, "work"), 0, 0)
	})

	t.Run("promlint finds nothing in the drop series", func(t *testing.T) {
		o := antsprom.NewTaskObserver("work")
		o.TaskDropped(time.Millisecond, ants.ErrQueueTimeout)
		reg := registryWith(antsprom.NewCollector("work", &fixed{stats: ants.Stats{Cap: 1, Submitted: 1, Dropped: 1}}), o)
		problems, err := testutil.GatherAndLint(reg)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("promlint: %s: %s", p.Metric, p.Text)
		}
	})
}

// TestTaskObserverDropsThroughPool drops tasks of a real pool for each
// reason the pool has, and checks what the observer and the collector
// report. The pool's one worker is held while four tasks wait in its
// buffer: one whose context is canceled and one whose context's deadline
// passes are dropped at once; the other two are dropped with
// ErrQueueTimeout when the worker is let go, after they have waited longer
// than the queue timeout. No task but the one that held the worker runs.
//
// It needs the engine to act on WithQueueTimeout and to call TaskDropped.
func TestTaskObserverDropsThroughPool(t *testing.T) {
	const (
		timeout  = 100 * time.Millisecond
		deadline = 20 * time.Millisecond // well under timeout: the context ends first
	)
	o := antsprom.NewTaskObserver("work")
	p, err := ants.NewPool(1, ants.WithQueueSize(4), ants.WithQueueTimeout(timeout), ants.WithObserver(o))
	if err != nil {
		t.Fatal(err)
	}
	reg := registryWith(antsprom.NewCollector("work", p), o)
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
	waitUntil(t, "the tasks whose contexts ended reported dropped", func() bool {
		c := dropCounts(t, reg, "work")
		return c["canceled"] == 1 && c["deadline"] == 1
	})
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
	wantDrops(t, reg, "work", map[string]float64{"timeout": 2, "canceled": 1, "deadline": 1})
	drop := histogramOf(t, reg, dropWaitName, "work")
	if drop.GetSampleCount() != 4 {
		t.Fatalf("drop wait: %d drops recorded; want 4", drop.GetSampleCount())
	}
	// The two timed-out tasks waited longer than timeout each; the
	// deadline's task waited about deadline; nothing waited longer than
	// the test.
	if lo, hi, got := 2*timeout.Seconds(), 4*elapsed.Seconds(), drop.GetSampleSum(); got < lo || got > hi {
		t.Fatalf("drop waits add up to %g s; want from %g s to %g s", got, lo, hi)
	}
	if got := cumulative(t, drop, 5e-2); got != 2 {
		t.Errorf("%d drops waited at most 50 ms; want 2, those whose contexts ended", got)
	}
	if n := histogramOf(t, reg, waitName, "work").GetSampleCount(); n != 1 {
		t.Errorf("wait: %d tasks recorded; want 1, the one that ran", n)
	}

	const want = `# HELP ants_pool_dropped_tasks_total Tasks accepted and then dropped before they ran: queue timeout, queue target, or context done while waiting.
# TYPE ants_pool_dropped_tasks_total counter
ants_pool_dropped_tasks_total{pool="work"} 4
# HELP ants_pool_submitted_tasks_total Tasks accepted: their submit call returned nil.
# TYPE ants_pool_submitted_tasks_total counter
ants_pool_submitted_tasks_total{pool="work"} 5
# HELP ants_pool_completed_tasks_total Tasks that returned.
# TYPE ants_pool_completed_tasks_total counter
ants_pool_completed_tasks_total{pool="work"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"ants_pool_dropped_tasks_total", "ants_pool_submitted_tasks_total", "ants_pool_completed_tasks_total"); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkTaskObserverTaskDropped measures TaskDropped, one counter
// increment and one observation in a histogram with classic and native
// buckets, from parallel goroutines as workers call it.
func BenchmarkTaskObserverTaskDropped(b *testing.B) {
	o := antsprom.NewTaskObserver("work")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			o.TaskDropped(3*time.Millisecond, ants.ErrQueueTimeout)
		}
	})
}
