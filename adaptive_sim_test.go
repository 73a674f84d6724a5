package ants_test

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	"github.com/stretchr/testify/require"
)

// simConfig describes a pool in front of a simulated downstream, for the
// adaptive controller's tests: a discrete-event simulation on a virtual
// clock, so that seconds of load take milliseconds and every run is the
// same.
type simConfig struct {
	slots   int           // tasks the downstream serves at once; 0 means no limit
	service time.Duration // time a task holds a slot
	jitter  float64       // service time varies uniformly within ±jitter of it
	spikes  float64       // fraction of tasks that take 5 times as long (GC pauses, slow queries)
	// demand is the most tasks the callers keep in flight: callers that each
	// wait for their task (a Future, a Group) and submit again when it
	// returns. 0 means no limit: callers that Submit without pause, as in
	// the acceptance test, keep the pool full at any capacity, since Submit
	// returns as soon as the pool accepts a task.
	demand int
	// cpu: a task waits for its slot before it starts, so the wait is not in
	// its run time, as a CPU-bound task waits for a P before its worker runs.
	cpu bool
}

// simTask is one task of the simulation.
type simTask struct {
	acceptedCap int   // the pool's capacity when it accepted the task
	accepted    int64 // when it was accepted (and its worker started it), ns
	started     int64 // when it got a downstream slot, ns
	finish      int64 // when it returns, ns
}

// simRecord is a completed task.
type simRecord struct{ finish, run int64 }

// simPoint is a change of capacity.
type simPoint struct {
	at  int64
	cap int
}

// sim is a pool of adjustable capacity in front of the downstream of cfg:
// it accepts a task whenever fewer than its capacity are in flight and a
// caller has one, as a pool with blocked callers does; the task queues
// for a slot (FIFO) and returns after its service time. Every completion
// goes through the controller, like a worker's, and a new capacity applies
// at once, as Tune does: growing admits waiting callers, shrinking only
// stops admitting until the tasks in flight fall below it.
type sim struct {
	cfg  simConfig
	ctl  *ants.AdaptiveController // nil: a fixed pool, the control
	rng  *rand.Rand
	t0   int64 // the clock at time zero, ns (not 0, to catch code that assumes it)
	now  int64
	cap  int
	busy int // accepted, not returned

	stopped bool // the callers submit nothing more
	held    int  // holding a slot

	queue   []*simTask // waiting for a slot, FIFO
	serving simHeap    // holding a slot, by finish time
	caps    []simPoint
	done    []simRecord
}

const simT0 = int64(1_000_000_000_000)

// newSim starts a simulation of a pool of size start adapting with a.
func newSim(t testing.TB, cfg simConfig, a ants.AdaptiveCapacity, start int) *sim {
	t.Helper()
	ctl, err := ants.NewAdaptiveController(a, start, simT0)
	require.NoError(t, err)
	s := &sim{cfg: cfg, ctl: ctl, rng: rand.New(rand.NewPCG(1, 2)), t0: simT0, now: simT0, cap: ctl.Cap()}
	s.caps = append(s.caps, simPoint{s.now, s.cap})
	s.admit()
	return s
}

// newFixedSim starts a simulation of a pool of fixed capacity size, the
// control beside an adaptive one.
func newFixedSim(cfg simConfig, size int) *sim {
	s := &sim{cfg: cfg, rng: rand.New(rand.NewPCG(1, 2)), t0: simT0, now: simT0, cap: size}
	s.caps = append(s.caps, simPoint{s.now, s.cap})
	s.admit()
	return s
}

// at converts a time since the start of the simulation to the clock.
func (s *sim) at(d time.Duration) int64 { return s.t0 + int64(d) }

// runUntil advances the simulation to d after its start.
func (s *sim) runUntil(d time.Duration) {
	end := s.at(d)
	for len(s.serving) > 0 && s.serving[0].finish <= end {
		s.complete(heap.Pop(&s.serving).(*simTask))
	}
	s.now = end
}

// setSlots changes the downstream's slots from now on; tasks holding a slot
// keep it.
func (s *sim) setSlots(k int) {
	s.cfg.slots = k
	s.serve()
}

