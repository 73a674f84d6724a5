package ants

import (
	"context"
	"sync/atomic"
)

// Map calls fn on s for each value of seq, lazily, and yields the results in
// seq's order. A value is in flight from when seq hands it over until its
// pair is yielded, and Map takes the next only while fewer than window (at
// least 1) are in flight, so memory stays bounded and at most window calls
// of fn run at once. The result is an iter.Seq2[R, error], and seq may be
// any iter.Seq[T]; each range over the result runs seq again.
//
// Every value taken yields exactly one pair: fn's result and error, a
// *PanicError if fn panicked, or the error with which s refused or dropped
// its task. Once ctx is done, Map takes no more values, drops the pairs in
// flight and yields (zero, ctx.Err()) last. fn's ctx is derived from ctx and
// cancelled when the iteration ends; then, whatever ended it (exhaustion,
// break, a panic, ctx), no call of fn is running or will start. seq and the
// loop body run on the caller's goroutine, fn on the pool's workers, each
// value as one task of s submitted with fn's ctx. A nil s, seq or fn panics;
// a nil ctx is context.Background().
func Map[T, R any](ctx context.Context, s Submitter, window int,
	seq func(yield func(T) bool), fn func(ctx context.Context, v T) (R, error)) func(yield func(R, error) bool) {
	return newMap(ctx, s, window, seq, fn, true)
}

// MapUnordered is Map, yielding each pair as soon as its call of fn
// returns, in the order the calls return, instead of in seq's order.
func MapUnordered[T, R any](ctx context.Context, s Submitter, window int,
	seq func(yield func(T) bool), fn func(ctx context.Context, v T) (R, error)) func(yield func(R, error) bool) {
	return newMap(ctx, s, window, seq, fn, false)
}

// newMap checks the arguments of Map and MapUnordered and returns the
// sequence, each range of which is a mapRun of its own.
func newMap[T, R any](ctx context.Context, s Submitter, window int,
	seq func(yield func(T) bool), fn func(ctx context.Context, v T) (R, error), ordered bool) func(yield func(R, error) bool) {
	mustSubmitter(s)
	if seq == nil {
		panic("ants: Map with a nil seq")
	}
	if fn == nil {
		panic("ants: Map with a nil fn")
	}
	ctx = orBackground(ctx)
	window = max(window, 1)
	return func(yield func(R, error) bool) {
		m := &mapRun[T, R]{ctx: ctx, s: s, window: window, fn: fn, yield: yield, ordered: ordered}
		m.iterate(seq)
	}
}

// mapRun is one range over a Map's sequence. The caller's goroutine runs
// seq, and the loop body through yield, and is the only one to touch the
// fields up to notify; the pool's workers run the tasks (call), which share
// the atomic fields after it with the caller, without a lock.
//
// A value's place is a mapSlot: taken from free (or made, while fewer than
// window exist), it is in flight until its pair is yielded, and then goes
// back to free. Map keeps the places in flight in seq's order (order), and
// yields the oldest once it is done; MapUnordered yields them in the order
// they are done: a task pushes its place on finished, and the caller takes
// the whole stack at once and turns it over into ready.
type mapRun[T, R any] struct {
	ctx     context.Context // the caller's; never nil
	s       Submitter
	window  int
	fn      func(context.Context, T) (R, error)
	yield   func(R, error) bool
	ordered bool

	// fnCtx is fn's context, derived from ctx; cancel cancels it when the
	// iteration ends. fnDone is its Done channel, which a task reads
	// instead of calling fnCtx.Err.
	fnCtx  context.Context
	cancel context.CancelFunc
	fnDone <-chan struct{}
	run    wrapperRun // how the tasks run on s; submitted is set per value

	order    ring[*mapSlot[T, R]] // Map: the places in flight, in seq's order
	ready    *mapSlot[T, R]       // MapUnordered: done places taken from finished, in the order done
	free     *mapSlot[T, R]       // places whose pair was yielded, linked by next
	inflight int                  // places taken and not yet yielded, <= window
	stopped  bool                 // no more values are taken, no more pairs yielded
	broke    bool                 // the loop body returned false
	err      error                // ctx.Err(), once the iteration stopped for it
	over     bool                 // end has run

	// notify wakes the caller when it waits: for the place want (Map), for
	// any place (MapUnordered), or, once ended, for the last task to leave
	// active. It holds one token, so that a task never blocks on it.
	//
	// The caller sets want and waiting, then looks again at what it waits
	// for; a task makes its change, then looks at waiting. So one of them
	// sees the other's change: the task sends the token if it takes
	// waiting back (CompareAndSwap), and if the caller cannot take waiting
	// back itself, a token is coming, which it receives. A token left from
	// a wait given up for ctx is harmless: every wait looks again.
	notify  chan struct{}
	waiting atomic.Bool
	want    atomic.Pointer[mapSlot[T, R]]

	finished atomic.Pointer[mapSlot[T, R]] // MapUnordered: done places, the last done on top, linked by next

	// active counts the tasks that started and have not recorded their
	// outcome (or their skip); ended is set once the iteration has ended,
	// and a task that starts then does nothing. A task counts itself in
	// active, then looks at ended; end sets ended, then looks at active.
	// So either the task sees ended, or end waits for it to leave.
	active atomic.Int64
	ended  atomic.Bool
}

