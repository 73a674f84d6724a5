package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	pond "github.com/alitto/pond/v2"
	eants "github.com/e62cffed/ants"
	ants "github.com/panjf2000/ants/v2"
	conc "github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"
)

// library is one way of running tasks on a bounded number of goroutines: a
// pool library, or a baseline written here.
type library interface {
	// name is the library's key: the -libs value, and its row in the tables.
	name() string
	// start returns a runner that runs task on at most cfg.capacity
	// goroutines at once (the goroutines baseline ignores the bound).
	start(cfg poolConfig, task func()) runner
	// like names the channel pool with the same semantics, the baseline
	// the tables set in bold: unbufferedBaseline for a library that
	// accepts at most capacity unfinished tasks (ants' semantics),
	// bufferedBaseline for one that also buffers capacity tasks, "" for one
	// that is neither (an unbounded queue, no bound at all).
	like() string
}

// poolConfig is what a workload asks of a pool.
type poolConfig struct {
	capacity int
	// expiry is how long an idle worker may live, for the libraries that
	// have the knob (both ants APIs); 0 keeps the library's default.
	expiry time.Duration
}

// runner is one started pool bound to one task function. Binding the task
// once lets adapters that need a different function shape (errgroup's
// func() error, the semaphore's acquire-run-release) build it once, so the
// per-task cost measured is the library's, not the adapter's.
//
// submit runs the bound task once; submitFunc runs f instead, for the
// latency workload, which needs to tell its tasks apart (errgroup and the
// semaphore then build their glue per task, a closure allocation). Both may
// be called from several goroutines at once; stop is called once, after
// every submitted task has finished, and returns when the pool has
// released (or, for ants, begun to release) its goroutines.
type runner interface {
	submit()
	submitFunc(f func())
	stop()
}

// libraries lists every library in the order of the tables.
func libraries() []library {
	return []library{
		e62cffedAnts{},
		e62cffedAnts{queue: true},
		e62cffedAnts{unbounded: true},
		e62cffedAnts{queue64: true},
		panjf2000Ants{},
		pondLib{},
		concLib{},
		errgroupLib{},
		semaphoreLib{},
		goroutinesLib{},
		chanPoolLib{},
		chanPoolLib{buffered: true},
		chanPool64Lib{},
	}
}

// The channel pools, the baselines of the tables' ratio columns:
// bufferedBaseline keeps capacity tasks beyond those running (what
// WithQueueSize(capacity) adds), unbufferedBaseline none (ants'
// semantics: at most capacity tasks accepted and unfinished).
const (
	bufferedBaseline   = "chanpool"
	unbufferedBaseline = "chanpool-unbuf"
)

// isBaseline reports whether name is one of the channel pools.
func isBaseline(name string) bool {
	return name == bufferedBaseline || name == unbufferedBaseline || name == chanPool64Name
}

