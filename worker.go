package ants

import "runtime/debug"

// goWorker is one pooled goroutine. It runs the task it was started with,
// then asks the pool for more (afterTask): a buffered task or a waiting
// caller's task if there is one, otherwise it parks in the pool's idle queue
// until Submit hands it a task through args, or the pool tells it to stop.
// One goWorker[T] serves every pool kind: T is func() for Pool and the
// argument type for the function pools.
type goWorker[T any] struct {
	pool *poolCore[T]

	// args carries the next task to an idle worker. Its capacity of 1 makes
	// the hand-off in Submit non-blocking even if the worker has not parked
	// yet: a worker receives at most one task per idle period, because the
	// pool detaches it from the idle queue before sending.
	args chan T

	// lastUsed is the pool tick at which the worker last went idle; guarded
	// by the pool's lock.
	lastUsed int64

	// stop tells an idle worker that the value it receives is not a task
	// but the order to exit. It is set under the pool's lock before the
	// value is sent, so the worker may read it after receiving.
	stop bool
}

// run is the body of the worker goroutine. It returns when the pool stops
// the worker (purge, Release, a shrinking Tune) and reports its exit to the
// pool, which is how ReleaseTimeout knows that no goroutine is left.
func (w *goWorker[T]) run(arg T) {
	p := w.pool
	clean := false
	// If the task calls runtime.Goexit (t.FailNow, for one), it neither
	// returns nor panics, and the goroutine ends here with clean unset.
	defer func() { p.workerExited(w, !clean) }()
	for {
		panicked := w.exec(arg)
		var ok bool
		if arg, ok = p.afterTask(w, panicked); !ok {
			clean = true
			return
		}
	}
}

// exec runs one task and recovers its panic, so that the worker, and the
// pool's capacity, survive it.
func (w *goWorker[T]) exec(arg T) (panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			panicked = true
			w.pool.handlePanic(r)
		}
	}()
	w.pool.fn(arg)
	return false
}

func (p *poolCore[T]) handlePanic(r any) {
	if h := p.opts.PanicHandler; h != nil {
		h(r)
		return
	}
	p.opts.Logger.Printf("task panicked: %v\n%s", r, debug.Stack())
}
