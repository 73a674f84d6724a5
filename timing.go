package ants

import "time"

// Task timing, for the Observer: the engine stamps each task when it is
// submitted and times it on its worker; wrappers that run a task of their
// own on a pool (Go, groups, streams, Keyed, Subpool) time it themselves
// (wrapper.go) and submit it stamped self, so that the pool does not report
// it twice.

// taskStamp travels with a task through the ring when the pool is timed.
type taskStamp struct {
	at   int64 // nanotime of the submit call
	cap  int32 // the capacity when the pool accepted the task
	self bool  // the task reports its own times (ownSubmitter)
}

// epoch is the origin of nanotime.
var epoch = time.Now()

// nanotime returns the monotonic time in nanoseconds since epoch.
func nanotime() int64 { return int64(time.Since(epoch)) }

// runTimed runs arg on w as p.fn does, timing it for the observer.
//
// A clock reading costs about a third of a no-op task, so the end of one
// task is taken as the start of the next when the worker goes straight on
// to it (w.start is then set, see afterTask), which leaves two readings
// per task in a stream: the submit call's and the task's end. The time the
// worker spends in afterTask between the two tasks, under 100 ns, counts
// as the next task's wait.
func (p *poolCore[T]) runTimed(w *goWorker[T], arg T) {
	if w.start == 0 {
		w.start = nanotime()
	}
	if w.start < w.stamp.at { // submitted after the previous task ended
		w.start = w.stamp.at
	}
	w.inTask = true
	p.fn(w, arg)
	end := nanotime()
	w.inTask = false
	if p.obs != nil && !w.stamp.self {
		p.obs.TaskDone(time.Duration(w.start-w.stamp.at), time.Duration(end-w.start), w.panicked)
	}
	w.ran = end - w.start
	if w.panicked { // afterTask counts it, and clears panicked
		w.ran = -1 // not a sample for the adaptive capacity
	}
	w.start = end
}

// observePanic reports the task of w that panicked or called
// runtime.Goexit, if the pool is timed and the task reports through it. It
// runs on w's goroutine, in its deferred recovery.
func (p *poolCore[T]) observePanic(w *goWorker[T]) {
	if !w.inTask {
		return
	}
	w.inTask, w.panicked = false, false
	if p.obs != nil && !w.stamp.self {
		p.obs.TaskDone(time.Duration(w.start-w.stamp.at), time.Duration(nanotime()-w.start), true)
	}
}
