package ants

import (
	"context"
	"runtime"
	"time"
)

// Admission, the caller's side of the pool: how a submitted task enters it,
// and where it waits until a worker takes it.
//
// The bound is ants': at most capacity tasks accepted and unfinished, plus
// up to QueueSize buffered ones. A task is accepted with a worker slot
// (reserved) while busy+reserved < capacity, as ants hands it to a worker,
// into the ring (p.tasks) that workers take from (takeLocked, wake.go).
// Otherwise it waits in p.waitq (waiter.go), by priority level: in the
// buffer while it has room, its caller returning at once, or else with its
// caller blocked in waitUnlock, task in hand; or its caller is refused
// (Nonblocking, TrySubmit, MaxBlockingTasks).
//
// Every event that frees a slot gives it to the best waiting unit, by level
// and arrival, and lets blocked callers into the buffer room that frees
// (admitLocked), so a new Submit never overtakes work that waits. A
// reserved task keeps its slot across a shrinking Tune, as a task handed to
// a worker in ants runs on it. Every change of reserved and of the
// waitQueue is here.

// submit is the way in of the pool kinds' Submit, Invoke and Process: it
// stamps the task with the time of the call (stampNow) and hands it to the
// pool (submitStamped).
func (p *poolCore[T]) submit(ctx context.Context, arg T, try bool) error {
	return p.submitStamped(ctx, arg, try, p.stampNow(), nil)
}

// stampNow returns the stamp of a task submitted now: the time of the call,
// if the pool is timed. A wrapper that reports its tasks' times itself
// passes taskStamp{self: true} instead (timing.go).
func (p *poolCore[T]) stampNow() taskStamp {
	if !p.timed {
		return taskStamp{}
	}
	if p.ovl != nil {
		return taskStamp{at: p.clockNow()} // the clock of the overload rules
	}
	return taskStamp{at: nanotime()}
}

// submitStamped hands arg, stamped st, to the pool: the fast path reserves
// a free slot for it and makes sure a worker will take it (acceptUnlock);
// waiting and refusals are in submitSlow. ctx is never nil: the calls that
// take none pass context.Background(), whose Done is nil and whose level is
// 0. If try is set the caller never waits. x, if not nil, is what a
// wrapper's task carries for overload control (overload.go).
func (p *poolCore[T]) submitStamped(ctx context.Context, arg T, try bool, st taskStamp, x *taskExtra) error {
	if p.closed.Load() {
		p.rejected.Add(1)
		return ErrPoolClosed
	}
	if p.queueSize < 0 || p.blocking.Load() {
		// A submitter that could outrun the workers yields its goroutine
		// while it waits for the lock (see LockYielding).
		p.lock.LockYielding()
	} else {
		p.lock.Lock()
	}
	if !p.closed.Load() && !p.gated {
		if p.slotFreeLocked() {
			p.acceptUnlock(arg, st)
			return nil
		}
		if ctx == context.Background() && p.waitq.blocked == 0 && p.bufferRoomLocked() {
			// Into the buffer at level 0, without submitSlow's look at
			// the level: the way of most buffered tasks.
			p.bufferUnlock(place{}, arg, st, x)
			return nil
		}
	}
	return p.submitSlow(ctx, arg, try, st, x)
}

// place is where a unit waits: its priority level, and its flow, with the
// flow's weight.
type place struct {
	level  int
	flow   string
	weight int
}

// bufferUnlock accepts arg, stamped st, with x, into the buffer at pl,
// and releases p.lock. It requires p.lock held, room in the buffer and no
// blocked caller.
//
// In a large pool (more than largePoolPerProc workers per P, or an
// unlimited one; see setCapacityLocked) whose tasks do not block, the
// caller then yields its P to the goroutines runnable behind it, as
// LockYielding's waiters do: its task waits for a slot, which only a
// worker ending its task frees, and those workers wait for a P while the
// caller runs ahead of them. One submitter of no-op tasks at capacity 1000
// with WithQueueSize(1000) otherwise got a thousand tasks ahead: 40% of
// its tasks waited in the buffer, and the workers spent a third of the CPU
// yielding while they waited for the lock it held. With the yield it is
// 22-27% faster, and 13-14% faster from 64 submitters (DESIGN.md, "A
// producer faster than the workers").
func (p *poolCore[T]) bufferUnlock(pl place, arg T, st taskStamp, x *taskExtra) {
	if pl == (place{}) && !p.timed && p.waitq.aging == 0 {
		p.waitq.pushZero(arg) // no stamp, no arrival: the common case
	} else {
		if p.timed {
			st.cap = p.capacity.Load()
		}
		if p.ovl != nil {
			p.watchLocked(arg, st, x, pl.level, pl.flow)
		}
		p.waitq.pushTask(pl.level, pl.flow, pl.weight, arg, st, p.waitq.arrive(p.agingNow()), x)
	}
	p.submitted++
	if p.gated {
		p.paceWaitingLocked() // with a free slot, it waits for a token
	}
	outrun := !p.gated && p.lock.goroutineYield.Load() && !p.blocking.Load()
	p.lock.Unlock()
	if outrun {
		runtime.Gosched()
	}
}

