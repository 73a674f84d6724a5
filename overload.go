package ants

import (
	"context"
	"math"
	"runtime/debug"
	"time"
)

// WithQueueTimeout drops waiting work that has waited d without getting a
// worker: a buffered task is dropped and never runs; a caller blocked in
// Submit, Invoke or Process returns ErrQueueTimeout. 0 (the default) is no
// timeout; d < 0 is ErrInvalidQueueTimeout from every constructor that
// takes options.
//
// A buffered task is dropped when the pool next looks at it (a slot frees
// for it, or a new task finds the buffer full); a blocked caller's timer is
// its own, so a pool without a buffer bounds its callers' wait. A d below
// the clock's resolution drops every task whose wait the clock saw, one
// tick or more. See the package doc, Overload.
func WithQueueTimeout(d time.Duration) Option {
	return func(opts *Options) {
		opts.QueueTimeout = d
	}
}

// WithQueueTarget turns on CoDel for waiting work, with adaptive LIFO:
// the pool is overloaded from the moment the shortest wait of the work that
// got a worker over the last interval was above target, until an interval
// in which some work got a worker within target, or the waiting work runs
// out. While it is overloaded, work that has waited more than 2*target
// when its turn comes is dropped instead, and within a priority level the
// newest waiting work gets a worker first. Otherwise the order is as
// without it, and nothing is dropped by this rule. target == 0 (the
// default) is off; interval == 0 is 100 ms; negative values are
// ErrInvalidQueueTarget from every constructor that takes options.
//
// While overloaded, a grant counts as one within target only if it leaves
// no work waiting (the newest gets its worker at once), and the oldest
// tasks of the level and flow that have waited more than 2*target are
// dropped as the slot goes to it. The waiting work has run out once none
// has waited for a whole interval. A target above the queue timeout leaves
// the timeout to drop first; without a buffer the rule applies to blocked
// callers.
func WithQueueTarget(target, interval time.Duration) Option {
	return func(opts *Options) {
		opts.QueueTarget = target
		opts.QueueTargetInterval = interval
	}
}

// DefaultQueueTargetInterval is WithQueueTarget's interval when given as 0.
const DefaultQueueTargetInterval = 100 * time.Millisecond

// WithDropHandler sets Options.DropHandler: handler is called once for each
// task of Submit or Invoke (and their variants) dropped before it ran, with
// its context (context.Background() for the calls that take none), the task
// (Submit's func(), Invoke's argument) and ErrQueueTimeout or the context's
// error, so that a service can answer a request whose task it will never
// run. It runs after the pool's lock is released, on the goroutine that
// dropped the task (a worker, a submitter, or the one handling a context's
// end), and should be fast; a panic in it goes to the PanicHandler (else
// the Logger), and the pool's counts stay exact. Wrappers' tasks are not
// passed to it: their callers get the error.
func WithDropHandler(handler func(ctx context.Context, task any, err error)) Option {
	return func(opts *Options) {
		opts.DropHandler = handler
	}
}

// DropObserver is an Observer that is also told of the tasks the pool
// accepted and dropped before they ran (see the package doc, Overload).
type DropObserver interface {
	Observer
	// TaskDropped is called once per dropped task, with its wait and its error, after the pool's lock is released.
	TaskDropped(wait time.Duration, err error)
}

// Overload control, the engine's side. It is on when the pool has a queue
// timeout or a queue target (p.ovl != nil); a pool with neither runs none of
// this code, and its waiting work is never dropped.
//
// Where the clock is read. A pool with overload control is timed: each
// task's stamp holds the pool clock's time of its submit call, as the
// Observer's timing does. A slot granted to waiting work is granted at a
// time the granting goroutine already has (the end of the worker's last
// task, the submit call's stamp) or reads once per admission, so no task
// costs a clock reading beyond the timing's two.
//
// What is dropped, and when. A unit of waiting work is looked at when a
// slot goes to its level (popOverloadLocked): it is dropped if it has
// waited the queue timeout, or if the pool is overloaded and it has waited
// more than 2*target. A submitter that finds the buffer full first drops
// the expired oldest tasks of each level (expireLocked), so that a full
// buffer of stale work lets new work in. A buffered task whose context
// ends is dropped by a callback registered with context.AfterFunc
// (ctxEnded): the standard library's contexts run it when they end,
// without a goroutine per task, and it frees the task's room at once. A
// blocked caller times out on a timer of its own, in its own select.
//
// A dropped buffered task leaves a tombstone in its level's ring (its
// taskExtra marked dead) when it is not at either end; the ends are kept
// live (trim), and a ring with more tombstones than tasks is compacted, so
// dead entries cost O(1) amortised and at most twice the buffer's memory.
//
// How a drop is reported. Drops found under the lock become waiters in
// state waiterDropped, linked onto the list of waiters the admission
// wakes after unlocking (waiter.wake); waking one reports it
// (reportDrop): Stats.Dropped has counted it already, then the observer's
// TaskDropped, then the wrapper's onDrop or else the DropHandler.

