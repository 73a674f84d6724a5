package ants

import (
	"runtime"
	"runtime/debug"
	"time"
)

// The worker goroutine's side of the pool. A worker is started for a
// reserved task (spawnLocked, wake.go) and is then active, counted in
// running: busy with a task, idle in the idle queue, or searching, woken
// and on its way to the ring. After each task it takes the next reserved
// one, parks, or stops being active (afterTask): told to stop, or leaving
// on its own, it is stopping until leaveOrStay counts it out, or keeps it
// for a task that needs it. A task's panic ends its worker at once
// (failed), and the goroutine is counted out once the panic is reported.

// goWorker is one pooled goroutine. It runs the task it was started with,
// then takes the next from the pool's ring (afterTask); when the ring is
// empty it parks in the pool's idle queue until the pool wakes it to look
// again, or tells it to stop. One goWorker[T] serves every pool kind: T is
// func() for Pool and the argument type for the function pools.
type goWorker[T any] struct {
	// The fields are ordered so that the struct fits the 128-byte size
	// class (in another order it took 144 bytes), with those a worker
	// reads as it wakes and as its task ends in its first 40 bytes.

	pool *poolCore[T]

	// ch wakes a parked worker. Its capacity of 1 makes the wake-up
	// non-blocking even if the worker has not parked yet: a worker gets at
	// most one wake-up per idle period, because the pool detaches it from
	// the idle queue before sending.
	ch chan struct{}

	// stop tells an idle worker that its wake-up is the order to exit. It
	// is set under the pool's lock before the wake-up is sent, so the
	// worker may read it after receiving.
	stop bool

	// handed tells an idle worker that its wake-up comes with a task,
	// next, which already holds its slot and makes the worker busy
	// (kickLocked); it runs it without taking the pool's lock. Like stop,
	// both are set under the lock before the wake-up is sent.
	handed bool

	// retire, set by a task on its own worker's goroutine, makes the worker
	// exit after the task instead of taking the next one.
	retire bool

	// panicked is set for a task whose panic its pool kind caught (a
	// WorkerPool's fn, a panicMark), so that the observer is told and
	// afterTask counts it as panicked. Only the worker's goroutine uses it.
	panicked bool

	// wakes counts the tasks the worker takes (sampleTask), and wokenAt
	// is when the timing of the current task began (its wake-up, its
	// take, or the worker's start), or 0: the start and one task in eight
	// are timed, to the task's end, for poolCore.wokenRun. Only the
	// worker's goroutine uses them.
	wakes   uint32
	next    T
	wokenAt int64

	// nextWake links the workers detached to be woken at once (wake.go);
	// guarded by the pool's lock until the wake-up.
	nextWake *goWorker[T]

	// lastUsed is the pool tick at which the worker last went idle; guarded
	// by the pool's lock.
	lastUsed int64

	// local is state a pool kind keeps for the life of this worker (a
	// WorkerPool's Worker); only the worker's goroutine uses it, and the
	// pool clears it when the worker exits.
	local any

	// The timing of the current task, if the pool is timed (timing.go): its
	// stamp, when it started (0: not yet read), and whether it is running.
	// Only the worker's goroutine uses them, except stamp, which takeLocked
	// sets under the pool's lock before the worker runs the task.
	stamp  taskStamp
	start  int64
	inTask bool

	// exiting is set while leaveOrStay runs the pool's onExit hook for w,
	// already out of Running, so that runTasks counts it out rightly if the
	// hook calls runtime.Goexit. Only the worker's goroutine uses it.
	exiting bool

	// letInAt is when the worker last let a blocked caller into the
	// buffer on the buffered fast path (afterTask), and letIn is set from
	// then until the buffer has drained to half: the caller may still be
	// waiting for this worker's P to run it (see yieldToCallers). Only the
	// worker's goroutine uses them.
	letIn   bool
	letInAt int64

	// ran is the run time of the task just finished, for the adaptive
	// capacity; negative if it panicked.
	ran int64
}

// run is the body of the worker goroutine: it works (work), and its last
// act, once the worker has been counted out and has returned from the
// pool's code, is its decrement of p.departing (waitDeparted). It is all
// the goroutine's body does, so that a goroutine whose stack holds the
// pool's code past its body's entry is one still at work.
func (w *goWorker[T]) run(arg T) {
	defer w.pool.departing.Add(-1) // w may be another worker's by then
	w.work(arg)
}

