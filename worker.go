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

	// lastUsed is the pool tick at which the worker last went idle; guarded
	// by the pool's lock.
	lastUsed int64

	// stop tells an idle worker that its wake-up is the order to exit. It
	// is set under the pool's lock before the wake-up is sent, so the
	// worker may read it after receiving.
	stop bool
}

// wake wakes w, a worker detached from the idle queue; a nil w is a no-op.
func (w *goWorker[T]) wake() {
	if w != nil {
		w.ch <- struct{}{}
	}
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
			p.failed()
		}
		p.workerExited(w)
	}()
	for {
		if tp := w.exec(arg); tp != nil {
			// As in ants, a panic ends the worker, and it has left Running
			// by the time the handler runs; the capacity it held goes at
			// once to waiting callers and buffered tasks.
			p.failed()
			retired = true
			p.handlePanic(tp)
			return
		}
		var ok bool
		if arg, ok = p.afterTask(w); !ok {
			retired = true // afterTask counted it out
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
