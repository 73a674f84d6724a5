// Command priority measures the wait of each priority level on a pool that
// is overloaded, with strict levels and with aging: the figure a user needs
// to choose WithPriorityAging's d.
//
//	cd benchmarks && go run ./priority    # about 40 s: strict and d = 10ms, 100ms, 1s, both modes
//	go run ./priority -aging 0,50ms -modes blocked -duration 3s
//
// A pool of -capacity workers runs tasks that each sleep for -task, so that
// its service rate, capacity ÷ task, does not depend on how busy the
// machine is (the sleep's real length is measured first, and the rate is
// computed from it). For -duration, tasks arrive at -overload times that
// rate, submitted on a fixed schedule by one generator goroutine, at levels
// 0 to -levels-1 in turn, so each level has an equal share; then the
// arrivals stop and the pool runs its backlog. A task's wait is the time
// from its submit call to its first line. For each d (0: strict levels) and
// level, the table gives the median, 99th percentile and largest wait over
// every task that arrived, and how many of them started before the
// arrivals stopped.
//
// Two modes (-modes): blocked, where each arrival is a goroutine of its own
// calling SubmitContext on a pool without a buffer, so that the backlog is
// callers blocked in SubmitContext; and buffered, where the generator
// submits to a pool WithQueueSize(-1), so that the backlog is buffered
// tasks and no caller waits.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants"
	"github.com/e62cffed/ants/internal/burst"
)

// The modes: where the backlog waits.
const (
	modeBlocked  = "blocked"
	modeBuffered = "buffered"
)

// config is the command line.
type config struct {
	capacity int
	task     time.Duration // each task sleeps this long
	levels   int           // levels 0 .. levels-1
	overload float64       // arrival rate ÷ service rate
	duration time.Duration // how long tasks arrive
	aging    []time.Duration
	modes    []string
}

func defaults() config {
	return config{
		capacity: 8,
		task:     time.Millisecond,
		levels:   4,
		overload: 2,
		duration: 2 * time.Second,
		aging:    []time.Duration{0, 10 * time.Millisecond, 100 * time.Millisecond, time.Second},
		modes:    []string{modeBlocked, modeBuffered},
	}
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "priority:", err)
		os.Exit(1)
	}
}

// run parses args, measures every (mode, d) in turn and prints the table.
func run(args []string, stdout, stderr io.Writer) error {
	cfg := defaults()
	fs := flag.NewFlagSet("priority", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.capacity, "capacity", cfg.capacity, "workers of the pool")
	fs.DurationVar(&cfg.task, "task", cfg.task, "how long each task sleeps")
	fs.IntVar(&cfg.levels, "levels", cfg.levels, "levels 0 .. levels-1, in equal shares")
	fs.Float64Var(&cfg.overload, "overload", cfg.overload, "arrival rate as a multiple of the pool's service rate")
	fs.DurationVar(&cfg.duration, "duration", cfg.duration, "how long tasks arrive; the backlog runs after")
	aging := fs.String("aging", "0,10ms,100ms,1s", "comma-separated WithPriorityAging values; 0 is strict levels")
	modes := fs.String("modes", "blocked,buffered", "comma-separated: blocked (callers wait in SubmitContext), buffered (WithQueueSize(-1))")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.capacity < 1 || cfg.task <= 0 || cfg.levels < 1 || cfg.overload <= 0 || cfg.duration <= 0 {
		return fmt.Errorf("-capacity, -task, -levels, -overload and -duration must be positive")
	}
	var err error
	if cfg.aging, err = parseAging(*aging); err != nil {
		return err
	}
	if cfg.modes, err = parseModes(*modes); err != nil {
		return err
	}

	sleep := measureSleep(cfg.capacity, cfg.task)
	service := float64(cfg.capacity) / sleep.Seconds()
	rate := cfg.overload * service
	fmt.Fprintf(stdout, "- %s, %s/%s, GOMAXPROCS=%d\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Fprintf(stdout, "- capacity %d, tasks sleep %v (measured %v): service rate %.0f/s; arrivals %.0f/s (%.1f×) for %v, "+
		"levels 0-%d in turn, then the backlog runs\n\n", cfg.capacity, cfg.task, sleep.Round(time.Microsecond), service, rate,
		cfg.overload, cfg.duration, cfg.levels-1)
	fmt.Fprintln(stdout, "| mode | aging | level | tasks | p50 wait | p99 wait | max wait | started while overloaded |")
	fmt.Fprintln(stdout, "|---|---|--:|--:|--:|--:|--:|--:|")
	for _, mode := range cfg.modes {
		for _, d := range cfg.aging {
			fmt.Fprintf(stderr, "%s, aging %v...\n", mode, d)
			res, err := measure(cfg, mode, d, rate)
			if err != nil {
				return err
			}
			writeRows(stdout, res)
		}
	}
	return nil
}

