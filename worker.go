package ants

import "runtime/debug"

// goWorker is one pooled goroutine. It runs the task it was started with,
// then takes the next from the pool's ring (afterTask); when the ring is
// empty it parks in the pool's idle queue until the pool wakes it to look
// again, or tells it to stop. One goWorker[T] serves every pool kind: T is
// func() for Pool and the argument type for the function pools.
type goWorker[T any] struct {
	pool *poolCore[T]

	// ch wakes a parked worker. Its capacity of 1 makes the wake-up
	// non-blocking even if the worker has not parked yet: a worker gets at
	// most one wake-up per idle period, because the pool detaches it from
	// the idle queue before sending.
	ch chan struct{}

	// nextWake links the workers kickLocked woke at once; guarded by the
	// pool's lock until the wake-up.
	nextWake *goWorker[T]

	// lastUsed is the pool tick at which the worker last went idle; guarded
	// by the pool's lock.
	lastUsed int64

	// stop tells an idle worker that its wake-up is the order to exit. It
	// is set under the pool's lock before the wake-up is sent, so the
	// worker may read it after receiving.
	stop bool

	// local is state a pool kind keeps for the life of this worker (a
	// WorkerPool's Worker); only the worker's goroutine uses it, and the
	// pool clears it when the worker exits.
	local any

	// retire, set by a task on its own worker's goroutine, makes the worker
	// exit after the task instead of taking the next one.
	retire bool

	// The timing of the current task, if the pool is timed (timing.go):
	// its stamp, when it started (0: not yet read), and whether it is
	// running. panicked is
	// set by a task whose panic its pool kind caught, so that the observer
	// is told. Only the worker's goroutine uses them, but for stamp, which
	// takeLocked sets under the pool's lock before the worker runs the task.
	stamp    taskStamp
	start    int64
	inTask   bool
	panicked bool
}

// wake wakes w, a worker detached from the idle queue, and the workers
// linked from it by nextWake; a nil w is a no-op.
func (w *goWorker[T]) wake() {
	for w != nil {
		next := w.nextWake
		w.nextWake = nil
		w.ch <- struct{}{}
		w = next
	}
}

// run is the body of the worker goroutine. It returns when the pool stops
// the worker (purge, Release, a shrinking Tune) or a task panics, and
// reports its exit to the pool, which is how ReleaseTimeout knows that no
// goroutine is left.
//
// Since a panic ends its worker, as in ants, one deferred recover around
// the whole loop serves every task, instead of one per task.
func (w *goWorker[T]) run(arg T) {
	p := w.pool
	exited := false
	defer func() {
		if exited {
			w.start = 0
			p.workerCache.Put(w)
			return
		}
		// The task panicked, or called runtime.Goexit (t.FailNow, for
		// one), which neither returns nor panics. As in ants, the worker
		// ends, and it has left Running and the goroutine bound by the
		// time the panic handler runs; the capacity it held goes at once
		// to waiting callers and buffered tasks.
		r := recover()
		if p.timed {
			p.observePanic(w)
		}
		var stack []byte
		if r != nil && p.opts.PanicHandler == nil {
			stack = debug.Stack() // the panicking stack is gone after this call
		}
		p.failed()
		if r != nil {
			p.handlePanic(r, stack)
		}
		if p.onExit != nil {
			p.onExit(w)
		}
		w.local, w.retire, w.start = nil, false, 0
		p.workerCache.Put(w)
		p.exited()
	}()
	for {
		if p.timed {
			p.runTimed(w, arg)
		} else {
			p.fn(w, arg)
		}
		var ok bool
		if arg, ok = p.afterTask(w); !ok {
			exited = true // afterTask counted it out
			return
		}
	}
}

// handlePanic reports the panic of a task, with value and, when the logger
// is to print it, the panicking stack.
func (p *poolCore[T]) handlePanic(value any, stack []byte) {
	if h := p.opts.PanicHandler; h != nil {
		h(value)
		return
	}
	logTaskPanic(p.opts.Logger, value, stack)
}