// work returns when afterTask counts the worker out (purge, Release, a
// shrinking Tune, retire), or when a task panics or calls runtime.Goexit.
// Either way the goroutine is counted out of p.live as it ends, which is
// how ReleaseTimeout knows that none is left.
//
// A task whose panic its wrapper caught and reported ends with a panicMark
// (wrapper.go): runTasks returns true, the task counts as panicked, and
// the worker goes on. (afterTask runs no user code for it, outside the
// recovery of runTasks: a WorkerPool, whose onExit hook is user code,
// marks no panic, and a marked task is no sample for OnChange.)
func (w *goWorker[T]) work(arg T) {
	w.wokenAt = nanotime() // a start times the first task, as a wake-up does
	for w.runTasks(arg) {
		var ok bool
		if arg, ok = w.pool.afterTask(w); !ok {
			return // counted out, and w recycled: not to be touched
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
	returned := false // the loop ended normally: afterTask counted w out
	defer func() {
		if returned {
			return // w is recycled: not to be touched
		}
		if w.exiting {
			// The pool's onExit hook, run by leaveOrStay for a worker
			// already out of Running, called runtime.Goexit (or a
			// PanicHandler it called panicked, which goes on, unrecovered,
			// to end the process, as in ants).
			p.exitedInHook(w)
			return
		}
		// The panic path. The task panicked, or called runtime.Goexit
		// (t.FailNow, for one), which neither returns nor panics. As in
		// ants, the worker ends, and it has left Running and the goroutine
		// bound by the time the panic handler runs; the capacity it held
		// goes at once to waiting callers and buffered tasks.
		r := recover()
		if _, ok := r.(panicMark); ok {
			p.markedPanic(w)
			marked = true
			return
		}
		p.exitFailed(w, r)
	}()
	for {
		if p.timed {
			p.runTimed(w, arg)
		} else {
			p.fn(w, arg)
		}
		var ok bool
		if arg, ok = p.afterTask(w); !ok {
			returned = true
			return false
		}
	}
}

// exitFailed ends w, whose task panicked with r, or called runtime.Goexit
// (r is nil), or whose observer's TaskDone did either after the task. It
// runs on w's goroutine, in runTasks' deferred recovery.
//
// The user's code it calls (the observer's TaskDone, the PanicHandler or
// the Logger, the onExit hook) may return or call runtime.Goexit: each step
// after it is deferred, so that the worker is counted out of Running, the
// bound and live either way. A panic of the PanicHandler or the Logger
// ends the process, as in ants, once the steps after it have run. A panic
// of the observer's TaskDone is reported after the task's own (the
// PanicHandler, else the Logger), as its panic after a task that returned
// is.
func (p *poolCore[T]) exitFailed(w *goWorker[T], r any) {
	var stack []byte
	if r != nil && p.opts.PanicHandler == nil {
		stack = debug.Stack() // the panicking stack is gone after this call
	}
	defer p.countOut()
	defer p.recycle(w)
	if p.onExit != nil {
		defer p.onExit(w)
	}
	var obsPanic any
	var obsStack []byte
	defer func() {
		if obsPanic != nil {
			p.handlePanic(obsPanic, obsStack)
		}
	}()
	if r != nil {
		defer p.handlePanic(r, stack)
	}
	defer p.failed()
	if p.timed && w.inTask {
		defer func() {
			if obsPanic = recover(); obsPanic != nil && p.opts.PanicHandler == nil {
				obsStack = debug.Stack()
			}
		}()
		p.observePanic(w)
	}
}

// exitedInHook counts out w, a stopping worker whose onExit hook, run by
// leaveOrStay, did not return. w left Running before the hook ran; it now
// leaves the bound, and since it can no longer stay for a reserved task,
// a worker is started or woken for it if one is needed. The count-out is
// its last act, unless an idle worker must be woken: that wake-up is sent
// after unlocking, and the count-out follows it.
func (p *poolCore[T]) exitedInHook(w *goWorker[T]) {
	w.exiting = false
	p.lock.Lock()
	p.stopping--
	next := p.kickLocked()
	p.recycle(w)
	if next == nil {
		p.departLocked()
		p.lock.Unlock()
		return
	}
	p.lock.Unlock()
	next.wake()
	p.countOut()
}

// afterTask records the task a worker just finished and returns the next
// one, parking the worker in the idle queue until there is one. It returns
// ok == false when the worker has been counted out and must exit.
func (p *poolCore[T]) afterTask(w *goWorker[T]) (arg T, ok bool) {
	var run int64
	if w.wokenAt != 0 {
		run, w.wokenAt = nanotime()-w.wokenAt, 0
	}
	p.lock.Lock()
	if run != 0 {
		p.noteWokenRunLocked(run)
	}
	if p.nextBufferedLocked(w) {
		// The buffered fast path: the worker keeps its slot for the next
		// buffered task, in the same lock crossing as its report.
		p.completed++
		arg = p.waitq.popZero()
		var taken *waiter[T]
		if p.waitq.blocked > 0 {
			taken = p.letInLocked(0, nil) // one level: no ranks to compare
			if !w.letIn && p.queueSize >= yieldMinBuffer {
				w.letIn, w.letInAt = true, nanotime()
			}
		}
		halfDrained := w.letIn && p.waitq.zero.tasks.size <= p.queueSize/2
		sample := p.wokenRun > int64(blockingRun) // see afterWakeLocked
		p.lock.Unlock()
		taken.wake()
		if halfDrained {
			p.yieldToCallers(w)
		}
		if sample {
			w.sampleTask()
		}
		return arg, true
	}
	if p.adaptive != nil && w.ran >= 0 {
		n := p.adaptive.observe(int(w.stamp.cap), time.Duration(w.ran), w.start)
		if n != int(p.capacity.Load()) {
			p.adaptLocked(n) // the worker still counts as busy meanwhile
		}
	}
	if w.panicked { // a panic its pool kind caught
		p.panicked++
		w.panicked = false
	} else {
		p.completed++
	}
	p.busy--
	var taken *waiter[T]
	if p.reserved == 0 && !w.retire && p.waitq.len() > 0 && p.slotFreeLocked() && p.gateOpenLocked() {
		// The slot this task freed goes to the best waiting unit, and this
		// worker runs it at once: no trip through the ring.
		var st taskStamp
		now := p.agingNow()
		if p.ovl != nil {
			now = p.grantNow(w.start) // the end of its task
		}
		var ok bool
		if arg, st, taken, ok = p.popWaitingLocked(now, nil); ok {
			if p.timed {
				w.stamp = st
			}
			p.busy++
			taken = p.admitOntoLocked(taken)
			next := p.kickLocked()
			w.wakeUnlock(taken, next, false)
			return arg, true
		}
		// Every unit left was dropped (overload.go).
	}
	taken = p.admitOntoLocked(taken)
	p.noteIdleLocked()
	woke := false // w was woken from the idle queue to search
	for {
		if p.reserved > 0 && !w.retire {
			arg = p.takeLocked(w)
			next := p.kickLocked()
			w.wakeUnlock(taken, next, woke)
			return arg, true
		}
		c := p.capacity.Load()
		if w.retire || p.closed.Load() || (c >= 0 && p.running.Load() > c) {
			// Released, a shrinking Tune left more workers than capacity,
			// or the task asked its worker to go: nothing more for this
			// worker to do.
			p.running.Add(-1)
			p.stopping++
			if !p.leaveOrStay(w, taken) {
				return arg, false
			}
			taken = nil
			continue
		}
		w.lastUsed = p.lastTick
		w.start = 0 // its next task starts when it wakes
		p.workers.insert(w)
		p.lock.Unlock()
		taken.wake()
		taken = nil

		<-w.ch
		if w.handed {
			var zero T
			arg, w.next, w.handed = w.next, zero, false
			w.sampleTask() // timed from the wake-up, if it is timed
			p.woken()
			return arg, true
		}
		// A worker woken to search counts the task it takes, if any, as
		// it takes it (wakeUnlock); a wake-up that finds none counts none.
		woke = true
		p.lock.Lock()
		if !w.stop {
			p.searching--
			continue
		}
		w.stop = false // set, with stopping counted, before the wake-up was sent
		if !p.leaveOrStay(w, nil) {
			return arg, false
		}
	}
}

// callerWaitBeforeYield is how long a caller that a worker let into the
// buffer may have waited to run before the worker yields to it, once the
// buffer has drained to half (yieldToCallers): many times the cost of the
// yield, and longer than no-op tasks take to drain half of a buffer of the
// usual sizes, so that only workers whose tasks are long enough for the
// caller's wait to idle them yield (DESIGN.md, "A producer faster than the
// workers").
const callerWaitBeforeYield = 10 * time.Microsecond

// yieldMinBuffer is the smallest buffer for which workers yield to the
// callers they let in (yieldToCallers): in a smaller one the clock
// readings cost more than the runway gives back (DESIGN.md, "A producer
// faster than the workers").
const yieldMinBuffer = 8

// yieldToCallers is what a worker on the buffered fast path does once the
// buffer has drained to half since it last let a blocked caller in: if the
// caller may still be waiting to run, it yields its P to it.
//
// The runtime runs a goroutine that another readies next on the readier's
// P, after it, and no other P takes it while all are busy. So a producer
// that a busy worker lets into the buffer stays runnable behind that
// worker, and the other workers empty the buffer and park before it
// submits again, leaving CPU idle, as a channel pool does too (DESIGN.md,
// "A producer faster than the workers", has the measurements). Yielding
// here lets the producer refill the buffer while the other workers still
// have half of it to run.
func (p *poolCore[T]) yieldToCallers(w *goWorker[T]) {
	w.letIn = false
	if p.callersWaking.Load() > 0 && time.Duration(nanotime()-w.letInAt) > callerWaitBeforeYield {
		runtime.Gosched()
	}
}

// nextBufferedLocked reports whether w, whose task has just ended without
// a panic, takes the next buffered task on the fast path: the pool is
// neither timed nor gated, no task is reserved, only level 0 waits, in the flow "" alone, and
// the slot of w is still within the capacity. It then stays busy, and
// nothing but the buffer changes: no slot frees for the admission and the
// wake rule to act on. It requires p.lock held.
func (p *poolCore[T]) nextBufferedLocked(w *goWorker[T]) bool {
	if p.timed || p.gated || w.panicked || w.retire || p.reserved > 0 ||
		p.waitq.zero.tasks.size == 0 || len(p.waitq.levels) > 1 || p.waitq.flowing > 0 {
		return false
	}
	c := p.capacity.Load()
	return c < 0 || p.busy <= int(c)
}

// leaveOrStay takes a stopping worker out of the pool, or keeps it. It is
// called with p.lock held and returns true with it still held (the worker
// stays) or false with it released (the worker has been counted out and
// must exit).
//
// What the worker still does on the pool's behalf without the lock comes
// first: it wakes the callers its admission took (taken) and runs the
// pool's onExit hook, if any, on its own goroutine. Then, under the lock,
// if a reserved task needs it, the worker stays, active again: while this
// goroutine holds its place in the bound no new worker could start for the
// task. A task needs it if no worker is on its way to it and either the
// pool has a slot or no idle worker is left for the task, which holds a
// slot granted before a shrinking Tune (canSpawnLocked). Otherwise it
// recycles w and counts the goroutine out of the bound and of live, and
// releases p.lock.
//
// Counting out is the goroutine's last act on the pool's behalf: a new
// worker may start in its place, or a release return nil, once it is
// counted out, and all that is left of it then is the lock's release and
// the return of its calls.
func (p *poolCore[T]) leaveOrStay(w *goWorker[T], taken *waiter[T]) (stays bool) {
	if taken != nil || p.onExit != nil {
		p.lock.Unlock()
		taken.wake()
		if p.onExit != nil {
			w.exiting = true // for runTasks, if the hook does not return
			p.onExit(w)
			w.exiting = false
			w.local = nil
		}
		p.lock.Lock()
	}
	w.retire = false
	if p.reserved > p.searching {
		c := p.capacity.Load()
		if c < 0 || p.running.Load() < c || p.reserved > p.searching+p.workers.len() {
			p.stopping--
			p.running.Add(1)
			return true
		}
	}
	p.stopping--
	p.recycle(w)
	p.departLocked()
	p.lock.Unlock()
	return false
}

// failed takes a worker whose task panicked or called runtime.Goexit out of
// the pool's counts: the task is over, and so is the worker. Its capacity
// goes at once to waiting callers and buffered tasks; the goroutine is
// counted out (countOut) once it has reported the panic.
func (p *poolCore[T]) failed() {
	p.lock.Lock()
	p.panicked++
	p.busy--
	taken := p.admitLocked()
	p.noteIdleLocked()
	p.running.Add(-1)
	next := p.kickLocked()
	p.lock.Unlock()
	taken.wake()
	next.wake()
}

// countOut is departLocked for a goroutine that holds no place in the
// bound and not the lock: a worker on the panic path, after failed, and a
// goroutine whose last wake-ups had to be sent after unlocking.
func (p *poolCore[T]) countOut() {
	p.lock.Lock()
	p.departLocked()
	p.lock.Unlock()
}

// departLocked counts a goroutine of the pool out of live (countOutLocked)
// as it leaves: it is departing from then until it has returned from its
// body, whose deferred decrement of p.departing is the last thing it runs.
// It requires p.lock held.
func (p *poolCore[T]) departLocked() {
	p.departing.Add(1)
	p.countOutLocked()
}

// countOutLocked counts one pool goroutine, or a pace timer, out of live,
// and wakes the releases waiting if that drained the pool. It requires
// p.lock held.
func (p *poolCore[T]) countOutLocked() {
	p.live--
	if p.live == 0 {
		p.noteDrainedLocked()
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
// again. The worker's last call before its count-out, it is made with
// p.lock held on the paths that count out under it (leaveOrStay).
func (p *poolCore[T]) recycle(w *goWorker[T]) {
	w.local, w.retire, w.start, w.inTask, w.panicked = nil, false, 0, false, false
	w.wokenAt = 0
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
