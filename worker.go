package ants

import (
	"runtime/debug"
	"time"
)

// goWorker is one pooled goroutine. It runs the task it was started with,
// then takes the next from the pool's ring (afterTask); when the ring is
// empty it parks in the pool's idle queue until the pool wakes it to look
// again, or tells it to stop. One goWorker[T] serves every pool kind: T is
// func() for Pool and the argument type for the function pools.
type goWorker[T any] struct {
	pool *poolCore[T]

	// ch wakes a parked worker. Its capacity of 1 makes the wake-up
	// non-blocking even if the worker has not parked yet: a worker gets at
	// most one wake-up per idle period, because the pool detaches it from
	// the idle queue before sending.
	ch chan struct{}

	// nextWake links the workers kickLocked woke at once; guarded by the
	// pool's lock until the wake-up.
	nextWake *goWorker[T]

	// lastUsed is the pool tick at which the worker last went idle; guarded
	// by the pool's lock.
	lastUsed int64

	// stop tells an idle worker that its wake-up is the order to exit. It
	// is set under the pool's lock before the wake-up is sent, so the
	// worker may read it after receiving.
	stop bool

	// local is state a pool kind keeps for the life of this worker (a
	// WorkerPool's Worker); only the worker's goroutine uses it, and the
	// pool clears it when the worker exits.
	local any

	// retire, set by a task on its own worker's goroutine, makes the worker
	// exit after the task instead of taking the next one.
	retire bool

	// The timing of the current task, if the pool is timed (timing.go):
	// its stamp, when it started (0: not yet read), and whether it is
	// running. panicked is set for a task whose panic its pool kind caught
	// (a WorkerPool's fn, a panicMark), so that the observer is told and
	// afterTask counts it as panicked. Only the worker's goroutine uses
	// them, but for stamp, which takeLocked sets under the pool's lock
	// before the worker runs the task.
	stamp    taskStamp
	start    int64
	inTask   bool
	panicked bool

	// ran is the run time of the task just finished, for the adaptive
	// capacity; negative if it panicked.
	ran int64
}

// wake wakes w, a worker detached from the idle queue, and the workers
// linked from it by nextWake; a nil w is a no-op.
func (w *goWorker[T]) wake() {
	for w != nil {
		next := w.nextWake
		w.nextWake = nil
		w.ch <- struct{}{}
		w = next
	}
}

// run is the body of the worker goroutine. It returns when the pool stops
// the worker (purge, Release, a shrinking Tune) or a task panics, and
// reports its exit to the pool, which is how ReleaseTimeout knows that no
// goroutine is left.
func (w *goWorker[T]) run(arg T) {
	// >>> Stats.Panicked (wrapper.go, panicMark): runTasks returns true
	// after a task whose panic its wrapper caught and reported; that task
	// counts as panicked, and the worker goes on.
	for w.runTasks(arg) {
		var ok bool
		if arg, ok = w.pool.afterTask(w); !ok {
			w.pool.recycle(w)
			return
		}
	}
}

// runTasks runs arg, then the tasks afterTask gives it, until the worker
// must exit (it returns false), or a task ends with a panicMark (it returns
// true, see run).
//
// Since a panic ends its worker, as in ants, one deferred recover around
// the whole loop serves every task, instead of one per task.
func (w *goWorker[T]) runTasks(arg T) (marked bool) {
	p := w.pool
	exited := false
	defer func() {
		if exited {
			p.recycle(w)
			return
		}
		// The task panicked, or called runtime.Goexit (t.FailNow, for
		// one), which neither returns nor panics. As in ants, the worker
		// ends, and it has left Running and the goroutine bound by the
		// time the panic handler runs; the capacity it held goes at once
		// to waiting callers and buffered tasks.
		r := recover()
		if _, ok := r.(panicMark); ok { // >>> Stats.Panicked
			p.markedPanic(w)
			marked = true
			return
		}
		if p.timed {
			p.observePanic(w)
		}
		var stack []byte
		if r != nil && p.opts.PanicHandler == nil {
			stack = debug.Stack() // the panicking stack is gone after this call
		}
		p.failed()
		if r != nil {
			p.handlePanic(r, stack)
		}
		if p.onExit != nil {
			p.onExit(w)
		}
		p.recycle(w)
		p.exited()
	}()
	for {
		if p.timed {
			p.runTimed(w, arg)
		} else {
			p.fn(w, arg)
		}
		var ok bool
		if arg, ok = p.afterTask(w); !ok {
			exited = true // afterTask counted it out
			return false
		}
	}
}

