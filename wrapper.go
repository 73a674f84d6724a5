package ants

import (
	"context"
	"errors"
	"time"
)

// The wrappers (Go, Group and ResultGroup, Stream, Keyed, Subpool) run the
// tasks they are given inside tasks of their own on a pool, through any
// Submitter. This file is what they share: how such a pool task is
// submitted (wrapperRun's submitContext and trySubmit), and how it runs the
// wrapper's task (runWrapped), which times it for the pool's observer,
// catches its panic, records the outcome and, on the package's own pools,
// tells the worker that the task panicked (panicMark).

// wrapperRun is how one task of a wrapper runs on a pool: whether and from
// when it is timed for the pool's observer, and what becomes of its panic.
// The zero value times nothing and keeps a caught panic to the wrapper.
type wrapperRun struct {
	obs       Observer // the observer of the pool below; nil: not timed
	submitted int64    // nanotime of the wrapper's submit call, if obs is set
	onPanic   panicWay

	// drops is set if the pool below may drop the task before it runs
	// (overload control, overload.go); x then carries what the wrapper
	// does if it does (dropped).
	drops bool
	x     *taskExtra
}

// dropped sets what becomes of the task if the pool below drops it before
// it runs: onDrop is called with the drop's error. It does nothing if the
// pool below drops nothing, so that the closure need not be made.
func (r *wrapperRun) dropped(onDrop func(error)) {
	if r.drops {
		r.x = &taskExtra{onDrop: onDrop}
	}
}

// panicWay is what becomes of a panic of a wrapper's task once runWrapped
// has recorded it.
type panicWay uint8

const (
	// panicKept: runWrapped returns, and the pool below is told nothing
	// (a Submitter of the user's own), or is told later by the pool task
	// (Keyed's runner), or never (a Stream's callbacks, a Worker's Close),
	// or by the engine's fn itself (WorkerPool).
	panicKept panicWay = iota

	// panicMarked: runWrapped then panics with panicMark, which tells the
	// worker below that its task panicked (see markPanicked).
	panicMarked

	// panicPassed: the panic is not caught but goes on to the pool below,
	// whose PanicHandler sees it (a Subpool's own tasks).
	panicPassed
)

// panicMark is the value a wrapper's pool task panics with, once the
// wrapper has recorded the panic of its task as a *PanicError, to tell the
// worker of the package's pool below that the task panicked. The worker
// recognises it (goWorker.run): it counts the task in Stats.Panicked, does
// not call the PanicHandler, and goes on with its next task. Each Subpool
// on the way counts it in its own Panicked. Only the package's code sees
// it: wrappers raise it only on the package's own Submitters (marksPanics).
type panicMark struct{}

// markPanicked tells the worker running the calling pool task that a task
// of the wrapper panicked, and that the wrapper has reported it. It does
// not return.
func markPanicked() { panic(panicMark{}) }

// errPanicking is what record gets from runWrapped for a task whose panic,
// or runtime.Goexit, goes on to the pool below (panicPassed).
var errPanicking = errors.New("ants: task panicked")

// runWrapped runs fn, a task a wrapper was given, on the worker of the
// wrapper's pool task that calls it; it is the one place where such a task
// runs and where its panic is caught. It times fn for w's observer, from
// the wrapper's submit call, and hands the outcome to record: fn's results,
// or R's zero value and a *PanicError if fn panicked or called
// runtime.Goexit. It reports whether fn panicked. It is runUnwinding
// without unwinding.
func runWrapped[R any](w wrapperRun, fn func() (R, error), record func(R, error)) (panicked bool) {
	return runUnwinding(w, fn, record, nil)
}