// overloadCtl is a pool's overload state; it is used under the pool's
// lock.
type overloadCtl struct {
	timeout  int64 // ns; 0: none
	target   int64 // ns; 0: no CoDel
	interval int64 // ns

	// CoDel: overloaded is the state; intervalEnd the end of the current
	// interval (0: none started, as after the waiting work ran out);
	// minWait the shortest wait counted in it (math.MaxInt64: none);
	// emptyAt the time the waiting work last ran out (0: it has not since
	// the last grant).
	overloaded  bool
	intervalEnd int64
	minWait     int64
	emptyAt     int64
}

func newOverloadCtl(o *Options) *overloadCtl {
	if o.QueueTimeout <= 0 && o.QueueTarget <= 0 {
		return nil
	}
	c := &overloadCtl{timeout: int64(o.QueueTimeout), minWait: math.MaxInt64}
	if o.QueueTarget > 0 {
		c.target = int64(o.QueueTarget)
		c.interval = int64(o.QueueTargetInterval)
		if c.interval == 0 {
			c.interval = int64(DefaultQueueTargetInterval)
		}
	}
	return c
}

// tick moves the CoDel state to now, at a grant: the state resets if no
// work has waited for an interval, and at the end of an interval the pool
// is overloaded if nothing counted in it waited at most target.
func (c *overloadCtl) tick(now int64) {
	if c.target == 0 {
		return
	}
	if c.emptyAt != 0 {
		if now-c.emptyAt >= c.interval {
			c.idle()
		}
		c.emptyAt = 0
	}
	if c.intervalEnd == 0 {
		c.intervalEnd = now + c.interval
		return
	}
	if now >= c.intervalEnd {
		c.overloaded = c.minWait > c.target
		c.minWait = math.MaxInt64
		c.intervalEnd = now + c.interval
	}
}

// count records the wait that counts for the interval.
func (c *overloadCtl) count(wait int64) {
	if wait < c.minWait {
		c.minWait = wait
	}
}

// emptied notes that the waiting work ran out at now: if none comes for
// an interval, the state resets (tick). A queue emptied by a sweep of
// drops, or for a moment between arrivals, keeps the state: the overload
// it measured is still there.
func (c *overloadCtl) emptied(now int64) {
	if c.emptyAt == 0 {
		c.emptyAt = now
	}
}

// idle resets the CoDel state.
func (c *overloadCtl) idle() {
	c.overloaded = false
	c.intervalEnd = 0
	c.minWait = math.MaxInt64
}

// expired reports whether work that has waited wait is dropped when it
// is looked at.
func (c *overloadCtl) expired(wait int64) bool {
	return (c.timeout > 0 && wait >= c.timeout) || (c.overloaded && wait > 2*c.target)
}

// taskExtra is what a waiting task carries beyond its stamp, with
// overload control on: the context it was submitted with, for its drop
// report and for ctxEnded; the wrapper's onDrop; and its AfterFunc
// registration. It is made only for a task that waits and has a context
// or a wrapper.
type taskExtra struct {
	ctx    context.Context // nil: context.Background()
	onDrop func(error)     // the wrapper's: the task will not run
	plain  any             // if set, the user's task for the DropHandler, beside onDrop
	stop   func() bool     // unregisters ctxEnded; nil if none
	level  int             // its level while buffered
	flow   string          // its flow while buffered
	at     int64           // its stamp's time, for ctxEnded's report
	dead   bool            // dropped while buffered: a tombstone
	gone   bool            // out of the buffer (granted or dropped)
}

// leave marks x out of the buffer and unregisters its callback. It
// requires the pool's lock held.
func (x *taskExtra) leave() {
	if x == nil {
		return
	}
	x.gone = true
	if x.stop != nil {
		x.stop()
		x.stop = nil
	}
}

