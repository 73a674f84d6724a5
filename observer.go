package ants

import "time"

// Observer is told how long each task waited and ran. Its methods are called on
// worker goroutines, concurrently, and must be fast and safe for concurrent use.
//
// A pool with an observer (WithObserver) reports every task it runs: Pool,
// PoolWithFunc and PoolWithFuncGeneric, WorkerPool (a panic its Process
// returns as a *PanicError is reported as one), and MultiPool and its
// function variants, whose member pools all report to the one observer. Sub-pools, groups,
// futures, streams and keyed tasks report through the pool they run on, each
// task on its own, with its wait measured from its own submit call: a task
// that waited for a Subpool's slot or behind earlier tasks of its key in a
// Keyed has that time in its wait. A keyed task is reported alone, never the
// run of its key's queue as a whole.
//
// Tasks that never run are not reported to TaskDone: refused ones (the
// submit call returned an error), skipped ones (a Go future whose context
// ended while its task waited in a buffer, a group's task skipped after the
// first error), and dropped ones (WithQueueTimeout, WithQueueTarget), which
// go to TaskDropped if the observer is a DropObserver. A task that panicked is reported with panicked true, also when the
// panic was caught and returned as a *PanicError (Go, groups, streams, keyed
// tasks); a task that called runtime.Goexit counts as panicked too, as in
// Stats.
//
// This works through the package's own Submitters (*Pool, *MultiPool,
// *Subpool), which pass the time of the submit call and the outcome of the
// task down to the pool. A Submitter of one's own that wraps a pool hides
// both: the pool then measures wait from the wrapper's call to it, missing
// the time a task spent in a Subpool's or a Keyed's queue above it, and
// sees a task whose panic a group, future, stream or Keyed caught as one
// that returned, so it reports panicked false.
//
// A TaskDone that panics or calls runtime.Goexit ends its worker goroutine,
// as a task's panic does: the task's outcome stands (its caller, if it has
// one, still gets it), the panic goes to the PanicHandler (else the Logger),
// Stats counts the task as panicked, and the pool's counts stay exact.
//
// Without an observer a pool reads no clock for it, and its tasks cost what
// they cost without this feature; with one, each task adds readings of the
// monotonic clock and the call to TaskDone.
type Observer interface {
	// TaskDone is called after each task: wait is the time from the submit call
	// (Submit, SubmitContext, TrySubmit, Invoke..., or the call of Go, a Group's Go,
	// Keyed.Submit, a Stream's Go, a WorkerPool's Process or Go) to the start of the task,
	// run its running time; panicked tells whether it panicked.
	TaskDone(wait, run time.Duration, panicked bool)
}
