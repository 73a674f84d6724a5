// Command soak drives the examples/httpserver service with vegeta at a
// rate above what its pool can serve, while a second goroutine Tunes the
// pool up and down and a third Releases and Reboots a side pool, and
// samples the process every second: latency, accepted and shed requests,
// RSS, heap, goroutines and the pool's Stats. It checks the promises a
// service relies on (see check.go), prints a markdown report and draws a
// chart with gonum.
//
//	cd benchmarks && go run ./soak                        # 3 variants x 3 minutes
//	go run ./soak -duration 10m -variants e62cffed/ants   # one long run
//	go run ./soak -duration 2h -rate 2000 -pool 32        # hours, flags for all of it
//
// The every-feature variant runs the same service with every feature of
// the pool on at once: requests at priority levels that wait for a worker
// and are shed past MaxBlockingTasks, a maintenance window (Pause, Resume)
// every few minutes, the rate limit changed, the tuner, a rate-limited side
// pool whose releases race a new limit, and a ReleaseTimeout at the end
// whose nil is checked against the tasks the pool accepted:
//
//	go run ./soak -variants 'e62cffed/ants every feature' -duration 60m -rate 300 -pool 8
//
// Each variant (e62cffed/ants, ants v2.12.1, goroutine-per-request) runs
// in a child process of its own, one after the other, so one's heap and
// RSS never reach another's figures. The load generator runs in the same
// process as the service, so RSS and goroutines include vegeta's (a fixed
// number of workers, the same for every variant). go test runs a short
// soak of e62cffed/ants with the same checks (soak_test.go).
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
)

// defaults is the soak's default configuration, that of the full run in
// BENCHMARKS.md. The largest pool serves 16 / 20 ms = 800 requests a
// second; 1000 are offered, so there is always something to shed.
func defaults() config {
	return config{
		Variant:    variants[0].name,
		Duration:   3 * time.Minute,
		Rate:       1000,
		PoolSize:   16,
		Queue:      16,
		Work:       20 * time.Millisecond,
		TuneEvery:  time.Second,
		ChurnEvery: 100 * time.Millisecond,
		SideSize:   4,
		Workers:    128,
		Timeout:    10 * time.Second,
		Levels:     3,
		PauseEvery: 3 * time.Minute,
		PauseFor:   2 * time.Second,
		RateEvery:  20 * time.Second,
	}
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

// run parses args and runs the parent, or with -child one variant.
func run(args []string, stdout, stderr io.Writer) error {
	cfg := defaults()
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var names, all []string
	for _, v := range variants {
		all = append(all, v.name)
		if v.name != everyFeature {
			names = append(names, v.name)
		}
	}
	list := fs.String("variants", strings.Join(names, ","), "comma-separated variants: "+strings.Join(all, ","))
	child := fs.String("child", "", "internal: run this one variant and print its report as JSON")
	svg := fs.String("svg", "soak.svg", "where to write the chart; empty for none")
	jsonOut := fs.String("json", "", "where to write every report as JSON; empty for none")
	replot := fs.String("replot", "", "run nothing: print the report and draw the chart of the reports in this -json file")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "how long each variant is driven")
	fs.DurationVar(&cfg.WarmUp, "warmup", 0, "warm-up before the flatness reference; 0 means a fifth of -duration, at most 1m")
	fs.IntVar(&cfg.Rate, "rate", cfg.Rate, "requests offered per second")
	fs.IntVar(&cfg.PoolSize, "pool", cfg.PoolSize, "largest pool size; the tuner cycles full, half, quarter, half")
	fs.IntVar(&cfg.Queue, "queue", cfg.Queue, "task buffer of the e62cffed/ants pool")
	fs.DurationVar(&cfg.Work, "work", cfg.Work, "each request's work (a sleep)")
	fs.DurationVar(&cfg.TuneEvery, "tune-every", cfg.TuneEvery, "the tuner's period")
	fs.DurationVar(&cfg.ChurnEvery, "churn-every", cfg.ChurnEvery, "the side pool's release/reboot period")
	fs.IntVar(&cfg.SideSize, "side", cfg.SideSize, "side pool size")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "vegeta workers (fixed)")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "client timeout of a request")
	fs.IntVar(&cfg.Levels, "levels", cfg.Levels, "every-feature variant: priority levels of the requests")
	fs.DurationVar(&cfg.PauseEvery, "pause-every", cfg.PauseEvery, "every-feature variant: a maintenance window (Pause, Resume) this often")
	fs.DurationVar(&cfg.PauseFor, "pause-for", cfg.PauseFor, "every-feature variant: how long the pool stays paused")
	fs.DurationVar(&cfg.RateEvery, "rate-every", cfg.RateEvery, "every-feature variant: SetRateLimit this often")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.WarmUp <= 0 {
		cfg.WarmUp = min(cfg.Duration/5, time.Minute)
	}
	if cfg.Duration < 10*time.Second || cfg.Rate < 1 || cfg.PoolSize < 1 || cfg.Work <= 0 || cfg.Workers < 1 ||
		cfg.TuneEvery <= 0 || cfg.ChurnEvery <= 0 || cfg.SideSize < 1 || cfg.Timeout <= 0 ||
		cfg.Levels < 1 || cfg.PauseEvery <= 0 || cfg.PauseFor <= 0 || cfg.RateEvery <= 0 {
		return errors.New("-duration must be at least 10s, and every other number positive")
	}

	if *child != "" {
		cfg.Variant = *child
		return runChild(cfg, stdout, stderr)
	}
	var reports []*report
	failed := false
	if *replot != "" {
		b, err := os.ReadFile(*replot)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &reports); err != nil {
			return fmt.Errorf("%s: %w", *replot, err)
		}
		if len(reports) == 0 {
			return fmt.Errorf("%s: no report", *replot)
		}
		*list, *jsonOut = "", ""
	}
	for _, name := range strings.Split(*list, ",") {
		if name == "" {
			continue
		}
		if _, err := findVariant(name); err != nil {
			return err
		}
		cfg.Variant = name
		rep, err := runInChild(cfg, stderr)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		reports = append(reports, rep)
	}
	if len(reports) == 0 {
		return errors.New("no variant to run")
	}
	for _, rep := range reports {
		if !evaluate(rep) {
			failed = true
		}
	}
	writeReport(stdout, reports)
	if *svg != "" {
		if err := writeChart(*svg, reports); err != nil {
			return err
		}
	}
	if *jsonOut != "" {
		b, err := json.MarshalIndent(reports, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			return err
		}
	}
	if failed {
		return errors.New("a check failed (see the report)")
	}
	return nil
}

