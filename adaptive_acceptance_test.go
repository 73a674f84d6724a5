package ants_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	"github.com/e62cffed/ants/internal/loadtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// acceptWork is the time a task spends in a slot of the simulated
// downstream.
const acceptWork = 20 * time.Millisecond

// TestAdaptiveCapacityAcceptance is WithAdaptiveCapacity's acceptance
// test, in real time: a downstream of K slots around a 20 ms sleep (beyond
// K concurrent tasks only queue), 64 callers submitting without pause,
// and beside the adaptive pool a fixed one at K, with its own downstream
// and callers, as the control. Run time, from start to finish, includes
// the wait for a slot. Scenarios 3 and 4 run beside the first 5 s of 1 and 2, so the test
// takes about 16 s: it runs only with ANTS_LONG_TESTS=1 (longTests), which
// CI sets in a step of its own. Every run checks the same scenarios on the
// simulated downstream of adaptive_sim_test.go, in virtual time
// (adaptive_test.go), and the pool's side of them (OnChange in order, never
// concurrently; the pool applying its controller's decisions) in
// TestAdaptivePoolAppliesItsControllersDecisions.
func TestAdaptiveCapacityAcceptance(t *testing.T) {
	if !longTests() {
		t.Skip("16 s of real time: set ANTS_LONG_TESTS=1 to run it")
	}

	var wg sync.WaitGroup
	var s3 scenario3
	var s4 scenario4
	wg.Add(2)
	go func() {
		defer wg.Done()
		s3 = runScenario3(t)
	}()
	go func() {
		defer wg.Done()
		s4 = runScenario4(t)
	}()
	s12 := runScenarios12(t)
	wg.Wait()

	t.Run("1: K=16 from capacity 1 settles in [16, 32] with the control's throughput", func(t *testing.T) {
		s12.first.check(t, 16)
	})
	t.Run("2: K dropping to 8 brings the capacity into [8, 16] within 2 s", func(t *testing.T) {
		s12.second.check(t, 8)
	})
	t.Run("OnChange is called for each change, in order, never concurrently", func(t *testing.T) {
		assert.False(t, s12.changes.overlapped, "two OnChange calls overlapped")
		require.NotEmpty(t, s12.changes.calls)
		assert.Equal(t, 1, s12.changes.calls[0][0], "the first change is from the starting capacity")
		for i := 1; i < len(s12.changes.calls); i++ {
			assert.Equal(t, s12.changes.calls[i-1][1], s12.changes.calls[i][0], "change %d starts where change %d ended", i, i-1)
		}
		assert.Equal(t, s12.finalCap, s12.changes.calls[len(s12.changes.calls)-1][1], "the last change is to the final capacity")
	})
	t.Run("3: without a bottleneck, the capacity reaches 48 within 5 s", func(t *testing.T) {
		assert.True(t, s3.reached, "Cap() stayed below 48 for 5 s (the highest was %d)", s3.highest)
	})
	t.Run("4: started at Max, 256 at once, then at most 32 over 3-5 s", func(t *testing.T) {
		assert.Equal(t, 256, s4.initial)
		assert.LessOrEqual(t, s4.median, 32)
	})
}

// period is what scenarios 1 and 2 measure over a stretch of time, for the
// adaptive pool and its control.
type period struct {
	from, to        time.Duration
	medianCap       int
	thr, controlThr float64       // tasks per second
	p99, controlP99 time.Duration // run time
}

func (p period) check(t *testing.T, k int) {
	t.Helper()
	t.Logf("over %v-%v: median Cap() %d, throughput %.0f/s (control %.0f/s, %.2fx), p99 %v (control %v)",
		p.from, p.to, p.medianCap, p.thr, p.controlThr, p.thr/p.controlThr, p.p99.Round(time.Millisecond), p.controlP99.Round(time.Millisecond))
	assert.GreaterOrEqual(t, p.medianCap, k)
	assert.LessOrEqual(t, p.medianCap, 2*k)
	assert.GreaterOrEqual(t, p.thr, 0.85*p.controlThr)
	assert.LessOrEqual(t, p.p99, 2*p.controlP99+5*time.Millisecond)
}

// changeLog records the calls of OnChange.
type changeLog struct {
	mu         sync.Mutex
	inside     bool
	overlapped bool
	calls      [][2]int
}

func (c *changeLog) onChange(old, new int) {
	c.mu.Lock()
	if c.inside {
		c.overlapped = true
	}
	c.inside = true
	c.calls = append(c.calls, [2]int{old, new})
	c.mu.Unlock()

	for i := 0; i < 10; i++ {
		runtime.Gosched() // give a concurrent call, if any, the time to come in
	}

	c.mu.Lock()
	c.inside = false
	c.mu.Unlock()
}

// fixedRun is a pool of fixed capacity with its own downstream and callers.
type fixedRun struct {
	pool *ants.Pool
	rec  *loadtest.Recorder
	load *loadtest.Load
}

