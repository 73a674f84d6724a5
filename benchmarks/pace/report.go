package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"
)

// result is what one run of the command measured, one entry per contender
// in each slice, in the order of contenders().
type result struct {
	cfg    config
	load   string // the 1-minute load average before the run, or "unknown"
	steady []paceRun
	burst  []paceRun
	shared []sharedRun // throttled and plain tasks together
	alone  []sharedRun // the plain tasks alone, for reference
}

// measure runs every scenario for every contender, one run at a time, and
// reports progress to progress.
func measure(cfg config, cs []contender, progress io.Writer) (*result, error) {
	r := &result{cfg: cfg, load: loadAverage()}
	for _, c := range cs {
		fmt.Fprintf(progress, "steady overload: %s\n", c.name)
		run, err := runSteady(c, cfg.steady)
		if err != nil {
			return nil, err
		}
		r.steady = append(r.steady, run)
	}
	for _, c := range cs {
		fmt.Fprintf(progress, "burst after idle: %s\n", c.name)
		run, err := runBurst(c, cfg.burst)
		if err != nil {
			return nil, err
		}
		r.burst = append(r.burst, run)
	}
	for _, c := range cs {
		for _, with := range []bool{true, false} {
			fmt.Fprintf(progress, "shared pool (throttled tasks too: %v): %s\n", with, c.name)
			run, err := runShared(c, cfg.shared, with)
			if err != nil {
				return nil, err
			}
			if with {
				r.shared = append(r.shared, run)
			} else {
				r.alone = append(r.alone, run)
			}
		}
	}
	return r, nil
}

// steadyFigures are the steady overload's figures of one contender.
type steadyFigures struct {
	started    int
	perSecond  float64
	first      int   // tasks started in the first window
	rest       []int // the other windows, sorted
	excess     float64
	held       float64
	heldMost   int
	perWindows []int // every window, in order
	longestGap time.Duration
	lost       float64 // tokens lost to gaps longer than burst/rate
}

func (r *result) steadyFigures(i int) steadyFigures {
	cfg := r.cfg.steady
	run := r.steady[i]
	in := between(run.starts, 0, cfg.duration)
	ws := windows(run.starts, r.cfg.window, cfg.duration)
	f := steadyFigures{
		started:    len(in),
		perSecond:  float64(len(in)) / cfg.duration.Seconds(),
		excess:     maxExcess(in, cfg.rate),
		perWindows: ws,
	}
	if len(ws) > 0 {
		f.first = ws[0]
		f.rest = slices.Clone(ws[1:])
		slices.Sort(f.rest)
	}
	f.held, f.heldMost = heldStats(run.samples, 0, cfg.duration)
	f.longestGap, f.lost = gaps(in, cfg.rate, cfg.burst)
	return f
}

// burstFigures are the burst after idle's figures of one contender.
type burstFigures struct {
	first, second []int            // the first windows after each burst
	allIn         [2]time.Duration // from each burst to the start of its last task; -1 if it never started
	excess        float64
}

func (r *result) burstFigures(i int) burstFigures {
	cfg := r.cfg.burst
	run := r.burst[i]
	ws := windows(run.starts, r.cfg.window, cfg.duration)
	k := int(cfg.second / r.cfg.window)
	show := min(5, k)
	f := burstFigures{
		first:  ws[:show],
		second: ws[k:min(k+show, len(ws))],
		excess: maxExcess(between(run.starts, 0, cfg.duration), cfg.rate),
	}
	for b, at := range []time.Duration{0, cfg.second} {
		f.allIn[b] = -1
		if n := (b + 1) * cfg.tasks; len(run.starts) >= n {
			f.allIn[b] = run.starts[n-1] - at
		}
	}
	return f
}

// sharedFigures are the shared pool's figures of one contender.
type sharedFigures struct {
	plain, alone, throttled float64 // tasks started a second
	held                    float64
	heldMost                int
	busy                    float64 // the library's own busy workers, mean; -1 if it has no count
	executing               float64 // tasks on a worker, mean
}

func (r *result) sharedFigures(i int) sharedFigures {
	run, alone := r.shared[i], r.alone[i]
	d := run.duration
	rate := func(s []time.Duration, d time.Duration) float64 {
		return float64(len(between(s, 0, d))) / d.Seconds()
	}
	f := sharedFigures{
		plain:     rate(run.plain, d),
		alone:     rate(alone.plain, alone.duration),
		throttled: rate(run.throttled, d),
		busy:      -1,
	}
	f.held, f.heldMost = heldStats(run.samples, 0, d)
	var busy, exec float64
	n := 0
	for _, s := range run.samples {
		if s.at >= d {
			continue
		}
		n++
		busy += float64(s.busy)
		exec += float64(s.executing)
	}
	if n > 0 {
		f.executing = exec / float64(n)
		if run.samples[0].busy >= 0 {
			f.busy = busy / float64(n)
		}
	}
	return f
}

