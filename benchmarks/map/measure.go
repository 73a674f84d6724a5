package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	pkgzpool "github.com/go-pkgz/pool"
	conciter "github.com/sourcegraph/conc/iter"
	"golang.org/x/sync/errgroup"

	"github.com/e62cffed/ants"
)

// spec is one measurement, what the parent asks of a child (as JSON in the
// environment variable childEnv).
type spec struct {
	Lib      string `json:"lib"`
	Values   int    `json:"values"`
	Iters    int    `json:"iters"` // spin iterations per value; 0: a no-op fn
	Window   int    `json:"window"`
	Capacity int    `json:"capacity"` // of the pool, for this package's ways
	Queue    int    `json:"queue"`    // its WithQueueSize; 0: none
}

// outcome is what a child measured.
type outcome struct {
	NsPerValue     float64 `json:"ns_per_value"`
	AllocsPerValue float64 `json:"allocs_per_value"`
	HWMKiB         int64   `json:"hwm_kib"`  // the child's peak RSS (VmHWM)
	Checksum       uint64  `json:"checksum"` // the sum of the results, the same for every way
}

// way is one way to map a sequence: it calls fn on every value of seq,
// with at most window calls at once, and hands every result to use, in
// seq's order if the way is ordered. s is a pool of the spec's capacity,
// made before the clock starts, for this package's ways.
type way struct {
	name    string
	ordered bool
	ours    bool // runs on this package's pool, whose capacity matters
	run     func(s *ants.Pool, window int, seq func(func(int) bool), fn mapFn, use func(int)) error
}

// mapFn is the function mapped: a no-op, or about 10 µs of CPU.
type mapFn = func(ctx context.Context, v int) (int, error)

// ways are the ways measured, peers first.
var ways = []way{
	{name: "conc iter.Map", ordered: true, run: runConc},
	{name: "go-pkgz/pool", run: runPkgz},
	{name: "errgroup", ordered: true, run: runErrgroup},
	{name: "Stream", ordered: true, ours: true, run: runStream},
	{name: "Map", ordered: true, ours: true, run: runMap},
	{name: "MapUnordered", ours: true, run: runMapUnordered},
}

func findWay(name string) *way {
	for i := range ways {
		if ways[i].name == name {
			return &ways[i]
		}
	}
	return nil
}

// runConc collects the values into a slice, maps it with conc's iter.Map
// (MapErr, as fn returns an error) on window goroutines, and reads the
// results' slice.
func runConc(_ *ants.Pool, window int, seq func(func(int) bool), fn mapFn, use func(int)) error {
	var xs []int
	for v := range seq {
		xs = append(xs, v)
	}
	ctx := context.Background()
	rs, err := conciter.Mapper[int, int]{MaxGoroutines: window}.MapErr(xs, func(v *int) (int, error) { return fn(ctx, *v) })
	for _, r := range rs {
		use(r)
	}
	return err
}

// runPkgz runs go-pkgz/pool's pool of window workers, with its defaults
// (it hands values to workers in batches of 10), and a Collector of window
// results, fed by a goroutine, as its README does; the results come in the
// order the calls return.
func runPkgz(_ *ants.Pool, window int, seq func(func(int) bool), fn mapFn, use func(int)) error {
	ctx := context.Background()
	results := pkgzpool.NewCollector[int](ctx, window)
	p := pkgzpool.New[int](window, pkgzpool.WorkerFunc[int](func(ctx context.Context, v int) error {
		r, err := fn(ctx, v)
		results.Submit(r)
		return err
	}))
	if err := p.Go(ctx); err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() {
		defer results.Close()
		for v := range seq {
			p.Submit(v)
		}
		errc <- p.Close(ctx)
	}()
	for r, err := range results.Iter() {
		if err != nil {
			return err
		}
		use(r)
	}
	return <-errc
}

