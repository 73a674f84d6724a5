// Package burst measures how soon a pool starts the tasks it is handed in
// bursts while it has idle workers: the time from each submit call to the
// task's first line. It is the one implementation behind the root module's
// BenchmarkStartLatency and the latency workload of the benchmarks module,
// which may import it since its import path lies under this module's.
// It exists only for those measurements; the package ants does not use it.
package burst

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Runner submits bursts of tasks and records each task's wait between its
// submit call and its start. Its tasks are made once, one per place in a
// burst, so the measurement allocates nothing per task.
//
// Every task of a burst stays busy until the whole burst has started, so
// each must start on a worker of its own: a pool that leaves a task queued
// behind a busy worker while an idle one sleeps never starts it, and Run
// fails after the timeout instead of skewing the figures.
//
// A Runner is used by one goroutine at a time; Stop releases its timer.
type Runner struct {
	submit  func(task func()) error
	timeout time.Duration
	tasks   []func()
	timer   *time.Timer // reused by every burst, so a burst allocates nothing
	epoch   time.Time   // submitted and the waits are measured from it

	// AllStarted, if set, is called once every task of a burst has started
	// (all its goroutines are then alive), before they are let go.
	AllStarted func()

	// Set by Run before it submits the burst's tasks, read by them: the
	// submit hands each task over, which orders the write before the read.
	submitted []time.Duration // when the task at each place was submitted
	out       []time.Duration // where each place's wait goes

	started    atomic.Int32  // tasks of this burst that have started
	allStarted chan struct{} // the burst's last task to start sends here
	gate       sync.WaitGroup
	finished   sync.WaitGroup
}

// NewRunner returns a Runner of bursts of at most size tasks, handed out
// through submit; a burst whose tasks have not all started after timeout
// fails.
func NewRunner(submit func(task func()) error, size int, timeout time.Duration) *Runner {
	r := &Runner{
		submit:     submit,
		timeout:    timeout,
		tasks:      make([]func(), size),
		timer:      time.NewTimer(time.Hour),
		epoch:      time.Now(),
		submitted:  make([]time.Duration, size),
		allStarted: make(chan struct{}, 1),
	}
	r.timer.Stop()
	for i := range r.tasks {
		r.tasks[i] = func() {
			r.out[i] = time.Since(r.epoch) - r.submitted[i]
			if int(r.started.Add(1)) == len(r.out) {
				r.allStarted <- struct{}{}
			}
			r.gate.Wait()
			r.finished.Done()
		}
	}
	return r
}

// Run submits len(out) tasks back to back (at most the Runner's size),
// waits until all have started, at most the timeout, lets them finish, and
// stores their waits in out. After a timeout it still lets every task start
// and finish before it returns the error; a refused submit ends the burst
// at once, once the tasks already submitted have finished.
func (r *Runner) Run(out []time.Duration) error {
	n := len(out)
	r.out = out
	r.started.Store(0)
	r.gate.Add(1)
	r.finished.Add(n)
	for i := 0; i < n; i++ {
		r.submitted[i] = time.Since(r.epoch)
		if err := r.submit(r.tasks[i]); err != nil {
			r.finished.Add(i - n)
			r.gate.Done()
			r.finished.Wait()
			return err
		}
	}
	var err error
	r.timer.Reset(r.timeout)
	select {
	case <-r.allStarted:
		if r.AllStarted != nil {
			r.AllStarted()
		}
	case <-r.timer.C:
		err = fmt.Errorf("only %d of %d tasks started within %v while the pool had idle workers", r.started.Load(), n, r.timeout)
	}
	if !r.timer.Stop() {
		// Fired as the burst completed: drain it, so that the next Reset
		// starts clean (a go 1.22 module keeps the old timer channels).
		select {
		case <-r.timer.C:
		default:
		}
	}
	r.gate.Done()
	r.finished.Wait()
	if err != nil {
		<-r.allStarted // sent by the last task once the gate opened
	}
	return err
}

// Stop releases the Runner's timer.
func (r *Runner) Stop() { r.timer.Stop() }

// Percentile returns the p-th percentile of sorted by the nearest-rank
// method: the smallest value with at least p% of the values at or below it;
// 0 for no values.
func Percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := (len(sorted)*p + 99) / 100 // ceil(n*p/100)
	return sorted[max(rank, 1)-1]
}