// watchLocked registers ctxEnded for arg, a task buffered at level in
// flow with stamp st and extra x, if its context can end. It requires
// p.lock held and p.ovl set.
func (p *poolCore[T]) watchLocked(arg T, st taskStamp, x *taskExtra, level int, flow string) {
	if x == nil {
		return
	}
	x.level, x.flow, x.at = level, flow, st.at
	if x.ctx == nil || x.ctx.Done() == nil || x.stop != nil {
		return
	}
	if x.onDrop == nil && x.plain == nil {
		x.plain = any(arg) // the ring's copy may be gone when it ends
	}
	x.stop = context.AfterFunc(x.ctx, func() { p.ctxEnded(x) })
}

// ctxEnded drops the buffered task of x, whose context has ended, if it
// is still in the buffer: its room goes to a blocked caller or to new
// work at once.
func (p *poolCore[T]) ctxEnded(x *taskExtra) {
	p.lock.Lock()
	if x.gone {
		p.lock.Unlock()
		return
	}
	x.gone, x.dead, x.stop = true, true, nil
	l := p.waitq.level(x.level)
	f := l.flowOfUnit(x.flow)
	f.dead++
	p.waitq.buffered--
	// The task stays in the ring as a tombstone, unless it is at an end.
	p.waitq.trim(f)
	p.waitq.settle(l, f)
	p.waitq.drop(l)
	var zero T
	now := p.clockNow()
	taken := p.dropNode(zero, taskStamp{at: x.at}, x, now, x.ctx.Err(), nil)
	if p.waitq.blocked > 0 && p.bufferRoomLocked() {
		taken = p.letInLocked(p.agingNow(), taken)
	}
	if p.waitq.len() == 0 {
		p.ovl.emptied(now)
	}
	p.live++ // held until reported, for ReleaseTimeout
	p.noteDrainedLocked()
	p.lock.Unlock()
	taken.wake()
	p.countOutHeld()
}

// countOutHeld counts out of live the hold that a goroutine that is not
// the pool's took while it reported drops (ctxEnded, submitSlow).
func (p *poolCore[T]) countOutHeld() {
	p.lock.Lock()
	p.countOutLocked()
	p.lock.Unlock()
}

// dropNode counts an accepted task that is dropped, and returns a waiter
// that reports it when woken, linked onto taken. It requires p.lock held.
func (p *poolCore[T]) dropNode(arg T, st taskStamp, x *taskExtra, now int64, err error, taken *waiter[T]) *waiter[T] {
	p.dropped++
	x.leave()
	d := &waiter[T]{arg: arg, stamp: st, x: x, state: waiterDropped, pool: p, err: err}
	d.wait = now - st.at
	d.nextWake = taken
	return d
}

// reportDrop reports the dropped task of d: to the observer, then to the
// wrapper that submitted it or else to the DropHandler. A panic of any of
// them goes to the PanicHandler (else the Logger), so that the goroutine
// that dropped the task, a worker perhaps, goes on.
func (p *poolCore[T]) reportDrop(d *waiter[T]) {
	defer func() {
		if r := recover(); r != nil {
			p.handlePanic(r, debug.Stack())
		}
	}()
	if o, ok := p.obs.(DropObserver); ok {
		o.TaskDropped(time.Duration(d.wait), d.err)
	}
	x := d.x
	var task any = d.arg
	ctx := context.Background()
	if x != nil {
		if x.onDrop != nil {
			x.onDrop(d.err)
			if x.plain == nil {
				return
			}
		}
		if x.plain != nil {
			task = x.plain
		}
		if x.ctx != nil {
			ctx = x.ctx
		}
	}
	if s, ok := task.(dropSink); ok {
		s.dropped(d.err) // a WorkerPool's task
		return
	}
	if h := p.opts.DropHandler; h != nil {
		h(ctx, task, d.err)
	}
}

// dropSink is a task of the package's own that is told of its drop
// itself: a WorkerPool's.
type dropSink interface{ dropped(err error) }

// grantNow returns the time of a grant at hint, a time the caller already
// has from the pool's clock (0: none): the system clock's reading is
// taken as is, another clock (the tests') is read.
func (p *poolCore[T]) grantNow(hint int64) int64 {
	if _, ok := p.opts.clock.(systemClock); ok && hint != 0 {
		return hint
	}
	return p.clockNow()
}

