package ants

// Stats is a snapshot of a pool's state and counters; when the pool is
// quiet, Submitted == Completed + Panicked + Dropped. A wrapper's task is
// one task of the pool it runs on (a Keyed key's run is one), panicked if
// its panic was returned as a *PanicError, except through a Submitter of the
// program's own. A wrapper whose context is done skips its tasks without
// asking the pool: they are not Rejected. Waiting and Queued count every
// priority level together.
type Stats struct {
	Cap     int  // capacity, -1 if unlimited; a MultiPool's is the sum of its member pools' (-N for N unlimited ones), as its Cap()
	Running int  // workers, busy or idle, as Running()
	Idle    int  // workers parked waiting for a task
	Waiting int  // callers blocked in Submit or Invoke, at every priority level
	Queued  int  // tasks in the task buffer, at every priority level: accepted, with no worker slot free for them yet
	Paused  bool // the pool is paused (Pause); a multi-pool's, if any member pool is

	Submitted uint64 // tasks accepted: their submit call returned nil
	Completed uint64 // tasks that returned
	Panicked  uint64 // tasks that panicked (or called runtime.Goexit), caught by a wrapper or not
	Rejected  uint64 // submit calls that returned an error
	Dropped   uint64 // tasks accepted and then dropped before they ran (WithQueueTimeout, WithQueueTarget, a context that ended in the buffer)
}

// add accumulates o into s, for MultiPool aggregates.
func (s *Stats) add(o Stats) {
	s.Cap += o.Cap
	s.Running += o.Running
	s.Idle += o.Idle
	s.Waiting += o.Waiting
	s.Queued += o.Queued
	s.Paused = s.Paused || o.Paused
	s.Submitted += o.Submitted
	s.Completed += o.Completed
	s.Panicked += o.Panicked
	s.Rejected += o.Rejected
	s.Dropped += o.Dropped
}
