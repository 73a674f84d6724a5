// Command benchmarks compares e62cffed/ants with other goroutine pools and
// with hand-written baselines, one child process per measurement, and makes
// the report of BENCHMARKS.md from what it measured.
//
//	cd benchmarks
//	go run .                          # the full suite; writes results/YYYY-MM-DD.json
//	go run . report                   # the chart and the tables, from the newest results file
//	go run . report -check            # fail if they differ from what the file gives (CI)
//	go run . -quick -out /tmp/q.json  # every case once, tiny
//	go run . -workloads noop -libs e62cffed/ants,ants,chanpool -runs 5 -out /tmp/noop.json
//
// A run re-executes the command's own binary once for every (library,
// workload, run), so that one library's heap, goroutines and peak RSS never
// leak into another's numbers. Runs are interleaved round-robin, so a noisy
// minute on a shared machine lands on every library rather than on one.
// Progress goes to stderr, the tables to stdout, and every measurement,
// with the machine, the Go version and the commit, to the results file.
//
// The report subcommand reads a results file and writes the chart
// (benchmarks.svg) and the parts of ../BENCHMARKS.md and ../README.md
// between their "results:begin" and "results:end" markers; nothing else of
// those files changes. BENCHMARKS.md explains every column.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
)

// childFlag is the flag that turns the binary into a child: the parent
// passes it, never a user, so the usage leaves it out.
const childFlag = "child"

