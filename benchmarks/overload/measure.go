package main

import (
	"context"
	"fmt"
	"io"
	"math/rand"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/overloadfile"
	"github.com/e62cffed/ants/benchmarks/internal/study"
)

// load is one offered load: Poisson arrivals at base × capacity a second
// for duration, and, if burst > 0, at burst × capacity instead from
// burstAt for burstLen. The requests that arrive in the first onset are
// counted apart: the row's figures are of the load once it is sustained,
// the onset's goodput is the step from idle to the load.
type load struct {
	name              string
	base, burst       float64
	burstAt, burstLen time.Duration
	onset, duration   time.Duration
}

// sustained reports whether the load is one rate throughout.
func (l load) sustained() bool { return l.burst == 0 }

// rateAt is the arrival rate at t, a second.
func (l load) rateAt(t time.Duration, capacity float64) float64 {
	if l.burst > 0 && t >= l.burstAt && t < l.burstAt+l.burstLen {
		return l.burst * capacity
	}
	return l.base * capacity
}

// describe says what the load is, for the report.
func (l load) describe(capacity float64) string {
	if l.sustained() {
		if l.onset > 0 {
			return fmt.Sprintf("%.0f requests a second (%g× capacity) for %v; the figures are of the last %v, the onset's goodput of the first %v.",
				l.base*capacity, l.base, l.duration, l.duration-l.onset, l.onset)
		}
		return fmt.Sprintf("%.0f requests a second (%g× capacity) for %v.", l.base*capacity, l.base, l.duration)
	}
	bg := "idle"
	if l.base > 0 {
		bg = fmt.Sprintf("%.0f requests a second (%g× capacity)", l.base*capacity, l.base)
	}
	return fmt.Sprintf("%s for %v, but %.0f a second (%g× capacity) from %v for %v (half the queue target's interval).",
		bg, l.duration, l.burst*capacity, l.burst, l.burstAt.Round(time.Millisecond), l.burstLen)
}

// schedule returns the arrival times of l, from 0, drawn from rng: the
// gaps between arrivals are exponential at the rate of the moment, and a
// gap that would cross a change of rate is drawn again from the change,
// which the exponential's lack of memory makes exact.
func schedule(l load, capacity float64, rng *rand.Rand) []time.Duration {
	edges := []time.Duration{l.duration}
	if l.burst > 0 {
		edges = []time.Duration{l.burstAt, l.burstAt + l.burstLen, l.duration}
	}
	var out []time.Duration
	t := time.Duration(0)
	for t < l.duration {
		next := l.duration
		for _, e := range edges {
			if e > t {
				next = min(next, e)
				break
			}
		}
		rate := l.rateAt(t, capacity)
		if rate <= 0 {
			t = next
			continue
		}
		gap := time.Duration(rng.ExpFloat64() / rate * float64(time.Second))
		if t+gap >= next {
			t = next
			continue
		}
		t += gap
		out = append(out, t)
	}
	return out
}

// record is what became of one request.
type record struct {
	outcome outcome
	latency time.Duration // from arrival to the task's finish, if it ran
	run     time.Duration // the task's own time, if it ran
}

// aheadLimit is how early the generator may start a request rather than
// sleep until its arrival: sleeps shorter than this overshoot by more than
// they wait. A request's arrival is its scheduled time all the same.
const aheadLimit = 200 * time.Microsecond