// runErrgroup is the hand-written way: the values collected into a slice, a
// goroutine per value under errgroup's SetLimit(window), each writing its
// result into its place of a slice of results.
func runErrgroup(_ *ants.Pool, window int, seq func(func(int) bool), fn mapFn, use func(int)) error {
	var xs []int
	for v := range seq {
		xs = append(xs, v)
	}
	rs := make([]int, len(xs))
	g, ctx := errgroup.WithContext(context.Background())
	g.SetLimit(window)
	for i, v := range xs {
		g.Go(func() (err error) {
			rs[i], err = fn(ctx, v)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, r := range rs {
		use(r)
	}
	return nil
}

// runStream gives each value to a Stream on s, whose callbacks, in order,
// use the results. Its window is its own (1024).
func runStream(s *ants.Pool, _ int, seq func(func(int) bool), fn mapFn, use func(int)) error {
	st := ants.NewStream(s)
	ctx := context.Background()
	var firstErr error
	for v := range seq {
		st.Go(func() func() {
			r, err := fn(ctx, v)
			return func() {
				if err != nil && firstErr == nil {
					firstErr = err
				}
				use(r)
			}
		})
	}
	return errors.Join(st.Wait(), firstErr)
}

func runMap(s *ants.Pool, window int, seq func(func(int) bool), fn mapFn, use func(int)) error {
	for r, err := range ants.Map(context.Background(), s, window, seq, fn) {
		if err != nil {
			return err
		}
		use(r)
	}
	return nil
}

func runMapUnordered(s *ants.Pool, window int, seq func(func(int) bool), fn mapFn, use func(int)) error {
	for r, err := range ants.MapUnordered(context.Background(), s, window, seq, fn) {
		if err != nil {
			return err
		}
		use(r)
	}
	return nil
}

// spin is CPU work: n rounds of xorshift from x.
func spin(x uint64, n int) uint64 {
	x |= 1
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// calibrate returns the spin rounds that take about d here.
func calibrate(d time.Duration) int {
	const n = 20_000_000
	best := time.Duration(1 << 62)
	for range 3 {
		t0 := time.Now()
		runtime.KeepAlive(spin(uint64(t0.UnixNano()), n))
		best = min(best, time.Since(t0))
	}
	return max(1, int(float64(n)*float64(d)/float64(best)))
}

// measure runs sp in this process and returns what it measured: the clock
// runs from the first value to the last result used, after the pool (for
// this package's ways) is made.
func measure(sp spec) (outcome, error) {
	w := findWay(sp.Lib)
	if w == nil {
		return outcome{}, fmt.Errorf("unknown way %q", sp.Lib)
	}
	var p *ants.Pool
	if w.ours {
		var err error
		if p, err = ants.NewPool(sp.Capacity, ants.WithQueueSize(sp.Queue)); err != nil {
			return outcome{}, err
		}
		defer p.Release()
	}
	seq := func(yield func(int) bool) {
		for v := 0; v < sp.Values; v++ {
			if !yield(v) {
				return
			}
		}
	}
	// Each result is 2v, plus one bit of the spin when there is one: the
	// ordered ways check that result i is for value i.
	fn := func(_ context.Context, v int) (int, error) { return 2 * v, nil }
	if sp.Iters > 0 {
		fn = func(_ context.Context, v int) (int, error) {
			return 2*v + int(spin(uint64(v), sp.Iters)&1), nil
		}
	}
	var sum uint64
	next, outOfOrder := 0, 0
	use := func(r int) {
		sum += uint64(r)
		if r/2 != next {
			outOfOrder++
		}
		next++
	}

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	t0 := time.Now()
	err := w.run(p, sp.Window, seq, fn, use)
	elapsed := time.Since(t0)
	runtime.ReadMemStats(&after)
	if err != nil {
		return outcome{}, err
	}
	if next != sp.Values {
		return outcome{}, fmt.Errorf("%s: %d results for %d values", w.name, next, sp.Values)
	}
	if w.ordered && outOfOrder > 0 {
		return outcome{}, fmt.Errorf("%s: %d results out of order", w.name, outOfOrder)
	}
	return outcome{
		NsPerValue:     float64(elapsed.Nanoseconds()) / float64(sp.Values),
		AllocsPerValue: float64(after.Mallocs-before.Mallocs) / float64(sp.Values),
		HWMKiB:         highWaterKiB(),
		Checksum:       sum,
	}, nil
}

// highWaterKiB returns the process's peak resident set size (VmHWM) from
// /proc/self/status, or 0 where there is no such file.
func highWaterKiB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			if f := strings.Fields(v); len(f) > 0 { // "1234 kB"
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// wayNames lists the ways, for -ways.
func wayNames() string {
	var names []string
	for _, w := range ways {
		names = append(names, w.name)
	}
	return strings.Join(slices.Clip(names), ",")
}