// setService changes the service time of the tasks that get a slot from
// now on.
func (s *sim) setService(d time.Duration) { s.cfg.service = d }

// tune is Tune(n) on the pool, n already clamped.
func (s *sim) tune(n int) {
	s.ctl.Tuned(n, s.now)
	s.setCap(n)
	s.admit()
}

func (s *sim) complete(task *simTask) {
	s.now = task.finish
	s.held--
	s.busy--
	run := s.now - task.accepted
	if s.cfg.cpu {
		run = s.now - task.started
	}
	s.done = append(s.done, simRecord{s.now, run})
	if s.ctl != nil {
		s.setCap(s.ctl.Observe(task.acceptedCap, time.Duration(run), s.now))
	}
	s.admit()
}

func (s *sim) setCap(n int) {
	if n != s.cap {
		s.cap = n
		s.caps = append(s.caps, simPoint{s.now, n})
	}
}

// stopCallers makes the callers submit nothing more.
func (s *sim) stopCallers() { s.stopped = true }

// admit accepts tasks while the capacity and the callers allow.
func (s *sim) admit() {
	for !s.stopped && s.busy < s.cap && (s.cfg.demand == 0 || s.busy < s.cfg.demand) {
		s.busy++
		s.queue = append(s.queue, &simTask{acceptedCap: s.cap, accepted: s.now})
	}
	s.serve()
}

// serve gives free slots to queued tasks.
func (s *sim) serve() {
	for len(s.queue) > 0 && (s.cfg.slots == 0 || s.held < s.cfg.slots) {
		task := s.queue[0]
		s.queue = s.queue[1:]
		d := float64(s.cfg.service) * (1 + s.cfg.jitter*(2*s.rng.Float64()-1))
		if s.rng.Float64() < s.cfg.spikes {
			d *= 5
		}
		task.started = s.now
		task.finish = s.now + int64(d)
		s.held++
		heap.Push(&s.serving, task)
	}
}

// capAt is the capacity at d after the start.
func (s *sim) capAt(d time.Duration) int {
	at := s.at(d)
	i, _ := slices.BinarySearchFunc(s.caps, at, func(p simPoint, t int64) int {
		switch {
		case p.at <= t:
			return -1
		default:
			return 1
		}
	})
	return s.caps[max(i-1, 0)].cap
}

// medianCap is the median of the capacity sampled every millisecond in
// [from, to).
func (s *sim) medianCap(from, to time.Duration) int {
	var caps []int
	for d := from; d < to; d += time.Millisecond {
		caps = append(caps, s.capAt(d))
	}
	slices.Sort(caps)
	return caps[len(caps)/2]
}

// maxCap is the highest capacity in [from, to).
func (s *sim) maxCap(from, to time.Duration) int {
	m := s.capAt(from)
	for _, p := range s.caps {
		if p.at >= s.at(from) && p.at < s.at(to) {
			m = max(m, p.cap)
		}
	}
	return m
}

// throughput is the tasks per second that returned in [from, to).
func (s *sim) throughput(from, to time.Duration) float64 {
	n := 0
	for _, r := range s.done {
		if r.finish >= s.at(from) && r.finish < s.at(to) {
			n++
		}
	}
	return float64(n) / (to - from).Seconds()
}

// p99 is the 99th percentile of the run time of the tasks that returned in
// [from, to).
func (s *sim) p99(from, to time.Duration) time.Duration {
	var runs []int64
	for _, r := range s.done {
		if r.finish >= s.at(from) && r.finish < s.at(to) {
			runs = append(runs, r.run)
		}
	}
	slices.Sort(runs)
	return time.Duration(runs[len(runs)*99/100])
}

// simHeap orders the tasks holding a slot by finish time.
type simHeap []*simTask

func (h simHeap) Len() int           { return len(h) }
func (h simHeap) Less(i, j int) bool { return h[i].finish < h[j].finish }
func (h simHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *simHeap) Push(x any)        { *h = append(*h, x.(*simTask)) }
func (h *simHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