// popOverloadLocked is popWaitingLocked with overload control: it takes
// the unit that gets the free slot, dropping on the way the units the
// rules drop, and reports ok == false if none is left. It requires
// p.lock held and p.ovl set.
func (p *poolCore[T]) popOverloadLocked(now int64, taken *waiter[T]) (arg T, st taskStamp, _ *waiter[T], ok bool) {
	c, q := p.ovl, &p.waitq
	c.tick(now)
	for q.len() > 0 {
		l := q.next(p.agingNow())
		f := q.turn(l)
		lifo := c.overloaded
		if lifo {
			// The flow's oldest tasks, whose turn would not come before
			// the overload ends, go first.
			taken = p.expireFlowLocked(l, f, now, taken)
			if f.empty() {
				q.settle(l, f)
				q.drop(l)
				continue
			}
		}
		var w *waiter[T]
		var x *taskExtra
		switch {
		case lifo && f.callers.tail != nil:
			w = f.callers.tail
		case lifo:
			arg, st, x = q.popTail(f)
		case f.tasks.len() > 0:
			arg, st, x = q.popHead(f)
		default:
			w = f.callers.head
		}
		if w != nil {
			f.callers.remove(w)
			q.blocked--
			arg, st = w.arg, w.stamp
		}
		wait := max(now-st.at, 0) // a stamp a little after the grant's time
		if c.expired(wait) {
			q.settle(l, f)
			q.drop(l)
			if w == nil {
				taken = p.dropNode(arg, st, x, now, ErrQueueTimeout, taken)
				if q.blocked > 0 {
					taken = p.letInLocked(p.agingNow(), taken)
				}
			} else {
				var zero T
				w.arg, w.x = zero, nil
				w.state = waiterTimedOut
				w.nextWake = taken
				taken = w
			}
			continue
		}
		q.granted(l, f)
		q.drop(l)
		if !lifo || q.len() == 0 {
			// While overloaded, a grant counts only if it leaves no work
			// waiting: the newest got the slot, and its short wait says
			// nothing of the queue that stands behind it.
			c.count(wait)
		}
		if q.len() == 0 {
			c.emptied(now)
		}
		if w == nil {
			x.leave()
			if q.blocked > 0 {
				taken = p.letInLocked(p.agingNow(), taken)
			}
			return arg, st, taken, true
		}
		var zero T
		w.arg, w.x = zero, nil
		st.cap = p.capacity.Load()
		p.submitted++
		p.noteCallerTakenLocked()
		w.state = waiterTaken
		w.nextWake = taken
		return arg, st, w, true
	}
	c.emptied(now)
	return arg, st, taken, false
}

// expireFlowLocked drops the oldest buffered tasks of f, a flow of l, that
// the rules drop now, letting blocked callers into the room they leave,
// and returns them linked onto taken; the caller settles f. It requires
// p.lock held and p.ovl set.
func (p *poolCore[T]) expireFlowLocked(l *waitLevel[T], f *flowQueue[T], now int64, taken *waiter[T]) *waiter[T] {
	c, q := p.ovl, &p.waitq
	for f.tasks.len() > 0 && c.expired(now-f.stamps.at(0).at) {
		a, s, x := q.popHead(f)
		taken = p.dropNode(a, s, x, now, ErrQueueTimeout, taken)
		if q.blocked > 0 {
			taken = p.letInLocked(p.agingNow(), taken)
		}
	}
	return taken
}

// expireLocked drops, for a submitter that found the buffer full, the
// oldest buffered tasks of each level that the rules drop now, letting
// blocked callers into the room they leave; it returns the drops and the
// callers let in, linked onto taken. It requires p.lock held and p.ovl
// set.
func (p *poolCore[T]) expireLocked(now int64, taken *waiter[T]) *waiter[T] {
	q := &p.waitq
	for _, l := range append([]*waitLevel[T](nil), q.levels...) {
		l.eachFlow(func(f *flowQueue[T]) {
			taken = p.expireFlowLocked(l, f, now, taken)
		})
		// A caller let in may have entered a flow taken out of the round
		// meanwhile: settle them all again.
		l.eachFlow(func(f *flowQueue[T]) { q.settle(l, f) })
		q.drop(l)
	}
	if q.len() == 0 {
		p.ovl.emptied(now)
	}
	return taken
}
