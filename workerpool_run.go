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
	var zero R
	if err := t.ctx.Err(); err != nil {
		// The caller gave up while the task waited in the ring or the
		// buffer: no Worker sees arg, and none is made for it.
		t.out.finish(zero, err)
		return
	}
	// One deferred call per task catches panics of newWorker and of the
	// Worker, and runtime.Goexit, which recover does not see: done tells
	// it apart from a normal return.
	done := false
	defer func() {
		if !done {
			p.fail(w, t.out, recover())
		}
	}()
	s, _ := w.local.(*workerState[T, R])
	if s == nil {
		if s = p.startWorker(w); s == nil {
			done = true
			w.panicked = true // a panic of this task, for the observer
			t.out.finish(zero, newPanicError(errNilWorker))
			return
		}
	}
	v, err := s.w.Process(t.ctx, t.arg)
	done = true
	t.out.finish(v, err)
}

// startWorker makes the Worker of w's goroutine, with the smallest free id,
// and keeps it in w.local. It returns nil if newWorker returned nil; if
// newWorker panics or calls runtime.Goexit, the panic goes on to runTask's
// deferred call. Either way no Worker exists and the id is free again.
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

// fail answers the task whose newWorker or Worker.Process panicked with
// value r, or called runtime.Goexit (r == nil). It runs on w's goroutine,
// from runTask's deferred call.
func (p *WorkerPool[T, R]) fail(w *goWorker[workerTask[T, R]], out resultSink[R], r any) {
	var zero R
	if r != nil {
		// The Worker's state may be broken: the goroutine retires after
		// this task, and the engine's onExit closes the Worker. The panic
		// is the caller's error; the PanicHandler does not see it.
		w.retire = true
		w.panicked = true // for the observer
		out.finish(zero, newPanicError(r))
		return
	}
	// runtime.Goexit: the goroutine ends through the engine's panic path,
	// which gives up its place in the bound, so that a new worker may
	// start, before it calls onExit. Close the Worker now, so that its id
	// is free before a new worker can need one.
	p.closeWorker(w)
	out.finish(zero, newPanicError(errGoexit))
}

// closeWorker closes the Worker of w's goroutine, if it has one, and then
// frees its id. It is the pool's onExit hook: the engine calls it on the
// goroutine as it exits, while it still holds its place in the goroutine
// bound. A panic in Close is reported as a task's panic is (PanicHandler,
// else Logger), and the worker exits all the same.
func (p *WorkerPool[T, R]) closeWorker(w *goWorker[workerTask[T, R]]) {
	s, _ := w.local.(*workerState[T, R])
	if s == nil {
		return
	}
	w.local = nil
	if err := callFunc(s.w.Close); err != nil {
		pe := err.(*PanicError) // callFunc returns nothing else
		p.handlePanic(pe.Value, pe.Stack)
	}
	p.ids.put(s.id)
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
