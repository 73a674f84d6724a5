package ants

// Starting, reviving and stopping workers, and accounting for their exits.

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

// claimLocked finds room for one more task when no worker is idle: ok is
// false if capacity workers are active. Otherwise w is a worker that had
// been told to stop but not yet read the order, now kept instead, or nil if
// a new worker must be started.
//
// Capacity counts active workers, not goroutines: a worker that has read its
// order to stop is gone for the pool, and waiting the microseconds until its
// goroutine ends would make Submit fail or wait for nothing (ants has that
// window after every purge). Reviving first keeps the goroutines over
// capacity to those few already on their way out. It requires p.lock held.
func (p *poolCore[T]) claimLocked() (w *goWorker[T], ok bool) {
	if c := p.capacity.Load(); c >= 0 && p.activeLocked() >= int(c) {
		return nil, false
	}
	// The most recently stopped are the likeliest to be unread; the rest
	// are exiting and leave the list themselves, so a few tries suffice.
	for i := len(p.stopped) - 1; i >= max(0, len(p.stopped)-reviveTries); i-- {
		w := p.stopped[i]
		select {
		case <-w.args: // the order to stop, still unread: take it back
			p.unstopLocked(w)
			return w, true
		default: // already read: the worker is exiting
		}
	}
	return nil, true
}

// reviveTries bounds the stopped workers claimLocked looks at.
const reviveTries = 4

// startLocked runs arg on w, as returned by claimLocked. It requires p.lock
// held.
func (p *poolCore[T]) startLocked(w *goWorker[T], arg T) {
	if w == nil {
		p.spawnLocked(arg)
		return
	}
	w.args <- arg // never blocks: claimLocked just emptied the channel
}

// serveLocked starts workers for buffered tasks and waiting callers while
// the capacity allows, after an event that freed capacity. It requires
// p.lock held.
func (p *poolCore[T]) serveLocked() {
	for {
		w, ok := p.claimLocked()
		if !ok {
			return
		}
		arg, ok := p.nextTaskLocked()
		if !ok {
			if w != nil {
				p.idleLocked(w)
			}
			return
		}
		p.startLocked(w, arg)
	}
}

// idleLocked puts a revived worker with nothing to do back where it was
// going: the idle queue, or, on a closed pool, out. It requires p.lock held.
func (p *poolCore[T]) idleLocked(w *goWorker[T]) {
	if p.closed.Load() {
		p.stopLocked(w)
		return
	}
	w.lastUsed = p.lastTick
	p.workers.insert(w)
}

// afterTask records the task a worker just finished and returns the next
// one, parking the worker in the idle queue until there is one. It returns
// ok == false when the worker must exit.
func (p *poolCore[T]) afterTask(w *goWorker[T], panicked bool) (arg T, ok bool) {
	p.lock.Lock()
	if panicked {
		count(&p.panicked)
	} else {
		count(&p.completed)
	}
	if c := p.capacity.Load(); c >= 0 && p.activeLocked() > int(c) {
		// A shrinking Tune left more workers than capacity.
		p.lock.Unlock()
		return arg, false
	}
	if arg, ok = p.nextTaskLocked(); ok {
		p.lock.Unlock()
		return arg, true
	}
	if p.closed.Load() {
		p.lock.Unlock()
		return arg, false
	}
	w.lastUsed = p.lastTick
	p.workers.insert(w)
	p.lock.Unlock()

	arg = <-w.args
	return arg, !w.stop // stop was set before the value was sent
}

// workerExited is the last thing a worker goroutine does. lost reports a
// task that ended the goroutine with runtime.Goexit. The capacity the worker
// held goes to waiting callers and buffered tasks.
func (p *poolCore[T]) workerExited(w *goWorker[T], lost bool) {
	p.lock.Lock()
	if lost {
		count(&p.panicked)
	}
	if w.stop {
		p.unstopLocked(w)
	}
	p.running.Add(-1)
	p.serveLocked()
	p.exitedLocked()
	p.lock.Unlock()
	p.workerCache.Put(w)
}

// goroutineExited is the last thing the purge goroutine does.
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
	return int(p.running.Load()) - len(p.stopped)
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
	w.stopIdx = len(p.stopped)
	p.stopped = append(p.stopped, w)
	var zero T
	w.args <- zero // never blocks: an idle worker's channel is empty
}

// unstopLocked removes w from p.stopped, because it exited or was revived.
// It requires p.lock held.
func (p *poolCore[T]) unstopLocked(w *goWorker[T]) {
	last := len(p.stopped) - 1
	moved := p.stopped[last]
	p.stopped[w.stopIdx], moved.stopIdx = moved, w.stopIdx
	p.stopped[last] = nil
	p.stopped = p.stopped[:last]
	w.stop = false
}
