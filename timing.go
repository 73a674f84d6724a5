package ants

import (
	"context"
	"time"
)

// Task timing, for the Observer: the engine stamps each task when it is
// submitted and times it on its worker; wrappers that run a task of their
// own on a pool (Go, groups, streams, Keyed, Subpool) time it themselves
// and submit it stamped self, so that the pool does not report it twice.

// taskStamp travels with a task through the ring when the pool is timed.
type taskStamp struct {
	at   int64 // nanotime of the submit call
	cap  int32 // the capacity when the pool accepted the task
	self bool  // the task reports its own times (selfTimedSubmitter)
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
	if w.panicked {
		w.ran = -1 // not a sample for the adaptive capacity
	}
	w.panicked = false
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

// selfTimedSubmitter is implemented by the package's Submitters (*Pool,
// *MultiPool, *Subpool): a wrapper that times its tasks itself finds the
// observer through it and submits tasks that the pool does not report.
type selfTimedSubmitter interface {
	// observer returns the observer of the pool the tasks run on, or nil.
	observer() Observer
	// submitSelfTimed submits a task that reports its own times. ctx is
	// not nil.
	submitSelfTimed(ctx context.Context, task func(), try bool) error
}

// observerOf returns the observer tasks submitted to s report to, or nil if
// s has none or is not one of the package's Submitters.
func observerOf(s Submitter) Observer {
	if t, ok := s.(selfTimedSubmitter); ok {
		return t.observer()
	}
	return nil
}

func (p *poolCore[T]) observer() Observer { return p.obs }

// submitSelfTimed submits task stamped self, with SubmitContext's or
// TrySubmit's checks; see selfTimedSubmitter.
func (p *Pool) submitSelfTimed(ctx context.Context, task func(), try bool) error {
	ctx, err := p.checkContext(ctx)
	if err != nil {
		return err
	}
	return p.submitStamped(ctx, task, try, taskStamp{self: true})
}

func (m *multiCore[T]) observer() Observer { return m.pools[0].obs }

// submitSelfTimed submits task stamped self; see selfTimedSubmitter.
func (mp *MultiPool) submitSelfTimed(ctx context.Context, task func(), try bool) error {
	return mp.submitStamped(ctx, task, try, taskStamp{self: true})
}

func (s *Subpool) observer() Observer { return s.obs }

// submitSelfTimed submits task as a task that reports its own times; see
// selfTimedSubmitter.
func (s *Subpool) submitSelfTimed(ctx context.Context, task func(), try bool) error {
	return s.submit(ctx, task, try, true)
}

// wrapperTimer times one task that a wrapper (Go, a group, a stream, Keyed,
// Subpool) runs on a pool, for the observer of that pool. It is made at the
// wrapper's submit call, so the wait it reports includes the time the task
// spent in the wrapper's own queue. The zero value, for a pool without an
// observer, reads no clock and reports nothing.
type wrapperTimer struct {
	obs       Observer
	submitted int64
}

// timerFor returns the timer of a task submitted to s now.
func timerFor(s Submitter) wrapperTimer {
	if obs := observerOf(s); obs != nil {
		return wrapperTimer{obs, nanotime()}
	}
	return wrapperTimer{}
}

// start returns the time the task starts, if it is timed.
func (t wrapperTimer) start() int64 {
	if t.obs == nil {
		return 0
	}
	return nanotime()
}

// done reports a task that started at start and ended now.
func (t wrapperTimer) done(start int64, panicked bool) {
	if t.obs != nil {
		t.obs.TaskDone(time.Duration(start-t.submitted), time.Duration(nanotime()-start), panicked)
	}
}

// doneErr is done for a task whose outcome is err: it panicked if err is
// the *PanicError recoverPanic made of its panic.
func (t wrapperTimer) doneErr(start int64, err error) {
	if t.obs != nil {
		_, panicked := err.(*PanicError)
		t.done(start, panicked)
	}
}

// submitContext submits task to s with ctx, as s.SubmitContext does; a
// timed task is submitted self-timed, so that the pool does not report it
// too.
func (t wrapperTimer) submitContext(s Submitter, ctx context.Context, task func()) error {
	if t.obs != nil {
		return s.(selfTimedSubmitter).submitSelfTimed(ctx, task, false)
	}
	return s.SubmitContext(ctx, task)
}

// trySubmit is submitContext for TrySubmit.
func (t wrapperTimer) trySubmit(s TrySubmitter, task func()) error {
	if t.obs != nil {
		return s.(selfTimedSubmitter).submitSelfTimed(context.Background(), task, true)
	}
	return s.TrySubmit(task)
}

// wrap returns task timed by t, for a wrapper that runs the tasks it is
// given inside a call of its own (Keyed's runner): a panic is reported as
// such and goes on.
func (t wrapperTimer) wrap(task func()) func() {
	if t.obs == nil {
		return task
	}
	return func() {
		start := nanotime()
		panicked := true
		defer func() { t.done(start, panicked) }()
		task()
		panicked = false
	}
}
