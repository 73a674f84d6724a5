package ants

import (
	"context"
	"sync"
)

// streamWindow bounds a Stream's memory: the tasks given to Go whose
// callback has not yet returned, running, waiting in the pool or finished and
// waiting for their turn. Go waits once this many are outstanding, so a slow
// early task holds back at most this many finished results, and no stream
// runs more than this many tasks at once. 1024 keeps the pools this package
// is usually given (tens to hundreds of workers) busy, while a stream whose
// first task hangs holds about 100 KiB of bookkeeping plus whatever its
// callbacks capture.
const streamWindow = 1024

// Stream runs tasks concurrently on a pool and their callbacks one at a
// time, in the order the tasks were given, as conc's stream package does:
// results computed in parallel can be written, in order, to a sink that is
// not safe for concurrent use. It starts no goroutine: callbacks run on the
// worker of the task that completes the oldest outstanding one, which runs
// every callback that is ready before it returns to the pool (or on the
// goroutine of a Go whose task was refused), and an idle stream holds
// nothing.
//
// A task that panics or calls runtime.Goexit has no callback; Wait reports
// it as a *PanicError, and the later callbacks run. So does a callback that
// panics. A callback that calls runtime.Goexit ends the goroutine it runs
// on, after running the callbacks ready after it; Wait reports it as a
// *PanicError.
//
// A Stream is created by NewStream. It is safe for concurrent use by
// multiple goroutines and must not be copied after first use. A task or
// callback must not call Go on its own stream: once the window is full that
// waits for itself.
type Stream struct {
	pool Submitter

	// mu guards every field below.
	mu sync.Mutex
	// room is signalled (Broadcast) whenever a callback has returned: Go
	// waits on it for a place in the window, Wait for outstanding to reach
	// zero.
	room sync.Cond
	// head..tail is the list of outstanding tasks, in the order of Go; a
	// task leaves it when its callback is about to run.
	head, tail *streamItem
	// outstanding counts the tasks given to Go whose callback has not
	// returned: the list, plus the callback running. Never above
	// streamWindow.
	outstanding int
	// draining is set while a goroutine runs callbacks; only that goroutine
	// removes items from the list.
	draining bool
	err      error // the first error: a refusal, or a task's or callback's panic
}

// streamItem is one task of a stream. Its fields are guarded by the
// stream's mu.
type streamItem struct {
	next     *streamItem
	callback func() // set when finished; nil: nothing to call
	finished bool   // the task has returned, panicked or been refused
}

// NewStream returns a Stream that runs its tasks on p; a nil p panics.
func NewStream(p Submitter) *Stream {
	mustSubmitter(p)
	s := &Stream{pool: p}
	s.room.L = &s.mu
	return s
}

// Go runs task on the pool; the func it returns, its callback, is called
// after it, in the order of the Go calls and never at the same time as
// another callback of the stream; a nil callback is skipped. Go first waits
// while 1024 tasks' callbacks have not returned, then for the pool's
// capacity. A task refused, dropped, nil (ErrNilTask) or panicking has no
// callback but keeps its place; Wait reports the first such error, and the
// first panic of a callback (not counted in Stats, as a callback is not a
// task).
func (s *Stream) Go(task func() func()) {
	it := new(streamItem)
	s.mu.Lock()
	for s.outstanding >= streamWindow {
		s.room.Wait()
	}
	s.outstanding++
	if s.tail == nil {
		s.head = it
	} else {
		s.tail.next = it
	}
	s.tail = it
	s.mu.Unlock()

	if task == nil {
		s.finish(it, nil, ErrNilTask)
		return
	}
	run := runOn(s.pool)
	refused := func(err error) { s.finish(it, nil, err) }
	run.dropped(refused)
	if err := submitGuarded(func() error {
		return run.submitContext(s.pool, context.Background(), func() {
			runWrapped(run, func() (func(), error) { return task(), nil }, func(cb func(), err error) {
				s.finish(it, cb, err)
			})
		})
	}, refused); err != nil {
		refused(err)
	}
}

// Wait waits until every task given to Go so far has run, and its callback,
// and returns the first error, or nil, which it keeps reporting; call it
// once all calls to Go have been made. The stream may then be used again.
func (s *Stream) Wait() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.outstanding > 0 {
		s.room.Wait()
	}
	return s.err
}

// finish marks it finished with callback cb and error err; then, unless
// another goroutine is at it, runs the callbacks of the finished tasks at the
// head of the list, in order, until the head is a task still running.
//
// Whoever finishes the head drains: the check of draining and of the head,
// and the change of draining, are made under mu, so a task that finishes
// while the drainer runs a callback is seen by the drainer when it relocks.
func (s *Stream) finish(it *streamItem, cb func(), err error) {
	s.mu.Lock()
	s.record(err)
	it.callback, it.finished = cb, true
	if s.draining || !s.head.finished {
		s.mu.Unlock()
		return
	}
	s.draining = true
	s.drain()
}

// drain runs the callbacks of the finished tasks at the head of the list,
// in order, until the head is a task still running, and then stops
// draining. It requires s.mu held and draining set by this goroutine, and
// returns with s.mu unlocked.
//
// A callback that calls runtime.Goexit ends the goroutine, and drain does
// not return; the callbacks after it run on the way out (runUnwinding's
// unwinding), so that the stream still drains.
func (s *Stream) drain() {
	for s.head != nil && s.head.finished {
		h := s.head
		s.head = h.next
		if s.head == nil {
			s.tail = nil
		}
		s.mu.Unlock()
		if cb := h.callback; cb != nil {
			// A callback is not a task: its panic is the stream's error
			// alone (panicKept, the zero wrapperRun).
			runUnwinding(wrapperRun{}, func() (struct{}, error) { cb(); return struct{}{}, nil },
				s.called, s.drain)
		} else {
			s.called(struct{}{}, nil)
		}
	}
	s.draining = false
	s.mu.Unlock()
}

// called counts a callback as returned, with err its outcome. It locks s.mu
// and returns with it held, for drain.
func (s *Stream) called(_ struct{}, err error) {
	s.mu.Lock()
	s.record(err)
	s.outstanding--
	s.room.Broadcast()
}

// record keeps err if it is the first. It requires s.mu held.
func (s *Stream) record(err error) {
	if err != nil && s.err == nil {
		s.err = err
	}
}
