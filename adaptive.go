package ants

import (
	"math"
	"time"
)

// AdaptiveCapacity lets the pool set its own capacity between Min and Max,
// starting from the constructor's size, from the run time of its tasks: it
// grows while growing adds throughput and run time stays near the lowest it
// has seen, and shrinks when run time rises, as it does when tasks queue in
// a downstream of limited concurrency (a database, an API, a lock). Run time
// is from a task's start to its end; the wait in the pool, and panicked
// tasks, do not count.
//
// The pool decides once a Window, when at least 16 tasks accepted at the
// current capacity have completed; a quiet pool keeps its capacity. Against
// a downstream that serves K tasks at once it settles a little above K. To
// learn the lowest run time it lowers the capacity for a few Windows at its
// first decision, and now and then while full. It cannot see queueing that
// does not lengthen tasks: a downstream that fails fast looks fast,
// CPU-bound tasks stop its growth a little above GOMAXPROCS (without
// shrinking a pool that starts higher), and tasks under about 20 µs give it
// no signal. A Window should see many tasks complete.
//
// Tune(n) sets the capacity to n clamped into [Min, Max], and adaptation
// goes on from there. OnChange is called after each change, in order, never
// concurrently, on the goroutine that made it (Tune's caller, or a worker)
// or one already calling OnChange. Its panic goes to the Logger, is not
// counted as a task's, and the change stands; its runtime.Goexit ends that
// goroutine, after the later changes are delivered, as a task's panic. The
// pool keeps its own copy of an AdaptiveCapacity.
type AdaptiveCapacity struct {
	Min, Max int                // 1 <= Min <= Max, else the constructor returns ErrInvalidAdaptiveCapacity
	Window   time.Duration      // how often it decides; 0 means 100 ms; negative is invalid
	OnChange func(old, new int) // optional; called after each change
}

// validate checks a and returns the starting capacity, size clamped into
// [Min, Max], or ErrInvalidAdaptiveCapacity for Min < 1, Max < Min, a
// negative Window or size <= 0 (an unlimited pool cannot adapt). A Max above
// math.MaxInt32 counts as math.MaxInt32, as sizes do.
func (a *AdaptiveCapacity) validate(size int) (start int, err error) {
	hi := min(a.Max, math.MaxInt32)
	if a.Min < 1 || hi < a.Min || a.Window < 0 || size <= 0 {
		return 0, ErrInvalidAdaptiveCapacity
	}
	return min(max(size, a.Min), hi), nil
}

// The controller's constants. The behaviour they give is documented on
// adaptiveController; the benchmark report has what it measured.
const (
	adaptiveDefaultWindow = 100 * time.Millisecond

	// adaptiveMinSamples is the fewest completed tasks a decision uses: with
	// fewer, the middle half of their run times is too noisy to act on.
	adaptiveMinSamples = 16

	// adaptiveSlackDiv and adaptiveMinSlack say how far above the baseline
	// run time still counts as near it: a tenth of it, at least 20 µs. The
	// tenth is Envoy's default buffer; the 20 µs keeps the scheduler's and
	// the clock's noise on very short tasks from reading as queueing.
	adaptiveSlackDiv = 10
	adaptiveMinSlack = int64(20 * time.Microsecond)

	// adaptiveHandoff is added to each task's run time when the tasks in
	// flight are counted (Little's law), for the time a worker spends between
	// tasks: it makes a pool of very short tasks that keeps its workers
	// busy count as full, which run time alone never would.
	adaptiveHandoff = float64(5 * time.Microsecond)

	// adaptiveProbeEvery is how many decisions pass between probes of a
	// full pool; adaptiveStuckAtMin how many decisions at Min with run time
	// above the baseline make the current run time the baseline (Envoy
	// re-measures after 5 windows at its minimum, too).
	adaptiveProbeEvery = 50
	adaptiveStuckAtMin = 5

	// adaptiveStaleWindows: a window that has not gathered
	// adaptiveMinSamples after this many Windows plus as many of its mean
	// run times is dropped, so that a quiet pool never decides on samples
	// spread over a long time.
	adaptiveStaleWindows = 8
)

