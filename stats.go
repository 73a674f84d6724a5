package ants

// Stats is a snapshot of a pool's state and counters. When the pool is
// quiet (no task running or waiting), Submitted == Completed + Panicked.
type Stats struct {
	Cap     int // capacity, -1 if unlimited; a MultiPool's is the sum of its member pools' (-N for N unlimited ones), as its Cap()
	Running int // workers, busy or idle, as Running()
	Idle    int // workers parked waiting for a task
	Waiting int // callers blocked in Submit or Invoke
	Queued  int // tasks in the task buffer: accepted, with no worker slot free for them yet

	Submitted uint64 // tasks accepted: their submit call returned nil
	Completed uint64 // tasks that returned
	Panicked  uint64 // tasks that panicked (or called runtime.Goexit)
	Rejected  uint64 // submit calls that returned an error
}

// add accumulates o into s, for MultiPool aggregates.
func (s *Stats) add(o Stats) {
	s.Cap += o.Cap
	s.Running += o.Running
	s.Idle += o.Idle
	s.Waiting += o.Waiting
	s.Queued += o.Queued
	s.Submitted += o.Submitted
	s.Completed += o.Completed
	s.Panicked += o.Panicked
	s.Rejected += o.Rejected
}
