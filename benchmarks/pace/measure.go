package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/study"
)

// class records one kind of task (throttled or plain) of one run: how many
// a worker took up, started and finished, and when each started.
type class struct {
	t0                         time.Time
	entered, started, finished atomic.Int64

	mu     sync.Mutex
	starts []time.Duration // since t0, in the order recorded
}

// task returns a task of the class that runs work once it may start and
// then calls done, if not nil.
func (c *class) task(throttled bool, work time.Duration, done func()) task {
	return task{
		throttled: throttled,
		onWorker:  func() { c.entered.Add(1) },
		run: func() {
			c.started.Add(1)
			at := time.Since(c.t0)
			c.mu.Lock()
			c.starts = append(c.starts, at)
			c.mu.Unlock()
			if work > 0 {
				time.Sleep(work)
			}
			c.finished.Add(1)
			if done != nil {
				done()
			}
		},
	}
}

// sorted returns the start times, sorted.
func (c *class) sorted() []time.Duration {
	c.mu.Lock()
	s := slices.Clone(c.starts)
	c.mu.Unlock()
	slices.Sort(s)
	return s
}

// stallLimit bounds every wait of the harness for the pools: a pool that
// leaves tasks waiting for a token that long after the end has stalled, and
// the run fails rather than hangs.
const stallLimit = 10 * time.Second

// stopWithin stops p, or fails if that takes longer than d.
func stopWithin(name string, p *pool, d time.Duration) error {
	if err := study.Within(d, p.stop); err != nil {
		return fmt.Errorf("%s: stop: %w", name, err)
	}
	return nil
}

// sample is what the sampler saw at one instant.
type sample struct {
	at        time.Duration
	held      int // throttled tasks on a worker that have not started: workers waiting for a token
	executing int // tasks of either class on a worker, waiting or running
	busy      int // the library's own count of busy workers, or -1
}

// sampler reads the classes every period until stopped.
type sampler struct {
	stopc chan struct{}
	done  chan []sample
}

func startSampler(t0 time.Time, period time.Duration, p *pool, classes ...*class) *sampler {
	s := &sampler{stopc: make(chan struct{}), done: make(chan []sample, 1)}
	go func() {
		var out []sample
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-s.stopc:
				s.done <- out
				return
			case <-tick.C:
			}
			sm := sample{at: time.Since(t0), busy: -1}
			for i, c := range classes {
				in := int(c.entered.Load())
				if i == 0 {
					sm.held = in - int(c.started.Load())
				}
				sm.executing += in - int(c.finished.Load())
			}
			if p.busy != nil {
				sm.busy = p.busy()
			}
			out = append(out, sm)
		}
	}()
	return s
}

func (s *sampler) stop() []sample {
	close(s.stopc)
	return <-s.done
}

// steadyConfig is the steady overload: submitters keep outstanding tasks
// offered at all times, far more than the limit lets start.
type steadyConfig struct {
	rate        float64
	burst       int
	workers     int
	submitters  int
	outstanding int
	duration    time.Duration
}

// burstConfig is the burst after idle: tasks no-op tasks offered at once at
// 0 and again at second, when the pool has been idle long enough to refill
// its bucket; the run lasts duration.
type burstConfig struct {
	rate     float64
	burst    int
	workers  int
	tasks    int
	second   time.Duration
	duration time.Duration
}

// sharedConfig is the shared pool: clients closed-loop callers submit
// throttled tasks and as many submit plain ones, each waiting for its task
// to finish before submitting the next; every task takes work.
type sharedConfig struct {
	rate     float64
	burst    int
	workers  int
	clients  int
	work     time.Duration
	duration time.Duration
}

// paceRun is one accuracy run of one contender.
type paceRun struct {
	name    string
	starts  []time.Duration // sorted
	samples []sample
}

// runSteady offers cfg.outstanding no-op tasks at all times for
// cfg.duration, from cfg.submitters goroutines, to a pool of c limited to
// cfg.rate and cfg.burst.
func runSteady(c contender, cfg steadyConfig) (paceRun, error) {
	p, err := c.start(cfg.workers, cfg.rate, cfg.burst, false)
	if err != nil {
		return paceRun{}, err
	}
	t0 := time.Now()
	cl := &class{t0: t0}
	slots := make(chan struct{}, cfg.outstanding)
	ctx, cancel := context.WithDeadline(context.Background(), t0.Add(cfg.duration))
	defer cancel()
	smp := startSampler(t0, 10*time.Millisecond, p, cl)
	var wg sync.WaitGroup
	for i := 0; i < cfg.submitters; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				p.submit(cl.task(true, 0, func() { <-slots }))
			}
		}()
	}
	<-ctx.Done()
	wg.Wait() // submit never waits here: every pool has an unbounded queue
	samples := smp.stop()
	if err := stopWithin(c.name, p, stallLimit); err != nil {
		return paceRun{}, err
	}
	return paceRun{name: c.name, starts: cl.sorted(), samples: samples}, nil
}

