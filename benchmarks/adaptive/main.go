// Command adaptive shows how a pool with ants.WithAdaptiveCapacity finds
// its capacity, beside fixed pools of 8, 16 and 256: scenarios 1 and 2 of
// its acceptance test (adaptive_acceptance_test.go in the root module), run once in real time, drawn over time.
//
//	cd benchmarks && go run ./adaptive         # 16 s; writes adaptive.svg
//	go run ./adaptive -bucket 500ms -svg adaptive.png
//
// Every pool has a downstream of its own, K slots around 20 ms of work (K
// is 16 for 12 s, then 8 for 4 s), and 64 callers of its own that submit
// without pause. The adaptive pool starts at 1 and may go from 1 to 256.
// The command prints, for each pool, its median capacity, throughput and
// run times over the last 6 s of the first phase and the last 2 s of the
// second (the acceptance test's periods), and draws its capacity,
// throughput and p99 run time over time.
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
	work           time.Duration // time in a downstream slot
	callers        int           // per pool
	k1, k2         int           // downstream slots in phase 1 and 2
	phase1, phase2 time.Duration
	bucket         time.Duration // chart resolution
	svg            string
}

func defaults() config {
	return config{
		work:    20 * time.Millisecond,
		callers: 64,
		k1:      16, k2: 8,
		phase1: 12 * time.Second, phase2: 4 * time.Second,
		bucket: 250 * time.Millisecond,
		svg:    "adaptive.svg",
	}
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "adaptive:", err)
		os.Exit(1)
	}
}

// run parses args, runs both phases, prints the table and draws the chart.
func run(args []string, stdout, stderr io.Writer) error {
	cfg := defaults()
	fs := flag.NewFlagSet("adaptive", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&cfg.work, "work", cfg.work, "time a task spends in a downstream slot")
	fs.IntVar(&cfg.callers, "callers", cfg.callers, "callers per pool, each submitting without pause")
	fs.IntVar(&cfg.k1, "k1", cfg.k1, "downstream slots in the first phase")
	fs.IntVar(&cfg.k2, "k2", cfg.k2, "downstream slots in the second phase")
	fs.DurationVar(&cfg.phase1, "phase1", cfg.phase1, "length of the first phase")
	fs.DurationVar(&cfg.phase2, "phase2", cfg.phase2, "length of the second phase")
	fs.DurationVar(&cfg.bucket, "bucket", cfg.bucket, "the chart's time resolution")
	fs.StringVar(&cfg.svg, "svg", cfg.svg, "where to write the chart (PNG if it ends in .png); empty for none")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.callers < 1 || cfg.k1 < 1 || cfg.k2 < 1 || cfg.phase1 <= 0 || cfg.phase2 <= 0 || cfg.bucket <= 0 {
		return fmt.Errorf("-callers, -k1, -k2, -phase1, -phase2 and -bucket must be positive")
	}

	fmt.Fprintf(stderr, "running %v with K=%d, then %v with K=%d...\n", cfg.phase1, cfg.k1, cfg.phase2, cfg.k2)
	res, err := measure(cfg)
	if err != nil {
		return err
	}
	writeTable(stdout, res)
	if cfg.svg != "" {
		if err := writeChart(cfg.svg, res); err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		fmt.Fprintln(stderr, "wrote", cfg.svg)
	}
	return nil
}