// config is the suite's command line.
type config struct {
	workloads string
	libs      string
	runs      int
	quick     bool
	out       string
	timeout   time.Duration
	scale     scale
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "report" {
		if err := reportMain(os.Args[2:]); err != nil {
			fmt.Fprintln(os.Stderr, "benchmarks report:", err)
			os.Exit(1)
		}
		return
	}

	var cfg config
	child := flag.String(childFlag, "", "run one measurement described by this JSON and print the result")
	flag.StringVar(&cfg.workloads, "workloads", strings.Join(allKinds, ","), "comma-separated workloads: "+strings.Join(allKinds, ","))
	flag.StringVar(&cfg.libs, "libs", "all", "comma-separated libraries: "+libraryNames(libraries()))
	flag.IntVar(&cfg.runs, "runs", 3, "runs of every (library, workload); tables show medians")
	flag.IntVar(&cfg.scale.Tasks, "tasks", 1_000_000, "tasks per run of noop, sleep and cpu; bursty runs -bursts bursts of tasks/20, latency tasks/20 tasks")
	flag.IntVar(&cfg.scale.CPUIters, "cpu-iters", 0, "loop iterations of a cpu task; 0 calibrates to ~2µs")
	flag.IntVar(&cfg.scale.Bursts, "bursts", 5, "bursts of the bursty workload")
	flag.DurationVar(&cfg.scale.Gap, "gap", 500*time.Millisecond, "idle time after each burst (more than twice the ants expiry of 100ms)")
	flag.BoolVar(&cfg.quick, "quick", false, "run every workload and library once with tiny task counts (overrides -runs, -tasks, -bursts, -gap)")
	flag.StringVar(&cfg.out, "out", "", "the results file to write (default "+resultsDir+"/YYYY-MM-DD.json, the day the run starts)")
	flag.DurationVar(&cfg.timeout, "timeout", 5*time.Minute, "limit on one child run")
	flag.Usage = usage
	flag.Parse()

	if *child != "" {
		if err := runChild(*child, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "benchmarks child:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "benchmarks: unexpected argument %q\n", flag.Arg(0))
		flag.Usage()
		os.Exit(2)
	}
	if err := runParent(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		os.Exit(1)
	}
}

// usage is flag.PrintDefaults without the -child flag, which only the
// command itself passes.
func usage() {
	out := flag.CommandLine.Output()
	fmt.Fprintf(out, "Usage:\n  go run . [flags]            run the suite and write a results file\n  go run . report [-h] ...    make the chart and tables from a results file\n\nFlags of the suite:\n")
	flag.VisitAll(func(f *flag.Flag) {
		if f.Name == childFlag {
			return
		}
		fmt.Fprintf(out, "  -%s", f.Name)
		if name, u := flag.UnquoteUsage(f); name != "" {
			fmt.Fprintf(out, " %s\n    \t%s", name, u)
		} else {
			fmt.Fprintf(out, "\n    \t%s", u)
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			fmt.Fprintf(out, " (default %s)", f.DefValue)
		}
		fmt.Fprintln(out)
	})
}

// job is one child run.
type job struct {
	run int
	w   workload
	lib library
}

// runParent runs every job in a child process, then writes the results
// file and prints the tables. It returns an error if any child failed,
// after recording what the others measured.
func runParent(cfg config) error {
	if cfg.quick {
		cfg.runs = 1
		cfg.scale.Tasks = 2000
		cfg.scale.Bursts = 2
		cfg.scale.Gap = 300 * time.Millisecond
	}
	if cfg.runs < 1 || cfg.scale.Tasks < 1 || cfg.scale.Bursts < 1 {
		return errors.New("-runs, -tasks and -bursts must be positive")
	}
	kinds, err := parseKinds(cfg.workloads)
	if err != nil {
		return err
	}
	libs, err := selectLibraries(cfg.libs)
	if err != nil {
		return err
	}
	if cfg.scale.CPUIters <= 0 {
		cfg.scale.CPUIters = calibrateCPU(cpuTaskTarget)
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}

	cases := workloads(kinds, cfg.scale)
	jobs := schedule(cfg.runs, cases, libs)
	bar := progressbar.NewOptions(len(jobs),
		progressbar.OptionSetWriter(os.Stderr),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionShowDescriptionAtLineEnd(),
		progressbar.OptionThrottle(100*time.Millisecond),
	)

	started := time.Now()
	file := newResultsFile(started, cfg, cases, libs)
	out := cfg.out
	if out == "" {
		out = filepath.Join(resultsDir, file.Date+".json")
	}
	for _, j := range jobs {
		bar.Describe(fmt.Sprintf("run %d/%d %s %s", j.run+1, cfg.runs, j.w.name, j.lib.name()))
		r, err := runJob(exe, j, cfg.scale, cfg.timeout)
		if err != nil {
			file.Failures = append(file.Failures, failure{Run: j.run + 1, Workload: j.w.name, Lib: j.lib.name(), Error: err.Error()})
		} else {
			file.Runs = append(file.Runs, runRecord{Run: j.run + 1, result: r})
		}
		bar.Add(1)
	}
	bar.Finish()
	elapsed := time.Since(started).Round(time.Second)
	file.Duration = elapsed.String()
	fmt.Fprintf(os.Stderr, "\n%d child runs in %v\n", len(jobs), elapsed)

	if err := file.write(out); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "wrote", out)
	writeHeader(os.Stdout, file)
	writeTables(os.Stdout, file)
	if len(file.Failures) > 0 {
		for _, f := range file.Failures {
			fmt.Fprintf(os.Stderr, "FAILED: %s %s run %d: %s\n", f.Workload, f.Lib, f.Run, f.Error)
		}
		return fmt.Errorf("%d of %d child runs failed", len(file.Failures), len(jobs))
	}
	return nil
}

// schedule orders the runs round-robin: run 1 of every library for every
// workload, then run 2, and so on, the library order rotating by one each
// run so that no library always follows the same neighbour.
func schedule(runs int, cases []workload, libs []library) []job {
	var jobs []job
	for r := 0; r < runs; r++ {
		for _, w := range cases {
			for i := range libs {
				jobs = append(jobs, job{run: r, w: w, lib: libs[(i+r)%len(libs)]})
			}
		}
	}
	return jobs
}

// runJob runs one child and returns its result, with the peak RSS from the
// child's rusage added.
func runJob(exe string, j job, s scale, timeout time.Duration) (result, error) {
	spec, err := json.Marshal(childSpec{Lib: j.lib.name(), Workload: j.w.name, Scale: s})
	if err != nil {
		return result{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, "-"+childFlag, string(spec))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("%w: %s", err, lastLines(stderr.String(), 5))
	}
	var r result
	if err := json.Unmarshal(lastLine(stdout.Bytes()), &r); err != nil {
		return result{}, fmt.Errorf("child output %q: %w", stdout.String(), err)
	}
	r.MaxRSSKiB = maxRSSKiB(cmd.ProcessState)
	return r, nil
}

func lastLine(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return b
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
