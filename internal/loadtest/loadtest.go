// Package loadtest drives a pool with closed-loop callers against a
// simulated downstream and records what happened: the harness of the
// adaptive-capacity acceptance test (adaptive_acceptance_test.go) and of
// the chart in the benchmarks module (benchmarks/adaptive), so that both
// measure the same thing. It does not import the pool: a pool is a submit
// function.
package loadtest

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Downstream is what the tasks call: a fixed time of work behind a limited
// number of slots, so that beyond that many concurrent calls, callers only
// queue, in FIFO order, and take longer for the same throughput (a
// database, an API). It is safe for concurrent use by multiple goroutines.
type Downstream struct {
	work time.Duration

	mu      sync.Mutex
	slots   int             // 0: no limit
	inUse   int             // calls in a slot
	waiting []chan struct{} // calls waiting for a slot, FIFO; each is closed to let its call in
}

// NewDownstream returns a downstream of k slots (k <= 0: no limit) around
// work.
func NewDownstream(k int, work time.Duration) *Downstream {
	d := &Downstream{work: work}
	d.SetSlots(k)
	return d
}

// SetSlots changes the number of slots at once (k <= 0: no limit): with
// fewer, the calls in a slot finish, and waiting calls get one only when
// fewer than k are in use; with more, waiting calls get the new slots.
func (d *Downstream) SetSlots(k int) {
	d.mu.Lock()
	d.slots = max(k, 0)
	d.admitLocked()
	d.mu.Unlock()
}

// Call waits for a slot, then does the work.
func (d *Downstream) Call() {
	d.mu.Lock()
	if d.slots == 0 || (d.inUse < d.slots && len(d.waiting) == 0) {
		d.inUse++
		d.mu.Unlock()
	} else {
		ready := make(chan struct{})
		d.waiting = append(d.waiting, ready)
		d.mu.Unlock()
		<-ready
	}
	time.Sleep(d.work)
	d.mu.Lock()
	d.inUse--
	d.admitLocked()
	d.mu.Unlock()
}

// admitLocked gives free slots to waiting calls, oldest first.
func (d *Downstream) admitLocked() {
	for len(d.waiting) > 0 && (d.slots == 0 || d.inUse < d.slots) {
		d.inUse++
		close(d.waiting[0])
		d.waiting = d.waiting[1:]
	}
}

// Recorder keeps the finish and run time of every task it wraps. It is safe
// for concurrent use by multiple goroutines.
type Recorder struct {
	t0 time.Time

	mu   sync.Mutex
	done []Done
}

// Done is one completed task: when it finished, since the recorder's start,
// and how long it ran.
type Done struct{ At, Run time.Duration }

// NewRecorder returns a recorder whose times count from t0.
func NewRecorder(t0 time.Time) *Recorder { return &Recorder{t0: t0} }

// Task returns a task that calls d and records its run time, from start to
// finish, including any wait for a slot.
func (r *Recorder) Task(d *Downstream) func() {
	return func() {
		start := time.Now()
		d.Call()
		end := time.Now()
		r.mu.Lock()
		r.done = append(r.done, Done{At: end.Sub(r.t0), Run: end.Sub(start)})
		r.mu.Unlock()
	}
}

// Between returns the tasks that finished in [from, to).
func (r *Recorder) Between(from, to time.Duration) []Done {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Done
	for _, d := range r.done {
		if d.At >= from && d.At < to {
			out = append(out, d)
		}
	}
	return out
}

// Throughput is the tasks per second that finished in [from, to).
func (r *Recorder) Throughput(from, to time.Duration) float64 {
	return float64(len(r.Between(from, to))) / (to - from).Seconds()
}

// Quantile is the q-quantile (0 <= q < 1) of the run time of the tasks that
// finished in [from, to), 0 if none did.
func (r *Recorder) Quantile(q float64, from, to time.Duration) time.Duration {
	done := r.Between(from, to)
	if len(done) == 0 {
		return 0
	}
	runs := make([]time.Duration, len(done))
	for i, d := range done {
		runs[i] = d.Run
	}
	slices.Sort(runs)
	return runs[int(q*float64(len(runs)))]
}

// Load is n callers that submit a task, again and again, without pause.
type Load struct {
	stop   chan struct{}
	wg     sync.WaitGroup
	failed atomic.Int64
}

// StartLoad starts n goroutines that call submit(task) in a loop until
// Stop. A submit that fails is counted (Failed) and retried.
func StartLoad(n int, submit func(func()) error, task func()) *Load {
	l := &Load{stop: make(chan struct{})}
	l.wg.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			defer l.wg.Done()
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				if submit(task) != nil {
					l.failed.Add(1)
				}
			}
		}()
	}
	return l
}

// Stop makes the callers return after their current submit and waits for
// them; the pool must keep running tasks until then.
func (l *Load) Stop() {
	close(l.stop)
	l.wg.Wait()
}

// Failed is the number of submits that returned an error.
func (l *Load) Failed() int64 { return l.failed.Load() }

// Point is one sample of a Sampler.
type Point struct {
	At    time.Duration // since the sampler's start
	Value int
}

// Sampler samples a value at a fixed period on a goroutine of its own,
// which exits in Stop.
type Sampler struct {
	stop   chan struct{}
	done   chan struct{}
	points []Point
}

// StartSampler samples f every period, from t0, until Stop.
func StartSampler(t0 time.Time, period time.Duration, f func() int) *Sampler {
	s := &Sampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			s.points = append(s.points, Point{At: time.Since(t0), Value: f()})
			select {
			case <-s.stop:
				return
			case <-tk.C:
			}
		}
	}()
	return s
}

// Stop stops the sampler and returns its samples.
func (s *Sampler) Stop() []Point {
	close(s.stop)
	<-s.done
	return s.points
}

// Median is the median value of the points in [from, to), 0 if none.
func Median(points []Point, from, to time.Duration) int {
	var vs []int
	for _, p := range points {
		if p.At >= from && p.At < to {
			vs = append(vs, p.Value)
		}
	}
	if len(vs) == 0 {
		return 0
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}

// First is the time of the first point in [from, to) whose value is at
// least v, and whether there is one.
func First(points []Point, v int, from, to time.Duration) (time.Duration, bool) {
	for _, p := range points {
		if p.At >= from && p.At < to && p.Value >= v {
			return p.At, true
		}
	}
	return 0, false
}
