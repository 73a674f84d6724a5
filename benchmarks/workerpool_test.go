package main

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	eants "github.com/e62cffed/ants"
	pkgz "github.com/go-pkgz/pool"
)

// BenchmarkStatefulProcess is WorkerPool's like-for-like: callers goroutines
// each make synchronous calls with a no-op argument to a pool of capacity
// workers that each own their state (a counter the call increments), and
// wait for the result. One op is one call, from the caller's hand-off to its
// result. The implementations (impl=...):
//
//   - workerpool: WorkerPool.Process.
//   - tunny-idiom: the idiom tunny wraps, written here as its users
//     write it: capacity goroutines own their state and receive requests from one
//     unbuffered channel; each request carries a reply channel made for the
//     call.
//   - tunny-idiom-pooled: the same with the reply channels recycled through
//     a sync.Pool, so that a call allocates nothing, as Process does (tunny
//     itself keeps a reply channel per worker, also allocation-free).
//   - go-pkgz: github.com/go-pkgz/pool's NewStateful, one Worker per
//     goroutine, without batching (WithBatchSize(0): a synchronous caller
//     cannot wait for a batch to fill), the request and recycled reply
//     channel as in tunny-idiom-pooled, sent with Send (Submit is for one
//     producer).
//   - invoke-reply: a stateless PoolWithFuncGeneric whose function replies
//     on the request's channel: what Process costs beyond the engine.
//
// Run with (interleaved, as BENCHMARKS.md does):
//
//	go test -run '^$' -bench StatefulProcess -benchtime 200000x -count 6 . | tee stateful.txt
//	benchstat -col '/impl@(workerpool tunny-idiom tunny-idiom-pooled go-pkgz invoke-reply)' stateful.txt
func BenchmarkStatefulProcess(b *testing.B) {
	for _, capacity := range []int{runtime.GOMAXPROCS(0), 1000} {
		for _, callers := range []int{1, 8, 64} {
			for _, impl := range statefulImpls {
				b.Run(fmt.Sprintf("cap=%d/callers=%d/impl=%s", capacity, callers, impl.name), func(b *testing.B) {
					call, stop := impl.start(b, capacity)
					defer stop()
					runCallers(b, callers, call)
				})
			}
		}
	}
}

// runCallers makes b.N calls of call, spread over n goroutines.
func runCallers(b *testing.B, n int, call func(int) int) {
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	per, extra := b.N/n, b.N%n
	for i := 0; i < n; i++ {
		k := per
		if i < extra {
			k++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < k; j++ {
				call(j)
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
}

// statefulImpl starts a pool of capacity stateful workers and returns its
// synchronous call and its stop.
type statefulImpl struct {
	name  string
	start func(b *testing.B, capacity int) (call func(int) int, stop func())
}

var statefulImpls = []statefulImpl{
	{"workerpool", startWorkerPool},
	{"tunny-idiom", startTunnyIdiom(false)},
	{"tunny-idiom-pooled", startTunnyIdiom(true)},
	{"go-pkgz", startPkgz},
	{"invoke-reply", startInvokeReply},
}

// counter is the state every implementation's worker owns.
type counter struct{ n int }

func (c *counter) Process(_ context.Context, arg int) (int, error) {
	c.n++
	return arg, nil
}

func (c *counter) Close() {}

func startWorkerPool(b *testing.B, capacity int) (func(int) int, func()) {
	p, err := eants.NewWorkerPool(capacity, func(int) eants.Worker[int, int] { return new(counter) })
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	call := func(arg int) int {
		v, err := p.Process(ctx, arg)
		if err != nil {
			b.Error(err)
		}
		return v
	}
	return call, func() { _ = p.ReleaseTimeout(10 * time.Second) }
}

// request is one call in the channel-based implementations.
type request struct {
	arg   int
	reply chan int
}

// replies recycles the reply channels of the channel-based implementations.
var replies = sync.Pool{New: func() any { return make(chan int, 1) }}

// roundTrip sends arg with a recycled reply channel through send and waits
// for the result.
func roundTrip(arg int, send func(request)) int {
	reply := replies.Get().(chan int)
	send(request{arg, reply})
	v := <-reply
	replies.Put(reply)
	return v
}

// startTunnyIdiom starts the idiom; pooled recycles the reply channels.
func startTunnyIdiom(pooled bool) func(*testing.B, int) (func(int) int, func()) {
	return func(_ *testing.B, capacity int) (func(int) int, func()) {
		reqs := make(chan request)
		var wg sync.WaitGroup
		wg.Add(capacity)
		for i := 0; i < capacity; i++ {
			go func() {
				defer wg.Done()
				var state counter
				for r := range reqs {
					state.n++
					r.reply <- r.arg
				}
			}()
		}
		send := func(r request) { reqs <- r }
		call := func(arg int) int {
			reply := make(chan int, 1)
			send(request{arg, reply})
			return <-reply
		}
		if pooled {
			call = func(arg int) int { return roundTrip(arg, send) }
		}
		return call, func() { close(reqs); wg.Wait() }
	}
}

// pkgzWorker is a go-pkgz Worker with the same state, replying on the
// request's channel.
type pkgzWorker struct{ state counter }

func (w *pkgzWorker) Do(_ context.Context, r request) error {
	w.state.n++
	r.reply <- r.arg
	return nil
}

func startPkgz(b *testing.B, capacity int) (func(int) int, func()) {
	p := pkgz.NewStateful[request](capacity, func() pkgz.Worker[request] { return new(pkgzWorker) }).
		WithBatchSize(0).WithContinueOnError()
	if err := p.Go(context.Background()); err != nil {
		b.Fatal(err)
	}
	call := func(arg int) int { return roundTrip(arg, p.Send) }
	return call, func() { _ = p.Close(context.Background()) }
}

func startInvokeReply(b *testing.B, capacity int) (func(int) int, func()) {
	p, err := eants.NewPoolWithFuncGeneric(capacity, func(r request) { r.reply <- r.arg })
	if err != nil {
		b.Fatal(err)
	}
	call := func(arg int) int {
		return roundTrip(arg, func(r request) {
			if err := p.Invoke(r); err != nil {
				b.Error(err)
			}
		})
	}
	return call, func() { _ = p.ReleaseTimeout(10 * time.Second) }
}
