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
// the worker (purge, Release, a shrinking Tune) or a task panics, and
// reports its exit to the pool, which is how ReleaseTimeout knows that no
// goroutine is left.
func (w *goWorker[T]) run(arg T) {
	p := w.pool
	retired := false
	defer func() {
		if !retired {
			// The task called runtime.Goexit (t.FailNow, for one): it
			// neither returned nor panicked, and the goroutine ends here.
			p.retire(w, true)
		}
		p.workerExited(w)
	}()
	for {
		if tp := w.exec(arg); tp != nil {
			// As in ants, a panic ends the worker, and it has left Running
			// by the time the handler runs; the capacity it held goes at
			// once to waiting callers and buffered tasks.
			p.retire(w, true)
			retired = true
			p.handlePanic(tp)
			return
		}
		var ok bool
		if arg, ok = p.afterTask(w); !ok {
			retired = true // afterTask retired it
			return
		}
	}
}

// taskPanic is a recovered panic: its value, and its stack when the logger
// is to print it.
type taskPanic struct {
	value any
	stack []byte
}

// exec runs one task and recovers its panic.
func (w *goWorker[T]) exec(arg T) (tp *taskPanic) {
	defer func() {
		if r := recover(); r != nil {
			tp = &taskPanic{value: r}
			if w.pool.opts.PanicHandler == nil {
				tp.stack = debug.Stack() // the panicking stack is gone after exec
			}
		}
	}()
	w.pool.fn(arg)
	return nil
}

func (p *poolCore[T]) handlePanic(tp *taskPanic) {
	if h := p.opts.PanicHandler; h != nil {
		h(tp.value)
		return
	}
	p.opts.Logger.Printf("worker exits from panic: %v\n%s", tp.value, tp.stack)
}