// startableLocked reports whether a new task may start now: no work waits
// (which would go first), a slot is free and the gate is open, in which
// case it has taken the task's token. It requires p.lock held.
func (p *poolCore[T]) startableLocked() bool {
	return p.waitq.len() == 0 && p.slotFreeLocked() && p.gateOpenLocked()
}

// acceptUnlock accepts arg, stamped st, with a free slot, makes sure a
// worker takes it, and releases p.lock. It requires p.lock held and a free
// slot.
func (p *poolCore[T]) acceptUnlock(arg T, st taskStamp) {
	if p.timed {
		st.cap = p.capacity.Load()
	}
	p.reserveLocked(arg, st)
	p.submitted++
	w := p.kickLocked()
	p.lock.Unlock()
	w.wake()
}

// slotFreeLocked reports whether a task can have a worker slot now. It
// requires p.lock held.
func (p *poolCore[T]) slotFreeLocked() bool {
	c := p.capacity.Load()
	return c < 0 || p.busy+p.reserved < int(c)
}

// reserveLocked appends arg, stamped st, to the ring of tasks that hold a
// slot. It requires p.lock held and a free slot.
func (p *poolCore[T]) reserveLocked(arg T, st taskStamp) {
	p.tasks.push(arg)
	if p.timed {
		p.stamps.push(st)
	}
	p.reserved++
}

// bufferRoomLocked reports whether the buffer can take one more task. It
// requires p.lock held.
func (p *poolCore[T]) bufferRoomLocked() bool {
	return p.queueSize < 0 || p.waitq.buffered < p.queueSize
}

// submitSlow is the way of a task that found no free slot, or a closed
// gate: it starts if the gate lets it, else it goes into the buffer if it
// has room, else its caller is refused or waits. It requires p.lock held
// and releases it.
func (p *poolCore[T]) submitSlow(ctx context.Context, arg T, try bool, st taskStamp, x *taskExtra) error {
	var pl place
	if ctx != context.Background() || p.opts.FlowWeight != nil {
		// The level and the flow are read only here, and without the lock:
		// a Context's Value and the flow's weight are the user's code. The
		// pool may have changed meanwhile.
		p.lock.Unlock()
		pl = p.placeOf(ctx)
		p.lock.Lock()
	}
	if !p.closed.Load() && p.startableLocked() {
		p.acceptUnlock(arg, st)
		return nil
	}
	if p.closed.Load() {
		p.lock.Unlock()
		p.rejected.Add(1)
		return ErrPoolClosed
	}
	var drops *waiter[T]
	if p.ovl != nil {
		if ctx != context.Background() {
			if x == nil {
				x = new(taskExtra)
			}
			x.ctx = ctx
		}
		if !p.bufferRoomLocked() {
			drops = p.expireLocked(p.grantNow(st.at), nil)
			if drops != nil {
				p.live++ // held until reported, for ReleaseTimeout
				defer func() { p.reportHeld(drops) }()
			}
		}
	}
	if p.waitq.blocked == 0 && p.bufferRoomLocked() {
		p.bufferUnlock(pl, arg, st, x)
		return nil
	}
	// ants compares MaxBlockingTasks with != 0, so a negative limit lets no
	// caller wait; kept for compatibility.
	if try || p.opts.Nonblocking || (p.opts.MaxBlockingTasks != 0 && p.waitq.blocked >= p.opts.MaxBlockingTasks) {
		p.lock.Unlock()
		p.rejected.Add(1)
		return ErrPoolOverload
	}
	if drops != nil {
		// Reported before the caller blocks.
		p.lock.Unlock()
		p.reportHeld(drops)
		drops = nil
		p.lock.Lock()
		if p.closed.Load() || p.startableLocked() || (p.waitq.blocked == 0 && p.bufferRoomLocked()) {
			p.lock.Unlock()
			return p.submitStamped(ctx, arg, try, st, x) // the pool changed: look again
		}
	}
	return p.waitUnlock(ctx, arg, st, x, pl)
}

