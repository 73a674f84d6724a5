package ants

// A worker's life: started for a task (spawnLocked), busy, idle or searching
// while it is active (running), then on its way out (stopping) until it is
// counted out (leaveOrStayLocked). Every goroutine the pool has started and that has
// not been counted out holds a place in the goroutine bound:
//
//	running + stopping <= capacity
//
// except after a shrinking Tune (busy workers above the new capacity finish
// their task first) and for a worker whose task panicked, which leaves at
// once (failed) so that the panic costs no capacity while its PanicHandler
// runs. New workers start only within the bound (canSpawnLocked); a task
// that finds every place held by workers on their way out is taken by one of
// them instead (leaveOrStayLocked), so it does not wait for them to exit.

// canSpawnLocked reports whether the bound leaves room for one more worker
// goroutine. It requires p.lock held.
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

// afterTask records the task a worker just finished and returns the next
// one, parking the worker in the idle queue until there is one. It returns
// ok == false when the worker has been counted out and must exit.
func (p *poolCore[T]) afterTask(w *goWorker[T]) (arg T, ok bool) {
	p.lock.Lock()
	p.completed++
	p.busy--
	taken := p.admitLocked()
	for {
		if p.reserved > 0 && !w.retire {
			arg = p.takeLocked(w)
			next := p.kickLocked()
			p.lock.Unlock()
			p.signal(taken)
			next.wake()
			return arg, true
		}
		if c := p.capacity.Load(); w.retire || p.closed.Load() || (c >= 0 && p.running.Load() > c) {
			// Released, a shrinking Tune left more workers than capacity,
			// or the task asked its worker to go: nothing more for this
			// worker to do.
			p.running.Add(-1)
			p.stopping++
			if !p.leaveOrStayLocked(w, taken) {
				return arg, false
			}
			taken = 0
			continue
		}
		w.lastUsed = p.lastTick
		w.start = 0 // its next task starts when it wakes
		p.workers.insert(w)
		p.lock.Unlock()
		p.signal(taken)
		taken = 0

		<-w.ch
		p.lock.Lock()
		if !w.stop {
			p.searching--
			continue
		}
		w.stop = false // set, with stopping counted, before the wake-up was sent
		if !p.leaveOrStayLocked(w, 0) {
			return arg, false
		}
	}
}

// leaveOrStayLocked takes a worker counted as stopping out of the pool, or
// keeps it. It requires p.lock held. It runs the pool's onExit hook, if
// any, on the worker's goroutine, without the lock. Then, if a reserved
// task has no worker on its way to it and the pool has a slot, the worker
// stays, active again, and leaveOrStayLocked returns true with p.lock held:
// while this goroutine holds its place in the bound no new worker could
// start for the task. Otherwise it counts the worker out of the bound and
// of live, releases p.lock, wakes the taken callers (admitLocked) and
// returns false.
//
// Counting out is the last thing a worker does under the lock, and nothing
// is woken from here: a new worker may start once it is counted out, while
// this goroutine still exists, so that window is kept to the few
// instructions of its return.
func (p *poolCore[T]) leaveOrStayLocked(w *goWorker[T], taken int) (stays bool) {
	if p.onExit != nil {
		p.lock.Unlock()
		p.signal(taken)
		taken = 0
		p.onExit(w)
		w.local = nil
		p.lock.Lock()
	}
	w.retire = false
	c := p.capacity.Load()
	if p.reserved > p.searching && (c < 0 || p.running.Load() < c) {
		p.stopping--
		p.running.Add(1)
		return true
	}
	p.stopping--
	p.countOutLocked()
	p.lock.Unlock()
	p.signal(taken)
	return false
}

// failed takes a worker whose task panicked or called runtime.Goexit out of
// the pool's counts: the task is over, and so is the worker. Its capacity
// goes at once to waiting callers and buffered tasks; the goroutine is
// counted out (exited) once it has reported the panic.
func (p *poolCore[T]) failed() {
	p.lock.Lock()
	p.panicked++
	p.busy--
	taken := p.admitLocked()
	p.running.Add(-1)
	next := p.kickLocked()
	p.lock.Unlock()
	p.signal(taken)
	next.wake()
}

// exited counts out a pool goroutine that holds no place in the bound: the
// purge goroutine, and a worker after failed.
func (p *poolCore[T]) exited() {
	p.lock.Lock()
	p.countOutLocked()
	p.lock.Unlock()
}

// countOutLocked counts one pool goroutine out of live, which
// ReleaseTimeout waits on. It requires p.lock held.
func (p *poolCore[T]) countOutLocked() {
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

// stopLocked tells an idle worker, detached from the idle queue, to exit.
// It stops counting as running at once, so Running() and Free() show the
// capacity free, but it holds its place in the goroutine bound (stopping)
// until it has exited; if a task needs it meanwhile, it takes the task
// (leaveOrStayLocked). It requires p.lock held.
func (p *poolCore[T]) stopLocked(w *goWorker[T]) {
	w.stop = true
	p.running.Add(-1)
	p.stopping++
	w.wake() // never blocks: an idle worker's channel is empty
}
