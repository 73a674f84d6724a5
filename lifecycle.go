package ants

// Starting and stopping workers, and accounting for their exits.

// spawnLocked starts a worker goroutine with arg, a task taken from the
// ring, as its first task. It requires p.lock held.
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
		w = &goWorker[T]{pool: p, ch: make(chan struct{}, 1)}
	}
	go w.run(arg)
}

// afterTask records the task a worker just finished and returns the next
// one, parking the worker in the idle queue until there is one. It returns
// ok == false when the worker must exit.
func (p *poolCore[T]) afterTask(w *goWorker[T]) (arg T, ok bool) {
	p.lock.Lock()
	count(&p.completed)
	p.busy--
	taken := p.admitLocked()
	for {
		if p.reserved > 0 {
			arg = p.takeLocked()
			next := p.kickLocked()
			p.lock.Unlock()
			p.signal(taken)
			next.wake()
			return arg, true
		}
		if c := p.capacity.Load(); p.closed.Load() || (c >= 0 && p.running.Load() > c) {
			// Released, or a shrinking Tune left more workers than
			// capacity: nothing more for this worker to do.
			p.exitLocked()
			p.signal(taken)
			return arg, false
		}
		w.lastUsed = p.lastTick
		p.workers.insert(w)
		p.lock.Unlock()
		p.signal(taken)
		taken = 0

		<-w.ch
		if w.stop { // set before the wake-up was sent
			w.stop = false
			return arg, false
		}
		p.lock.Lock()
		p.searching--
	}
}

// exitLocked takes a worker that leaves on its own (a shrinking Tune, a
// closed pool, a panic) out of the pool's counts and releases p.lock.
func (p *poolCore[T]) exitLocked() {
	p.running.Add(-1)
	w := p.kickLocked()
	p.lock.Unlock()
	w.wake()
}

// failed takes a worker whose task panicked or called runtime.Goexit out of
// the pool's counts: the task is over, and so is the worker. Its capacity
// goes at once to waiting callers and buffered tasks.
func (p *poolCore[T]) failed() {
	p.lock.Lock()
	count(&p.panicked)
	p.busy--
	taken := p.admitLocked()
	p.exitLocked()
	p.signal(taken)
}

// workerExited is the last thing a worker goroutine does.
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

// stopLocked tells an idle worker, detached from the idle queue, to exit;
// it stops counting as running at once. It requires p.lock held.
//
// Capacity counts active workers, not goroutines: a worker told to stop is
// gone for the pool, and waiting the microseconds until its goroutine ends
// would make Submit fail or wait for nothing (ants has that window after
// every purge). So for those microseconds the pool can have more goroutines
// than its capacity, the extra ones all on their way out; ReleaseTimeout
// waits for them (live).
func (p *poolCore[T]) stopLocked(w *goWorker[T]) {
	w.stop = true
	p.running.Add(-1)
	w.wake() // never blocks: an idle worker's channel is empty
}