// markedPanic settles the task of w that ended with a panicMark: its
// wrapper has reported it (observer included), and w goes on to afterTask,
// which counts it as panicked. It runs on w's goroutine.
func (p *poolCore[T]) markedPanic(w *goWorker[T]) {
	if p.timed {
		p.observePanic(w)
		w.ran = -1 // not a sample for the adaptive capacity
		w.start = 0
	}
	w.panicked = true
}

// recycle clears what w kept for its goroutine and puts it in the cache
// for the next worker the pool starts. w's goroutine does not touch it
// again.
func (p *poolCore[T]) recycle(w *goWorker[T]) {
	w.local, w.retire, w.start, w.inTask, w.panicked = nil, false, 0, false, false
	p.workerCache.Put(w)
}

// handlePanic reports the panic of a task, with value and, when the logger
// is to print it, the panicking stack.
func (p *poolCore[T]) handlePanic(value any, stack []byte) {
	if h := p.opts.PanicHandler; h != nil {
		h(value)
		return
	}
	logTaskPanic(p.opts.Logger, value, stack)
}

// A worker's life: started for a task (spawnLocked), busy, idle or searching
// while it is active (running), then on its way out (stopping) until it is
// counted out (leaveOrStay). Every goroutine the pool has started and that has
// not been counted out holds a place in the goroutine bound:
//
//	running + stopping <= capacity
//
// except after a shrinking Tune (busy workers above the new capacity finish
// their task first) and for a worker whose task panicked, which leaves at
// once (failed) so that the panic costs no capacity while its PanicHandler
// runs. New workers start only within the bound (canSpawnLocked); a task
// that finds every place held by workers on their way out is taken by one of
// them instead (leaveOrStay), so it does not wait for them to exit.

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

// takeLocked takes the reserved task at the head of the ring for worker w.
// It requires p.lock held and p.reserved > 0.
func (p *poolCore[T]) takeLocked(w *goWorker[T]) T {
	arg, _ := p.tasks.pop()
	if p.timed {
		w.stamp, _ = p.stamps.pop()
	}
	p.reserved--
	p.busy++
	return arg
}

// kickLocked makes sure the reserved tasks will be taken promptly, and
// returns the idle workers to wake, if any, linked by nextWake, which the
// caller wakes after releasing p.lock (a wake-up can enter the kernel; the
// lock's other users need not wait for it). It requires p.lock held.
//
// While a woken worker is searching, nobody else is woken: it will take
// the head task and, if more remain, wake the next worker itself. That
// keeps wake-ups to the minimum that still starts every task without delay,
// and it is what makes a stream of tasks cheaper than one wake-up each.
//
// Reserved tasks beyond what the searching and idle workers can take wake
// every idle worker and start new workers for the rest, at once. Waking
// them all matters when tasks block: left to the chain while new workers
// start, the idle ones fall behind under the scheduler's load and the pool
// grows several times larger than it needs (BENCHMARKS.md, "Where the
// floor is", the sleep workload).
//
// New workers stay within the goroutine bound (canSpawnLocked): when
// workers on their way out hold the places a reserved task needs, one of
// them takes it before it exits (leaveOrStay).
func (p *poolCore[T]) kickLocked() *goWorker[T] {
	if p.reserved == 0 {
		return nil
	}
	var w *goWorker[T]
	if p.searching == 0 {
		if w = p.workers.detach(); w != nil {
			p.searching++
		}
	}
	if p.reserved > p.searching && p.reserved > p.searching+p.workers.len() {
		// More reserved tasks than the searching and idle workers: every
		// idle worker is needed now, so wake them all rather than leave
		// them to the chain, and start new workers for the rest.
		w = p.wakeIdleLocked(p.workers.len(), w)
		for p.reserved > p.searching && p.canSpawnLocked() {
			p.spawnLocked()
		}
	}
	return w
}