// runUnwinding is runWrapped, with unwinding for what the caller does after
// it returns when it does not return.
//
// record is called exactly once, whatever fn does: the outcome is recorded
// before anything else learns of a panic. Then, as w.onPanic says,
// runUnwinding returns, or tells the worker (panicMarked). With
// panicPassed, nothing is caught: record gets errPanicking and the panic
// goes on.
//
// runUnwinding does not return when fn calls runtime.Goexit, which cannot
// be stopped, when fn's panic goes on (panicPassed), or when the observer's
// TaskDone panics or calls runtime.Goexit (fn's outcome then stands, and
// the observer's panic goes on to the worker). In each of these unwinding,
// if not nil, runs after record, before the goroutine unwinds any further:
// it is where the caller finishes what it would have done after the call,
// such as a Keyed running its key's next tasks or a Stream its next
// callbacks, so that nothing the wrapper accepted is stranded by a
// goroutine that ends. A panic that runUnwinding recovered (panicKept)
// returns as usual, and a panicMark is the package's own: neither runs
// unwinding.
func runUnwinding[R any](w wrapperRun, fn func() (R, error), record func(R, error), unwinding func()) (panicked bool) {
	start := w.start()
	var (
		v        R
		err      error
		returned bool // fn returned
		recorded bool // record has been called
	)
	// Deferred first, so that it runs last: whatever escapes the deferred
	// call below (fn's Goexit or passed panic, the observer's panic or
	// Goexit) still records the outcome and unwinds the caller first.
	defer func() {
		if recorded {
			return
		}
		recorded = true
		record(v, err)
		if unwinding != nil {
			unwinding()
		}
	}()
	defer func() {
		if returned {
			return // the observer's panic, if any, is left to the defer above
		}
		var r any
		if w.onPanic != panicPassed {
			r = recover()
		}
		switch {
		case w.onPanic == panicPassed:
			err = errPanicking
		case r == nil: // runtime.Goexit, which recover does not stop
			err = newPanicError(errGoexit)
		default:
			err = newPanicError(r)
		}
		w.done(start, true)
		if r == nil {
			return // Goexit or a passed panic: recorded and unwound above
		}
		recorded = true
		record(v, err)
		panicked = true
		if w.onPanic == panicMarked {
			markPanicked()
		}
	}()
	v, err = fn()
	returned = true
	w.done(start, false)
	recorded = true
	record(v, err)
	return false
}

// submitGuarded calls submit, which hands a wrapper's pool task to a
// Submitter, and returns its error. A Submitter of the user's own may panic
// or call runtime.Goexit in its SubmitContext instead: undo then gets
// errSubmitterPanicked, so that the wrapper forgets the task it counted,
// and the panic or the Goexit goes on, untouched, to the wrapper's caller.
func submitGuarded(submit func() error, undo func(error)) error {
	returned := false
	defer func() {
		if !returned {
			undo(errSubmitterPanicked)
		}
	}()
	err := submit()
	returned = true
	return err
}

// errSubmitterPanicked is a wrapper's error for a task whose Submitter
// panicked or called runtime.Goexit in SubmitContext (submitGuarded).
var errSubmitterPanicked = errors.New("ants: the Submitter's SubmitContext panicked or called runtime.Goexit")

// runOn returns the wrapperRun of a task submitted to s now.
func runOn(s Submitter) wrapperRun {
	run := wrapperRun{obs: observerOf(s), onPanic: panicKept, drops: dropsOf(s)}
	if run.obs != nil {
		run.submitted = nanotime()
	}
	if marksPanics(s) {
		run.onPanic = panicMarked
	}
	return run
}

// marksPanics reports whether a pool task submitted to s reaches the
// package's worker with only the package's code on the way, so that it may
// tell the worker of a caught panic (panicMark): s is a *Pool, a *MultiPool
// or a *Subpool over one of these. A type of the user's own is not, even one
// that embeds a pool: its SubmitContext may wrap the task in a recover of
// its own, which must never see the mark.
func marksPanics(s Submitter) bool {
	switch s := s.(type) {
	case *Pool, *MultiPool:
		return true
	case *Subpool:
		return s.marks
	}
	return false
}

// start returns the time the task starts, if it is timed.
func (r wrapperRun) start() int64 {
	if r.obs == nil {
		return 0
	}
	return nanotime()
}

