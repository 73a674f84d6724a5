package ants

// Starting and stopping workers, and accounting for their exits.

// spawnLocked starts a worker goroutine with arg as its first task. It
// requires p.lock held.
func (p *poolCore[T]) spawnLocked(arg T) {
	p.running.Add(1)
	p.live++
	// A closed pool still starts workers to drain its buffer (Tune, a lost
	// worker), but those exit when done: they need no purge.
	if p.purgeStop == nil && !p.opts.DisablePurge && !p.closed.Load() {
		p.startPurgeLocked()
	}
	w, _ := p.workerCache.Get().(*goWorker[T])
	if w == nil {
		w = &goWorker[T]{pool: p, args: make(chan T, 1)}
	}
	go w.run(arg)
}

// roomLocked reports whether a new worker may start: fewer than capacity
// workers are active. It requires p.lock held.
//
// Capacity counts active workers, not goroutines: a worker told to stop is
// gone for the pool, and waiting the microseconds until its goroutine ends
// would make Submit fail or wait for nothing (ants has that window after
// every purge). So for those microseconds the pool can have more goroutines
// than its capacity, the extra ones all on their way out.
func (p *poolCore[T]) roomLocked() bool {
	c := p.capacity.Load()
	return c < 0 || p.activeLocked() < int(c)
}

// serveLocked starts workers for buffered tasks and waiting callers while
// the capacity allows, after an event that freed capacity. It requires
// p.lock held.
func (p *poolCore[T]) serveLocked() {
	for p.roomLocked() {
		arg, ok := p.nextTaskLocked()
		if !ok {
			return
		}
		p.spawnLocked(arg)
	}
}

// afterTask records the task a worker just finished and returns the next
// one, parking the worker in the idle queue until there is one. It returns
// ok == false when the worker must exit.
func (p *poolCore[T]) afterTask(w *goWorker[T]) (arg T, ok bool) {
	p.lock.Lock()
	count(&p.completed)
	if c := p.capacity.Load(); c >= 0 && p.activeLocked() > int(c) {
		// A shrinking Tune left more workers than capacity.
		p.retireLocked(w)
		p.lock.Unlock()
		return arg, false
	}
	if arg, ok = p.nextTaskLocked(); ok {
		p.lock.Unlock()
		return arg, true
	}
	if p.closed.Load() {
		p.retireLocked(w)
		p.lock.Unlock()
		return arg, false
	}
	w.lastUsed = p.lastTick
	p.workers.insert(w)
	p.lock.Unlock()

	arg = <-w.args
	if w.stop { // set before the value was sent
		p.retire(w, false)
		return arg, false
	}
	return arg, true
}

// retire takes a worker that is about to exit out of the pool's counts; a
// failed one ended with a panic or runtime.Goexit. The capacity it held goes
// to waiting callers and buffered tasks.
func (p *poolCore[T]) retire(w *goWorker[T], failed bool) {
	p.lock.Lock()
	if failed {
		count(&p.panicked)
	}
	p.retireLocked(w)
	p.lock.Unlock()
}

// retireLocked is retire with p.lock held.
func (p *poolCore[T]) retireLocked(w *goWorker[T]) {
	if w.stop {
		w.stop = false
		p.stopping--
	}
	p.running.Add(-1)
	p.serveLocked()
}

// workerExited is the last thing a worker goroutine does, after retire.
func (p *poolCore[T]) workerExited(w *goWorker[T]) {
	p.goroutineExited()
	p.workerCache.Put(w)
}

// goroutineExited counts a pool goroutine out: the last thing the purge
// goroutine and every worker do.
func (p *poolCore[T]) goroutineExited() {
	p.lock.Lock()
	p.exitedLocked()
	p.lock.Unlock()
}

// exitedLocked counts one pool goroutine out. It requires p.lock held.
func (p *poolCore[T]) exitedLocked() {
	p.live--
	if p.live == 0 && p.allExited != nil {
		close(p.allExited)
		p.allExited = nil
	}
}

// activeLocked returns the number of workers not told to stop. It requires
// p.lock held.
func (p *poolCore[T]) activeLocked() int {
	return int(p.running.Load()) - p.stopping
}

// stopIdleLocked stops up to n idle workers. It requires p.lock held.
func (p *poolCore[T]) stopIdleLocked(n int) {
	for ; n > 0; n-- {
		w := p.workers.detach()
		if w == nil {
			return
		}
		p.stopLocked(w)
	}
}

// stopLocked tells an idle worker, detached from the idle queue, to exit. It
// requires p.lock held. The worker's channel is left open so that the
// goWorker can be reused.
func (p *poolCore[T]) stopLocked(w *goWorker[T]) {
	w.stop = true
	p.stopping++
	var zero T
	w.args <- zero // never blocks: an idle worker's channel is empty
}