// runChild soaks cfg.Variant in this process, with a progress bar on
// stderr, and prints the report as JSON on stdout.
func runChild(cfg config, stdout, stderr io.Writer) error {
	bar := progressbar.NewOptions(int(cfg.Duration/time.Second),
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSetDescription(cfg.Variant),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(time.Second),
	)
	rep, err := soak(cfg, func(t int, s second) {
		_ = bar.Set(t)
		bar.Describe(fmt.Sprintf("%s: %d ok/s %d shed/s p99 %.0f ms, %.0f MiB, %d goroutines",
			cfg.Variant, s.Accepted, s.Shed, s.P99ms, s.RSSMiB, s.Goroutines))
	})
	_ = bar.Finish()
	fmt.Fprintln(stderr)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(rep)
}

// runInChild re-executes this binary with -child for cfg.Variant and
// reads its report.
func runInChild(cfg config, stderr io.Writer) (*report, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe,
		"-child", cfg.Variant,
		"-duration", cfg.Duration.String(), "-warmup", cfg.WarmUp.String(),
		"-rate", fmt.Sprint(cfg.Rate), "-pool", fmt.Sprint(cfg.PoolSize), "-queue", fmt.Sprint(cfg.Queue),
		"-work", cfg.Work.String(), "-tune-every", cfg.TuneEvery.String(), "-churn-every", cfg.ChurnEvery.String(),
		"-side", fmt.Sprint(cfg.SideSize), "-workers", fmt.Sprint(cfg.Workers), "-timeout", cfg.Timeout.String(),
		"-levels", fmt.Sprint(cfg.Levels), "-pause-every", cfg.PauseEvery.String(), "-pause-for", cfg.PauseFor.String(),
		"-rate-every", cfg.RateEvery.String())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, stderr
	if err := cmd.Run(); err != nil {
		return nil, err
	}
	var rep report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		return nil, fmt.Errorf("reading the child's report: %w", err)
	}
	return &rep, nil
}