// done reports a task that started at start and ended now.
func (r wrapperRun) done(start int64, panicked bool) {
	if r.obs != nil {
		r.obs.TaskDone(time.Duration(start-r.submitted), time.Duration(nanotime()-start), panicked)
	}
}

// submitContext submits task to s with ctx, as s.SubmitContext does; a
// timed task is submitted self-timed, so that the pool does not report it
// too.
func (r wrapperRun) submitContext(s Submitter, ctx context.Context, task func()) error {
	if r.obs != nil || r.x != nil {
		return s.(ownSubmitter).submitWrapped(ctx, task, false, r.obs != nil, r.x)
	}
	return s.SubmitContext(ctx, task)
}

// trySubmit is submitContext for TrySubmit: the caller never waits. On the
// package's own Submitters ctx still goes with the task, for its priority
// level, which orders it if it lands in a buffer; a TrySubmitter of the
// user's own has no way to receive a level.
func (r wrapperRun) trySubmit(s TrySubmitter, ctx context.Context, task func()) error {
	if own, ok := s.(ownSubmitter); ok {
		return own.submitWrapped(ctx, task, true, r.obs != nil, r.x)
	}
	return s.TrySubmit(task)
}

// ownSubmitter is implemented by the package's Submitters (*Pool,
// *MultiPool, *Subpool): a wrapper finds the observer through it, submits
// tasks that time themselves, which the pool then does not report, and
// passes a context, for its level, even where it does not wait.
type ownSubmitter interface {
	// observer returns the observer of the pool the tasks run on, or nil.
	observer() Observer
	// submitWrapped submits task with ctx, which is not nil; it never waits
	// if try is set, and the task reports its own times if self is set. x,
	// if not nil, says what becomes of the task if it is dropped.
	submitWrapped(ctx context.Context, task func(), try, self bool, x *taskExtra) error
	// drops reports whether the pool the tasks run on may drop them
	// before they run (overload control).
	drops() bool
}

// dropsOf reports whether s is one of the package's Submitters whose pool
// may drop a task before it runs.
func dropsOf(s Submitter) bool {
	if t, ok := s.(ownSubmitter); ok {
		return t.drops()
	}
	return false
}

func (p *poolCore[T]) drops() bool { return p.ovl != nil }

func (m *multiCore[T]) drops() bool { return m.pools[0].ovl != nil }

// observerOf returns the observer tasks submitted to s report to, or nil if
// s has none or is not one of the package's Submitters.
func observerOf(s Submitter) Observer {
	if t, ok := s.(ownSubmitter); ok {
		return t.observer()
	}
	return nil
}

func (p *poolCore[T]) observer() Observer { return p.obs }

// wrappedStamp returns the stamp of a wrapper's task submitted to p now.
func (p *poolCore[T]) wrappedStamp(self bool) taskStamp {
	if self {
		st := taskStamp{self: true}
		if p.ovl != nil {
			st.at = p.clockNow() // for the overload rules
		}
		return st
	}
	return p.stampNow()
}

// submitWrapped submits task with SubmitContext's checks; see ownSubmitter.
func (p *Pool) submitWrapped(ctx context.Context, task func(), try, self bool, x *taskExtra) error {
	ctx, err := p.checkContext(ctx)
	if err != nil {
		return err
	}
	return p.submitStamped(ctx, task, try, p.wrappedStamp(self), x)
}

func (m *multiCore[T]) observer() Observer { return m.pools[0].obs }

// submitWrapped submits task; see ownSubmitter.
func (mp *MultiPool) submitWrapped(ctx context.Context, task func(), try, self bool, x *taskExtra) error {
	return mp.submitStamped(ctx, task, try, mp.pools[0].wrappedStamp(self), x)
}

func (s *Subpool) observer() Observer { return s.obs }

// submitWrapped submits task; see ownSubmitter.
func (s *Subpool) submitWrapped(ctx context.Context, task func(), try, self bool, x *taskExtra) error {
	return s.submit(ctx, task, try, self, x)
}