// selectLibraries returns the libraries named in the comma-separated list,
// in table order; "all" or "" selects every one.
func selectLibraries(list string) ([]library, error) {
	all := libraries()
	if list == "" || list == "all" {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []library
	for _, l := range all {
		if want[l.name()] {
			out = append(out, l)
			delete(want, l.name())
		}
	}
	for n := range want {
		return nil, fmt.Errorf("unknown library %q (have %s)", n, libraryNames(all))
	}
	return out, nil
}

func libraryNames(libs []library) string {
	names := make([]string, len(libs))
	for i, l := range libs {
		names[i] = l.name()
	}
	return strings.Join(names, ",")
}

// findLibrary returns the library called name, or nil.
func findLibrary(name string) library {
	for _, l := range libraries() {
		if l.name() == name {
			return l
		}
	}
	return nil
}

// antsPool is the part of the ants API the two ants adapters use; both
// *eants.Pool and *ants.Pool satisfy it, so they share one runner.
type antsPool interface {
	Submit(task func()) error
	Release()
}

// antsRunner runs tasks with Pool.Submit; a failed Submit is a bug in the
// benchmark (the pools are blocking and never released early), so it panics.
type antsRunner struct {
	pool antsPool
	task func()
}

func (r antsRunner) submit() { r.submitFunc(r.task) }

func (r antsRunner) submitFunc(f func()) {
	if err := r.pool.Submit(f); err != nil {
		panic(fmt.Sprintf("benchmarks: Submit: %v", err))
	}
}

func (r antsRunner) stop() { r.pool.Release() }

// e62cffedAnts is this repository's library, with default options (in
// particular no task buffer) except for the expiry; with queue set, it also
// buffers up to capacity tasks (WithQueueSize), which is what a channel pool
// of capacity workers over a channel of capacity slots does; with unbounded
// set, it buffers every task no worker can take (WithQueueSize(-1)), as
// pond's default queue does, so that Submit never waits; with queue64 set,
// it buffers 64 tasks whatever the capacity, as chanpool64 does: at
// capacity GOMAXPROCS, the pool Go programs write most for CPU-bound work.
type e62cffedAnts struct{ queue, unbounded, queue64 bool }

func (l e62cffedAnts) name() string {
	switch {
	case l.queue:
		return "e62cffed/ants+queue"
	case l.unbounded:
		return "e62cffed/ants+unbounded"
	case l.queue64:
		return "e62cffed/ants+queue64"
	}
	return "e62cffed/ants"
}

func (l e62cffedAnts) like() string {
	switch {
	case l.queue:
		return bufferedBaseline
	case l.unbounded:
		return "" // no channel pool has an unbounded buffer; pond is its peer
	case l.queue64:
		return chanPool64Name
	}
	return unbufferedBaseline
}

func (l e62cffedAnts) start(cfg poolConfig, task func()) runner {
	var opts []eants.Option
	if cfg.expiry > 0 {
		opts = append(opts, eants.WithExpiryDuration(cfg.expiry))
	}
	if l.queue {
		opts = append(opts, eants.WithQueueSize(cfg.capacity))
	}
	if l.unbounded {
		opts = append(opts, eants.WithQueueSize(-1))
	}
	if l.queue64 {
		opts = append(opts, eants.WithQueueSize(chanPool64Slots))
	}
	p, err := eants.NewPool(cfg.capacity, opts...)
	if err != nil {
		panic(fmt.Sprintf("benchmarks: e62cffed/ants NewPool: %v", err))
	}
	return antsRunner{pool: p, task: task}
}

// panjf2000Ants is github.com/panjf2000/ants/v2 with default options except
// for the expiry.
type panjf2000Ants struct{}

func (panjf2000Ants) name() string { return "ants" }
func (panjf2000Ants) like() string { return unbufferedBaseline }

func (panjf2000Ants) start(cfg poolConfig, task func()) runner {
	var opts []ants.Option
	if cfg.expiry > 0 {
		opts = append(opts, ants.WithExpiryDuration(cfg.expiry))
	}
	p, err := ants.NewPool(cfg.capacity, opts...)
	if err != nil {
		panic(fmt.Sprintf("benchmarks: ants NewPool: %v", err))
	}
	return antsRunner{pool: p, task: task}
}

// pondLib is github.com/alitto/pond/v2 with its defaults: an unbounded task
// queue (so Go never blocks) and workers that exit as soon as the queue is
// empty (so there is no idle worker to expire). Tasks go through Pool.Go,
// its cheapest entry point (Submit also allocates a future).
type pondLib struct{}

func (pondLib) name() string { return "pond" }

// like is none: pond's queue has no bound, so it is neither channel pool.
func (pondLib) like() string { return "" }

func (pondLib) start(cfg poolConfig, task func()) runner {
	return pondRunner{pool: pond.NewPool(cfg.capacity), task: task}
}

type pondRunner struct {
	pool pond.Pool
	task func()
}

func (r pondRunner) submit() { r.submitFunc(r.task) }

func (r pondRunner) submitFunc(f func()) {
	if err := r.pool.Go(f); err != nil {
		panic(fmt.Sprintf("benchmarks: pond Go: %v", err))
	}
}

func (r pondRunner) stop() { r.pool.StopAndWait() }

// concLib is github.com/sourcegraph/conc's pool.New().WithMaxGoroutines.
// Its workers live until Wait, so an idle conc pool keeps all of them.
type concLib struct{}

func (concLib) name() string { return "conc" }

// like: Go waits until a goroutine takes the task, as an unbuffered channel
// send does.
func (concLib) like() string { return unbufferedBaseline }

func (concLib) start(cfg poolConfig, task func()) runner {
	return concRunner{pool: conc.New().WithMaxGoroutines(cfg.capacity), task: task}
}

type concRunner struct {
	pool *conc.Pool
	task func()
}

func (r concRunner) submit()             { r.pool.Go(r.task) }
func (r concRunner) submitFunc(f func()) { r.pool.Go(f) }
func (r concRunner) stop()               { r.pool.Wait() }

// errgroupLib is golang.org/x/sync/errgroup with SetLimit: a goroutine per
// task, at most capacity at once; nothing idles.
type errgroupLib struct{}

func (errgroupLib) name() string { return "errgroup" }

// like: Go waits while capacity goroutines run.
func (errgroupLib) like() string { return unbufferedBaseline }

func (errgroupLib) start(cfg poolConfig, task func()) runner {
	g := new(errgroup.Group)
	g.SetLimit(cfg.capacity)
	return errgroupRunner{group: g, fn: func() error { task(); return nil }}
}

type errgroupRunner struct {
	group *errgroup.Group
	fn    func() error
}

func (r errgroupRunner) submit() { r.group.Go(r.fn) }

func (r errgroupRunner) submitFunc(f func()) { r.group.Go(func() error { f(); return nil }) }

func (r errgroupRunner) stop() {
	if err := r.group.Wait(); err != nil {
		panic(fmt.Sprintf("benchmarks: errgroup Wait: %v", err))
	}
}

// semaphoreLib is golang.org/x/sync/semaphore.Weighted guarding a goroutine
// per task: acquire one unit, start the goroutine, release when it returns.
type semaphoreLib struct{}

func (semaphoreLib) name() string { return "semaphore" }

// like: Acquire waits while capacity goroutines run.
func (semaphoreLib) like() string { return unbufferedBaseline }

func (semaphoreLib) start(cfg poolConfig, task func()) runner {
	sem := semaphore.NewWeighted(int64(cfg.capacity))
	return &semaphoreRunner{
		sem:      sem,
		capacity: int64(cfg.capacity),
		run:      func() { task(); sem.Release(1) },
	}
}

type semaphoreRunner struct {
	sem      *semaphore.Weighted
	capacity int64
	run      func()
}

func (r *semaphoreRunner) submit() {
	r.acquire()
	go r.run()
}

func (r *semaphoreRunner) submitFunc(f func()) {
	r.acquire()
	go func() { f(); r.sem.Release(1) }()
}

func (r *semaphoreRunner) acquire() {
	if err := r.sem.Acquire(context.Background(), 1); err != nil {
		panic(fmt.Sprintf("benchmarks: semaphore Acquire: %v", err))
	}
}

// stop takes the whole weight, which waits for the last goroutines to
// release their units.
func (r *semaphoreRunner) stop() {
	if err := r.sem.Acquire(context.Background(), r.capacity); err != nil {
		panic(fmt.Sprintf("benchmarks: semaphore Acquire: %v", err))
	}
	r.sem.Release(r.capacity)
}

// goroutinesLib is the unbounded baseline: a new goroutine per task and no
// limit at all. The harness's WaitGroup is its only synchronisation.
type goroutinesLib struct{}

func (goroutinesLib) name() string { return "goroutines" }
func (goroutinesLib) like() string { return "" }

func (goroutinesLib) start(_ poolConfig, task func()) runner {
	return goroutinesRunner{task: task}
}

type goroutinesRunner struct{ task func() }

func (r goroutinesRunner) submit()           { go r.task() }
func (goroutinesRunner) submitFunc(f func()) { go f() }
func (goroutinesRunner) stop()               {}

// chanPoolLib is the pool everyone writes first, and the tables' baselines:
// capacity workers started up front, ranging over a channel of func(). The
// buffered one (chanpool) has a buffer of capacity, so it holds capacity
// tasks beyond the running ones, as e62cffed/ants+queue does; the
// unbuffered one (chanpool-unbuf) takes a task only when a worker is free,
// so at most capacity tasks are accepted and unfinished: ants' semantics.
// Its workers never expire.
type chanPoolLib struct{ buffered bool }

func (l chanPoolLib) name() string {
	if l.buffered {
		return bufferedBaseline
	}
	return unbufferedBaseline
}

func (l chanPoolLib) like() string { return l.name() }

func (l chanPoolLib) start(cfg poolConfig, task func()) runner {
	slots := 0
	if l.buffered {
		slots = cfg.capacity
	}
	return startChanPool(cfg.capacity, slots, task)
}

// startChanPool starts workers goroutines ranging over a channel of slots.
func startChanPool(workers, slots int, task func()) *chanPoolRunner {
	r := &chanPoolRunner{tasks: make(chan func(), slots), task: task}
	r.workers.Add(workers)
	for i := 0; i < workers; i++ {
		// Each worker exits when stop closes the channel; stop waits for it.
		go func() {
			defer r.workers.Done()
			for f := range r.tasks {
				f()
			}
		}()
	}
	return r
}

type chanPoolRunner struct {
	tasks   chan func()
	task    func()
	workers sync.WaitGroup
}

func (r *chanPoolRunner) submit()             { r.tasks <- r.task }
func (r *chanPoolRunner) submitFunc(f func()) { r.tasks <- f }

func (r *chanPoolRunner) stop() {
	close(r.tasks)
	r.workers.Wait()
}

// chanPool64Lib is the channel pool with a buffer of a fixed 64 slots,
// make(chan func(), 64) with capacity workers ranging over it: what Go
// programs write for CPU-bound work at capacity GOMAXPROCS, and the peer
// of e62cffed/ants+queue64, whose ratio column it is.
type chanPool64Lib struct{}

// chanPool64Slots is the buffer of chanpool64 and e62cffed/ants+queue64.
const chanPool64Slots = 64

// chanPool64Name is chanPool64Lib's name.
const chanPool64Name = "chanpool64"

func (chanPool64Lib) name() string { return chanPool64Name }
func (chanPool64Lib) like() string { return chanPool64Name }

func (chanPool64Lib) start(cfg poolConfig, task func()) runner {
	return startChanPool(cfg.capacity, chanPool64Slots, task)
}
