package ants_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// refusing is a Submitter that refuses the submissions its refuse func
// picks, by their number from 0, and passes the others to its pool; it
// counts its submissions and the most of its tasks that ran at once.
type refusing struct {
	ants.Submitter
	refuse func(n int) error

	calls   atomic.Int32
	running atomic.Int32
	maxRun  atomic.Int32
}

func (r *refusing) SubmitContext(ctx context.Context, task func()) error {
	n := int(r.calls.Add(1) - 1)
	if r.refuse != nil {
		if err := r.refuse(n); err != nil {
			return err
		}
	}
	return r.Submitter.SubmitContext(ctx, func() {
		now := r.running.Add(1)
		for {
			m := r.maxRun.Load()
			if now <= m || r.maxRun.CompareAndSwap(m, now) {
				break
			}
		}
		defer r.running.Add(-1)
		task()
	})
}

// orderLog records the values its funcs put, in the order they run. It is
// not safe for concurrent use, on purpose: the race detector and the busy
// flag catch two of its funcs running at once, where the code under test
// promises one at a time.
type orderLog struct {
	t    *testing.T
	busy atomic.Bool
	got  []int
}

func newOrderLog(t *testing.T) *orderLog { return &orderLog{t: t} }

// put returns a func that appends v.
func (l *orderLog) put(v int) func() {
	return func() {
		if !l.busy.CompareAndSwap(false, true) {
			l.t.Errorf("%d was put while another put ran", v)
		}
		l.got = append(l.got, v)
		l.busy.Store(false)
	}
}

// assertOrderPerSource checks values made as source*per+i by sources
// sources, each counting i up: every source's values must come in the order
// it made them. It returns how many values each source has.
func assertOrderPerSource(t *testing.T, values []int, per, sources int) []int {
	t.Helper()
	last := make([]int, sources)
	counts := make([]int, sources)
	for i := range last {
		last[i] = -1
	}
	for _, v := range values {
		src, i := v/per, v%per
		require.Less(t, src, sources, "value %d from no source", v)
		assert.Greater(t, i, last[src], "source %d: %d came after %d", src, i, last[src])
		last[src] = i
		counts[src]++
	}
	return counts
}

// fromSources calls f(src, i) for i from 0 to per-1 on each of sources new
// goroutines, src numbering them, and waits for them all.
func fromSources(sources, per int, f func(src, i int)) {
	var wg sync.WaitGroup
	for src := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range per {
				f(src, i)
			}
		}()
	}
	wg.Wait()
}

func TestNilSubmitterPanics(t *testing.T) {
	for name, build := range map[string]func(){
		"Go":        func() { ants.Go(context.Background(), nil, func() (int, error) { return 0, nil }) },
		"NewStream": func() { ants.NewStream(nil) },
		"NewKeyed":  func() { ants.NewKeyed[string](nil) },
	} {
		t.Run(name, func(t *testing.T) {
			assert.PanicsWithValue(t, "ants: nil Submitter", build)
		})
	}
}
