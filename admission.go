package ants

import "context"

// Admission, the caller's side of the pool: how a submitted task enters it,
// and where it waits until a worker takes it.
//
// The bound is ants': at most capacity tasks accepted and unfinished, plus
// up to QueueSize buffered ones. A task is accepted with a worker slot
// (reserved) while busy+reserved < capacity, as ants hands it to a worker;
// otherwise into the buffer while it has room; otherwise its caller is
// refused (Nonblocking, TrySubmit, MaxBlockingTasks) or waits in the
// waiters list, task in hand. So a task waits in one of two places: in the
// ring (p.tasks), which holds the reserved tasks first and the buffered
// ones after them, or with its blocked caller (waitUnlock). Workers take
// only reserved tasks (takeLocked, wake.go).
//
// Every event that frees a slot gives it to the oldest buffered task, then
// admits the longest-waiting callers (admitLocked), so a new Submit never
// overtakes a buffered task or a caller that waits. A reserved task keeps
// its slot across a shrinking Tune, as a task handed to a worker in ants
// runs on it. Every change of reserved and of the waiters list is here.

// submit is the way in of the pool kinds' Submit, Invoke and Process: it
// stamps the task with the time of the call (stampNow) and hands it to the
// pool (submitStamped).
func (p *poolCore[T]) submit(ctx context.Context, arg T, try bool) error {
	return p.submitStamped(ctx, arg, try, p.stampNow())
}

// stampNow returns the stamp of a task submitted now: the time of the call,
// if the pool is timed. A wrapper that reports its tasks' times itself
// passes taskStamp{self: true} instead (timing.go).
func (p *poolCore[T]) stampNow() taskStamp {
	if !p.timed {
		return taskStamp{}
	}
	return taskStamp{at: nanotime()}
}

// submitStamped hands arg, stamped st, to the pool: the fast path appends
// it to the ring and makes sure a worker will take it (kickLocked); waiting
// and refusals are in submitSlow. ctx is never nil: the calls that take
// none pass context.Background(), whose Done is nil. If try is set the
// caller never waits.
func (p *poolCore[T]) submitStamped(ctx context.Context, arg T, try bool, st taskStamp) error {
	if p.closed.Load() {
		p.rejected.Add(1)
		return ErrPoolClosed
	}
	p.lock.Lock()
	if !p.closed.Load() && p.acceptLocked(arg, st) {
		w := p.kickLocked()
		p.lock.Unlock()
		w.wake()
		return nil
	}
	return p.submitSlow(ctx, arg, try, st)
}

// acceptLocked appends arg, stamped st, to the ring if the pool can take it
// now: with a worker slot if one is free, else into the buffer if it has
// room. It requires p.lock held.
func (p *poolCore[T]) acceptLocked(arg T, st taskStamp) bool {
	c := int(p.capacity.Load())
	switch {
	case c < 0 || p.busy+p.reserved < c:
		p.reserved++
	case p.queueSize < 0 || p.tasks.size-p.reserved < p.queueSize:
	default:
		return false
	}
	p.tasks.push(arg)
	if p.timed {
		st.cap = int32(c)
		p.stamps.push(st)
	}
	p.submitted++
	return true
}

// submitSlow refuses arg or makes its caller wait. It requires p.lock held
// and releases it.
func (p *poolCore[T]) submitSlow(ctx context.Context, arg T, try bool, st taskStamp) error {
	if p.closed.Load() {
		p.lock.Unlock()
		p.rejected.Add(1)
		return ErrPoolClosed
	}
	// ants compares MaxBlockingTasks with != 0, so a negative limit lets no
	// caller wait; kept for compatibility.
	full := p.opts.MaxBlockingTasks != 0 && p.waiters.len >= p.opts.MaxBlockingTasks
	if try || p.opts.Nonblocking || full {
		p.lock.Unlock()
		p.rejected.Add(1)
		return ErrPoolOverload
	}
	return p.waitUnlock(ctx, arg, st)
}

// waitUnlock blocks the caller until a worker takes arg, the pool is
// released, or ctx is done. It requires p.lock held and releases it.
//
// An event that makes room takes the task at the head of p.waiters into the
// ring and Signals p.cond (admitLocked, signal). Signal wakes the goroutine
// that has been in Wait longest, so this is the right goroutine as long as
// waiters call Wait in list order. Each waiter joins the tail of the list
// and calls Wait in one critical section, and one that wakes while its task
// is still pending (a Broadcast for a cancelled context, or a Signal meant
// for a waiter that had already woken) moves itself back to the tail before
// waiting again. So the order holds, every Signal is a wake-up some waiter
// needs or a harmless extra one, and no taken task leaves its caller asleep.
func (p *poolCore[T]) waitUnlock(ctx context.Context, arg T, st taskStamp) error {
	w := p.waiters.get(arg, st)
	p.waiters.pushBack(w)
	p.waiting.Store(int32(p.waiters.len))

	var stop func() bool
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, p.wakeWaiters)
	}
	var err error
	for w.state == waiterPending {
		if err = ctx.Err(); err != nil {
			p.waiters.remove(w)
			p.waiting.Store(int32(p.waiters.len))
			break
		}
		p.cond.Wait()
		if w.state == waiterPending {
			p.waiters.remove(w)
			p.waiters.pushBack(w)
		}
	}
	if w.state == waiterClosed {
		err = ErrPoolClosed
	}
	p.waiters.put(w)
	p.lock.Unlock()

	if stop != nil {
		stop()
	}
	if err != nil {
		p.rejected.Add(1)
	}
	return err
}

// wakeWaiters wakes every waiting caller, so that those whose context is
// done can leave; the others wait again. It is called without p.lock.
func (p *poolCore[T]) wakeWaiters() {
	p.lock.Lock()
	p.cond.Broadcast()
	p.lock.Unlock()
}

// admitLocked is what every event that frees room does: it gives free
// slots to buffered tasks (promoteLocked), then moves the tasks of the
// longest-waiting callers into the ring while the pool can accept them. It
// returns how many callers it took, for the caller to wake with signal once
// it has released p.lock; the caller then takes from the ring or kicks it.
// It requires p.lock held.
func (p *poolCore[T]) admitLocked() (taken int) {
	p.promoteLocked()
	if p.waiters.len == 0 {
		return 0
	}
	var zero T
	for w := p.waiters.head; w != nil && p.acceptLocked(w.arg, w.stamp); w = p.waiters.head {
		p.waiters.remove(w)
		w.arg, w.state = zero, waiterTaken
		taken++
	}
	p.waiting.Store(int32(p.waiters.len))
	return taken
}

// promoteLocked gives the worker slots that are free to the oldest
// buffered tasks. It requires p.lock held.
func (p *poolCore[T]) promoteLocked() {
	n := p.tasks.size - p.reserved
	if c := int(p.capacity.Load()); c >= 0 {
		n = min(n, c-p.busy-p.reserved)
	}
	if n > 0 {
		p.reserved += n
	}
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
// that have not finished: busy workers, buffered tasks, waiting callers.
func (p *poolCore[T]) inFlight() int {
	p.lock.Lock()
	n := p.busy + p.tasks.size + p.waiters.len
	p.lock.Unlock()
	return n
}
