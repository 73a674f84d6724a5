package ants_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The adaptive controller, driven by the simulation of adaptive_sim_test.go
// (a virtual clock: seconds of load in milliseconds, the same every run)
// and by hand-made samples. The pool's side (clamping, OnChange, Cap) is in
// adaptive_pool_test.go, example_adaptive_test.go and, in real time,
// adaptive_acceptance_test.go.

const simWork = 20 * time.Millisecond

// wide is the AdaptiveCapacity of the scenarios.
var wide = ants.AdaptiveCapacity{Min: 1, Max: 256}

func TestAdaptiveCapacityValidate(t *testing.T) {
	invalid := []struct {
		name string
		a    ants.AdaptiveCapacity
		size int
	}{
		{"Min of zero", ants.AdaptiveCapacity{Min: 0, Max: 8}, 4},
		{"negative Min", ants.AdaptiveCapacity{Min: -1, Max: 8}, 4},
		{"Max below Min", ants.AdaptiveCapacity{Min: 8, Max: 4}, 4},
		{"negative Window", ants.AdaptiveCapacity{Min: 1, Max: 8, Window: -time.Millisecond}, 4},
		{"unlimited pool (size 0)", ants.AdaptiveCapacity{Min: 1, Max: 8}, 0},
		{"unlimited pool (negative size)", ants.AdaptiveCapacity{Min: 1, Max: 8}, -1},
	}
	for _, tc := range invalid {
		t.Run(tc.name+" is ErrInvalidAdaptiveCapacity", func(t *testing.T) {
			_, err := ants.NewAdaptiveController(tc.a, tc.size, 0)
			assert.ErrorIs(t, err, ants.ErrInvalidAdaptiveCapacity)
		})
	}
	valid := []struct {
		name        string
		a           ants.AdaptiveCapacity
		size, start int
	}{
		{"a size inside the range is the start", ants.AdaptiveCapacity{Min: 2, Max: 8}, 5, 5},
		{"a size below Min starts at Min", ants.AdaptiveCapacity{Min: 2, Max: 8}, 1, 2},
		{"a size above Max starts at Max", ants.AdaptiveCapacity{Min: 2, Max: 8}, 100, 8},
		{"Min equal to Max is a fixed capacity", ants.AdaptiveCapacity{Min: 3, Max: 3}, 7, 3},
		{"Max above MaxInt32 counts as MaxInt32", ants.AdaptiveCapacity{Min: 1, Max: math.MaxInt}, math.MaxInt, math.MaxInt32},
	}
	for _, tc := range valid {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ants.NewAdaptiveController(tc.a, tc.size, 0)
			require.NoError(t, err)
			assert.Equal(t, tc.start, c.Cap())
		})
	}
}

func TestAdaptiveControllerSettlesAboveTheDownstreamsSlots(t *testing.T) {
	for _, k := range []int{4, 8, 16, 32, 64} {
		t.Run(fmt.Sprintf("K=%d, from capacity 1", k), func(t *testing.T) {
			cfg := simConfig{slots: k, service: simWork, jitter: 0.1}
			s := newSim(t, cfg, wide, 1)
			s.runUntil(12 * time.Second)
			control := newFixedSim(cfg, k)
			control.runUntil(12 * time.Second)

			from, to := 6*time.Second, 12*time.Second
			assert.GreaterOrEqual(t, s.medianCap(from, to), k)
			assert.LessOrEqual(t, s.medianCap(from, to), 2*k)
			assert.GreaterOrEqual(t, s.throughput(from, to), 0.95*control.throughput(from, to))
			assert.LessOrEqual(t, s.p99(from, to), 2*control.p99(from, to)+5*time.Millisecond)
			b, ok := s.ctl.Baseline()
			assert.True(t, ok)
			assert.InDelta(t, float64(simWork), float64(b), 0.1*float64(simWork), "the baseline is the downstream's own time")
		})
	}
	t.Run("K=16 with run times spread ±50% and 5% of tasks 5 times slower", func(t *testing.T) {
		cfg := simConfig{slots: 16, service: simWork, jitter: 0.5, spikes: 0.05}
		s := newSim(t, cfg, wide, 1)
		s.runUntil(12 * time.Second)
		control := newFixedSim(cfg, 16)
		control.runUntil(12 * time.Second)

		from, to := 6*time.Second, 12*time.Second
		assert.GreaterOrEqual(t, s.medianCap(from, to), 16)
		assert.LessOrEqual(t, s.medianCap(from, to), 32)
		assert.GreaterOrEqual(t, s.throughput(from, to), 0.9*control.throughput(from, to))
	})
	t.Run("K=16, 64 callers that each wait for their task", func(t *testing.T) {
		cfg := simConfig{slots: 16, service: simWork, jitter: 0.1, demand: 64}
		s := newSim(t, cfg, wide, 1)
		s.runUntil(12 * time.Second)
		assert.GreaterOrEqual(t, s.medianCap(6*time.Second, 12*time.Second), 16)
		assert.LessOrEqual(t, s.medianCap(6*time.Second, 12*time.Second), 32)
	})
}

