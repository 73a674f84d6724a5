package ants

// Who wakes whom: the idle workers a task wakes, the workers started and
// stopped, and the waiting callers an admitted task wakes.
//
// # Wake-ups are sent after unlocking
//
// A wake-up, of a parked worker (wake) or of a waiting caller (signal), is
// sent only after p.lock is released, as a channel send wakes its receiver
// only after releasing the channel's lock: it can enter the kernel
// (runtime.wakep), and every other user of the pool would spin on the lock
// meanwhile. So the functions that run under the lock only decide whom to
// wake: kickLocked and wakeIdleLocked detach idle workers and link them by
// nextWake, and admitLocked counts the callers it took. Their caller
// releases the lock, then calls wake on the list and signal with the count.
//
// # The wake rule
//
// Tasks wait for a worker in one FIFO ring (p.tasks). A worker that
// finishes a task takes the next one without parking, as the workers of a
// channel pool do; a worker finding no reserved task parks in the idle
// queue (p.workers) on its own channel. A parked worker is woken with its
// task: the task is handed to it under the lock (goWorker.next), and the
// worker runs it without taking the lock again, as a receiver parked on a
// channel gets the sent value from the sender.
//
// Whom to wake follows the rule the Go scheduler uses for its spinning
// threads: a task wakes a parked worker only if no woken worker is still
// on its way (onWay == 0), and a woken worker that finds that tasks were
// reserved meanwhile (kickWanted) wakes the next one before it runs its
// own. So a steady stream of tasks costs about one wake-up per batch the
// submitters get ahead of the workers, not one per task: the tasks
// reserved while a worker wakes wait in the ring for the first worker
// free, woken or busy. And no task sits in the ring behind a busy worker
// while an idle one sleeps: while reserved tasks are in the ring and a
// worker is idle, a worker is on its way, or one has been asked to kick.
// kickLocked applies the rule.

// wake wakes w, a worker detached from the idle queue, and the workers
// linked from it by nextWake; a nil w is a no-op. It is called without
// p.lock.
func (w *goWorker[T]) wake() {
	for w != nil {
		next := w.nextWake
		w.nextWake = nil
		w.ch <- struct{}{}
		w = next
	}
}

// kickLocked makes sure the reserved tasks will be taken promptly, and
// returns the idle workers to wake, if any, linked by nextWake. It requires
// p.lock held.
//
// While a woken worker is on its way, nobody else is woken: kickLocked
// asks it to kick (kickWanted), and it calls kickLocked when it wakes
// (woken). The request and the count are atomics, in the order that makes
// one of the two sides see the other (store, then load, on both), so a
// worker that stops being on its way just as a task is reserved is either
// seen gone or sees the request.
//
// Workers are started eagerly: reserved tasks beyond what the idle workers
// can take wake every idle worker and start new workers for the rest, at
// once, so Running() grows before Submit returns, as in ants, and a burst
// does not wait for workers to wake or start one another. Waking them all
// matters when tasks block: left to the chain while new workers start, the
// idle ones fall behind under the scheduler's load and the pool grows
// several times larger than it needs (BENCHMARKS.md, "Where the floor is",
// the sleep workload).
//
// New workers stay within the goroutine bound (canSpawnLocked): when
// workers on their way out hold the places a reserved task needs, one of
// them takes it before it exits (leaveOrStay).
func (p *poolCore[T]) kickLocked() *goWorker[T] {
	if p.reserved == 0 {
		return nil
	}
	if p.reserved > p.workers.len() {
		// More reserved tasks than idle workers: every idle worker is
		// needed now, and new workers for the rest.
		w := p.wakeIdleLocked(p.workers.len(), wakeToRun, nil)
		for p.reserved > 0 && p.canSpawnLocked() {
			p.spawnLocked()
		}
		return w
	}
	if p.onWay.Load() > 0 {
		p.kickWanted.Store(true)
		if p.onWay.Load() > 0 {
			return nil // the worker on its way kicks when it wakes
		}
	}
	w := p.wakeIdleLocked(1, wakeToRun, nil)
	// The worker woken now kicks for the tasks left, as it wakes.
	p.kickWanted.Store(p.reserved > 0)
	return w
}

// woken is what a worker woken with a task does before it runs it: it is
// no longer on its way, and if tasks were reserved meanwhile that it was
// counted on to kick for, it kicks.
func (p *poolCore[T]) woken() {
	p.onWay.Add(-1)
	if !p.kickWanted.Load() {
		return
	}
	p.lock.Lock()
	next := p.kickLocked()
	p.lock.Unlock()
	next.wake()
}

// wakeReason is what wakeIdleLocked wakes idle workers for.
type wakeReason bool

const (
	wakeToRun  wakeReason = false // run the reserved task handed to it
	wakeToStop wakeReason = true  // exit (stopLocked)
)

// wakeIdleLocked detaches up to n idle workers, to run a reserved task or
// to stop as why says, and links them onto wake, the list of workers the
// caller wakes after releasing p.lock; it returns the new list. To run, a
// worker is handed the head task of the ring (n must be at most reserved).
// It requires p.lock held.
func (p *poolCore[T]) wakeIdleLocked(n int, why wakeReason, wake *goWorker[T]) *goWorker[T] {
	for ; n > 0; n-- {
		w := p.workers.detach()
		if w == nil {
			break
		}
		if why == wakeToStop {
			p.stopLocked(w)
		} else {
			w.next = p.takeLocked(w)
			p.onWay.Add(1)
		}
		w.nextWake, wake = wake, w
	}
	return wake
}

// stopLocked tells w, an idle worker detached from the idle queue, to exit
// when it is woken. It stops counting as running at once, so Running() and
// Free() show its capacity free, but it holds its place in the goroutine
// bound (stopping) until it has exited; if a task needs it meanwhile, it
// takes the task (leaveOrStay). The caller links it for waking. It requires
// p.lock held.
func (p *poolCore[T]) stopLocked(w *goWorker[T]) {
	w.stop = true
	p.running.Add(-1)
	p.stopping++
}

// canSpawnLocked reports whether the goroutine bound leaves room for one
// more worker goroutine (see poolCore.stopping). It requires p.lock held.
func (p *poolCore[T]) canSpawnLocked() bool {
	c := int(p.capacity.Load())
	return c < 0 || int(p.running.Load())+p.stopping < c
}

// spawnLocked starts a worker goroutine for the reserved task at the head
// of the ring. It requires p.lock held, p.reserved > 0 and canSpawnLocked.
func (p *poolCore[T]) spawnLocked() {
	p.running.Add(1)
	p.live++
	// A closed pool still starts workers to drain its buffer (Tune, a lost
	// worker), but those exit when done: they need no purge.
	if p.purgeStop == nil && !p.opts.DisablePurge && !p.closed.Load() {
		p.startPurgeLocked()
	}
	w, _ := p.workerCache.Get().(*goWorker[T])
	if w == nil {
		w = &goWorker[T]{pool: p, ch: make(chan struct{}, 1)}
	}
	go w.run(p.takeLocked(w))
}

// takeLocked takes the reserved task at the head of the ring for worker w,
// busy from now on. It requires p.lock held and p.reserved > 0.
func (p *poolCore[T]) takeLocked(w *goWorker[T]) T {
	arg, _ := p.tasks.pop()
	if p.timed {
		w.stamp, _ = p.stamps.pop()
	}
	p.reserved--
	p.busy++
	return arg
}