// runBurst offers cfg.tasks no-op tasks at once at 0 and at cfg.second, to
// a pool of c limited to cfg.rate and cfg.burst, and waits until
// cfg.duration.
func runBurst(c contender, cfg burstConfig) (paceRun, error) {
	p, err := c.start(cfg.workers, cfg.rate, cfg.burst, false)
	if err != nil {
		return paceRun{}, err
	}
	t0 := time.Now()
	cl := &class{t0: t0}
	smp := startSampler(t0, 10*time.Millisecond, p, cl)
	for _, at := range []time.Duration{0, cfg.second} {
		time.Sleep(time.Until(t0.Add(at)))
		for i := 0; i < cfg.tasks; i++ {
			p.submit(cl.task(true, 0, nil))
		}
	}
	time.Sleep(time.Until(t0.Add(cfg.duration)))
	samples := smp.stop()
	if err := stopWithin(c.name, p, stallLimit); err != nil {
		return paceRun{}, err
	}
	return paceRun{name: c.name, starts: cl.sorted(), samples: samples}, nil
}

// sharedRun is one run of the shared pool.
type sharedRun struct {
	name               string
	throttled, plain   []time.Duration // start times, sorted
	samples            []sample
	duration           time.Duration
	withThrottledTasks bool
}

// runShared runs cfg.clients plain callers for cfg.duration on a shared
// pool of c, and beside them, if withThrottled, cfg.clients throttled ones.
func runShared(c contender, cfg sharedConfig, withThrottled bool) (sharedRun, error) {
	p, err := c.start(cfg.workers, cfg.rate, cfg.burst, true)
	if err != nil {
		return sharedRun{}, err
	}
	t0 := time.Now()
	throttled, plain := &class{t0: t0}, &class{t0: t0}
	ctx, cancel := context.WithDeadline(context.Background(), t0.Add(cfg.duration))
	defer cancel()
	smp := startSampler(t0, 10*time.Millisecond, p, throttled, plain)
	var wg sync.WaitGroup
	client := func(cl *class, isThrottled bool) {
		defer wg.Done()
		done := make(chan struct{}, 1)
		signal := func() { done <- struct{}{} }
		for ctx.Err() == nil {
			p.submit(cl.task(isThrottled, cfg.work, signal))
			<-done
		}
	}
	for i := 0; i < cfg.clients; i++ {
		wg.Add(1)
		go client(plain, false)
		if withThrottled {
			wg.Add(1)
			go client(throttled, true)
		}
	}
	<-ctx.Done()
	samples := smp.stop()
	if err := study.Within(stallLimit, func() error { wg.Wait(); return nil }); err != nil {
		return sharedRun{}, fmt.Errorf("%s: callers still waiting for their tasks %v after the end: %w", c.name, stallLimit, err)
	}
	if err := stopWithin(c.name, p, stallLimit); err != nil {
		return sharedRun{}, err
	}
	return sharedRun{
		name: c.name, throttled: throttled.sorted(), plain: plain.sorted(),
		samples: samples, duration: cfg.duration, withThrottledTasks: withThrottled,
	}, nil
}

// windows counts the starts in each window of width w from 0 to end.
func windows(starts []time.Duration, w, end time.Duration) []int {
	n := int((end + w - 1) / w)
	out := make([]int, n)
	for _, s := range starts {
		if s >= 0 && s < end {
			out[int(s/w)]++
		}
	}
	return out
}

// maxExcess is the most that the starts in any interval [a, b] exceed
// rate·(b-a): a token bucket of that rate and burst B lets it be at most B.
func maxExcess(starts []time.Duration, rate float64) float64 {
	// For j, the best i <= j maximises (j-i+1) - rate·(t_j - t_i), that
	// is (rate·t_i - i) + (j + 1 - rate·t_j): keep the running maximum of
	// the first part.
	best, out := 0.0, 0.0
	for j, t := range starts {
		v := rate*t.Seconds() - float64(j)
		if j == 0 || v > best {
			best = v
		}
		out = max(out, best+float64(j+1)-rate*t.Seconds())
	}
	return out
}

// between returns the starts in [from, to).
func between(starts []time.Duration, from, to time.Duration) []time.Duration {
	i, _ := slices.BinarySearch(starts, from)
	j, _ := slices.BinarySearch(starts, to)
	return starts[i:j]
}

// heldStats is the mean and the maximum of the held workers sampled in
// [from, to).
func heldStats(samples []sample, from, to time.Duration) (mean float64, most int) {
	var n, sum int
	for _, s := range samples {
		if s.at >= from && s.at < to {
			n++
			sum += s.held
			most = max(most, s.held)
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(sum) / float64(n), most
}

// gaps returns the longest time between two consecutive starts and the
// tokens a bucket of rate and burst loses in such gaps: in a gap g, it
// fills up after burst/rate and gains nothing more, so a stall of the
// machine (or of the limiter) longer than that costs rate·g - burst tokens
// that no later start makes up.
func gaps(starts []time.Duration, rate float64, burst int) (longest time.Duration, lost float64) {
	for i := 1; i < len(starts); i++ {
		g := starts[i] - starts[i-1]
		longest = max(longest, g)
		lost += max(0, rate*g.Seconds()-float64(burst))
	}
	return longest, lost
}
