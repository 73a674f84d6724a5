package ants

import "context"

// Admission: how a submitted task enters the pool. A task is accepted with
// a worker slot (reserved) or into the buffer, or its caller is refused or
// waits in the waiters list until an event that frees room admits it
// (admitLocked). Every change of reserved and of the waiters list is here;
// what the workers do with reserved tasks is in worker.go.

// submit hands arg to the pool: the fast path appends it to the ring;
// waiting and refusals are in submitSlow.
// ctx is never nil: the calls that take none pass context.Background(),
// whose Done is nil. If try is set the caller never waits.
func (p *poolCore[T]) submit(ctx context.Context, arg T, try bool) error {
	var st taskStamp
	if p.timed {
		st.at = nanotime()
	}
	return p.submitStamped(ctx, arg, try, st)
}

// submitStamped is submit for a task stamped st.
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

// submitSlow requires p.lock held and releases it.
func (p *poolCore[T]) submitSlow(ctx context.Context, arg T, try bool, st taskStamp) error {
	if p.closed.Load() {
		p.lock.Unlock()
		p.rejected.Add(1)
		return ErrPoolClosed
	}
	// ants compares MaxBlockingTasks with != 0, so a negative limit lets no
	// caller wait; kept for compatibility.
	if try || p.opts.Nonblocking || (p.opts.MaxBlockingTasks != 0 && p.waiters.len >= p.opts.MaxBlockingTasks) {
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
		stop = context.AfterFunc(ctx, p.wakeAll)
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

// wakeAll wakes every waiter so that those whose context is done can leave.
func (p *poolCore[T]) wakeAll() {
	p.lock.Lock()
	p.cond.Broadcast()
	p.lock.Unlock()
}

// admitLocked is what every event that frees room does: it gives free
// slots to buffered tasks, then moves the tasks of the longest-waiting
// callers into the ring while the pool can accept them. It returns how many
// callers it took, for the caller to wake with signal once it has released
// p.lock; the caller then takes from the ring or kicks it. It requires
// p.lock held.
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

// signal wakes n waiters whose tasks admitLocked took. It is called without
// p.lock, as a channel send wakes its receiver only after releasing the
// channel's lock: a wake-up can enter the kernel (runtime.wakep), and every
// other user of the pool would spin on the lock meanwhile.
//
// Signalling late wakes the right callers all the same. Signal wakes the
// caller that entered Wait first among those still in it, and callers enter
// Wait in list order, so the n oldest are exactly the n taken ones, unless
// one of them has woken already (a Broadcast) and so needs no signal: then
// a pending caller wakes, finds its task still pending, and goes back to
// the tail (waitUnlock).
func (p *poolCore[T]) signal(n int) {
	for ; n > 0; n-- {
		p.cond.Signal()
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