func TestAdaptiveControllerFollowsTheDownstream(t *testing.T) {
	t.Run("K dropping from 16 to 8 brings the capacity into [8, 16] within 2 s", func(t *testing.T) {
		cfg := simConfig{slots: 16, service: simWork, jitter: 0.1}
		s := newSim(t, cfg, wide, 1)
		s.runUntil(12 * time.Second)
		s.setSlots(8)
		s.runUntil(16 * time.Second)
		cfg.slots = 8
		control := newFixedSim(cfg, 8)
		control.runUntil(4 * time.Second)

		assert.GreaterOrEqual(t, s.medianCap(14*time.Second, 16*time.Second), 8)
		assert.LessOrEqual(t, s.medianCap(14*time.Second, 16*time.Second), 16)
		assert.LessOrEqual(t, s.maxCap(14*time.Second, 16*time.Second), 16)
		assert.GreaterOrEqual(t, s.throughput(14*time.Second, 16*time.Second), 0.95*control.throughput(2*time.Second, 4*time.Second))
	})
	t.Run("K rising from 8 to 16 brings the capacity into [16, 32] within 2 s", func(t *testing.T) {
		s := newSim(t, simConfig{slots: 8, service: simWork, jitter: 0.1}, wide, 1)
		s.runUntil(6 * time.Second)
		s.setSlots(16)
		s.runUntil(10 * time.Second)
		assert.GreaterOrEqual(t, s.medianCap(8*time.Second, 10*time.Second), 16)
		assert.LessOrEqual(t, s.medianCap(8*time.Second, 10*time.Second), 32)
	})
	t.Run("a downstream that gets slower for good is measured again, and the capacity returns", func(t *testing.T) {
		s := newSim(t, simConfig{slots: 16, service: simWork, jitter: 0.1}, wide, 1)
		s.runUntil(6 * time.Second)
		s.setService(2 * simWork)
		s.runUntil(20 * time.Second)
		b, _ := s.ctl.Baseline()
		assert.InDelta(t, float64(2*simWork), float64(b), 0.1*float64(2*simWork))
		assert.GreaterOrEqual(t, s.medianCap(15*time.Second, 20*time.Second), 16)
		assert.LessOrEqual(t, s.medianCap(15*time.Second, 20*time.Second), 32)
	})
	t.Run("held at Min by a slower downstream, it measures again there", func(t *testing.T) {
		a := ants.AdaptiveCapacity{Min: 12, Max: 256}
		s := newSim(t, simConfig{slots: 16, service: simWork, jitter: 0.1}, a, 12)
		s.runUntil(6 * time.Second)
		s.setService(3 * simWork)
		s.runUntil(12 * time.Second)
		b, _ := s.ctl.Baseline()
		assert.InDelta(t, float64(3*simWork), float64(b), 0.1*float64(3*simWork))
		assert.GreaterOrEqual(t, s.medianCap(10*time.Second, 12*time.Second), 16)
	})
}

func TestAdaptiveControllerWithoutBottleneck(t *testing.T) {
	t.Run("grows to Max while the tasks in flight fill it", func(t *testing.T) {
		s := newSim(t, simConfig{service: simWork, jitter: 0.1}, wide, 1)
		s.runUntil(5 * time.Second)
		assert.GreaterOrEqual(t, s.capAt(2*time.Second), 48)
		assert.Equal(t, 256, s.capAt(5*time.Second))
	})
	t.Run("with 64 callers that wait for their tasks, reaches 48 within 5 s and stops where they no longer fill it", func(t *testing.T) {
		s := newSim(t, simConfig{service: simWork, jitter: 0.1, demand: 64}, wide, 1)
		s.runUntil(20 * time.Second)
		assert.GreaterOrEqual(t, s.capAt(5*time.Second), 48)
		assert.GreaterOrEqual(t, s.capAt(20*time.Second), 64)
		assert.LessOrEqual(t, s.maxCap(0, 20*time.Second), 100, "80 callers fill 80% of 100")
	})
}

