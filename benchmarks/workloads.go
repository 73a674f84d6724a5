package main

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"time"
)

// Workload kinds, the values of -workloads.
const (
	kindNoop    = "noop"
	kindSleep   = "sleep"
	kindCPU     = "cpu"
	kindBursty  = "bursty"
	kindLatency = "latency"
)

var allKinds = []string{kindNoop, kindSleep, kindCPU, kindBursty, kindLatency}

// scale fixes the sizes every workload derives from; the parent passes it
// to each child so that all children of a run do the same work.
type scale struct {
	Tasks    int           // tasks of noop, sleep and cpu; bursty runs Bursts bursts of Tasks/20, latency Tasks/20 tasks
	CPUIters int           // loop iterations of one cpu task (see calibrateCPU)
	Bursts   int           // bursts of the bursty workload
	Gap      time.Duration // idle time after each burst
}

// workload is one benchmark case: which task, how many, on what pool, from
// how many submitting goroutines.
type workload struct {
	name       string // unique, e.g. "noop/cap=1000/sub=8"
	kind       string
	tasks      int // in all; for bursty, bursts*burstSize
	submitters int
	cfg        poolConfig
	work       func()
	bursts     int           // bursty only
	gap        time.Duration // bursty only
	burst      int           // latency only: tasks submitted back to back
}

// Parameters of the workloads; see BENCHMARKS.md for why.
const (
	sleepTask     = 10 * time.Millisecond
	sleepCapacity = 50_000 // ants' README benchmark: 1M tasks of 10ms at 50k
	cpuTaskTarget = 2 * time.Microsecond

	burstyTask     = time.Millisecond
	burstyCapacity = 10_000
	// burstyExpiry is given to the libraries that can expire idle workers
	// (both ants APIs). An ants worker idle for longer than the expiry is
	// stopped at the next purge, so within two expiries; Gap must be longer.
	burstyExpiry = 100 * time.Millisecond

	// latencyCapacity is far more than the largest burst, so that the
	// pools have idle workers whenever a task is submitted.
	latencyCapacity = 1000
)

// noopSubmitters are the submitter counts of the noop workload: one, 8 (the
// pool's lock contended from both sides) and 64 (more submitters than
// cores: HTTP handlers, event loops, consumers).
var noopSubmitters = []int{1, 8, 64}

// latencyBursts are the burst sizes of the latency workload: one task at a
// time (one idle worker woken), and 8 and 64 at once.
var latencyBursts = []int{1, 8, 64}

// workloads returns every case of the given kinds, in table order.
func workloads(kinds []string, s scale) []workload {
	procs := runtime.GOMAXPROCS(0)
	var out []workload
	for _, k := range kinds {
		switch k {
		case kindNoop:
			for _, c := range []int{1000, procs} {
				for _, sub := range noopSubmitters {
					out = append(out, workload{
						name:       fmt.Sprintf("noop/cap=%d/sub=%d", c, sub),
						kind:       k,
						tasks:      s.Tasks,
						submitters: sub,
						cfg:        poolConfig{capacity: c},
						work:       func() {},
					})
				}
			}
		case kindSleep:
			out = append(out, workload{
				name:       fmt.Sprintf("sleep/cap=%d", sleepCapacity),
				kind:       k,
				tasks:      s.Tasks,
				submitters: 1,
				cfg:        poolConfig{capacity: sleepCapacity},
				work:       func() { time.Sleep(sleepTask) },
			})
		case kindCPU:
			// Capacity GOMAXPROCS: "as many workers as cores", the shape
			// chanpool64 and e62cffed/ants+queue64 are there for.
			iters := s.CPUIters
			out = append(out, workload{
				name:       fmt.Sprintf("cpu/cap=%d", procs),
				kind:       k,
				tasks:      s.Tasks,
				submitters: 1,
				cfg:        poolConfig{capacity: procs},
				work:       func() { cpuTask(iters) },
			})
		case kindBursty:
			size := max(s.Tasks/20, 1)
			out = append(out, workload{
				name:       fmt.Sprintf("bursty/cap=%d", burstyCapacity),
				kind:       k,
				tasks:      size * s.Bursts,
				submitters: 1,
				cfg:        poolConfig{capacity: burstyCapacity, expiry: burstyExpiry},
				work:       func() { time.Sleep(burstyTask) },
				bursts:     s.Bursts,
				gap:        s.Gap,
			})
		case kindLatency:
			for _, burst := range latencyBursts {
				out = append(out, workload{
					name:       fmt.Sprintf("latency/cap=%d/burst=%d", latencyCapacity, burst),
					kind:       k,
					tasks:      max(s.Tasks/20, burst),
					submitters: 1,
					cfg:        poolConfig{capacity: latencyCapacity},
					work:       func() {},
					burst:      burst,
				})
			}
		}
	}
	return out
}

// parseKinds splits a -workloads value; "all" or "" is every kind.
func parseKinds(list string) ([]string, error) {
	if list == "" || list == "all" {
		return allKinds, nil
	}
	var out []string
	for _, k := range strings.Split(list, ",") {
		k = strings.TrimSpace(k)
		found := false
		for _, known := range allKinds {
			if k == known {
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown workload %q (have %s)", k, strings.Join(allKinds, ","))
		}
		out = append(out, k)
	}
	return out, nil
}

// cpuSink receives a cpu task's result in the (never taken) case that it is
// zero, so that the compiler must compute it; tasks share no memory
// otherwise.
var cpuSink atomic.Uint64

// spin runs n rounds of xorshift64 and returns the state. The state starts
// odd and xorshift never maps a non-zero state to zero, but the compiler
// cannot know that.
func spin(n int) uint64 {
	x := uint64(n)<<1 | 1
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// cpuTask is the cpu workload's task: n rounds of spin.
func cpuTask(n int) {
	if spin(n) == 0 {
		cpuSink.Add(1)
	}
}

// calibrateCPU returns the number of spin rounds that take about target on
// this machine: the fastest of several timings, so that a busy moment does
// not inflate the task.
func calibrateCPU(target time.Duration) int {
	const rounds = 1 << 20
	best := time.Duration(1<<63 - 1)
	for i := 0; i < 7; i++ {
		t0 := time.Now()
		cpuTask(rounds)
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	perRound := float64(best) / rounds
	return max(int(float64(target)/perRound+0.5), 1)
}