// adaptiveController decides the capacity of an adaptive pool from the run
// times of its tasks. The pool calls observe after every task that returned
// normally and tuned after every Tune, both with its lock held, so the
// controller needs no synchronisation of its own and must not be used by
// two pools.
//
// Between decisions observe only adds a sample to the window (adaptiveWindow:
// a count, a sum and one slot of a fixed array), which costs a few ns and
// allocates nothing; a decision sorts at most 64 kept samples, once a
// Window.
//
// # The decision
//
// Every Window, once at least adaptiveMinSamples (16) tasks accepted at the
// current capacity have completed, the controller compares their typical run
// time r (the mean of the middle half, which moves smoothly like a mean and
// ignores the slowest and fastest quarter like a median) with its baseline
// b, the lowest typical run time it has seen. With g = (b + slack) / r, kept
// within [0.5, 1.1], where slack is a tenth of b and at least 20 µs:
//
//   - if the tasks in flight fill at least 80% of the capacity c (by
//     Little's law: completions per second × mean run time), the capacity
//     becomes c × g + √c. Near the baseline it grows by up to a tenth plus
//     √c; as run time rises it grows less, then shrinks, by at most about
//     half per decision. Against a downstream that serves K tasks at once,
//     where r grows as c / K past K, it settles where c = 1.1 K + √c (22
//     for K = 16, 12 for K = 8): the throughput of K, with run time a
//     quarter to a half above the lowest (less for a larger K);
//   - if they fill less (demand is lower, or tasks wait for a CPU before
//     they start), it never grows, and shrinks only when two decisions in a
//     row find that more than √L of the L tasks in flight queue
//     (L × (1 - g) > √L), to L × g + √L.
//
// # The baseline
//
// The baseline is measured in a probe at a low capacity, because one
// measured while the downstream is already saturated would never come down.
// At the first decision the capacity drops to half the tasks in flight,
// then halves again, window after window, while that cuts run time by a
// quarter; then it returns to where it started, or, if the start queued, to
// the highest rung that did not. While the pool is full, every
// adaptiveProbeEvery (50) decisions it probes again from half its tasks in
// flight, and goes lower only while run time stays above the old baseline.
// A decision that sees a lower run time lowers the baseline at once;
// adaptiveStuckAtMin (5) decisions in a row at Min with run time above it
// make that run time the baseline. Run time counts for the capacity at which
// its task was accepted, so tasks accepted before a change never blur the
// measurement of the next capacity.
//
// # Where it cannot help
//
// It sees only run time, so it cannot see queueing that does not lengthen
// the tasks. A downstream that fails fast instead of queueing looks like a
// fast one, and the pool grows. Tasks that wait for a CPU before they start
// (CPU-bound tasks shorter than the scheduler's 10 ms time slice) show no
// rising run time; since the running tasks no longer fill the capacity,
// growth stops a little above GOMAXPROCS, but a pool that starts higher
// stays there. Tasks shorter than about 20 µs give no latency signal at all:
// the pool grows while they keep it busy (counting adaptiveHandoff, 5 µs, of
// hand-off per task) and shrinks only if their run time rises by 20 µs. With
// slow tasks, decisions wait for 16 of them.
//
// A quiet pool does not drift: without 16 completed tasks at the current
// capacity within adaptiveStaleWindows (8) Windows, plus 8 of their mean
// run times, nothing changes.
//
// # Where it comes from
//
// The algorithm is Envoy's gradient controller (limit × minRTT-with-buffer ÷
// sampled RTT + √limit, with the RTT measured in probes at low
// concurrency), with these changes, each with its reason:
//   - The sampled run time is the window's interquartile mean, not p50: a
//     median moves in steps when run times cluster, and a mean follows every
//     GC pause.
//   - The baseline is never an average of past windows, which under steady
//     overload soaks up the queueing delay and lets the limit creep up
//     (Netflix's Gradient2); it is the lowest window, measured in probes.
//   - The probe halves the capacity until run time stops falling, instead of
//     dropping to a fixed minimum: a probe at Min is needlessly costly when
//     Min is far below the knee, and a fixed low concurrency may still queue
//     when the downstream has shrunk.
//   - Samples count only for the capacity at which their task was accepted,
//     so a probe is not measured on tasks accepted at the capacity before it,
//     which still queue in the downstream.
//   - Growth needs the pool to be full by Little's law (completions per
//     second × mean run time, plus a hand-off allowance, at least 80% of the
//     capacity). Envoy's limit caps requests that exist anyway; a pool's
//     capacity is only worth raising when its tasks use it. It is what stops
//     CPU-bound tasks near GOMAXPROCS and keeps a quiet pool where it is.
//   - The gradient is kept within [0.5, 1.1], not Envoy's [0.5, 2]: run time
//     below the baseline is noise, since the baseline is the lowest seen.
//
// It is not safe for concurrent use: every method requires the pool's lock.
type adaptiveController struct {
	min, max int
	window   int64 // ns between decisions
	cap      int   // the capacity the pool has: the last one returned or tuned

	w adaptiveWindow // samples accepted at cap since the last decision

	base     int64 // baseline: the lowest window run time, ns; valid if haveBase
	haveBase bool

	sinceProbe int // decisions since the last probe
	atMin      int // consecutive decisions at min with run time above the baseline
	queued     int // consecutive decisions of a pool not full whose tasks queue

	probe adaptiveProbe
}