func TestAdaptiveControllerStartingAtMax(t *testing.T) {
	for _, demand := range []int{0, 64} {
		t.Run(fmt.Sprintf("K=16, at most %d tasks in flight (0: no limit): at most 32 from 3 s", demand), func(t *testing.T) {
			s := newSim(t, simConfig{slots: 16, service: simWork, jitter: 0.1, demand: demand}, wide, 256)
			assert.Equal(t, 256, s.ctl.Cap())
			s.runUntil(5 * time.Second)
			assert.LessOrEqual(t, s.medianCap(3*time.Second, 5*time.Second), 32)
			assert.GreaterOrEqual(t, s.medianCap(3*time.Second, 5*time.Second), 16)
			b, _ := s.ctl.Baseline()
			assert.InDelta(t, float64(simWork), float64(b), 0.1*float64(simWork),
				"the probe counts no task accepted at a higher capacity, which queued")
		})
	}
}

func TestAdaptiveControllerFirstProbeEndingAtMin(t *testing.T) {
	// K=2 from 8, Min 2: the probe halves to 4 (40 ms), then 2 (20 ms), where
	// Min stops it; the start queued, so the pool stays at 2 and adapts from
	// there.
	a := ants.AdaptiveCapacity{Min: 2, Max: 64}
	s := newSim(t, simConfig{slots: 2, service: simWork, jitter: 0.1}, a, 8)
	for s.ctl.Cap() == 8 {
		s.runUntil(time.Duration(s.now-s.t0) + time.Millisecond)
	}
	for s.ctl.Probing() {
		s.runUntil(time.Duration(s.now-s.t0) + time.Millisecond)
	}
	b, measured := s.ctl.Baseline()
	assert.True(t, measured)
	assert.InDelta(t, float64(simWork), float64(b), 0.1*float64(simWork))
	assert.LessOrEqual(t, s.ctl.Cap(), 4, "resumed at Min, then at most one step up")
	s.runUntil(5 * time.Second)
	assert.LessOrEqual(t, s.medianCap(3*time.Second, 5*time.Second), 4)
}

func TestAdaptiveControllerQuietPoolDoesNotDrift(t *testing.T) {
	t.Run("fewer than the minimum of tasks per window change nothing, whatever their run time", func(t *testing.T) {
		c, err := ants.NewAdaptiveController(wide, 64, 0)
		require.NoError(t, err)
		now := int64(0)
		for i := 0; i < 100_000; i++ {
			// A task every 60 ms: at most 14 within 8 windows of 100 ms plus
			// 8 mean run times (under 5 ms), never 16.
			now += int64(60 * time.Millisecond)
			run := time.Duration(1+i%7) * time.Millisecond
			if i%5 == 0 {
				run = 10 * time.Microsecond
			}
			assert.Equal(t, 64, c.Observe(c.Cap(), run, now))
		}
		_, measured := c.Baseline()
		assert.False(t, measured, "no decision was taken")
	})
	t.Run("a pool its callers do not fill keeps its capacity", func(t *testing.T) {
		s := newSim(t, simConfig{slots: 16, service: simWork, jitter: 0.3, spikes: 0.05, demand: 4}, wide, 64)
		s.runUntil(time.Second)
		n := len(s.caps)
		s.runUntil(60 * time.Second)
		assert.Equal(t, 64, s.capAt(60*time.Second))
		assert.Len(t, s.caps, n, "no change after the first probe")
	})
	t.Run("a quiet pool does not probe again", func(t *testing.T) {
		s := newSim(t, simConfig{slots: 16, service: simWork, jitter: 0.1}, wide, 1)
		s.runUntil(5 * time.Second)
		settled := s.ctl.Cap()
		s.stopCallers() // the tasks in flight finish
		s.runUntil(time.Hour)
		assert.Equal(t, settled, s.ctl.Cap())
	})
}

func TestAdaptiveControllerCountsTasksForTheirAcceptedCapacity(t *testing.T) {
	t.Run("tasks accepted at another capacity are not counted", func(t *testing.T) {
		c, err := ants.NewAdaptiveController(wide, 16, 0)
		require.NoError(t, err)
		now := int64(0)
		for i := 0; i < 10_000; i++ {
			now += int64(time.Millisecond)
			assert.Equal(t, 16, c.Observe(32, 10*time.Second, now))
		}
		_, measured := c.Baseline()
		assert.False(t, measured)
	})
	t.Run("tasks finishing all at once count as a full pool", func(t *testing.T) {
		c, err := ants.NewAdaptiveController(wide, 16, 0)
		require.NoError(t, err)
		now := int64(100 * time.Millisecond)
		for i := 0; i < ants.AdaptiveMinSamples; i++ {
			c.Observe(16, 50*time.Millisecond, now)
		}
		assert.Equal(t, 8, c.Cap(), "the first probe starts at half the capacity")
		assert.True(t, c.Probing())
	})
}

