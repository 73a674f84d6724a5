package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// childSpec is what the parent asks of one child process, passed as JSON in
// the hidden -child flag.
type childSpec struct {
	Lib      string `json:"lib"`
	Workload string `json:"workload"`
	Scale    scale  `json:"scale"`
}

// result is one child's measurement, printed by the child as one JSON line.
// MaxRSSKiB is filled in by the parent from the child's rusage.
//
// On Linux ru_maxrss is not the child's own peak: Go starts children with
// vfork (CLONE_VM), and execve folds the high-water mark of the address
// space it leaves, the parent's, into the child's ru_maxrss. So a child
// never reports less than the parent's peak RSS (about 10 MiB here). The
// child's VmHWM has no such floor; peakRSSKiB prefers it.
type result struct {
	Lib      string `json:"lib"`
	Workload string `json:"workload"`
	Tasks    int    `json:"tasks"`

	NsPerTask      float64 `json:"ns_per_task"`     // wall time / tasks (bursty: burst time only)
	AllocsPerTask  float64 `json:"allocs_per_task"` // MemStats.Mallocs delta / tasks
	BytesPerTask   float64 `json:"bytes_per_task"`  // MemStats.TotalAlloc delta / tasks
	PeakGoroutines int     `json:"peak_goroutines"` // beyond the harness's own
	HWMKiB         int64   `json:"hwm_kib"`         // the child's own VmHWM from /proc/self/status; 0 if unknown
	MaxRSSKiB      int64   `json:"max_rss_kib"`     // ru_maxrss of the child, from the parent

	// Latency only: the time from the submit call to the task's start,
	// over every task; see measureLatency.
	P50Ns float64 `json:"p50_ns,omitempty"`
	P99Ns float64 `json:"p99_ns,omitempty"`

	// Bursty only: the state after the last idle gap, after a forced GC.
	IdleInUseBytes uint64 `json:"idle_inuse_bytes,omitempty"` // HeapInuse + StackInuse
	IdleRSSBytes   uint64 `json:"idle_rss_bytes,omitempty"`   // /proc/self/statm resident
	IdleGoroutines int    `json:"idle_goroutines,omitempty"`  // beyond the harness's own
}

// runChild is the child's whole life: run spec once and print the result.
func runChild(specJSON string, out io.Writer) error {
	var spec childSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		return fmt.Errorf("bad -child spec: %w", err)
	}
	lib := findLibrary(spec.Lib)
	if lib == nil {
		return fmt.Errorf("unknown library %q", spec.Lib)
	}
	var w *workload
	for _, c := range workloads(allKinds, spec.Scale) {
		if c.name == spec.Workload {
			w = &c
			break
		}
	}
	if w == nil {
		return fmt.Errorf("unknown workload %q", spec.Workload)
	}
	r, err := measure(lib, *w)
	if err != nil {
		return err
	}
	return json.NewEncoder(out).Encode(r)
}