// reportHeld wakes the waiters that expireLocked returned, drops and
// callers, and gives back the hold on live its caller took for them. It
// requires p.lock not held.
func (p *poolCore[T]) reportHeld(taken *waiter[T]) {
	if taken == nil {
		return
	}
	taken.wake()
	p.countOutHeld()
}

// agingNow returns the pool clock's time in ns if levels age, else 0: with
// strict levels no clock is read. It requires p.lock held.
func (p *poolCore[T]) agingNow() int64 {
	if p.waitq.aging == 0 {
		return 0
	}
	return p.clockNow()
}

// waitUnlock blocks the caller until its task is accepted (a slot or buffer
// room), the pool is released, or ctx is done. It requires p.lock held and
// releases it.
//
// The caller waits on a wake-up of its own (waiter.ready), as a sender
// blocked on a channel does: whoever admits its task decides the outcome
// under the lock and wakes it after unlocking, and the woken caller
// returns without taking the lock again. So the next caller is chosen by
// level and arrival, not by the order of a sync.Cond's queue.
func (p *poolCore[T]) waitUnlock(ctx context.Context, arg T, st taskStamp, x *taskExtra, pl place) error {
	w, _ := p.waiterCache.Get().(*waiter[T])
	if w == nil {
		w = &waiter[T]{ready: make(chan struct{}, 1)}
	}
	w.arg, w.stamp, w.x, w.state = arg, st, x, waiterPending
	w.level, w.flow, w.weight = pl.level, pl.flow, pl.weight
	w.arrival = p.waitq.arrive(p.agingNow())
	p.waitq.pushCaller(w)
	p.paceWaitingLocked() // with a free slot, it waits for a token
	p.lock.Unlock()

	var timeout <-chan struct{}
	if p.ovl != nil && p.ovl.timeout > 0 {
		var stop func()
		timeout, stop = p.callerTimer(st.at)
		defer stop()
	}
	if done := ctx.Done(); done == nil && timeout == nil {
		<-w.ready
	} else {
		var err error
		select {
		case <-w.ready:
		case <-done:
			err = ctx.Err()
		case <-timeout:
			err = ErrQueueTimeout
		}
		if err != nil {
			p.lock.Lock()
			if w.state == waiterPending {
				p.waitq.removeCaller(w)
				if p.ovl != nil && p.waitq.len() == 0 {
					p.ovl.emptied(p.clockNow())
				}
				p.noteDrainedLocked() // it may have been the last unit of a rebooted pool
				p.lock.Unlock()
				p.putWaiter(w)
				p.rejected.Add(1)
				return err
			}
			// Its task was accepted first: its taker wakes it after
			// unlocking, and the caller must not reuse it before.
			p.lock.Unlock()
			<-w.ready
		}
	}
	switch state := w.state; state {
	case waiterClosed, waiterTimedOut:
		p.putWaiter(w)
		p.rejected.Add(1)
		if state == waiterClosed {
			return ErrPoolClosed
		}
		return ErrQueueTimeout
	}
	if p.queueSize >= yieldMinBuffer {
		p.callersWaking.Add(-1) // it was taken
	}
	p.putWaiter(w)
	return nil
}

// callerTimer returns a channel closed once a caller that submitted at
// (the pool clock's time) has waited the queue timeout, and a function
// that stops it.
func (p *poolCore[T]) callerTimer(at int64) (<-chan struct{}, func()) {
	d := time.Duration(p.ovl.timeout - (p.clockNow() - at))
	c := make(chan struct{})
	if d <= 0 {
		close(c)
		return c, func() {}
	}
	stop := p.opts.clock.afterFunc(d, func() { close(c) })
	return c, func() { stop() }
}

// putWaiter recycles w, whose caller is about to return.
func (p *poolCore[T]) putWaiter(w *waiter[T]) {
	var zero T
	w.arg, w.x, w.flow = zero, nil, ""
	p.waiterCache.Put(w)
}

// admitLocked is what every event that frees room does: while a slot is
// free and work waits, it gives the slot to the best waiting unit (a
// buffered task, or a blocked caller's task), and each buffered task that
// leaves the buffer lets the best blocked caller in. It returns the
// callers whose tasks it accepted, linked by nextWake, for the caller to
// wake once it has released p.lock; the caller then takes from the ring or
// kicks it. It requires p.lock held.
func (p *poolCore[T]) admitLocked() *waiter[T] { return p.admitOntoLocked(nil) }