func TestAdaptiveControllerCPUBoundTasks(t *testing.T) {
	// Tasks that wait for a P before they start: their run time never
	// rises, and P of them run at a time.
	const p = 4
	for _, work := range []time.Duration{time.Millisecond, 100 * time.Microsecond} {
		t.Run(fmt.Sprintf("%v of CPU, GOMAXPROCS=%d: from 1, settles in [P, 2P]", work, p), func(t *testing.T) {
			s := newSim(t, simConfig{slots: p, service: work, jitter: 0.1, cpu: true}, wide, 1)
			s.runUntil(3 * time.Second)
			assert.GreaterOrEqual(t, s.capAt(3*time.Second), p)
			assert.LessOrEqual(t, s.maxCap(0, 3*time.Second), 2*p)
		})
	}
}

func TestAdaptiveControllerVeryShortTasks(t *testing.T) {
	// 5 µs tasks: under the 20 µs of slack, run time gives no signal.
	a := ants.AdaptiveCapacity{Min: 1, Max: 256, Window: 10 * time.Millisecond}
	cfg := simConfig{slots: 2, service: 5 * time.Microsecond, jitter: 0.5, spikes: 0.05, cpu: true}
	t.Run("grows while they keep the pool busy, then stops", func(t *testing.T) {
		s := newSim(t, cfg, a, 1)
		s.runUntil(300 * time.Millisecond)
		assert.Greater(t, s.capAt(300*time.Millisecond), 2)
		assert.Less(t, s.maxCap(0, 300*time.Millisecond), 64)
	})
	t.Run("started at Max, stays there", func(t *testing.T) {
		s := newSim(t, cfg, a, 256)
		s.runUntil(300 * time.Millisecond)
		assert.Len(t, s.caps, 1)
	})
}

func TestAdaptiveControllerTune(t *testing.T) {
	t.Run("adaptation goes on from the tuned capacity", func(t *testing.T) {
		s := newSim(t, simConfig{slots: 16, service: simWork, jitter: 0.1}, wide, 1)
		s.runUntil(5 * time.Second)
		s.tune(200)
		assert.Equal(t, 200, s.ctl.Cap())
		s.runUntil(8 * time.Second)
		assert.GreaterOrEqual(t, s.medianCap(7*time.Second, 8*time.Second), 16)
		assert.LessOrEqual(t, s.medianCap(7*time.Second, 8*time.Second), 32)
	})
	t.Run("a Tune during the first probe abandons it, and the probe runs again from there", func(t *testing.T) {
		s := newSim(t, simConfig{slots: 16, service: simWork, jitter: 0.1}, wide, 256)
		for !s.ctl.Probing() {
			s.runUntil(time.Duration(s.now-s.t0) + time.Millisecond)
		}
		s.tune(40)
		assert.False(t, s.ctl.Probing())
		_, measured := s.ctl.Baseline()
		assert.False(t, measured)
		s.runUntil(5 * time.Second)
		b, measured := s.ctl.Baseline()
		assert.True(t, measured)
		assert.InDelta(t, float64(simWork), float64(b), 0.1*float64(simWork))
		assert.LessOrEqual(t, s.medianCap(3*time.Second, 5*time.Second), 32)
	})
	t.Run("Min equal to Max never changes", func(t *testing.T) {
		s := newSim(t, simConfig{slots: 4, service: simWork}, ants.AdaptiveCapacity{Min: 10, Max: 10}, 1)
		s.runUntil(10 * time.Second)
		assert.Len(t, s.caps, 1)
		assert.Equal(t, 10, s.ctl.Cap())
	})
}

