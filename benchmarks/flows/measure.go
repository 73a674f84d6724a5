package main

import (
	"fmt"
	"io"
	"math/rand"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/flowsfile"
	"github.com/e62cffed/ants/benchmarks/internal/study"
)

// arrival is one request of the mixed workload: when it arrives, from the
// run's start, and its flow (0 the heavy one, 1.. the light ones).
type arrival struct {
	at   time.Duration
	flow int
	task time.Duration // its task's sleep
}

// poisson returns the arrival times of a Poisson process of rate a second
// over [0, d), drawn from rng.
func poisson(rate float64, d time.Duration, rng *rand.Rand) []time.Duration {
	var out []time.Duration
	for t := time.Duration(0); ; {
		t += time.Duration(rng.ExpFloat64() / rate * float64(time.Second))
		if t >= d {
			return out
		}
		out = append(out, t)
	}
}

// mixedTenants are the mixed workload's flows: the heavy one, then the
// light ones, all of weight 1.
func mixedTenants(cfg config) []tenant {
	ts := []tenant{{name: "heavy", weight: 1, share: cfg.heavyShare()}}
	for i := 1; i <= cfg.lights; i++ {
		ts = append(ts, tenant{name: fmt.Sprintf("light-%02d", i), weight: 1, share: cfg.lightShare()})
	}
	return ts
}

// schedule returns the mixed workload's arrivals in time order: each flow
// a Poisson process of its own, seeded from seed and the flow, the heavy
// one for heavyFor, the light ones for heavyFor + tail; each task's sleep
// is the task's, or with -jitter uniform within ±jitter of it.
func schedule(cfg config, seed int64) []arrival {
	capacity := cfg.capacity()
	var out []arrival
	add := func(flow int, rate float64, d time.Duration) {
		rng := rand.New(rand.NewSource(seed*1_000_003 + int64(flow)))
		for _, t := range poisson(rate, d, rng) {
			out = append(out, arrival{at: t, flow: flow, task: cfg.task})
		}
		if cfg.jitter > 0 { // drawn after the arrivals, which stay those of no jitter
			for i := range out {
				if out[i].flow == flow {
					out[i].task = time.Duration(float64(cfg.task) * (1 + cfg.jitter*(2*rng.Float64()-1)))
				}
			}
		}
	}
	add(0, cfg.heavy*capacity, cfg.heavyFor)
	for i := 1; i <= cfg.lights; i++ {
		add(i, cfg.light*capacity/float64(cfg.lights), cfg.heavyFor+cfg.tail)
	}
	slices.SortStableFunc(out, func(a, b arrival) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return a.flow - b.flow
	})
	return out
}

// record is what became of one request of the mixed workload: when its
// task started and ended, from the run's start.
type record struct {
	submit, start, end time.Duration
	ran, refused       bool
}

// aheadLimit is how early the generator may start a request rather than
// sleep until its arrival: sleeps shorter than this overshoot by more than
// they wait. A request's arrival is its scheduled time all the same.
const aheadLimit = 200 * time.Microsecond

// runMixed offers the mixed workload to a started pool of c and returns the
// row, once every request has run and the pool has been released.
func runMixed(c contender, cfg config, arrivals []arrival) (flowsfile.Row, error) {
	tenants := mixedTenants(cfg)
	recs, lags, err := offer(c, cfg, tenants, arrivals)
	if err != nil {
		return flowsfile.Row{}, err
	}
	row := analyse(cfg, tenants, arrivals, recs)
	row.Contender = c.name
	slices.Sort(lags)
	row.LagP99, row.LagMax = study.Quantile(lags, 0.99), study.Quantile(lags, 1)
	return row, nil
}