// runRow offers l to a started pool of c and returns the row, once every
// request has settled and the pool has been released.
func runRow(c contender, cfg config, l load, seed int64) (overloadfile.Row, error) {
	capacity := cfg.capacity()
	arrivals := schedule(l, capacity, rand.New(rand.NewSource(seed)))
	srv, err := c.start(cfg)
	if err != nil {
		return overloadfile.Row{}, fmt.Errorf("%s: %w", c.name, err)
	}
	recs := make([]record, len(arrivals))
	lags := make([]time.Duration, len(arrivals))
	var clients, unsettled sync.WaitGroup

	request := func(i int, at time.Time) {
		defer clients.Done()
		deadline := at.Add(cfg.deadline)
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		rec := &recs[i]
		settleWith := func(o outcome) {
			rec.outcome = o
			cancel()
			unsettled.Done()
		}
		task := func() {
			start := time.Now()
			if ctx.Err() != nil || !start.Before(deadline) {
				settleWith(expired) // skipped, as ants.Go skips its own
				return
			}
			time.Sleep(cfg.task)
			end := time.Now()
			rec.run, rec.latency = end.Sub(start), end.Sub(at)
			if end.After(deadline) {
				settleWith(late)
			} else {
				settleWith(success)
			}
		}
		if o := srv.serve(ctx, task); o != pending {
			settleWith(o)
		}
	}

	t0 := time.Now().Add(5 * time.Millisecond)
	for i, off := range arrivals {
		at := t0.Add(off)
		if d := time.Until(at); d > aheadLimit {
			time.Sleep(d)
		}
		lags[i] = max(0, time.Since(at))
		clients.Add(1)
		unsettled.Add(1)
		go request(i, at)
	}
	wait := func(what string, wg *sync.WaitGroup) error {
		if err := study.Within(stallLimit, func() error { wg.Wait(); return nil }); err != nil {
			return fmt.Errorf("%s under %s: %s: %w", c.name, l.name, what, err)
		}
		return nil
	}
	if err := wait("requests unsettled", &unsettled); err != nil {
		return overloadfile.Row{}, err
	}
	if err := wait("callers still in the pool", &clients); err != nil {
		return overloadfile.Row{}, err
	}
	if err := study.Within(stallLimit, srv.stop); err != nil {
		return overloadfile.Row{}, fmt.Errorf("%s under %s: stop: %w", c.name, l.name, err)
	}
	first, _ := slices.BinarySearch(arrivals, l.onset)
	row := tally(recs[first:], lags)
	row.Contender, row.Load, row.Seconds = c.name, l.name, (l.duration - l.onset).Seconds()
	if first > 0 {
		on := tally(recs[:first], nil)
		row.Onset, row.OnsetSuccess, row.OnsetSeconds = on.Offered, on.Success, l.onset.Seconds()
	}
	row.PoolDropped = -1
	if srv.dropped != nil {
		row.PoolDropped = srv.dropped()
	}
	return row, nil
}

// tally counts the records and takes the percentiles; the generator's
// lateness is of every request, the onset's too.
func tally(recs []record, lags []time.Duration) overloadfile.Row {
	r := overloadfile.Row{Offered: len(recs)}
	var lat, ran []time.Duration
	var run time.Duration
	for _, x := range recs {
		switch x.outcome {
		case success:
			r.Success++
			lat = append(lat, x.latency)
		case late:
			r.Late++
		case expired:
			r.Expired++
		case dropped:
			r.Dropped++
		case refused:
			r.Refused++
		}
		if x.outcome == success || x.outcome == late {
			run += x.run
			ran = append(ran, x.latency)
		}
	}
	if n := r.Success + r.Late; n > 0 {
		r.RunMean = run / time.Duration(n)
	}
	slices.Sort(lat)
	r.P50, r.P99, r.Max = study.Quantile(lat, 0.5), study.Quantile(lat, 0.99), study.Quantile(lat, 1)
	slices.Sort(ran)
	r.RanP99 = study.Quantile(ran, 0.99)
	lags = slices.Clone(lags)
	slices.Sort(lags)
	r.LagP99, r.LagMax = study.Quantile(lags, 0.99), study.Quantile(lags, 1)
	return r
}

// measure runs every load for every contender, one row at a time, and
// returns the results file; progress goes to progress. The arrivals of a
// load are the same for every contender. A row that fails is recorded as
// failed and the others run.
func measure(cfg config, cs []contender, progress io.Writer) *overloadfile.File {
	started := time.Now()
	f := &overloadfile.File{}
	f.Describe(started)
	capacity := cfg.capacity()
	f.Config = overloadfile.Config{
		Workers: cfg.workers, Task: cfg.task, Deadline: cfg.deadline,
		Target: cfg.target, Interval: cfg.interval, QueueTimeout: cfg.queueTimeout(),
		Buffer: cfg.buffer, Seed: cfg.seed,
	}
	for _, c := range cs {
		f.Contenders = append(f.Contenders, overloadfile.Contender{Name: c.name, Role: c.role, Setup: c.setup})
	}
	for li, l := range cfg.loads() {
		f.Loads = append(f.Loads, overloadfile.LoadInfo{
			Name: l.name, Description: l.describe(capacity),
			Burst: !l.sustained(), Sustained: l.sustained(), Multiple: l.base, Onset: l.onset,
		})
		for _, c := range cs {
			fmt.Fprintf(progress, "%s: %s\n", l.name, c.name)
			runtime.GC()
			time.Sleep(cfg.pause)
			row, err := runRow(c, cfg, l, cfg.seed+int64(li))
			if err != nil {
				fmt.Fprintf(progress, "  failed: %v\n", err)
				f.Failures = append(f.Failures, overloadfile.RowFailure{Contender: c.name, Load: l.name, Error: err.Error()})
				continue
			}
			f.Rows = append(f.Rows, row)
		}
	}
	f.Duration = time.Since(started).Round(time.Second).String()
	return f
}