// adaptiveProbe is the state of a probe: a descent, one window per rung,
// from the capacity in force to lower ones, each half the tasks in flight
// at the previous rung, until run time stops falling.
type adaptiveProbe struct {
	active bool
	first  bool  // the probe at start: there is no baseline to compare with
	from   int   // the capacity the probe started from, resumed after it
	old    int64 // the baseline before the probe (if !first)

	fromRun   int64 // run time of the window that started the probe
	prevRun   int64 // run time of the previous rung; 0 if none to compare with
	prevLevel int   // tasks in flight at the previous rung
	hot       int   // the lowest level known to queue (a lower rung ran faster)
	best      int64 // the lowest run time seen in the probe
}

// newAdaptiveController returns a controller for a pool of capacity start,
// which validate has clamped into [a.Min, a.Max]; now is the pool's clock
// in ns.
func newAdaptiveController(a AdaptiveCapacity, start int, now int64) *adaptiveController {
	w := a.Window
	if w == 0 {
		w = adaptiveDefaultWindow
	}
	c := &adaptiveController{
		min:    a.Min,
		max:    min(a.Max, math.MaxInt32),
		window: int64(w),
		cap:    start,
	}
	c.w.reset(now)
	return c
}

// observe records a task accepted at capacity acceptedCap that ran for run
// and finished at now, and returns the capacity the pool should have. It
// requires the pool's lock held. A task accepted at another capacity than
// the current one is not counted.
func (c *adaptiveController) observe(acceptedCap int, run time.Duration, now int64) (capacity int) {
	if acceptedCap == c.cap {
		c.w.add(max(int64(run), 0), now)
	}
	if now-c.w.start < c.window {
		return c.cap
	}
	return c.observeSlow(now)
}

// tuned tells the controller that Tune set the capacity to n, already
// clamped into [min, max]. A probe under way is abandoned; the first probe
// runs again from n if it had not finished. It requires the pool's lock.
func (c *adaptiveController) tuned(n int, now int64) {
	c.cap = n
	c.w.reset(now)
	c.probe.active = false
	c.atMin, c.queued = 0, 0
}

// observeSlow runs once a Window has passed since the last decision: it
// decides if the window has enough samples, drops it if it is stale.
func (c *adaptiveController) observeSlow(now int64) int {
	if c.w.n < adaptiveMinSamples {
		// The span is kept from overflowing for a Window of centuries.
		span := min(c.window+c.w.mean(), math.MaxInt64/(2*adaptiveStaleWindows))
		if now-c.w.start > adaptiveStaleWindows*span {
			c.w.reset(now)
		}
		return c.cap
	}
	s := c.w.stats()
	c.w.reset(now)
	switch {
	case c.probe.active:
		return c.probeStep(s)
	case !c.haveBase:
		return c.startProbe(s, true)
	}
	c.sinceProbe++
	if c.sinceProbe >= adaptiveProbeEvery && c.full(s) {
		return c.startProbe(s, false)
	}
	return c.adjust(s)
}

// adjust is a regular decision on the window s, measured at c.cap.
func (c *adaptiveController) adjust(s adaptiveStats) int {
	c.base = min(c.base, s.run)
	near := s.run <= c.base+slack(c.base)
	if c.cap == c.min && !near {
		if c.atMin++; c.atMin >= adaptiveStuckAtMin {
			// Nothing lower to probe: the run time at Min is the lowest
			// there is now (the downstream itself got slower).
			c.base, c.atMin = s.run, 0
		}
	} else {
		c.atMin = 0
	}

	g := float64(c.base+slack(c.base)) / float64(max(s.run, 1))
	g = min(max(g, 0.5), 1+1.0/adaptiveSlackDiv)
	n := float64(c.cap)
	target := c.cap
	if c.full(s) {
		target = c.toCap(n*g + math.Sqrt(n))
	} else if l := s.inFlight; l*g+math.Sqrt(l) < l {
		// Not full: never grow, and shrink only below what is in flight,
		// when more than √l of it is estimated to queue (l × (1 - g) > √l),
		// two windows in a row. This cut can go far below the capacity, so
		// it wants more than one window's evidence: a cluster of slow tasks
		// in one window both raises its run time and, finishing there,
		// inflates its count of tasks in flight (seen in simulation: a pool
		// at 64 with 4 callers cut to 4).
		if c.queued++; c.queued < 2 {
			return c.cap
		}
		target = c.toCap(l*g + math.Sqrt(l))
	}
	c.queued = 0
	return c.set(target)
}