// admitOntoLocked is admitLocked for an admission that has already taken
// the callers linked from taken (a worker's own next unit, afterTask): it
// links any more onto them, and returns them all.
func (p *poolCore[T]) admitOntoLocked(taken *waiter[T]) *waiter[T] {
	if p.waitq.len() == 0 || !p.slotFreeLocked() {
		return taken
	}
	now := p.agingNow()
	if p.ovl != nil {
		now = p.grantNow(0)
	}
	for p.waitq.len() > 0 && p.slotFreeLocked() && p.gateOpenLocked() {
		var arg T
		var st taskStamp
		var ok bool
		arg, st, taken, ok = p.popWaitingLocked(now, taken)
		if !ok {
			break // every unit left was dropped
		}
		p.reserveLocked(arg, st)
	}
	p.paceWaitingLocked() // work left waiting only for a token
	return taken
}

// popWaitingLocked takes the best waiting unit for a slot, which must be
// free with the gate open, and returns its task; if the unit was buffered,
// the room it leaves goes to the best blocked caller. The callers whose
// tasks it accepts are linked onto taken, to be woken after unlocking. It
// requires p.lock held; the caller calls paceWaitingLocked after its
// last call. now is the aging clock's time, or with overload control the
// grant's (popOverloadLocked), whose drops may leave no unit: ok is then
// false.
func (p *poolCore[T]) popWaitingLocked(now int64, taken *waiter[T]) (T, taskStamp, *waiter[T], bool) {
	if p.ovl != nil {
		return p.popOverloadLocked(now, taken)
	}
	arg, st, w := p.waitq.popSlot(now)
	if w != nil && p.timed {
		st.cap = p.capacity.Load() // a blocked caller's task is accepted now
	}
	if w == nil {
		// A buffered task left the buffer: its room goes to a caller.
		if p.waitq.blocked > 0 {
			taken = p.letInLocked(now, taken)
		}
		return arg, st, taken, true
	}
	p.submitted++
	p.noteCallerTakenLocked()
	w.state = waiterTaken
	w.nextWake = taken
	return arg, st, w, true
}

// letInLocked lets the best blocked caller into the room a buffered task
// has just left, and links it onto taken, to be woken after unlocking; it
// returns the list. A caller blocks only while the buffer is full, so each
// task that leaves it lets one caller in. It requires p.lock held and a
// blocked caller.
func (p *poolCore[T]) letInLocked(now int64, taken *waiter[T]) *waiter[T] {
	w := p.waitq.nextCaller(now)
	if p.timed {
		w.stamp.cap = p.capacity.Load()
	}
	if p.ovl != nil {
		p.watchLocked(w.arg, w.stamp, w.x, w.level, w.flow)
	}
	p.waitq.bufferCaller(w)
	p.submitted++
	p.noteCallerTakenLocked()
	w.state = waiterTaken
	w.nextWake = taken
	return w
}

// noteCallerTakenLocked counts a blocked caller whose task was accepted in
// callersWaking, until it resumes (waitUnlock), in the pools whose workers
// yield to such callers (yieldToCallers). It requires p.lock held.
func (p *poolCore[T]) noteCallerTakenLocked() {
	if p.queueSize >= yieldMinBuffer {
		p.callersWaking.Add(1)
	}
}

// closeWaitersLocked takes every blocked caller out of the queue for
// Release, and returns them, to be woken with ErrPoolClosed once p.lock is
// released. Buffered tasks stay: they are accepted and still run. It
// requires p.lock held.
func (p *poolCore[T]) closeWaitersLocked() *waiter[T] {
	all := p.waitq.popCallers()
	for w := all; w != nil; w = w.nextWake {
		w.state = waiterClosed
	}
	return all
}

// checkContext is liveContext for a submission to the pool, which counts a
// refusal as rejected.
func (p *poolCore[T]) checkContext(ctx context.Context) (context.Context, error) {
	ctx, err := liveContext(ctx)
	if err != nil {
		p.rejected.Add(1)
	}
	return ctx, err
}

// inFlight returns the number of tasks the pool has accepted or is holding
// that have not finished: busy workers, reserved and buffered tasks,
// waiting callers.
func (p *poolCore[T]) inFlight() int {
	p.lock.Lock()
	n := p.busy + p.reserved + p.waitq.len()
	p.lock.Unlock()
	return n
}
