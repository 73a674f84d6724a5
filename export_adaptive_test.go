package ants

import "time"

// AdaptiveController exposes the adaptive-capacity controller to the
// external tests, which drive it with synthetic samples and clocks.
type AdaptiveController struct{ c *adaptiveController }

// NewAdaptiveController validates a for a pool of size start and returns
// its controller, with the clock at now (ns).
func NewAdaptiveController(a AdaptiveCapacity, size int, now int64) (*AdaptiveController, error) {
	start, err := a.validate(size)
	if err != nil {
		return nil, err
	}
	return &AdaptiveController{newAdaptiveController(a, start, now)}, nil
}

// Observe is the pool's call after a task that returned normally.
func (c *AdaptiveController) Observe(acceptedCap int, run time.Duration, now int64) int {
	return c.c.observe(acceptedCap, run, now)
}

// Tuned is the pool's call after Tune(n), n clamped into [Min, Max].
func (c *AdaptiveController) Tuned(n int, now int64) { c.c.tuned(n, now) }

// Cap is the capacity the controller last returned or was tuned to.
func (c *AdaptiveController) Cap() int { return c.c.cap }

// Baseline is the lowest run time the controller has seen, and whether it
// has measured one yet.
func (c *AdaptiveController) Baseline() (time.Duration, bool) {
	return time.Duration(c.c.base), c.c.haveBase
}

// Probing reports whether a probe is under way.
func (c *AdaptiveController) Probing() bool { return c.c.probe.active }

// AdaptiveMinSamples is the fewest completed tasks a decision uses.
const AdaptiveMinSamples = adaptiveMinSamples

// AdaptiveWindowStats feeds samples (run time, finish time, in ns) to an
// empty decision window and returns what a decision would read from it:
// the interquartile mean of the run times and the tasks in flight.
func AdaptiveWindowStats(samples [][2]int64) (run int64, inFlight float64) {
	var w adaptiveWindow
	w.reset(0)
	for _, s := range samples {
		w.add(s[0], s[1])
	}
	st := w.stats()
	return st.run, st.inFlight
}