func parseAging(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "0" {
			out = append(out, 0)
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("-aging: %q is not a duration >= 0", f)
		}
		out = append(out, d)
	}
	return out, nil
}

func parseModes(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f != modeBlocked && f != modeBuffered {
			return nil, fmt.Errorf("-modes: unknown mode %q (have %s,%s)", f, modeBlocked, modeBuffered)
		}
		out = append(out, f)
	}
	return out, nil
}

// measureSleep returns how long a time.Sleep(d) really takes here, with n
// goroutines sleeping at once, as the pool's workers do: the mean of 20
// rounds.
func measureSleep(n int, d time.Duration) time.Duration {
	const rounds = 20
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < rounds; j++ {
				time.Sleep(d)
			}
		}()
	}
	wg.Wait()
	return time.Since(t0) / rounds
}

// levelResult is the waits of one level.
type levelResult struct {
	level  int
	waits  []time.Duration // sorted
	during int             // tasks that started while tasks arrived
}

// result is one (mode, d) run.
type result struct {
	mode   string
	aging  time.Duration
	levels []levelResult
}

// measure runs the pool once in mode, with aging d, tasks arriving at rate
// per second for cfg.duration, and returns the waits by level once every
// task has run.
func measure(cfg config, mode string, d time.Duration, rate float64) (result, error) {
	opts := []ants.Option{ants.WithPriorityAging(d)}
	if mode == modeBuffered {
		opts = append(opts, ants.WithQueueSize(-1))
	}
	p, err := ants.NewPool(cfg.capacity, opts...)
	if err != nil {
		return result{}, err
	}
	ctxs := make([]context.Context, cfg.levels)
	for lv := range ctxs {
		ctxs[lv] = ants.ContextWithPriority(context.Background(), lv)
	}

	n := max(int(rate*cfg.duration.Seconds()), cfg.levels)
	interval := time.Duration(float64(time.Second) / rate)
	waits := make([]time.Duration, n)
	during := make([]bool, n)
	var done sync.WaitGroup
	var failed atomic.Int64
	done.Add(n)

	runtime.GC()
	start := time.Now()
	end := start.Add(cfg.duration)
	// submit submits task i, at level i mod levels, and records its wait
	// when it starts.
	submit := func(i int) {
		t0 := time.Now()
		err := p.SubmitContext(ctxs[i%cfg.levels], func() {
			now := time.Now()
			waits[i] = now.Sub(t0)
			during[i] = now.Before(end)
			time.Sleep(cfg.task)
			done.Done()
		})
		if err != nil {
			failed.Add(1)
			done.Done()
		}
	}
	for i := 0; i < n; i++ {
		// The schedule is fixed; a generator that overslept catches up at
		// once, so the arrivals come in bursts of at most a timer's slack.
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		if mode == modeBlocked {
			go submit(i)
		} else {
			submit(i)
		}
	}
	done.Wait()
	if err := p.ReleaseTimeout(10 * time.Second); err != nil {
		return result{}, err
	}
	if f := failed.Load(); f > 0 {
		return result{}, fmt.Errorf("%s, aging %v: %d submits failed", mode, d, f)
	}

	res := result{mode: mode, aging: d, levels: make([]levelResult, cfg.levels)}
	for lv := range res.levels {
		res.levels[lv].level = lv
	}
	for i, w := range waits {
		l := &res.levels[i%cfg.levels]
		l.waits = append(l.waits, w)
		if during[i] {
			l.during++
		}
	}
	for i := range res.levels {
		slices.Sort(res.levels[i].waits)
	}
	return res, nil
}

// writeRows prints one row per level, highest first.
func writeRows(out io.Writer, r result) {
	aging := "strict"
	if r.aging > 0 {
		aging = r.aging.String()
	}
	for i := len(r.levels) - 1; i >= 0; i-- {
		l := r.levels[i]
		n := len(l.waits)
		fmt.Fprintf(out, "| %s | %s | %d | %d | %s | %s | %s | %.0f%% |\n", r.mode, aging, l.level, n,
			fmtWait(burst.Percentile(l.waits, 50)), fmtWait(burst.Percentile(l.waits, 99)),
			fmtWait(l.waits[n-1]), 100*float64(l.during)/float64(n))
	}
}

// fmtWait prints d in µs, ms or s, with 2-3 significant digits.
func fmtWait(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
}