// startProbe begins a probe from the window s, measured at c.cap: the first
// one, or a periodic one of a full pool.
func (c *adaptiveController) startProbe(s adaptiveStats, first bool) int {
	c.sinceProbe = 0
	level := c.level(s)
	next := max(c.min, level/2)
	if s.run < adaptiveMinSlack || next >= level {
		// Tasks too short to show queueing, or no lower concurrency to try:
		// this window is the probe.
		c.base, c.haveBase = s.run, true
		return c.adjust(s)
	}
	c.probe = adaptiveProbe{active: true, first: first, from: c.cap, old: c.base, fromRun: s.run, best: s.run}
	if !first {
		// The first window after start is no reference: its tasks were
		// accepted all at once, and the slowest of them have not finished.
		c.probe.prevRun, c.probe.prevLevel = s.run, level
	}
	return c.set(next)
}

// probeStep takes the window s of one rung of the probe: it descends a rung
// further, or ends the probe with a new baseline and resumes.
func (c *adaptiveController) probeStep(s adaptiveStats) int {
	p := &c.probe
	level := c.level(s)
	p.best = min(p.best, s.run)
	// Halving the concurrency of a downstream that queues cuts run time by
	// up to half; a quarter is well beyond the noise of a 16-task window.
	improved := p.prevRun == 0 || s.run+max(s.run/4, adaptiveMinSlack) < p.prevRun
	if improved && p.prevRun != 0 {
		p.hot = p.prevLevel
	}
	// A periodic probe goes on only while run time is above the old
	// baseline: either the downstream got slower for good (a lower rung
	// tells) or this rung still queues.
	above := p.first || s.run > p.old+slack(p.old)
	if next := max(c.min, level/2); improved && above && next < level {
		p.prevRun, p.prevLevel = s.run, level
		return c.set(next)
	}
	p.active = false
	c.base, c.haveBase = p.best, true
	resume := p.from
	if p.first && p.hot > 0 && p.fromRun > p.best+p.best/3 {
		// The start capacity queued at least as much as the hot level, and
		// its own window ran a third slower than the best rung: resume at
		// the rung below the hot level rather than halve down to it window
		// by window. Both are asked for because one comparison of two
		// 16-task windows can mislead (seen in simulation: rungs of 22.0
		// and 17.6 ms from noise alone, and a lightly loaded pool at 64
		// resumed at 1). A periodic probe resumes where it was; regular
		// decisions were correcting that capacity all along.
		resume = min(resume, max(c.min, p.hot/2))
	}
	if resume == c.cap {
		return c.adjust(s)
	}
	return c.set(resume)
}

// full reports whether the tasks in flight fill at least 80% of the
// capacity.
func (c *adaptiveController) full(s adaptiveStats) bool {
	return s.inFlight*5 >= float64(4*c.cap)
}

// level is the concurrency the window s ran at: its tasks in flight, at
// most the capacity.
func (c *adaptiveController) level(s adaptiveStats) int {
	if s.inFlight >= float64(c.cap) {
		return c.cap
	}
	return int(math.Ceil(s.inFlight))
}

// toCap converts x to a capacity, rounding down, clamped into [min, max]
// before the conversion so that it cannot overflow an int.
func (c *adaptiveController) toCap(x float64) int {
	return int(min(max(x, float64(c.min)), float64(c.max)))
}

// set makes n, clamped into [min, max], the capacity and returns it. The
// window was reset by the decision that calls it, so the samples of the
// new capacity start from the decision.
func (c *adaptiveController) set(n int) int {
	c.cap = min(max(n, c.min), c.max)
	return c.cap
}

// slack is how far above the baseline b run time still counts as near it.
func slack(b int64) int64 {
	return max(b/adaptiveSlackDiv, adaptiveMinSlack)
}
