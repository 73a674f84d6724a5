package ants

import (
	"math/bits"
	"sync"
)

// The worker side of a WorkerPool: what a worker goroutine does with each
// task (runTask) and as it exits (closeWorker). Both run on the worker's
// own goroutine, which alone touches its goWorker's local field, so a
// Worker's calls never overlap and need no lock.

// runTask is the WorkerPool's fn: it runs t on the Worker of w's goroutine,
// making the Worker first if the goroutine has none yet.
func (p *WorkerPool[T, R]) runTask(w *goWorker[workerTask[T, R]], t workerTask[T, R]) {
	if err := t.ctx.Err(); err != nil {
		// The caller gave up while the task waited in the ring or the
		// buffer: no Worker sees arg, and none is made for it.
		var zero R
		t.out.finish(zero, err)
		return
	}
	// runWrapped catches a panic of newWorker or of the Worker, and
	// runtime.Goexit; returned tells those apart from a normal return.
	returned := false
	runWrapped(wrapperRun{}, func() (R, error) {
		v, err := p.process(w, t)
		returned = true
		return v, err
	}, func(v R, err error) {
		if !returned {
			// The caller is answered even if the Worker's Close, which
			// fail may run, calls runtime.Goexit.
			defer t.out.finish(v, err)
			p.fail(w, err.(*PanicError))
			return
		}
		t.out.finish(v, err)
	})
}

// process runs t on the Worker of w's goroutine, which it makes first if
// there is none. A newWorker that returns nil makes the task a panic, which
// leaves the goroutine as it is.
func (p *WorkerPool[T, R]) process(w *goWorker[workerTask[T, R]], t workerTask[T, R]) (R, error) {
	s, _ := w.local.(*workerState[T, R])
	if s == nil {
		if s = p.startWorker(w); s == nil {
			w.panicked = true // a panic of this task, for the observer and Stats
			var zero R
			return zero, newPanicError(errNilWorker)
		}
	}
	return s.w.Process(t.ctx, t.arg)
}

// startWorker makes the Worker of w's goroutine, with the smallest free id,
// and keeps it in w.local. It returns nil if newWorker returned nil; if
// newWorker panics or calls runtime.Goexit, the panic goes on to runTask's
// runWrapped. Either way no Worker exists and the id is free again.
func (p *WorkerPool[T, R]) startWorker(w *goWorker[workerTask[T, R]]) (s *workerState[T, R]) {
	id := p.ids.take()
	defer func() {
		if s == nil {
			p.ids.put(id)
		}
	}()
	if wk := p.newWorker(id); wk != nil {
		s = &workerState[T, R]{id: id, w: wk}
		w.local = s
	}
	return s
}

// fail settles the task whose newWorker or Worker.Process panicked, or
// called runtime.Goexit (pe.Value is errGoexit), before its caller is
// answered with pe. It runs on w's goroutine, within runTask's runWrapped.
func (p *WorkerPool[T, R]) fail(w *goWorker[workerTask[T, R]], pe *PanicError) {
	if pe.Value != errGoexit {
		// The Worker's state may be broken: the goroutine retires after
		// this task, and the engine's onExit closes the Worker. The panic
		// is the caller's error; the PanicHandler does not see it, but
		// the pool counts the task as panicked (afterTask).
		w.retire = true
		w.panicked = true
		return
	}
	// runtime.Goexit: the goroutine ends through the engine's panic path,
	// which gives up its place in the bound, so that a new worker may
	// start, before it calls onExit. Close the Worker now, so that its id
	// is free before a new worker can need one.
	p.closeWorker(w)
}

// closeWorker closes the Worker of w's goroutine, if it has one, and then
// frees its id. It is the pool's onExit hook: the engine calls it on the
// goroutine as it exits, while it still holds its place in the goroutine
// bound. A panic in Close is reported as a task's panic is (PanicHandler,
// else Logger), and the worker exits all the same; so is a runtime.Goexit
// in Close, with the value of an error that says so, and the goroutine
// then ends through runTasks, which counts it out (exitedInHook, or
// exitFailed on the panic path).
func (p *WorkerPool[T, R]) closeWorker(w *goWorker[workerTask[T, R]]) {
	s, _ := w.local.(*workerState[T, R])
	if s == nil {
		return
	}
	w.local = nil
	runWrapped(wrapperRun{}, func() (struct{}, error) { s.w.Close(); return struct{}{}, nil },
		func(_ struct{}, err error) {
			// The id is free whatever Close did, and before the handler,
			// the user's code too, runs.
			p.ids.put(s.id)
			if pe, ok := err.(*PanicError); ok {
				p.handlePanic(pe.Value, pe.Stack)
			}
		})
}

// idSet hands out the smallest integer that it does not hold. A
// WorkerPool takes an id per Worker it makes and puts it back after the
// Worker's Close, so that ids are dense and reused. Only worker creation and
// exit use it, never a task that finds its Worker made, so one mutex is
// enough.
type idSet struct {
	mu    sync.Mutex
	words []uint64 // bit i%64 of words[i/64] is set while i is held
	first int      // every word before first is full
}

// take returns the smallest id not held, and holds it.
func (s *idSet) take() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.first
	for i < len(s.words) && s.words[i] == ^uint64(0) {
		i++
	}
	if i == len(s.words) {
		s.words = append(s.words, 0)
	}
	b := bits.TrailingZeros64(^s.words[i])
	s.words[i] |= 1 << b
	s.first = i
	return i*64 + b
}

// put frees id, which must be held.
func (s *idSet) put(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := id / 64
	s.words[i] &^= 1 << (id % 64)
	s.first = min(s.first, i)
}