func TestAdaptiveWindow(t *testing.T) {
	ms := int64(time.Millisecond)
	t.Run("the run time is the mean of the middle half: outliers do not move it", func(t *testing.T) {
		var samples [][2]int64
		for i := int64(0); i < 40; i++ {
			run := 10 * ms
			switch i % 10 {
			case 0:
				run = 1000 * ms // a GC pause, a slow query
			case 5:
				run = ms / 1000 // a cache hit
			}
			samples = append(samples, [2]int64{run, i * ms})
		}
		run, _ := ants.AdaptiveWindowStats(samples)
		assert.Equal(t, 10*ms, run)
	})
	t.Run("kept samples stay spread over a window of any length", func(t *testing.T) {
		// 10,000 samples whose run time rises from 1 to 10 ms: a window
		// that kept only its first 64 would read about 1 ms.
		var samples [][2]int64
		for i := int64(0); i < 10_000; i++ {
			samples = append(samples, [2]int64{ms + 9*ms*i/10_000, i * 10_000})
		}
		run, _ := ants.AdaptiveWindowStats(samples)
		assert.InDelta(t, float64(5500*time.Microsecond), float64(run), float64(500*time.Microsecond))
	})
	t.Run("tasks in flight by Little's law, with 5 µs of hand-off each", func(t *testing.T) {
		// 8 tasks of 20 ms in flight: one finishes every 2.5 ms.
		var samples [][2]int64
		for i := int64(0); i < 41; i++ {
			samples = append(samples, [2]int64{20 * ms, i * 5 * ms / 2})
		}
		_, inFlight := ants.AdaptiveWindowStats(samples)
		assert.InDelta(t, 8*(20+0.005)/20, inFlight, 1e-9)
	})
	t.Run("finish times out of order are tolerated", func(t *testing.T) {
		var samples [][2]int64
		for i := int64(0); i < 41; i++ {
			at := i * 5 * ms / 2
			if i%2 == 1 {
				at -= ms // read before the lock, recorded after the next one
			}
			samples = append(samples, [2]int64{20 * ms, at})
		}
		samples[0][1], samples[40][1] = samples[40][1], samples[0][1]
		_, inFlight := ants.AdaptiveWindowStats(samples)
		assert.InDelta(t, 8.0, inFlight, 0.01)
	})
	t.Run("tasks that all finish at once count as filling the pool", func(t *testing.T) {
		_, inFlight := ants.AdaptiveWindowStats([][2]int64{{ms, 5}, {ms, 5}, {ms, 5}})
		assert.True(t, math.IsInf(inFlight, 1))
	})
}

func TestAdaptiveControllerExtremes(t *testing.T) {
	t.Run("near MaxInt32 the capacity grows to it, never past it", func(t *testing.T) {
		a := ants.AdaptiveCapacity{Min: 1, Max: math.MaxInt32, Window: time.Millisecond}
		c, err := ants.NewAdaptiveController(a, math.MaxInt32-10, 0)
		require.NoError(t, err)
		now := int64(0)
		for i := 0; i < 100_000; i++ {
			// Tasks all finishing at once: a full pool, run time flat.
			if i%ants.AdaptiveMinSamples == 0 {
				now += int64(time.Millisecond)
			}
			got := c.Observe(c.Cap(), time.Millisecond, now)
			require.GreaterOrEqual(t, got, 1)
			require.LessOrEqual(t, got, math.MaxInt32)
		}
	})
	t.Run("a Window of centuries never decides and never overflows", func(t *testing.T) {
		c, err := ants.NewAdaptiveController(ants.AdaptiveCapacity{Min: 1, Max: 64, Window: math.MaxInt64}, 8, 0)
		require.NoError(t, err)
		for i := int64(1); i < 1000; i++ {
			assert.Equal(t, 8, c.Observe(8, time.Millisecond, i*int64(time.Hour)))
		}
	})
}

func TestAdaptiveControllerAllocatesNothing(t *testing.T) {
	c, err := ants.NewAdaptiveController(ants.AdaptiveCapacity{Min: 1, Max: 256, Window: 10 * time.Millisecond}, 1, 0)
	require.NoError(t, err)
	now := int64(0)
	i := 0
	// One sample per 100 µs: a decision every 100 samples, probes included.
	allocs := testing.AllocsPerRun(100_000, func() {
		now += int64(100 * time.Microsecond)
		i++
		c.Observe(c.Cap(), time.Duration(1+i%20)*time.Millisecond, now)
	})
	assert.Zero(t, allocs)
}

// BenchmarkAdaptiveControllerObserve is the controller's share of a task's
// cost in an adaptive pool: between decisions, and with a decision every
// 100 tasks (a Window of 100 ms at 1000 tasks a second).
func BenchmarkAdaptiveControllerObserve(b *testing.B) {
	for _, bc := range []struct {
		name   string
		window time.Duration
	}{
		{"between decisions", time.Hour},
		{"a decision every 100 tasks", 100 * time.Microsecond},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := ants.NewAdaptiveController(ants.AdaptiveCapacity{Min: 1, Max: 1000, Window: bc.window}, 1000, 0)
			require.NoError(b, err)
			now := int64(0)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				now += int64(time.Microsecond)
				// Run times scattered over 0.9-1.1 ms, so that a decision's
				// sort is not handed sorted input.
				run := time.Duration(900+(uint32(i)*2654435761)%200) * time.Microsecond
				c.Observe(c.Cap(), run, now)
			}
		})
	}
}
