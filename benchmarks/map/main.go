// Command map measures ants.Map and ants.MapUnordered against the other
// ways to map a sequence on a bounded number of goroutines: conc's
// iter.Map over the values collected into a slice, go-pkgz/pool's pool
// with a Collector, a hand-written errgroup with SetLimit(window) writing
// into a slice, and this package's Stream.
//
//	cd benchmarks && go run ./map            # about 3 minutes on 2 cores
//	go run ./map -n 100000 -ncpu 10000 -rounds 1
//
// Each measurement runs in a child process of its own (the binary
// re-executed), so that its peak RSS is its own; the rounds interleave
// every way, so a noisy moment on a shared machine lands on all of them.
// Three sets of values: -n no-op values, -n/10 no-op values (peak RSS
// against n shows what grows with the number of values), and -ncpu values
// of -work CPU each; at window 64 and GOMAXPROCS, and for this package's
// ways on pools of GOMAXPROCS and 1000 workers (the peers bring goroutines
// of their own, so capacity does not apply to them: their row repeats the
// same runs); -queue gives those pools a task buffer. Tables of medians go
// to stdout, progress to stderr.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// childEnv names the environment variable that makes the binary a child:
// it holds the spec to measure.
const childEnv = "ANTS_MAP_BENCH_CHILD"