func startFixed(t *testing.T, t0 time.Time, k int) *fixedRun {
	p, err := ants.NewPool(k)
	require.NoError(t, err)
	rec := loadtest.NewRecorder(t0)
	return &fixedRun{pool: p, rec: rec, load: loadtest.StartLoad(64, p.Submit, rec.Task(loadtest.NewDownstream(k, acceptWork)))}
}

func (f *fixedRun) stop(t *testing.T) {
	f.load.Stop()
	assert.NoError(t, f.pool.ReleaseTimeout(10*time.Second))
}

type scenarios12 struct {
	first, second period
	changes       *changeLog
	finalCap      int
}

// runScenarios12 runs scenario 1 (K=16 for 12 s, the adaptive pool from 1
// between 1 and 256) and then scenario 2 (K=8 on the same pool, for 4 s).
func runScenarios12(t *testing.T) scenarios12 {
	changes := &changeLog{}
	p, err := ants.NewPool(1, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 1, Max: 256, OnChange: changes.onChange}))
	require.NoError(t, err)
	t0 := time.Now()
	ds := loadtest.NewDownstream(16, acceptWork)
	rec := loadtest.NewRecorder(t0)
	caps := loadtest.StartSampler(t0, 10*time.Millisecond, p.Cap)
	load := loadtest.StartLoad(64, p.Submit, rec.Task(ds))
	control := startFixed(t, t0, 16)

	sleepUntil(t0, 12*time.Second)
	ds.SetSlots(8)
	control.stop(t)
	control8 := startFixed(t, t0, 8)

	sleepUntil(t0, 16*time.Second)
	load.Stop()
	control8.stop(t)
	points := caps.Stop()
	require.NoError(t, p.ReleaseTimeout(10*time.Second))

	measure := func(from, to time.Duration, control *fixedRun) period {
		return period{
			from: from, to: to,
			medianCap:  loadtest.Median(points, from, to),
			thr:        rec.Throughput(from, to),
			controlThr: control.rec.Throughput(from, to),
			p99:        rec.Quantile(0.99, from, to),
			controlP99: control.rec.Quantile(0.99, from, to),
		}
	}
	// OnChange runs outside the pool's lock, so the call for the last change
	// may still be under way when ReleaseTimeout returns.
	require.Eventually(t, func() bool {
		changes.mu.Lock()
		defer changes.mu.Unlock()
		return !changes.inside && len(changes.calls) > 0 && changes.calls[len(changes.calls)-1][1] == p.Cap()
	}, 5*time.Second, time.Millisecond)
	return scenarios12{
		first:    measure(6*time.Second, 12*time.Second, control),
		second:   measure(14*time.Second, 16*time.Second, control8),
		changes:  changes,
		finalCap: p.Cap(),
	}
}

type scenario3 struct {
	reached bool
	highest int
}

// runScenario3: no bottleneck, from 1 between 1 and 256, for 5 s.
func runScenario3(t *testing.T) scenario3 {
	p, err := ants.NewPool(1, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 1, Max: 256}))
	require.NoError(t, err)
	t0 := time.Now()
	caps := loadtest.StartSampler(t0, 10*time.Millisecond, p.Cap)
	load := loadtest.StartLoad(64, p.Submit, loadtest.NewRecorder(t0).Task(loadtest.NewDownstream(0, acceptWork)))
	sleepUntil(t0, 5*time.Second)
	load.Stop()
	points := caps.Stop()
	assert.NoError(t, p.ReleaseTimeout(10*time.Second))

	var s scenario3
	_, s.reached = loadtest.First(points, 48, 0, 5*time.Second)
	for _, pt := range points {
		s.highest = max(s.highest, pt.Value)
	}
	t.Logf("scenario 3: highest Cap() %d in 5 s", s.highest)
	return s
}

type scenario4 struct {
	initial, median int
}

// runScenario4: K=16, from 256 between 1 and 256, for 5 s.
func runScenario4(t *testing.T) scenario4 {
	p, err := ants.NewPool(256, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 1, Max: 256}))
	require.NoError(t, err)
	s := scenario4{initial: p.Cap()}
	t0 := time.Now()
	caps := loadtest.StartSampler(t0, 10*time.Millisecond, p.Cap)
	load := loadtest.StartLoad(64, p.Submit, loadtest.NewRecorder(t0).Task(loadtest.NewDownstream(16, acceptWork)))
	sleepUntil(t0, 5*time.Second)
	load.Stop()
	points := caps.Stop()
	assert.NoError(t, p.ReleaseTimeout(10*time.Second))
	s.median = loadtest.Median(points, 3*time.Second, 5*time.Second)
	t.Logf("scenario 4: median Cap() %d over 3-5 s", s.median)
	return s
}

// sleepUntil returns d after t0: the scenarios run for a set time.
func sleepUntil(t0 time.Time, d time.Duration) {
	time.Sleep(time.Until(t0.Add(d)))
}
