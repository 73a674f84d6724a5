package main

import (
	"fmt"
	"io"
	"time"

	"github.com/e62cffed/ants"
	"github.com/e62cffed/ants/internal/loadtest"
)

// fixedSizes are the fixed pools beside the adaptive one.
var fixedSizes = []int{8, 16, 256}

// result is what one run measured.
type result struct {
	cfg   config
	pools []poolResult
}

// poolResult is one pool's record: its capacity sampled every 10 ms and
// every task's finish and run time.
type poolResult struct {
	name string
	caps []loadtest.Point
	rec  *loadtest.Recorder
}

// measure runs the adaptive pool and the fixed ones side by side, K=k1 for
// phase1 and then K=k2 for phase2, and returns what they did.
func measure(cfg config) (*result, error) {
	type running struct {
		pool *ants.Pool
		ds   *loadtest.Downstream
		load *loadtest.Load
		caps *loadtest.Sampler
		res  poolResult
	}
	t0 := time.Now()
	var rs []*running
	start := func(name string, size int, opts ...ants.Option) error {
		p, err := ants.NewPool(size, opts...)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		r := &running{pool: p, ds: loadtest.NewDownstream(cfg.k1, cfg.work)}
		r.res = poolResult{name: name, rec: loadtest.NewRecorder(t0)}
		r.caps = loadtest.StartSampler(t0, 10*time.Millisecond, p.Cap)
		r.load = loadtest.StartLoad(cfg.callers, p.Submit, r.res.rec.Task(r.ds))
		rs = append(rs, r)
		return nil
	}
	stopAll := func() error {
		var first error
		for _, r := range rs {
			r.load.Stop()
			r.res.caps = r.caps.Stop()
			if err := r.pool.ReleaseTimeout(10 * time.Second); err != nil && first == nil {
				first = fmt.Errorf("%s: %w", r.res.name, err)
			}
		}
		return first
	}

	err := start("adaptive 1-256", 1, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 1, Max: 256}))
	for _, size := range fixedSizes {
		if err == nil {
			err = start(fmt.Sprintf("fixed %d", size), size)
		}
	}
	if err != nil {
		stopAll()
		return nil, err
	}
	time.Sleep(time.Until(t0.Add(cfg.phase1)))
	for _, r := range rs {
		r.ds.SetSlots(cfg.k2)
	}
	time.Sleep(time.Until(t0.Add(cfg.phase1 + cfg.phase2)))
	if err := stopAll(); err != nil {
		return nil, err
	}
	res := &result{cfg: cfg}
	for _, r := range rs {
		res.pools = append(res.pools, r.res)
	}
	return res, nil
}

// periods are the stretches of time the acceptance test measures: the last
// half of the first phase, and the last half of the second.
func (r *result) periods() [2][2]time.Duration {
	c := r.cfg
	return [2][2]time.Duration{
		{c.phase1 / 2, c.phase1},
		{c.phase1 + c.phase2/2, c.phase1 + c.phase2},
	}
}

// writeTable prints each pool's figures over the two periods as markdown.
func writeTable(out io.Writer, r *result) {
	fmt.Fprintf(out, "| pool | period | K | median Cap() | tasks/s | run p50 | run p99 |\n")
	fmt.Fprintf(out, "|---|---|--:|--:|--:|--:|--:|\n")
	for _, p := range r.pools {
		for i, per := range r.periods() {
			k := r.cfg.k1
			if i == 1 {
				k = r.cfg.k2
			}
			fmt.Fprintf(out, "| %s | %v-%v | %d | %d | %.0f | %v | %v |\n",
				p.name, per[0], per[1], k, loadtest.Median(p.caps, per[0], per[1]),
				p.rec.Throughput(per[0], per[1]),
				p.rec.Quantile(0.5, per[0], per[1]).Round(100*time.Microsecond),
				p.rec.Quantile(0.99, per[0], per[1]).Round(100*time.Microsecond))
		}
	}
}
