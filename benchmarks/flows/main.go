// Command flows measures the pool's fair queuing among flows
// (ContextWithFlow, WithFlowWeights) against what a user would build
// instead: one FIFO pool that every tenant shares, and a static partition,
// a Subpool per tenant on one parent pool.
//
//	cd benchmarks && go run ./flows     # about a minute; tables on stdout, results/flows/YYYY-MM-DD.json
//	go run ./flows -out ''              # the tables only
//	go test ./flows                     # the harness on a tiny configuration, in a few seconds
//
// The mixed workload: one heavy flow submits at 3× the pool's capacity for
// a few seconds and 50 light flows at 0.3× capacity together, going on
// for a second after the heavy flow stops. Arrivals are open-loop: Poisson
// from a seeded source, each flow its own, scheduled against absolute
// times so that a late generator catches up rather than lowers the rate,
// each request on its own goroutine, which submits it and returns. Each
// task sleeps a few milliseconds, so the capacity is the pool's (workers /
// task), not the CPU's. No request has a deadline: every one runs, and the
// heavy flow's backlog drains after it stops.
//
// The backlogged scenarios keep every flow backlogged with closed-loop
// clients (each submits a request, waits for its task to finish, and
// submits the next): flows of weight 1 with unequal numbers of clients,
// and two flows weighted 3 and 1 with equal numbers. They measure the
// share of the workers each flow gets.
//
// The report subcommand of the benchmarks command (go run . report) fills
// BENCHMARKS.md's "flows" section from the newest results/flows file.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/flowsfile"
)

// config is the command line.
type config struct {
	workers  int
	task     time.Duration
	jitter   float64 // the mixed workload's task times: uniform within ±jitter × task
	buffer   int
	lights   int
	heavy    float64 // × capacity
	light    float64 // × capacity, the light flows together
	heavyFor time.Duration
	tail     time.Duration
	slot     time.Duration
	window   time.Duration // of each backlogged scenario
	warmup   time.Duration // its first part, not counted
	clients  int           // closed-loop clients of the backlogged scenarios' smallest flow
	seed     int64
	pause    time.Duration // between runs
	out      string
}

func defaults() config {
	return config{
		workers:  20,
		task:     5 * time.Millisecond,
		buffer:   4096,
		lights:   50,
		heavy:    3,
		light:    0.3,
		heavyFor: 3 * time.Second,
		tail:     time.Second,
		slot:     100 * time.Millisecond,
		window:   2 * time.Second,
		warmup:   500 * time.Millisecond,
		clients:  40,
		seed:     1,
		pause:    300 * time.Millisecond,
		out:      filepath.Join(flowsfile.Dir, time.Now().UTC().Format(time.DateOnly)+".json"),
	}
}

// tiny is a configuration that runs everything in a few seconds: for the
// test of the harness, whose figures mean nothing.
func tiny() config {
	cfg := defaults()
	cfg.workers, cfg.task, cfg.buffer, cfg.lights = 4, 2*time.Millisecond, 64, 5
	cfg.heavyFor, cfg.tail, cfg.slot = 150*time.Millisecond, 50*time.Millisecond, 30*time.Millisecond
	cfg.window, cfg.warmup, cfg.clients = 120*time.Millisecond, 30*time.Millisecond, 8
	cfg.pause, cfg.out = 0, ""
	return cfg
}

// capacity is the service rate of the pool, tasks a second.
func (c config) capacity() float64 { return float64(c.workers) / c.task.Seconds() }

// heavyShare is the partitioned contender's sub-pool for the heavy flow: the
// workers less what the light flows use on average, rounded; at least 1.
func (c config) heavyShare() int {
	return max(1, c.workers-int(c.light*float64(c.workers)+0.5))
}

// lightShare is its sub-pool for each light flow: 1, the least a sub-pool
// can have, though a light flow uses less than a worker on average.
func (c config) lightShare() int { return 1 }

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "flows:", err)
		os.Exit(1)
	}
}

// run parses args, measures, prints the section and writes the results
// file.
func run(args []string, stdout, stderr io.Writer) error {
	cfg := defaults()
	fs := flag.NewFlagSet("flows", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.workers, "workers", cfg.workers, "the pools' workers")
	fs.DurationVar(&cfg.task, "task", cfg.task, "each request's task: a time.Sleep of this")
	fs.Float64Var(&cfg.jitter, "jitter", cfg.jitter, "the mixed workload's tasks sleep -task ± this fraction of it, uniformly (0: all alike, so that workers started together finish together)")
	fs.IntVar(&cfg.buffer, "buffer", cfg.buffer, "each pool's task buffer (WithQueueSize)")
	fs.IntVar(&cfg.lights, "lights", cfg.lights, "the light flows")
	fs.Float64Var(&cfg.heavy, "heavy", cfg.heavy, "the heavy flow's rate, × capacity")
	fs.Float64Var(&cfg.light, "light", cfg.light, "the light flows' rate together, × capacity")
	fs.DurationVar(&cfg.heavyFor, "heavy-for", cfg.heavyFor, "how long the heavy flow submits")
	fs.DurationVar(&cfg.tail, "tail", cfg.tail, "how long the light flows go on after it")
	fs.DurationVar(&cfg.slot, "slot", cfg.slot, "the slot of Jain's index over backlogged flows")
	fs.DurationVar(&cfg.window, "window", cfg.window, "the length of each backlogged scenario")
	fs.DurationVar(&cfg.warmup, "warmup", cfg.warmup, "its first part, not counted")
	fs.IntVar(&cfg.clients, "clients", cfg.clients, "closed-loop clients of the backlogged scenarios' smallest flow")
	fs.Int64Var(&cfg.seed, "seed", cfg.seed, "the arrivals' seed (the same for every contender)")
	fs.StringVar(&cfg.out, "out", cfg.out, "the results file to write; empty for none")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch {
	case cfg.workers < 1 || cfg.buffer < 1 || cfg.lights < 1 || cfg.clients < 1:
		return fmt.Errorf("-workers, -buffer, -lights and -clients must be at least 1")
	case cfg.jitter < 0 || cfg.jitter >= 1:
		return fmt.Errorf("-jitter must be in [0, 1)")
	case cfg.task <= 0 || cfg.heavy <= 0 || cfg.light <= 0 || cfg.heavyFor <= 0 || cfg.tail < 0 || cfg.slot <= 0:
		return fmt.Errorf("-task, -heavy, -light, -heavy-for and -slot must be positive, -tail not negative")
	case cfg.slot > cfg.heavyFor:
		return fmt.Errorf("-slot must be at most -heavy-for")
	case cfg.warmup < 0 || cfg.window <= cfg.warmup:
		return fmt.Errorf("-window must be longer than -warmup, which must not be negative")
	}
	f := measure(cfg, contenders(), stderr)
	flowsfile.WriteSection(stdout, f)
	if cfg.out != "" {
		if err := f.Write(cfg.out); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "wrote", cfg.out)
	}
	if len(f.Failures) > 0 {
		return fmt.Errorf("%d runs failed", len(f.Failures))
	}
	return nil
}
