// Command benchmarks compares e62cffed/ants with other goroutine pools and
// with hand-written baselines, one child process per measurement.
//
//	cd benchmarks && go run .                 # the full suite, 4-6 minutes on 2 cores
//	go run . -quick                           # every case once, tiny, for CI
//	go run . -workloads noop -libs e62cffed/ants,ants,chanpool -runs 5
//
// The parent re-executes its own binary with the hidden -child flag for
// every (library, workload, run), so that one library's heap, goroutines
// and peak RSS never leak into another's numbers. Runs are interleaved
// round-robin, so a noisy minute on a shared machine lands on every library
// rather than on one. Progress goes to stderr, markdown tables to stdout,
// and a bar chart to -svg. BENCHMARKS.md explains every column.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
)

// childFlag is the hidden flag that turns the binary into a child.
const childFlag = "child"

// config is the parent's command line.
type config struct {
	workloads string
	libs      string
	runs      int
	quick     bool
	svg       string
	timeout   time.Duration
	scale     scale
}

func main() {
	var cfg config
	child := flag.String(childFlag, "", "internal: run one measurement described by this JSON and print the result")
	flag.StringVar(&cfg.workloads, "workloads", strings.Join(allKinds, ","), "comma-separated workloads: "+strings.Join(allKinds, ","))
	flag.StringVar(&cfg.libs, "libs", "all", "comma-separated libraries: "+libraryNames(libraries()))
	flag.IntVar(&cfg.runs, "runs", 3, "runs of every (library, workload); tables show medians")
	flag.IntVar(&cfg.scale.Tasks, "tasks", 1_000_000, "tasks per run of noop, sleep and cpu; bursty runs -bursts bursts of tasks/20, latency tasks/20 tasks")
	flag.IntVar(&cfg.scale.CPUIters, "cpu-iters", 0, "loop iterations of a cpu task; 0 calibrates to ~2µs")
	flag.IntVar(&cfg.scale.Bursts, "bursts", 5, "bursts of the bursty workload")
	flag.DurationVar(&cfg.scale.Gap, "gap", 500*time.Millisecond, "idle time after each burst (more than twice the ants expiry of 100ms)")
	flag.BoolVar(&cfg.quick, "quick", false, "run every workload and library once with tiny task counts (overrides -runs, -tasks, -bursts, -gap)")
	flag.StringVar(&cfg.svg, "svg", "benchmarks.svg", "where to write the chart; empty for none")
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
	if err := runParent(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		os.Exit(1)
	}
}

// usage is flag.PrintDefaults without the hidden -child flag.
func usage() {
	out := flag.CommandLine.Output()
	fmt.Fprintf(out, "Usage: go run . [flags]\n\nCompares goroutine pools, one child process per measurement.\n\n")
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

// runParent runs every job in a child process, then prints the tables and
// writes the chart. It returns an error if any child failed, after
// reporting what the others measured.
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
	rs := newResults()
	var failures []string
	for _, j := range jobs {
		bar.Describe(fmt.Sprintf("run %d/%d %s %s", j.run+1, cfg.runs, j.w.name, j.lib.name()))
		r, err := runJob(exe, j, cfg.scale, cfg.timeout)
		if err != nil {
			rs.addFailure(j.w.name, j.lib.name())
			failures = append(failures, fmt.Sprintf("%s %s run %d: %v", j.w.name, j.lib.name(), j.run+1, err))
		} else {
			rs.add(r)
		}
		bar.Add(1)
	}
	bar.Finish()
	fmt.Fprintf(os.Stderr, "\n%d child runs in %v\n", len(jobs), time.Since(started).Round(time.Second))

	writeHeader(os.Stdout, cfg)
	writeTables(os.Stdout, rs, cases, libs)
	if cfg.svg != "" {
		if err := writeChart(cfg.svg, rs, cases, libs); err != nil {
			return fmt.Errorf("chart: %w", err)
		}
		fmt.Fprintln(os.Stderr, "wrote", cfg.svg)
	}
	if len(failures) > 0 {
		for _, f := range failures {
			fmt.Fprintln(os.Stderr, "FAILED:", f)
		}
		return fmt.Errorf("%d of %d child runs failed", len(failures), len(jobs))
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

// writeHeader describes the machine, the toolchain, the library versions
// and the settings, so that a table can be read on its own.
func writeHeader(out io.Writer, cfg config) {
	fmt.Fprintf(out, "## Results\n\n")
	fmt.Fprintf(out, "- %s, %s/%s, GOMAXPROCS=%d, NumCPU=%d, CPU: %s\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), runtime.NumCPU(), cpuModel())
	if info, ok := debug.ReadBuildInfo(); ok {
		var mods []string
		for _, d := range info.Deps {
			if isCompared(d.Path) {
				v := d.Version
				if d.Replace != nil {
					v = "local"
				}
				mods = append(mods, d.Path+" "+v)
			}
		}
		fmt.Fprintf(out, "- modules: %s\n", strings.Join(mods, ", "))
	}
	fmt.Fprintf(out, "- runs=%d (medians), tasks=%d, cpu task=%d iterations, bursts=%d, gap=%v, quick=%v\n",
		cfg.runs, cfg.scale.Tasks, cfg.scale.CPUIters, cfg.scale.Bursts, cfg.scale.Gap, cfg.quick)
	fmt.Fprintf(out, "- vs %s, vs %s: ns/task ÷ that channel pool's; **bold**: the one with the library's semantics (no buffer: %s; a buffer of capacity: %s)\n\n",
		unbufferedBaseline, bufferedBaseline, unbufferedBaseline, bufferedBaseline)
}

// isCompared reports whether a module is one of the compared libraries.
func isCompared(path string) bool {
	switch path {
	case "github.com/e62cffed/ants", "github.com/panjf2000/ants/v2", "github.com/alitto/pond/v2",
		"github.com/sourcegraph/conc", "golang.org/x/sync":
		return true
	}
	return false
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "unknown".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