// offer offers arrivals to a started pool of c and returns what became of
// each request and the generator's lateness in submitting it, once every
// request has run and the pool has been released.
func offer(c contender, cfg config, tenants []tenant, arrivals []arrival) ([]record, []time.Duration, error) {
	srv, err := c.start(cfg, tenants)
	if err != nil {
		return nil, nil, err
	}
	recs := make([]record, len(arrivals))
	lags := make([]time.Duration, len(arrivals))
	var clients, unsettled sync.WaitGroup
	t0 := time.Now().Add(5 * time.Millisecond)

	request := func(i int) {
		defer clients.Done()
		rec := &recs[i]
		task := func() {
			rec.start = time.Since(t0)
			time.Sleep(arrivals[i].task)
			rec.end = time.Since(t0)
			rec.ran = true
			unsettled.Done()
		}
		rec.submit = time.Since(t0)
		if err := srv.serve(arrivals[i].flow, task); err != nil {
			rec.refused = true
			unsettled.Done()
		}
	}
	for i, a := range arrivals {
		at := t0.Add(a.at)
		if d := time.Until(at); d > aheadLimit {
			time.Sleep(d)
		}
		lags[i] = max(0, time.Since(at))
		clients.Add(1)
		unsettled.Add(1)
		go request(i)
	}
	// The offered work needs len(arrivals) / capacity at the least; a run
	// that takes stallLimit longer than that has stalled.
	limit := time.Duration(float64(len(arrivals))/cfg.capacity()*float64(time.Second)) + stallLimit
	wait := func(what string, wg *sync.WaitGroup) error {
		if err := study.Within(limit, func() error { wg.Wait(); return nil }); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	if err := wait("requests unsettled", &unsettled); err != nil {
		return nil, nil, err
	}
	if err := wait("callers still in the pool", &clients); err != nil {
		return nil, nil, err
	}
	if err := study.Within(stallLimit, srv.stop); err != nil {
		return nil, nil, fmt.Errorf("stop: %w", err)
	}
	return recs, lags, nil
}

// analyse makes the mixed workload's row from what became of each request.
func analyse(cfg config, tenants []tenant, arrivals []arrival, recs []record) flowsfile.Row {
	H, T := cfg.heavyFor, cfg.tail
	r := flowsfile.Row{Offered: len(arrivals)}
	waits := make([][]time.Duration, len(tenants))       // per flow, from the submit
	fromArrival := make([][]time.Duration, len(tenants)) // and from the arrival
	starts := make([][]time.Duration, len(tenants))
	var lightHeavy, lightTail []time.Duration
	var busyHeavy, busyTail, run time.Duration
	var heavyLast time.Duration
	for i, a := range arrivals {
		if a.flow == 0 {
			r.Heavy++
		}
		x := recs[i]
		if x.refused {
			r.Refused++
			continue
		}
		r.Ran++
		w := x.start - x.submit
		waits[a.flow] = append(waits[a.flow], w)
		fromArrival[a.flow] = append(fromArrival[a.flow], x.start-a.at)
		starts[a.flow] = append(starts[a.flow], x.start)
		run += x.end - x.start
		busyHeavy += overlap(x.start, x.end, 0, H)
		busyTail += overlap(x.start, x.end, H, H+T)
		if a.flow == 0 {
			if x.start < H {
				r.HeavyRate++
			}
			heavyLast = max(heavyLast, x.start)
			continue
		}
		r.LightRuns++
		r.LightMax = max(r.LightMax, w)
		if a.at < H {
			lightHeavy = append(lightHeavy, w)
		} else {
			lightTail = append(lightTail, w)
		}
	}
	if r.Ran > 0 {
		r.RunMean = run / time.Duration(r.Ran)
	}
	r.HeavyRate /= H.Seconds()
	r.HeavyDrained = max(0, heavyLast-H)
	slices.Sort(waits[0])
	r.HeavyP50 = study.Quantile(waits[0], 0.5)
	var p99s []time.Duration
	for f := 1; f < len(tenants); f++ {
		if len(waits[f]) == 0 {
			continue
		}
		slices.Sort(waits[f])
		p := study.Quantile(waits[f], 0.99)
		p99s = append(p99s, p)
		if p >= r.LightP99Max {
			r.LightP99Max, r.LightP99Worst = p, tenants[f].name
		}
		slices.Sort(fromArrival[f])
		r.LightP99MaxFromArrival = max(r.LightP99MaxFromArrival, study.Quantile(fromArrival[f], 0.99))
	}
	slices.Sort(p99s)
	r.LightP99Median = study.Quantile(p99s, 0.5)
	slices.Sort(lightHeavy)
	slices.Sort(lightTail)
	r.LightP99Heavy, r.LightP99Tail = study.Quantile(lightHeavy, 0.99), study.Quantile(lightTail, 0.99)
	r.UtilHeavy = busyHeavy.Seconds() / (float64(cfg.workers) * H.Seconds())
	if T > 0 {
		r.UtilTail = busyTail.Seconds() / (float64(cfg.workers) * T.Seconds())
	}
	r.Jain, r.JainMin, r.Backlogged, r.Slots = slotJain(cfg, tenants, arrivals, recs, starts)
	return r
}

// slotJain is Jain's index over the flows backlogged throughout a slot of
// the heavy phase, of the tasks each started in the slot over its weight,
// averaged over the slots that had a flow backlogged throughout; the lowest
// slot's; the flows backlogged in such a slot on average; and how many such
// slots there were. A flow is backlogged while a request of it has arrived
// (its submit called) and its task has not started.
func slotJain(cfg config, tenants []tenant, arrivals []arrival, recs []record, starts [][]time.Duration) (mean, lowest, backlogged float64, slots int) {
	type span struct{ from, to time.Duration }
	raw := make([][]span, len(tenants)) // per flow
	for i, a := range arrivals {
		if from, end := recs[i].submit, recs[i].start; !recs[i].refused && end > from {
			raw[a.flow] = append(raw[a.flow], span{from, end})
		}
	}
	spans := make([][]span, len(tenants)) // per flow, merged, in order
	for f, r := range raw {
		slices.SortFunc(r, func(a, b span) int { return int(a.from - b.from) })
		for _, x := range r {
			if n := len(spans[f]); n > 0 && x.from <= spans[f][n-1].to {
				spans[f][n-1].to = max(spans[f][n-1].to, x.to)
				continue
			}
			spans[f] = append(spans[f], x)
		}
	}
	for f := range starts {
		slices.Sort(starts[f])
	}
	lowest = 1
	var sum, flows float64
	for from := time.Duration(0); from+cfg.slot <= cfg.heavyFor; from += cfg.slot {
		to := from + cfg.slot
		var xs []float64
		for f, s := range spans {
			i, _ := slices.BinarySearchFunc(s, from, func(x span, t time.Duration) int {
				if x.to < t {
					return -1
				}
				return 1
			})
			if i == len(s) || s[i].from > from || s[i].to < to {
				continue
			}
			lo, _ := slices.BinarySearch(starts[f], from)
			hi, _ := slices.BinarySearch(starts[f], to)
			xs = append(xs, float64(hi-lo)/float64(tenants[f].weight))
		}
		if len(xs) == 0 {
			continue
		}
		j := flowsfile.Jain(xs)
		if len(xs) == 1 {
			j = 1 // one flow backlogged has all there is to have
		}
		sum += j
		flows += float64(len(xs))
		lowest = min(lowest, j)
		slots++
	}
	if slots == 0 {
		return 0, 0, 0, 0
	}
	return sum / float64(slots), lowest, flows / float64(slots), slots
}

// overlap is the length of [a, b) ∩ [from, to).
func overlap(a, b, from, to time.Duration) time.Duration {
	return max(0, min(b, to)-max(a, from))
}

// scenarios are the backlogged scenarios: flows of weight 1 with 1, 2, 4
// and 8 times the clients, and two flows weighted 3 and 1 with twice the
// clients each. The partitioned contender splits the workers by weight.
func scenarios(cfg config) []flowsfile.Scenario {
	share := func(fs []flowsfile.Flow) []flowsfile.Flow {
		total := 0
		for _, f := range fs {
			total += f.Weight
		}
		for i := range fs {
			fs[i].Share = max(1, int(float64(cfg.workers*fs[i].Weight)/float64(total)+0.5))
		}
		return fs
	}
	c := cfg.clients
	return []flowsfile.Scenario{
		{
			Name: "unequal backlogs, weights 1",
			Description: fmt.Sprintf("four flows of weight 1 kept backlogged by %d, %d, %d and %d closed-loop clients for %v; the tasks started after the first %v counted. "+
				"Fair queuing gives each a quarter of the workers whatever its backlog; FIFO gives each what it offers.", c, 2*c, 4*c, 8*c, cfg.window, cfg.warmup),
			Flows: share([]flowsfile.Flow{{Name: "a", Weight: 1, Outstanding: c}, {Name: "b", Weight: 1, Outstanding: 2 * c},
				{Name: "c", Weight: 1, Outstanding: 4 * c}, {Name: "d", Weight: 1, Outstanding: 8 * c}}),
		},
		{
			Name: "weights 3:1",
			Description: fmt.Sprintf("two flows weighted 3 and 1 (`WithFlowWeights`), each kept backlogged by %d closed-loop clients for %v; the tasks started after the first %v counted. "+
				"The weights ask for a service ratio of 3:1.", 2*c, cfg.window, cfg.warmup),
			Flows: share([]flowsfile.Flow{{Name: "x", Weight: 3, Outstanding: 2 * c}, {Name: "y", Weight: 1, Outstanding: 2 * c}}),
			Ratio: 3,
		},
	}
}

// runBacklogged runs scenario s on a started pool of c: each flow's clients
// submit a request, wait for its task to finish and submit the next, until
// the window ends; the tasks that start after the warm-up are counted.
func runBacklogged(c contender, cfg config, s flowsfile.Scenario) (flowsfile.ShareRow, error) {
	tenants := make([]tenant, len(s.Flows))
	for i, f := range s.Flows {
		tenants[i] = tenant{name: f.Name, weight: f.Weight, share: f.Share}
	}
	srv, err := c.start(cfg, tenants)
	if err != nil {
		return flowsfile.ShareRow{}, err
	}
	counts := make([]atomic.Int64, len(tenants))
	var refused atomic.Int64
	var clients sync.WaitGroup
	t0 := time.Now()
	warm, end := t0.Add(cfg.warmup), t0.Add(cfg.window)
	for f, fl := range s.Flows {
		for range fl.Outstanding {
			clients.Add(1)
			go func() {
				defer clients.Done()
				for time.Now().Before(end) {
					done := make(chan struct{})
					err := srv.serve(f, func() {
						if now := time.Now(); !now.Before(warm) && now.Before(end) {
							counts[f].Add(1)
						}
						time.Sleep(cfg.task)
						close(done)
					})
					if err != nil {
						refused.Add(1)
						return
					}
					<-done
				}
			}()
		}
	}
	if err := study.Within(cfg.window+stallLimit, func() error { clients.Wait(); return nil }); err != nil {
		return flowsfile.ShareRow{}, fmt.Errorf("clients: %w", err)
	}
	if err := study.Within(stallLimit, srv.stop); err != nil {
		return flowsfile.ShareRow{}, fmt.Errorf("stop: %w", err)
	}
	row := flowsfile.ShareRow{Scenario: s.Name, Contender: c.name, Seconds: (cfg.window - cfg.warmup).Seconds(), Refused: int(refused.Load())}
	var xs []float64
	for f := range counts {
		n := int(counts[f].Load())
		row.Started = append(row.Started, n)
		xs = append(xs, float64(n)/float64(tenants[f].weight))
	}
	row.Jain = flowsfile.Jain(xs)
	if len(row.Started) == 2 && row.Started[1] > 0 {
		row.Ratio = float64(row.Started[0]) / float64(row.Started[1])
	}
	return row, nil
}

// measure runs the mixed workload and every backlogged scenario for every
// contender, one run at a time, and returns the results file; progress goes
// to progress. A run that fails is recorded as failed and the others run.
func measure(cfg config, cs []contender, progress io.Writer) *flowsfile.File {
	started := time.Now()
	f := &flowsfile.File{}
	f.Describe(started)
	f.Config = flowsfile.Config{
		Workers: cfg.workers, Task: cfg.task, Buffer: cfg.buffer, Lights: cfg.lights,
		Jitter: cfg.jitter, Heavy: cfg.heavy, Light: cfg.light, HeavyFor: cfg.heavyFor, Tail: cfg.tail, Slot: cfg.slot, Seed: cfg.seed,
		HeavyShare: cfg.heavyShare(), LightShare: cfg.lightShare(), Window: cfg.window, Warmup: cfg.warmup,
	}
	for _, c := range cs {
		f.Contenders = append(f.Contenders, flowsfile.Contender{Name: c.name, Role: c.role, Setup: c.setup})
	}
	settle := func() {
		runtime.GC()
		time.Sleep(cfg.pause)
	}
	const mixed = "mixed workload"
	arrivals := schedule(cfg, cfg.seed)
	for _, c := range cs {
		fmt.Fprintf(progress, "%s: %s (%d requests)\n", mixed, c.name, len(arrivals))
		settle()
		row, err := runMixed(c, cfg, arrivals)
		if err != nil {
			fmt.Fprintf(progress, "  failed: %v\n", err)
			f.Failures = append(f.Failures, flowsfile.Failure{Contender: c.name, Scenario: mixed, Error: err.Error()})
			continue
		}
		f.Rows = append(f.Rows, row)
	}
	for _, s := range scenarios(cfg) {
		f.Scenarios = append(f.Scenarios, s)
		for _, c := range cs {
			fmt.Fprintf(progress, "%s: %s\n", s.Name, c.name)
			settle()
			row, err := runBacklogged(c, cfg, s)
			if err != nil {
				fmt.Fprintf(progress, "  failed: %v\n", err)
				f.Failures = append(f.Failures, flowsfile.Failure{Contender: c.name, Scenario: s.Name, Error: err.Error()})
				continue
			}
			f.Shares = append(f.Shares, row)
		}
	}
	f.Duration = time.Since(started).Round(time.Second).String()
	return f
}