// writeReport writes the tables, in markdown.
func writeReport(out io.Writer, r *result, cs []contender) {
	cfg := r.cfg
	fmt.Fprintf(out, "- %s, %s/%s, GOMAXPROCS=%d, NumCPU=%d, load average before the run: %s; windows of %v\n\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU(), r.load, cfg.window)

	s := cfg.steady
	fmt.Fprintf(out, "**Steady overload**: limit %g/s, burst %d; %d workers; %d no-op tasks offered at all times by %d submitters; %v.\n\n",
		s.rate, s.burst, s.workers, s.outstanding, s.submitters, s.duration)
	fmt.Fprintf(out, "| library | started | mean /s | first %v | other windows: min / median / max | largest excess over r·T (a bucket of burst %d: ≤ %d) | longest gap between starts | tokens lost in gaps over %v | workers held waiting for a token: mean / max |\n",
		cfg.window, s.burst, s.burst, time.Duration(float64(s.burst)/s.rate*float64(time.Second)))
	fmt.Fprintln(out, "|---|--:|--:|--:|--:|--:|--:|--:|--:|")
	for i, c := range cs {
		f := r.steadyFigures(i)
		mid := "-"
		if len(f.rest) > 0 {
			mid = fmt.Sprintf("%d / %d / %d", f.rest[0], f.rest[len(f.rest)/2], f.rest[len(f.rest)-1])
		}
		fmt.Fprintf(out, "| %s | %d | %.0f | %d | %s | %.1f | %.1f ms | %.0f | %.1f / %d |\n",
			c.name, f.started, f.perSecond, f.first, mid, f.excess,
			float64(f.longestGap)/float64(time.Millisecond), f.lost, f.held, f.heldMost)
	}

	b := cfg.burst
	ideal := time.Duration(float64(b.tasks-b.burst) / b.rate * float64(time.Second))
	fmt.Fprintf(out, "\n**Burst after idle**: limit %g/s, burst %d; %d workers; %d no-op tasks offered at once at 0 and at %v (idle in between); %v.\n\n",
		b.rate, b.burst, b.workers, b.tasks, b.second, b.duration)
	fmt.Fprintf(out, "| library | windows from 0 | windows from %v | all %d started after (ideal %v) | largest excess over r·T (≤ %d) |\n",
		b.second, b.tasks, ideal.Round(time.Millisecond), b.burst)
	fmt.Fprintln(out, "|---|---|---|--:|--:|")
	for i, c := range cs {
		f := r.burstFigures(i)
		fmt.Fprintf(out, "| %s | %s | %s | %s / %s | %.1f |\n",
			c.name, ints(f.first), ints(f.second), ms(f.allIn[0]), ms(f.allIn[1]), f.excess)
	}

	sh := cfg.shared
	fmt.Fprintf(out, "\n**Shared pool**: %d workers; %d closed-loop callers of throttled tasks (limit %g/s, burst %d) and %d of plain ones, each task %v of sleep; %v. Alone: the plain callers only.\n\n",
		sh.workers, sh.clients, sh.rate, sh.burst, sh.clients, sh.work, sh.duration)
	fmt.Fprintf(out, "| library | plain tasks /s, shared | alone | shared ÷ alone | throttled /s (limit %g) | workers held waiting for a token: mean / max (of %d) | tasks on a worker, mean |\n",
		sh.rate, sh.workers)
	fmt.Fprintln(out, "|---|--:|--:|--:|--:|--:|--:|")
	for i, c := range cs {
		f := r.sharedFigures(i)
		share := 0.0
		if f.alone > 0 {
			share = f.plain / f.alone
		}
		fmt.Fprintf(out, "| %s | %.0f | %.0f | %.0f%% | %.1f | %.1f / %d | %.1f |\n",
			c.name, f.plain, f.alone, 100*share, f.throttled, f.held, f.heldMost, f.executing)
	}

	for i, c := range cs {
		if f := r.sharedFigures(i); f.busy >= 0 {
			fmt.Fprintf(out, "\n%s's own count of busy workers (Stats: Running - Idle), sampled with the rest: mean %.1f, beside %.1f tasks on a worker.\n",
				c.name, f.busy, f.executing)
		}
	}

	fmt.Fprintf(out, "\nSet-ups:\n\n")
	for _, c := range cs {
		fmt.Fprintf(out, "- %s: %s. Shared pool: %s.\n", c.name, c.setup, c.sharedSetup)
	}
}

// loadAverage returns the 1-minute load average, where /proc/loadavg has
// it, else "unknown": on a shared machine it says how much the others ran.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

func ints(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

func ms(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}