// wakeIdleLocked detaches up to n idle workers as searching ones, links
// them onto wake, the workers the caller wakes after releasing p.lock, and
// returns the new list. It requires p.lock held.
func (p *poolCore[T]) wakeIdleLocked(n int, wake *goWorker[T]) *goWorker[T] {
	for ; n > 0; n-- {
		w := p.workers.detach()
		if w == nil {
			break
		}
		p.searching++
		w.nextWake, wake = wake, w
	}
	return wake
}

// afterTask records the task a worker just finished and returns the next
// one, parking the worker in the idle queue until there is one. It returns
// ok == false when the worker has been counted out and must exit.
func (p *poolCore[T]) afterTask(w *goWorker[T]) (arg T, ok bool) {
	p.lock.Lock()
	if p.adaptive != nil && w.ran >= 0 {
		if n := p.adaptive.observe(int(w.stamp.cap), time.Duration(w.ran), w.start); n != int(p.capacity.Load()) {
			p.adaptUnlocked(n) // the worker still counts as busy meanwhile
		}
	}
	if w.panicked { // >>> Stats.Panicked: a panic its pool kind caught
		p.panicked++
		w.panicked = false
	} else {
		p.completed++
	}
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
			if !p.leaveOrStay(w, taken) {
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
		if !p.leaveOrStay(w, 0) {
			return arg, false
		}
	}
}

// leaveOrStay is called with p.lock held and returns true with it still
// held (the worker stays) or false with it released (the worker has been
// counted out and must exit). It takes a worker counted as stopping out of
// the pool, or keeps it. It runs the pool's onExit hook, if
// any, on the worker's goroutine, without the lock. Then, if a reserved
// task has no worker on its way to it and the pool has a slot, the worker
// stays, active again, and leaveOrStay returns true with p.lock held:
// while this goroutine holds its place in the bound no new worker could
// start for the task. Otherwise it counts the worker out of the bound and
// of live, releases p.lock, wakes the taken callers (admitLocked) and
// returns false.
//
// Counting out is the last thing a worker does under the lock, and nothing
// is woken from here: a new worker may start once it is counted out, while
// this goroutine still exists, so that window is kept to the few
// instructions of its return.
func (p *poolCore[T]) leaveOrStay(w *goWorker[T], taken int) (stays bool) {
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

// stopIdleLocked stops up to n idle workers, linking them onto wake, the
// workers the caller wakes after releasing p.lock, and returns the new
// list. It requires p.lock held.
func (p *poolCore[T]) stopIdleLocked(n int, wake *goWorker[T]) *goWorker[T] {
	for ; n > 0; n-- {
		w := p.workers.detach()
		if w == nil {
			break
		}
		wake = p.stopLocked(w, wake)
	}
	return wake
}

// stopLocked tells an idle worker, detached from the idle queue, to exit,
// and links it onto wake, the list of workers the caller wakes (and so
// tells) after releasing p.lock. It stops counting as running at once, so Running() and Free() show the
// capacity free, but it holds its place in the goroutine bound (stopping)
// until it has exited; if a task needs it meanwhile, it takes the task
// (leaveOrStay). It requires p.lock held.
func (p *poolCore[T]) stopLocked(w, wake *goWorker[T]) *goWorker[T] {
	w.stop = true
	p.running.Add(-1)
	p.stopping++
	w.nextWake = wake
	return w
}