// mapSlot is the place of one value in flight, and the task that runs fn on
// it. It is made once and reused for value after value of one range: task
// is made with it.
type mapSlot[T, R any] struct {
	m    *mapRun[T, R]
	task func()         // the pool task: m.call(this place)
	run  wrapperRun     // the run of its current value, timed from its submit
	next *mapSlot[T, R] // in free or ready (the caller's), or in finished
	v    T              // the value, written by the caller before the submit

	// r and err are written by the task before it sets done (Map) or
	// pushes the place on finished (MapUnordered), and read by the caller
	// after it sees that.
	r    R
	err  error
	done atomic.Bool
}

// iterate is one range: it hands seq a yield that takes its values, then
// yields what is left; whichever way it ends, end waits for the calls in
// flight before iterate returns or a panic goes on.
func (m *mapRun[T, R]) iterate(seq func(yield func(T) bool)) {
	if err := m.ctx.Err(); err != nil {
		var zero R
		m.yield(zero, err)
		return
	}
	m.fnCtx, m.cancel = context.WithCancel(m.ctx)
	m.fnDone = m.fnCtx.Done()
	m.notify = make(chan struct{}, 1)
	m.run = runOn(m.s)
	defer m.end() // after a panic in seq or the loop body
	seq(m.take)
	if !m.stopped {
		m.flush(true)
	}
	m.end()
	if m.err != nil && !m.broke {
		var zero R
		m.yield(zero, m.err)
	}
}

// take is the yield seq calls with each value: it submits v's task, yields
// the pairs that are ready, and returns once fewer than window values are
// in flight, reporting whether seq may go on.
func (m *mapRun[T, R]) take(v T) bool {
	if m.stopped {
		return false
	}
	if err := m.ctx.Err(); err != nil {
		m.stop(err)
		return false
	}
	sl := m.slot()
	sl.v = v
	m.inflight++
	if m.ordered {
		m.order.push(sl)
	}
	sl.run = m.run
	if sl.run.obs != nil {
		sl.run.submitted = nanotime()
	}
	sl.run.dropped(func(err error) { m.dropped(sl, err) })
	if err := sl.run.submitContext(m.s, m.fnCtx, sl.task); err != nil {
		if cerr := m.ctx.Err(); cerr != nil { // gave up waiting for the pool
			m.stop(cerr)
			return false
		}
		m.record(sl, *new(R), err)
	}
	return m.flush(false)
}

// slot returns a free place, making one if none is free.
func (m *mapRun[T, R]) slot() *mapSlot[T, R] {
	if sl := m.free; sl != nil {
		m.free = sl.next
		sl.next = nil
		return sl
	}
	sl := &mapSlot[T, R]{m: m}
	sl.task = func() { m.call(sl) }
	return sl
}

// flush yields the pairs that are ready, in order, and waits for more while
// window values are in flight, or, if all is set, until none is. It reports
// whether the iteration goes on: false once the loop body has returned
// false or ctx is done.
func (m *mapRun[T, R]) flush(all bool) bool {
	for m.inflight > 0 {
		sl := m.next()
		if sl == nil {
			if !all && m.inflight < m.window {
				break
			}
			if !m.wait() {
				m.stop(m.ctx.Err())
				return false
			}
			continue
		}
		r, err := sl.r, sl.err
		m.release(sl)
		if cerr := m.ctx.Err(); cerr != nil {
			m.stop(cerr)
			return false
		}
		// stopped while the loop body runs: a seq that recovers its panic
		// and calls take again is refused.
		m.stopped = true
		if !m.yield(r, err) {
			m.broke = true
			return false
		}
		m.stopped = false
	}
	if err := m.ctx.Err(); err != nil { // done while the loop body ran: seq is asked for nothing more
		m.stop(err)
		return false
	}
	return true
}

