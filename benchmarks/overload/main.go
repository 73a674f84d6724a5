// Command overload measures the pool's overload control (WithQueueTarget:
// CoDel with adaptive LIFO, and WithQueueTimeout) against what a user
// would build instead: a large FIFO buffer, a small buffer that sheds
// when full, ants v2.12.1 with Nonblocking, and a channel pool that sheds
// when its buffer is full.
//
//	cd benchmarks && go run ./overload     # about 70 s; tables on stdout, results/overload/YYYY-MM-DD.json
//	go run ./overload -out ''              # the tables only
//	go test ./overload                     # the harness on a tiny configuration, in about 2 s
//
// Requests arrive open-loop: Poisson arrivals from a seeded source,
// scheduled against absolute times so that a late generator catches up
// rather than lowers the rate, each request on its own goroutine with a
// deadline in its context. Each request's task sleeps a few milliseconds,
// so the capacity is the pool's (workers / task), not the CPU's. Loads:
// 0.8×, 2× and 5× capacity sustained, and a burst of 2× capacity for half
// the queue target's interval, on an idle pool and on 0.8×.
//
// A sustained row's first -onset (500 ms) is counted apart: the figures
// are of the load once sustained, and the onset's goodput is shown beside
// them, since the queue target needs an interval to find the overload.
//
// Each row counts every request as exactly one of: success (ran, finished
// by its deadline), late (ran, finished after it: wasted work), expired
// (accepted, never ran: the deadline passed while it waited), dropped (the
// pool dropped it: ErrQueueTimeout), refused (never accepted). Every
// contender's task skips its work if its context has ended when it
// starts, as ants.Go does for its own, so that a late start is not held
// against the contenders without a context.
//
// The report subcommand of the benchmarks command (go run . report) fills
// BENCHMARKS.md's "overload" section from the newest results/overload file.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/e62cffed/ants/benchmarks/internal/overloadfile"
)

// config is the command line.
type config struct {
	workers  int
	task     time.Duration
	deadline time.Duration // from each request's arrival
	target   time.Duration // WithQueueTarget's
	interval time.Duration
	timeout  time.Duration // WithQueueTimeout's, for the target+timeout contender; 0 is deadline − task
	buffer   int           // the large buffers'
	duration time.Duration // of each sustained row after its onset, and of the burst on 0.8×
	onset    time.Duration // of each sustained row: counted apart
	seed     int64
	pause    time.Duration // between rows
	out      string
}

func defaults() config {
	return config{
		workers:  20,
		task:     5 * time.Millisecond,
		target:   5 * time.Millisecond,
		interval: 100 * time.Millisecond,
		buffer:   4096,
		duration: 2 * time.Second,
		onset:    500 * time.Millisecond,
		seed:     1,
		pause:    200 * time.Millisecond,
		out:      filepath.Join(overloadfile.Dir, time.Now().UTC().Format(time.DateOnly)+".json"),
	}
}

// tiny is a configuration that runs every row of every contender in about
// a second and a half: for the test of the harness, whose figures mean
// nothing.
func tiny() config {
	cfg := defaults()
	cfg.workers, cfg.task = 4, 2*time.Millisecond
	cfg.target, cfg.interval = 2*time.Millisecond, 15*time.Millisecond
	cfg.buffer = 64
	cfg.duration, cfg.onset, cfg.pause, cfg.out = 30*time.Millisecond, 10*time.Millisecond, 0, ""
	return cfg.withDefaults()
}

// withDefaults fills in what is given relative to the rest: the deadline,
// 10 tasks' time, if not set.
func (c config) withDefaults() config {
	if c.deadline == 0 {
		c.deadline = 10 * c.task
	}
	return c
}

// capacity is the service rate of the pool, requests a second.
func (c config) capacity() float64 { return float64(c.workers) / c.task.Seconds() }

// queueTimeout is the target+timeout contender's WithQueueTimeout: a task
// that waited longer cannot finish by its deadline.
func (c config) queueTimeout() time.Duration {
	if c.timeout > 0 {
		return c.timeout
	}
	return max(c.deadline-c.task, time.Microsecond)
}

// loads are the rows' loads, in table order.
func (c config) loads() []load {
	half := c.interval / 2
	lead := max(c.interval, 20*time.Millisecond)
	return []load{
		{name: "0.8× sustained", base: 0.8, onset: c.onset, duration: c.onset + c.duration},
		{name: "2× sustained", base: 2, onset: c.onset, duration: c.onset + c.duration},
		{name: "5× sustained", base: 5, onset: c.onset, duration: c.onset + c.duration},
		{name: "burst on idle", burst: 2, burstAt: lead, burstLen: half, duration: lead + half + 2*c.interval},
		{name: "burst on 0.8×", base: 0.8, burst: 2, burstAt: c.duration / 3, burstLen: half, duration: c.duration},
	}
}

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "overload:", err)
		os.Exit(1)
	}
}

// run parses args, measures, prints the section and writes the results
// file.
func run(args []string, stdout, stderr io.Writer) error {
	cfg := defaults()
	fs := flag.NewFlagSet("overload", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&cfg.workers, "workers", cfg.workers, "the pools' workers")
	fs.DurationVar(&cfg.task, "task", cfg.task, "each request's task: a time.Sleep of this")
	fs.DurationVar(&cfg.deadline, "deadline", 0, "each request's deadline from its arrival (default 10 × -task)")
	fs.DurationVar(&cfg.target, "target", cfg.target, "WithQueueTarget's target")
	fs.DurationVar(&cfg.interval, "interval", cfg.interval, "WithQueueTarget's interval; the bursts last half of it")
	fs.DurationVar(&cfg.timeout, "queue-timeout", 0, "WithQueueTimeout of the target+timeout contender (default -deadline less -task)")
	fs.IntVar(&cfg.buffer, "buffer", cfg.buffer, "the large buffers' size")
	fs.DurationVar(&cfg.duration, "duration", cfg.duration, "length of each sustained row after its onset, and of the burst on 0.8×")
	fs.DurationVar(&cfg.onset, "onset", cfg.onset, "the first part of each sustained row, whose requests are counted apart (its goodput is a column of its own)")
	fs.Int64Var(&cfg.seed, "seed", cfg.seed, "the arrivals' seed (load i uses seed+i, the same for every contender)")
	fs.StringVar(&cfg.out, "out", cfg.out, "the results file to write; empty for none")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg = cfg.withDefaults()
	switch {
	case cfg.workers < 1 || cfg.buffer < 1:
		return fmt.Errorf("-workers and -buffer must be at least 1")
	case cfg.task <= 0 || cfg.target <= 0 || cfg.interval <= 0 || cfg.deadline <= 0 || cfg.timeout < 0 || cfg.onset < 0:
		return fmt.Errorf("-task, -target, -interval and -deadline must be positive, -queue-timeout and -onset not negative")
	case cfg.duration < 2*cfg.interval:
		return fmt.Errorf("-duration must be at least two intervals (%v)", 2*cfg.interval)
	}
	f := measure(cfg, contenders(), stderr)
	overloadfile.WriteSection(stdout, f)
	if cfg.out != "" {
		if err := f.Write(cfg.out); err != nil {
			return err
		}
		fmt.Fprintln(stderr, "wrote", cfg.out)
	}
	if len(f.Failures) > 0 {
		return fmt.Errorf("%d rows failed", len(f.Failures))
	}
	return nil
}
