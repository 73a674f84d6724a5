package ants

import "time"

// Observer is told how long each task waited and ran (WithObserver). Its
// methods are called on worker goroutines, concurrently, and must be fast
// and safe for concurrent use.
//
// Every pool kind reports each task it runs, a MultiPool's member pools all
// to the one observer. Tasks of wrappers (Subpool, Go, the groups, Stream,
// Keyed, Map) are reported through the pool they run on, each on its own,
// with its wait from its own submit call, so including its wait for a
// Subpool's slot or behind its key; one whose panic or runtime.Goexit the
// wrapper returned as a *PanicError is reported as panicked. Tasks that
// never run (refused, skipped, dropped) are not reported to TaskDone;
// dropped ones go to a DropObserver's TaskDropped.
//
// This works through the package's own Submitters: one of the program's own
// that wraps a pool hides the time of the submit call and the caught panics
// from it. A TaskDone that panics ends its worker as a task's panic does;
// the task's outcome stands.
type Observer interface {
	// TaskDone is called after each task with its wait (from the submit call to its start), its run time, and whether it panicked.
	TaskDone(wait, run time.Duration, panicked bool)
}
