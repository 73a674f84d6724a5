package ants_test

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/e62cffed/ants"
)

// BenchmarkBufferedPath is the configuration Go programs use most for
// CPU-bound work, "as many workers as cores, and a queue in front", beside
// the channel pool a user would otherwise write: capacity GOMAXPROCS, and
//
//	lib=chan64     GOMAXPROCS goroutines ranging over make(chan func(), 64)
//	lib=queue64    NewPool(GOMAXPROCS, WithQueueSize(64))
//	lib=unbounded  NewPool(GOMAXPROCS, WithQueueSize(-1))
//	lib=chan       GOMAXPROCS goroutines ranging over an unbuffered channel
//	lib=pool       NewPool(GOMAXPROCS), no buffer
//
// with no-op tasks from 1, 8 and 64 submitters (w=noop) and tasks of about
// 2 µs and 10 µs of CPU from one submitter (w=cpu, w=cpu10). The first
// three hold 64 tasks no worker has taken (the unbounded pool any number),
// the last two none. Run it and set the libraries side by side with
//
//	go test -run '^$' -bench BufferedPath -benchtime 200000x -count 8 . | tee buf.txt
//	benchstat -row '/w /sub' -col /lib buf.txt
func BenchmarkBufferedPath(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	libs := []struct {
		name  string
		start funcPoolStarter
	}{
		{"chan64", func(*testing.B, int) funcPool { return startChanPool(procs, 64) }},
		{"queue64", func(b *testing.B, _ int) funcPool { return mustPool(b, procs, ants.WithQueueSize(64)) }},
		{"unbounded", func(b *testing.B, _ int) funcPool { return mustPool(b, procs, ants.WithQueueSize(-1)) }},
		{"chan", func(*testing.B, int) funcPool { return startChanPool(procs, 0) }},
		{"pool", func(b *testing.B, _ int) funcPool { return mustPool(b, procs) }},
	}
	shapes := []struct {
		work string
		subs int
	}{{"noop", 1}, {"noop", 8}, {"noop", 64}, {"cpu", 1}, {"cpu10", 1}}
	for _, s := range shapes {
		for _, l := range libs {
			b.Run(fmt.Sprintf("w=%s/sub=%d/lib=%s", s.work, s.subs, l.name), func(b *testing.B) {
				var wg sync.WaitGroup
				task := wg.Done
				switch s.work {
				case "cpu":
					task = func() { cpuTask(cpuTaskIters); wg.Done() }
				case "cpu10":
					task = func() { cpuTask(5 * cpuTaskIters); wg.Done() }
				}
				p := l.start(b, procs)
				defer releasePool(b, p)
				runSubmitters(b, s.subs, &wg, func() error { return p.Submit(task) })
			})
		}
	}
}

func mustPool(b *testing.B, size int, opts ...ants.Option) *ants.Pool {
	p, err := ants.NewPool(size, opts...)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// cpuTaskIters is how many rounds of cpuTask take about 2 µs on the AMD
// EPYC of BENCHMARKS.md. It is fixed, not calibrated at run time, so that
// two builds compared side by side run the same task.
const cpuTaskIters = 1360

// cpuSink receives a cpu task's result in the (never taken) case that it is
// zero, so that the compiler must compute it.
var cpuSink atomic.Uint64

// cpuTask runs n rounds of xorshift64, the benchmarks module's cpu task.
func cpuTask(n int) {
	x := uint64(n)<<1 | 1
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	if x == 0 {
		cpuSink.Add(1)
	}
}