// next removes and returns the next place whose pair may be yielded, or
// returns nil.
func (m *mapRun[T, R]) next() *mapSlot[T, R] {
	if m.ordered {
		if m.order.len() == 0 || !m.order.at(0).done.Load() {
			return nil
		}
		sl, _ := m.order.pop()
		return sl
	}
	if m.ready == nil {
		// Take every place done so far; the stack has the last done on
		// top, so turn it over.
		for sl := m.finished.Swap(nil); sl != nil; {
			next := sl.next
			sl.next = m.ready
			m.ready = sl
			sl = next
		}
	}
	sl := m.ready
	if sl != nil {
		m.ready = sl.next
		sl.next = nil
	}
	return sl
}

// wait waits until the place Map yields next is done (MapUnordered: any
// place), and reports whether it did; false: ctx is done.
func (m *mapRun[T, R]) wait() bool {
	var want *mapSlot[T, R]
	if m.ordered {
		want = m.order.at(0)
	}
	m.want.Store(want)
	m.waiting.Store(true)
	if m.ordered && want.done.Load() || !m.ordered && m.finished.Load() != nil {
		if !m.waiting.CompareAndSwap(true, false) {
			<-m.notify // a task saw waiting and took it: its token is coming
		}
		return true
	}
	select {
	case <-m.notify:
		return true
	case <-m.ctx.Done():
		return false
	}
}

// release puts a place whose pair has been taken back in free, holding
// nothing of its value.
func (m *mapRun[T, R]) release(sl *mapSlot[T, R]) {
	m.inflight--
	var zt T
	var zr R
	sl.v, sl.r, sl.err = zt, zr, nil
	sl.done.Store(false)
	sl.next = m.free
	m.free = sl
}

// stop ends the taking of values because ctx is done with err: the pairs in
// flight are dropped, and err is the last pair.
func (m *mapRun[T, R]) stop(err error) {
	m.stopped = true
	m.err = err
}

// end ends the iteration, once: it cancels fn's ctx, stops the tasks that
// have not started from calling fn, and waits for the calls running.
func (m *mapRun[T, R]) end() {
	if m.over {
		return
	}
	m.over, m.stopped = true, true
	m.cancel()
	m.ended.Store(true)
	for {
		m.want.Store(nil)
		m.waiting.Store(true)
		if m.active.Load() == 0 {
			if !m.waiting.CompareAndSwap(true, false) {
				<-m.notify
			}
			return
		}
		<-m.notify
	}
}

// call is the pool task of place sl: it runs fn on sl's value, unless the
// iteration has ended (then nobody waits for sl) or ctx is done, and
// records the outcome.
func (m *mapRun[T, R]) call(sl *mapSlot[T, R]) {
	m.active.Add(1)
	if m.ended.Load() {
		m.leave()
		return
	}
	select {
	case <-m.fnDone: // ctx is done: the caller drops the pair
		sl.record(*new(R), m.fnCtx.Err())
		return
	default:
	}
	runWrapped(sl.run, sl.apply, sl.record)
}

// dropped is call for a task the pool dropped before it ran (overload
// control): the pair of sl is its error.
func (m *mapRun[T, R]) dropped(sl *mapSlot[T, R], err error) {
	m.active.Add(1)
	if m.ended.Load() {
		m.leave()
		return
	}
	sl.record(*new(R), err)
}

// apply calls fn on the place's value.
func (sl *mapSlot[T, R]) apply() (R, error) { return sl.m.fn(sl.m.fnCtx, sl.v) }

// record is the outcome of the task of the place.
func (sl *mapSlot[T, R]) record(r R, err error) {
	m := sl.m
	m.record(sl, r, err)
	m.leave()
}

// record stores the pair of sl, marks it done, and wakes the caller if it
// waits for it.
func (m *mapRun[T, R]) record(sl *mapSlot[T, R], r R, err error) {
	sl.r, sl.err = r, err
	if m.ordered {
		sl.done.Store(true)
	} else {
		for {
			top := m.finished.Load()
			sl.next = top
			if m.finished.CompareAndSwap(top, sl) {
				break
			}
		}
	}
	if m.waiting.Load() && !m.ended.Load() && (!m.ordered || m.want.Load() == sl) {
		m.wake()
	}
}

// leave takes a task that has recorded its outcome, or skipped its call,
// out of active, and wakes end if it was the last one end waits for.
func (m *mapRun[T, R]) leave() {
	if m.active.Add(-1) == 0 && m.ended.Load() && m.waiting.Load() {
		m.wake()
	}
}

// wake sends the caller the token if it still waits.
func (m *mapRun[T, R]) wake() {
	if m.waiting.CompareAndSwap(true, false) {
		select {
		case m.notify <- struct{}{}:
		default: // a token left from a wait given up for ctx is there
		}
	}
}