// measure runs w on lib and returns everything but MaxRSSKiB.
//
// The submitter goroutines start before the baseline goroutine count and
// live through the whole run, so that the peak counts only what the library
// adds. Each task ends with the harness's WaitGroup.Done, added for a whole
// burst at once: the harness adds one atomic decrement per task, the same
// for every library.
func measure(lib library, w workload) (result, error) {
	if w.kind == kindLatency {
		return measureLatency(lib, w)
	}
	bursts, size := 1, w.tasks
	if w.bursts > 0 {
		bursts, size = w.bursts, w.tasks/w.bursts
	}

	var done sync.WaitGroup
	task := func() {
		w.work()
		done.Done()
	}
	subs := startSubmitters(w.submitters)
	defer subs.close()

	runtime.GC()
	samples := startSampler()
	base := runtime.NumGoroutine() // includes the sampler and submitters
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)

	// The first burst's time includes creating the pool (the channel pool
	// starts all its workers there); the last one's includes stopping it,
	// unless the run ends idle, to be measured before the stop.
	idle := w.gap > 0
	var busy time.Duration
	t0 := time.Now()
	r := lib.start(w.cfg, task)
	for b := 0; b < bursts; b++ {
		if b > 0 {
			t0 = time.Now()
		}
		done.Add(size)
		subs.submit(r, size)
		done.Wait()
		samples.observe()
		if b == bursts-1 && !idle {
			r.stop()
		}
		busy += time.Since(t0)
		if idle {
			time.Sleep(w.gap)
		}
	}

	res := result{
		Lib:      lib.name(),
		Workload: w.name,
		Tasks:    bursts * size,
	}
	if idle {
		var ms runtime.MemStats
		runtime.GC()
		debug.FreeOSMemory()
		runtime.ReadMemStats(&ms)
		res.IdleInUseBytes = ms.HeapInuse + ms.StackInuse
		res.IdleRSSBytes = currentRSS()
		res.IdleGoroutines = runtime.NumGoroutine() - base
		r.stop()
	}
	runtime.ReadMemStats(&after)
	n := float64(res.Tasks)
	res.NsPerTask = float64(busy.Nanoseconds()) / n
	res.AllocsPerTask = float64(after.Mallocs-before.Mallocs) / n
	res.BytesPerTask = float64(after.TotalAlloc-before.TotalAlloc) / n
	res.PeakGoroutines = samples.stop() - base
	res.HWMKiB = highWaterKiB()
	return res, nil
}

// peakRSSKiB is the child's peak resident set size: its own VmHWM where
// the system has one, else its ru_maxrss.
func (r result) peakRSSKiB() int64 {
	if r.HWMKiB > 0 {
		return r.HWMKiB
	}
	return r.MaxRSSKiB
}

// submitters is a fixed set of goroutines that submit tasks on request.
type submitters struct {
	shares []chan int // one per goroutine: how many tasks to submit next
	r      runner     // the runner of the current round; set before shares are sent
	round  sync.WaitGroup
	exited sync.WaitGroup
}

// startSubmitters starts n submitter goroutines; each exits when close is
// called, and close waits for them.
func startSubmitters(n int) *submitters {
	s := &submitters{shares: make([]chan int, n)}
	s.exited.Add(n)
	for i := range s.shares {
		ch := make(chan int)
		s.shares[i] = ch
		go func() {
			defer s.exited.Done()
			for share := range ch {
				for j := 0; j < share; j++ {
					s.r.submit()
				}
				s.round.Done()
			}
		}()
	}
	return s
}

// submit has the submitters submit n tasks to r between them and returns
// when all are submitted (not finished).
func (s *submitters) submit(r runner, n int) {
	s.r = r
	k := len(s.shares)
	s.round.Add(k)
	for i, ch := range s.shares {
		share := n / k
		if i < n%k {
			share++
		}
		ch <- share
	}
	s.round.Wait()
}

func (s *submitters) close() {
	for _, ch := range s.shares {
		close(ch)
	}
	s.exited.Wait()
}

// sampler tracks the most goroutines alive at once: a goroutine samples
// runtime.NumGoroutine every millisecond, and measure samples once more at
// the end of each burst, which a run shorter than a tick would miss.
type sampler struct {
	peak   atomic.Int64
	quit   chan struct{}
	exited chan struct{}
}

// startSampler starts the sampling goroutine; it exits when stop is called,
// and stop waits for it.
func startSampler() *sampler {
	s := &sampler{quit: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(s.exited)
		tk := time.NewTicker(time.Millisecond)
		defer tk.Stop()
		for {
			s.observe()
			select {
			case <-s.quit:
				return
			case <-tk.C:
			}
		}
	}()
	return s
}

// observe takes one sample.
func (s *sampler) observe() {
	n := int64(runtime.NumGoroutine())
	for {
		old := s.peak.Load()
		if n <= old || s.peak.CompareAndSwap(old, n) {
			return
		}
	}
}

// stop stops the sampling goroutine and returns the largest sample.
func (s *sampler) stop() int {
	close(s.quit)
	<-s.exited
	return int(s.peak.Load())
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
			f := strings.Fields(v) // "1234 kB"
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n
			}
		}
	}
	return 0
}

// currentRSS returns the process's resident set size from /proc/self/statm,
// or 0 where there is no such file.
func currentRSS() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}