func main() {
	if sp, ok := os.LookupEnv(childEnv); ok {
		if err := runChild(sp, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "map child:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "map:", err)
		os.Exit(1)
	}
}

// runChild measures the spec in JSON and prints the outcome as JSON.
func runChild(specJSON string, out io.Writer) error {
	var sp spec
	if err := json.Unmarshal([]byte(specJSON), &sp); err != nil {
		return fmt.Errorf("bad spec: %w", err)
	}
	o, err := measure(sp)
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(o)
}

// config is the command line.
type config struct {
	n, ncpu  int
	work     time.Duration
	windows  []int
	caps     []int
	rounds   int
	queue    int
	ways     []string
	executab string // the binary to run as a child
}

// set is one set of values.
type set struct {
	name   string
	values int
	iters  int
}

// row is one line of the tables: a set, a window and a capacity.
type row struct {
	set              set
	window, capacity int
}

// key names one measurement; peers have capacity 0.
type key struct {
	set              string
	window, capacity int
	way              string
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("map", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.IntVar(&cfg.n, "n", 1_000_000, "no-op values; a second set has n/10")
	fs.IntVar(&cfg.ncpu, "ncpu", 100_000, "values of -work CPU each")
	fs.DurationVar(&cfg.work, "work", 10*time.Microsecond, "CPU time of each value of the cpu set")
	windows := fs.String("windows", "64,P", "comma-separated windows; P is GOMAXPROCS")
	caps := fs.String("caps", "P,1000", "comma-separated capacities of this package's pools; P is GOMAXPROCS")
	fs.IntVar(&cfg.rounds, "rounds", 5, "interleaved rounds; the tables show medians")
	fs.IntVar(&cfg.queue, "queue", 0, "WithQueueSize of this package's pools; 0: no task buffer")
	waysFlag := fs.String("ways", "all", "comma-separated ways: "+wayNames())
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if cfg.windows, err = parseInts(*windows); err != nil {
		return fmt.Errorf("-windows: %w", err)
	}
	if cfg.caps, err = parseInts(*caps); err != nil {
		return fmt.Errorf("-caps: %w", err)
	}
	if cfg.ways, err = parseWays(*waysFlag); err != nil {
		return err
	}
	if cfg.n < 10 || cfg.ncpu < 1 || cfg.work <= 0 || cfg.rounds < 1 || cfg.queue < 0 {
		return fmt.Errorf("-n must be at least 10, -ncpu, -work and -rounds positive, and -queue not negative")
	}
	if cfg.executab, err = os.Executable(); err != nil {
		return err
	}

	iters := calibrate(cfg.work)
	sets := []set{
		{name: fmt.Sprintf("%s no-op", count(cfg.n)), values: cfg.n},
		{name: fmt.Sprintf("%s no-op", count(cfg.n/10)), values: cfg.n / 10},
		{name: fmt.Sprintf("%s × %v CPU", count(cfg.ncpu), cfg.work), values: cfg.ncpu, iters: iters},
	}
	var rows []row
	for _, s := range sets {
		for _, w := range cfg.windows {
			for _, c := range cfg.caps {
				rows = append(rows, row{s, w, c})
			}
		}
	}

	results := map[key][]outcome{}
	checksums := map[string]uint64{}
	for r := 1; r <= cfg.rounds; r++ {
		fmt.Fprintf(stderr, "round %d of %d\n", r, cfg.rounds)
		for _, rw := range rows {
			for _, name := range cfg.ways {
				w := findWay(name)
				k := key{rw.set.name, rw.window, rw.capacity, name}
				if !w.ours {
					if rw.capacity != cfg.caps[0] {
						continue // measured once per set and window
					}
					k.capacity = 0
				}
				o, err := cfg.child(spec{Lib: name, Values: rw.set.values, Iters: rw.set.iters, Window: rw.window, Capacity: rw.capacity, Queue: cfg.queue})
				if err != nil {
					return fmt.Errorf("%s, %s, window %d, capacity %d: %w", name, rw.set.name, rw.window, rw.capacity, err)
				}
				if sum, ok := checksums[rw.set.name]; ok && sum != o.Checksum {
					return fmt.Errorf("%s, %s: checksum %d, another way's %d", name, rw.set.name, o.Checksum, sum)
				}
				checksums[rw.set.name] = o.Checksum
				results[k] = append(results[k], o)
			}
		}
	}
	report(stdout, cfg, iters, rows, results)
	return nil
}

// child measures sp in a child process.
func (cfg config) child(sp spec) (outcome, error) {
	js, err := json.Marshal(sp)
	if err != nil {
		return outcome{}, err
	}
	cmd := exec.Command(cfg.executab)
	cmd.Env = append(os.Environ(), childEnv+"="+string(js))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return outcome{}, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var o outcome
	if err := json.Unmarshal(stdout.Bytes(), &o); err != nil {
		return outcome{}, fmt.Errorf("child printed %q: %w", stdout.String(), err)
	}
	return o, nil
}

// report prints the tables of medians.
func report(out io.Writer, cfg config, iters int, rows []row, results map[key][]outcome) {
	fmt.Fprintf(out, "- %s %s/%s, GOMAXPROCS=%d, %s; %s; medians of %d interleaved rounds, one child process per measurement\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), cpuModel(), time.Now().UTC().Format("2006-01-02"), cfg.rounds)
	fmt.Fprintf(out, "- the CPU values spin %d rounds of xorshift (%v, calibrated); the peers ignore capacity: their cells repeat\n", iters, cfg.work)
	fmt.Fprintf(out, "- this package's pools: WithQueueSize(%d)\n\n", cfg.queue)

	get := func(r row, way string) (outcome, bool) {
		k := key{r.set.name, r.window, r.capacity, way}
		if !findWay(way).ours {
			k.capacity = 0
		}
		os := results[k]
		if len(os) == 0 {
			return outcome{}, false
		}
		return outcome{
			NsPerValue:     median(os, func(o outcome) float64 { return o.NsPerValue }),
			AllocsPerValue: median(os, func(o outcome) float64 { return o.AllocsPerValue }),
			HWMKiB:         int64(median(os, func(o outcome) float64 { return float64(o.HWMKiB) })),
		}, true
	}
	header := func(what string, ratios bool) {
		fmt.Fprintf(out, "| %s: values | window | cap |", what)
		for _, w := range cfg.ways {
			fmt.Fprintf(out, " %s |", w)
		}
		if ratios {
			fmt.Fprint(out, " Map ÷ fastest peer | MapUnordered ÷ fastest peer |")
		}
		fmt.Fprint(out, "\n|---|--:|--:|")
		for range cfg.ways {
			fmt.Fprint(out, "--:|")
		}
		if ratios {
			fmt.Fprint(out, "--:|--:|")
		}
		fmt.Fprintln(out)
	}

	header("ns/value", true)
	for _, r := range rows {
		fmt.Fprintf(out, "| %s | %d | %d |", r.set.name, r.window, r.capacity)
		fastest := 0.0
		for _, w := range cfg.ways {
			o, ok := get(r, w)
			if !ok {
				fmt.Fprint(out, " |")
				continue
			}
			fmt.Fprintf(out, " %.0f |", o.NsPerValue)
			if w != "Map" && w != "MapUnordered" && (fastest == 0 || o.NsPerValue < fastest) {
				fastest = o.NsPerValue
			}
		}
		for _, w := range []string{"Map", "MapUnordered"} {
			if o, ok := get(r, w); ok && fastest > 0 {
				fmt.Fprintf(out, " %.2f |", o.NsPerValue/fastest)
			} else {
				fmt.Fprint(out, " |")
			}
		}
		fmt.Fprintln(out)
	}

	fmt.Fprintln(out)
	header("peak RSS MiB", false)
	for _, r := range rows {
		fmt.Fprintf(out, "| %s | %d | %d |", r.set.name, r.window, r.capacity)
		for _, w := range cfg.ways {
			if o, ok := get(r, w); ok {
				fmt.Fprintf(out, " %.1f |", float64(o.HWMKiB)/1024)
			} else {
				fmt.Fprint(out, " |")
			}
		}
		fmt.Fprintln(out)
	}

	fmt.Fprintln(out)
	fmt.Fprintf(out, "allocations per value (%s, window %d, cap %d):", rows[0].set.name, rows[0].window, rows[0].capacity)
	for _, w := range cfg.ways {
		if o, ok := get(rows[0], w); ok {
			fmt.Fprintf(out, " %s %.2f;", w, o.AllocsPerValue)
		}
	}
	fmt.Fprintln(out)
}

func median(os []outcome, f func(outcome) float64) float64 {
	xs := make([]float64, len(os))
	for i, o := range os {
		xs[i] = f(o)
	}
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// count writes n as 1,000,000 does.
func count(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "P" {
			out = append(out, runtime.GOMAXPROCS(0))
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive number or P", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseWays(s string) ([]string, error) {
	if s == "all" {
		return strings.Split(wayNames(), ","), nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if findWay(f) == nil {
			return nil, fmt.Errorf("-ways: unknown way %q (have %s)", f, wayNames())
		}
		out = append(out, f)
	}
	return out, nil
}

// cpuModel returns the CPU's model name from /proc/cpuinfo, or GOARCH.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(v), ":"))
		}
	}
	return runtime.GOARCH
}
