package burst_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e62cffed/ants/internal/burst"
)

// TestMain fails the run if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// goroutines is a pool without a bound: every task on a goroutine of its
// own, all waited for by wait.
type goroutines struct{ wg sync.WaitGroup }

func (g *goroutines) submit(task func()) error {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		task()
	}()
	return nil
}

func TestRunnerRecordsTheWaitOfEveryTask(t *testing.T) {
	var g goroutines
	r := burst.NewRunner(g.submit, 8, 10*time.Second)
	defer r.Stop()
	started := 0
	r.AllStarted = func() { started++ }
	out := make([]time.Duration, 13)
	for i := 0; i < len(out); i += 8 {
		if err := r.Run(out[i:min(i+8, len(out))]); err != nil {
			t.Fatal(err)
		}
	}
	g.wg.Wait()
	if started != 2 {
		t.Errorf("AllStarted called %d times for 2 bursts", started)
	}
	for i, d := range out {
		if d <= 0 {
			t.Errorf("task %d: wait %v", i, d)
		}
	}
}

func TestRunnerFailsABurstThatCannotStart(t *testing.T) {
	// Two workers for bursts of three: the third task starts only once one
	// of the first two has finished, which waits for the third to start.
	var g goroutines
	slots := make(chan struct{}, 2)
	submit := func(task func()) error {
		slots <- struct{}{}
		return g.submit(func() { task(); <-slots })
	}
	// A buffered submit, so that only the burst's gate can time out.
	queued := make(chan func(), 3)
	go func() {
		for task := range queued {
			_ = submit(task)
		}
	}()
	defer close(queued)
	r := burst.NewRunner(func(task func()) error { queued <- task; return nil }, 3, 100*time.Millisecond)
	defer r.Stop()
	err := r.Run(make([]time.Duration, 3))
	if err == nil || !strings.Contains(err.Error(), "2 of 3 tasks started") {
		t.Errorf("err = %v, want a timeout after 2 of 3 tasks", err)
	}
	g.wg.Wait()
}

func TestRunnerStopsAtARefusedSubmit(t *testing.T) {
	var g goroutines
	errFull := errors.New("full")
	n := 0
	submit := func(task func()) error {
		if n++; n == 3 {
			return errFull
		}
		return g.submit(task)
	}
	r := burst.NewRunner(submit, 4, 10*time.Second)
	defer r.Stop()
	if err := r.Run(make([]time.Duration, 4)); !errors.Is(err, errFull) {
		t.Errorf("err = %v, want the submit's", err)
	}
	g.wg.Wait()
}

func TestPercentileIsNearestRank(t *testing.T) {
	v := make([]time.Duration, 100)
	for i := range v {
		v[i] = time.Duration(i + 1)
	}
	for _, tc := range []struct {
		in   []time.Duration
		p    int
		want time.Duration
	}{
		{nil, 50, 0},
		{v[:1], 99, 1},
		{v, 50, 50},
		{v, 99, 99},
		{v[:10], 50, 5},
		{v[:10], 99, 10},
	} {
		if got := burst.Percentile(tc.in, tc.p); got != tc.want {
			t.Errorf("Percentile(%d values, %d) = %v, want %v", len(tc.in), tc.p, got, tc.want)
		}
	}
}
