// Command pace measures the pool's rate limit (ants.WithRateLimit,
// SetRateLimit) beside two peers that throttle inside the task:
// gammazero/workerpool with its pacer, and go-pkgz/pool with its
// RateLimiter middleware.
//
//	cd benchmarks && go run ./pace            # about 30 s; tables on stdout, pace.svg
//	go run ./pace -svg pace.png               # the chart as PNG
//	go test -run TestPace -v ./pace           # about 10 s, with checks
//
// Three scenarios, each run for one library at a time:
//
//   - steady overload: no-op tasks offered far faster than the limit (1000/s,
//     burst 10); tasks started per 100 ms window, the mean rate, and the
//     largest excess of starts over rate·T in any interval, which a token
//     bucket bounds by its burst;
//   - burst after idle: 600 tasks offered at once at 0 and again after
//     1.5 s idle (1000/s, burst 200): the first window shows the burst,
//     then the rate;
//   - a shared pool of 8 workers, on which 32 closed-loop callers submit
//     throttled tasks (200/s) and 32 submit plain ones, every task 1 ms of
//     sleep: how many workers wait for a token, and how many plain tasks
//     the pool still runs, beside the plain callers alone.
//
// Only the libraries' own limiters pace: the harness records when a worker
// takes a task up and when the task starts, and the difference is a worker
// held waiting for a token.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"
)

// config is the command line.
type config struct {
	window time.Duration
	steady steadyConfig
	burst  burstConfig
	shared sharedConfig
	svg    string
}

func defaults() config {
	return config{
		window: 100 * time.Millisecond,
		steady: steadyConfig{
			rate: 1000, burst: 10, workers: 16,
			submitters: 4, outstanding: 64, duration: 3 * time.Second,
		},
		burst: burstConfig{
			rate: 1000, burst: 200, workers: 16,
			tasks: 600, second: 1500 * time.Millisecond, duration: 2500 * time.Millisecond,
		},
		shared: sharedConfig{
			rate: 200, burst: 1, workers: 8,
			clients: 32, work: time.Millisecond, duration: 2 * time.Second,
		},
		svg: "pace.svg",
	}
}

// short is defaults() scaled down to run in about 10 s (TestPace) or, with
// tiny, in under 2 s (the -short test).
func short(tiny bool) config {
	cfg := defaults()
	cfg.steady.duration = time.Second
	cfg.burst.tasks, cfg.burst.second, cfg.burst.duration = 300, 600*time.Millisecond, time.Second
	cfg.shared.duration = 500 * time.Millisecond
	if tiny {
		cfg.steady.duration = 100 * time.Millisecond
		cfg.burst.tasks, cfg.burst.second, cfg.burst.duration = 50, 100*time.Millisecond, 150*time.Millisecond
		cfg.shared.duration, cfg.shared.clients = 100*time.Millisecond, 8
	}
	return cfg
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pace:", err)
		os.Exit(1)
	}
}

// run parses args, measures, prints the tables and draws the chart.
func run(args []string, stdout, stderr io.Writer) error {
	cfg := defaults()
	fs := flag.NewFlagSet("pace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&cfg.steady.duration, "steady", cfg.steady.duration, "length of the steady overload")
	fs.IntVar(&cfg.steady.burst, "steady-burst", cfg.steady.burst, "burst of the steady overload")
	fs.DurationVar(&cfg.shared.duration, "shared", cfg.shared.duration, "length of each shared-pool run")
	fs.IntVar(&cfg.shared.burst, "shared-burst", cfg.shared.burst, "burst of the throttled tasks on the shared pool (the pacer has none)")
	fs.StringVar(&cfg.svg, "svg", cfg.svg, "where to write the chart (.png for PNG, SVG otherwise); empty for none")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if cfg.steady.duration < cfg.window || cfg.shared.duration < cfg.window {
		return fmt.Errorf("-steady and -shared must be at least %v", cfg.window)
	}
	if cfg.steady.burst < 1 || cfg.shared.burst < 1 {
		return fmt.Errorf("-steady-burst and -shared-burst must be at least 1")
	}
	cs := contenders()
	r, err := measure(cfg, cs, stderr)
	if err != nil {
		return err
	}
	writeReport(stdout, r, cs)
	if cfg.svg != "" {
		if err := writeChart(cfg.svg, r); err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		fmt.Fprintln(stderr, "wrote", cfg.svg)
	}
	return nil
}
