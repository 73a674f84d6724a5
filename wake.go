package ants

import (
	"runtime"
	"time"
)

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
// queue (p.workers) on its own channel. Parked workers are woken by the
// rule the Go scheduler uses for its spinning threads: a task wakes a
// parked worker only if no woken worker is already on its way to the ring
// (searching == 0), and a woken worker that takes a task while more are
// reserved wakes the next one. So a steady stream of tasks costs about one
// wake-up per batch the submitters get ahead of the workers, not one per
// task, while no task sits in the ring behind a busy worker when an idle
// one sleeps: while reserved tasks are in the ring, a worker is on its way
// to them, or none is idle. kickLocked applies the rule.
//
// That rule suits tasks that compute: a busy worker is soon back for the
// ring. Tasks that block (sleep, wait on I/O) keep their workers away, and
// the chain then runs one wake-up at a time, each waiting for the woken
// worker to be scheduled, while the submitter fills the ring, and the pool
// fell behind ants on ants' own benchmark of sleeping tasks (DESIGN.md,
// "The wake rule", has the figures). So the pool times each worker's start
// and one wake-up in eight to the end of the task it led to (wokenRun). While
// that average is over blockingRun (blocking), submitters yield their
// goroutine as they wait for the lock (LockYielding), and once more than
// handBacklog reserved tasks wait for the chain, the submitter hands each
// to an idle worker of its own (handEachLocked), as ants does.
//
// In a pool with a buffer, when the one reserved task is all there is to
// do, the worker woken for it is handed it under the lock (goWorker.next),
// and runs it without taking the lock again, as a receiver parked on a
// channel gets the sent value from the sender. It is on its way (onWay)
// until it wakes: a task reserved meanwhile asks it to kick (kickWanted),
// which it does as it wakes (woken), waking a searching worker as above.
// The request and the count are atomics, each side storing before it
// loads the other's, so that a worker ceasing to be on its way just as a
// task is reserved is either seen gone by the kicker or sees the request.
//
// Without a buffer the woken worker searches as above. There a submitter
// that finds no slot parks, and a handed task would wait for its worker to
// wake while the busy worker, which would have taken it from the ring,
// takes a parked caller's task instead: more wake-ups and parks per task,
// and a slower pool (DESIGN.md, "The experiments that chose the design",
// on handing a woken worker its task, has the measurements).

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
// While a woken worker is searching, nobody else is woken: it will take
// the head task and, if more remain, call kickLocked to wake the next
// worker (afterTask). Nor while a worker woken with a task handed to it is
// on its way: it is asked to kick as it wakes. That keeps wake-ups to the
// minimum that still starts every task without delay, and it is what makes
// a stream of tasks cheaper than one wake-up each.
//
// Workers are started eagerly: reserved tasks beyond what the searching and
// idle workers can take wake every idle worker and start new workers for
// the rest, at once, so Running() grows before Submit returns, as in ants,
// and a burst does not wait for workers to wake or start one another.
// Waking them all matters when tasks block: left to the chain while new
// workers start, the idle ones fall behind under the scheduler's load and
// the pool grows several times larger than it needs (DESIGN.md, "The wake
// rule").
//
// New workers stay within the goroutine bound (canSpawnLocked): when
// workers on their way out hold the places a reserved task needs, one of
// them takes it before it exits (leaveOrStay).
func (p *poolCore[T]) kickLocked() *goWorker[T] {
	if p.reserved == 0 {
		if p.kickWanted.Load() {
			p.kickWanted.Store(false)
		}
		return nil
	}
	if p.blocking.Load() && p.reserved > handBacklog {
		return p.handEachLocked()
	}
	if p.reserved > p.searching+p.workers.len() {
		// More reserved tasks than the searching and idle workers: every
		// idle worker is needed now, so wake them all rather than leave
		// them to the chain, and start new workers for the rest.
		w := p.wakeIdleLocked(p.workers.len(), wakeToSearch, nil)
		for p.reserved > p.searching && p.canSpawnLocked() {
			p.spawnLocked()
		}
		return w
	}
	if p.searching > 0 {
		return nil // it takes the head task, and kicks for the rest
	}
	if p.onWay.Load() > 0 {
		p.kickWanted.Store(true)
		if p.onWay.Load() > 0 {
			return nil // it kicks as it wakes
		}
	}
	if p.kickWanted.Load() {
		p.kickWanted.Store(false) // the kick it asked for is this one
	}
	w := p.workers.detach() // there is one: reserved <= idle
	if p.reserved > 1 || p.queueSize == 0 {
		p.searching++
		return w
	}
	w.next, w.handed = p.takeLocked(w), true
	p.onWay.Add(1)
	return w
}

// blockingRun is the wokenRun above which the pool takes its tasks to
// block (time.Sleep, I/O, a lock): far above what a task that computes
// takes to be scheduled and run, and below the shortest waits on the
// network.
const blockingRun = 50 * time.Microsecond

// handBacklog is how many reserved tasks may wait for the chain of woken
// workers while tasks block, before the submitter hands them out itself
// (handEachLocked). The chain costs the submitter nothing and is fast
// enough when the pool's tasks are spread over several pools (ants'
// AntsMultiPool: 10 pools of 5,000); a single pool's submitter outruns
// it (AntsPool). 64 tasks wait for the chain at most about as long as one
// task that blocks runs (DESIGN.md, "The wake rule").
const handBacklog = 64

// noteWokenRunLocked adds run, the time from a worker's wake-up to the end
// of the task it took, to the moving average wokenRun, with weight 1/8; a
// run counts at most maxWokenRun, so that a few long tasks do not hold
// the rule for blocking tasks for long after the pool's tasks change. Only
// one wake-up in eight is timed: the two clock readings cost about as much
// as a no-op task; a worker's start is timed too, so that a new pool knows
// before its workers have been woken eight times. It requires p.lock held.
func (p *poolCore[T]) noteWokenRunLocked(run int64) {
	p.wokenSamples++
	p.wokenRun += (min(run, int64(maxWokenRun)) - p.wokenRun) / 8
	if b := p.wokenRun > int64(blockingRun); b != p.blocking.Load() {
		p.blocking.Store(b)
	}
}

// maxWokenRun bounds a sample of wokenRun (noteWokenRunLocked), so that
// from any average the rule for blocking tasks ends within recoverySamples
// samples of tasks that compute.
const maxWokenRun = time.Millisecond

// recoverySamples is how many samples of short tasks (under a few µs)
// bring wokenRun from maxWokenRun below blockingRun: the least n with
// maxWokenRun * (7/8)^n < blockingRun - a short sample, which is 23. With
// one task in eight of each worker timed while the rule is on
// (afterWakeLocked), a pool of one worker leaves the rule within
// 8*23 + 7 = 191 short tasks of the blocking ones, whatever way its worker
// takes them.
const recoverySamples = 23

// handEachLocked is the wake rule for tasks that block: each reserved
// task that no searching worker will take is handed to an idle worker of
// its own, as ants hands every task to a worker, and new workers are
// started for the rest. It returns the idle workers to wake. It requires
// p.lock held and reserved > 0.
func (p *poolCore[T]) handEachLocked() *goWorker[T] {
	var list *goWorker[T]
	for p.reserved > p.searching {
		w := p.workers.detach()
		if w == nil {
			break
		}
		w.next, w.handed = p.takeLocked(w), true
		p.onWay.Add(1)
		w.nextWake, list = list, w
	}
	for p.reserved > p.searching && p.canSpawnLocked() {
		p.spawnLocked()
	}
	return list
}

// woken is what a worker woken with a task handed to it does before it
// runs the task: it is no longer on its way, and if tasks were reserved
// meanwhile that it was asked to kick for, it kicks.
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

// wakeUnlock is how worker w, about to run its next task, releases p.lock
// and wakes the callers its admission took and the workers its kick
// detached. As afterWakeLocked decides before the unlock, it then yields
// to the callers, and counts the task for wokenRun (sampleTask). woke
// says that w was woken from the idle queue for this task. It requires
// p.lock held.
func (w *goWorker[T]) wakeUnlock(taken *waiter[T], next *goWorker[T], woke bool) {
	p := w.pool
	yield, sample := p.afterWakeLocked(taken, woke)
	p.lock.Unlock()
	taken.wake()
	next.wake()
	if yield {
		runtime.Gosched()
	}
	if sample {
		w.sampleTask()
	}
}

// sampleTask counts a task that w takes, and times one in eight of the
// counted tasks, from now to the task's end, for wokenRun
// (noteWokenRunLocked): now is the worker's wake-up for a task handed to
// it, and the take for the others.
func (w *goWorker[T]) sampleTask() {
	if w.wakes++; w.wakes%8 == 0 && w.wokenAt == 0 {
		w.wokenAt = nanotime()
	}
}

// afterWakeLocked reports whether a worker about to run a task it has
// taken, having woken the callers linked from taken, yields its P to them,
// and whether it counts the task for wokenRun. woke says that the worker
// was woken from the idle queue for the task. It requires p.lock held.
//
// A task that came with a wake-up, of the worker or of a caller, counts
// always, as do the tasks a worker handed one as it woke (afterTask); one
// taken from the ring or the buffer without either counts only while the
// rule for blocking tasks is on, where the measure must follow the tasks
// back down whatever path the workers take: from the highest average,
// recoverySamples samples of short tasks end the rule, that is, within
// 8*recoverySamples tasks of each worker, however it takes them. The clock
// readings of a sample cost about as much as a no-op task, and a stream of
// tasks that computes goes mostly from the ring to the workers without a
// wake-up, where counting every task would cost it (DESIGN.md, "The wake
// rule", has the measurement).
//
// While tasks are long (wokenRun over longTaskRun), the worker yields its
// P to the callers. The runtime runs a goroutine that another readies next
// on the readier's P, and another P takes it from there only after a wait
// that Linux stretches to its timer slack. A readier that blocks at once,
// as a sender on a channel usually does, loses nothing; a worker that goes
// on to run a long task leaves the caller waiting behind it while the
// other P idles, and the caller cannot submit its next task, so that one
// submitter of long tasks keeps only part of the pool's cores busy.
// Once the worker has yielded,
// this P runs the caller, which submits again, and the worker goes on
// from the global run queue. With short tasks the wait is short and the
// yield would cost more than it gives back; with tasks that block, the
// task frees the P for the caller by itself. DESIGN.md, "A producer faster
// than the workers", has the measurements.
//
// A worker that woke another worker does not yield: the woken worker
// runs on this P while the yielding one waits in the global run queue,
// which an idle P whose thread is in that wait does not look at either.
func (p *poolCore[T]) afterWakeLocked(taken *waiter[T], woke bool) (yield, sample bool) {
	blocking := p.wokenRun > int64(blockingRun)
	yield = taken != nil && p.wokenRun > int64(longTaskRun) && !blocking
	return yield, woke || taken != nil || blocking
}

// longTaskRun is the wokenRun above which tasks are long: workers yield to
// the callers they wake (afterWakeLocked): several times what a yield
// costs, and above what the lock adds to a wake-up of a no-op task
// (DESIGN.md, "A producer faster than the workers").
const longTaskRun = time.Microsecond

// wakeReason is what wakeIdleLocked wakes idle workers for.
type wakeReason bool

const (
	wakeToSearch wakeReason = false // take a reserved task: they count as searching
	wakeToStop   wakeReason = true  // exit (stopLocked)
)

// wakeIdleLocked detaches up to n idle workers, to search the ring or to
// stop as why says, and links them onto wake, the list of workers the
// caller wakes after releasing p.lock; it returns the new list. It
// requires p.lock held.
func (p *poolCore[T]) wakeIdleLocked(n int, why wakeReason, wake *goWorker[T]) *goWorker[T] {
	for ; n > 0; n-- {
		w := p.workers.detach()
		if w == nil {
			break
		}
		if why == wakeToStop {
			p.stopLocked(w)
		} else {
			p.searching++
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

// canSpawnLocked reports whether one more worker goroutine may start for a
// reserved task: the goroutine bound leaves room for it (see
// poolCore.stopping), or the reserved tasks outnumber the workers that will
// take them, searching or stopping (leaveOrStay keeps a stopping one for a
// task). The second happens only after a shrinking Tune: the tasks hold
// slots granted before it, and each gets a goroutine at once, as ants
// hands each accepted task to a worker. It requires p.lock held and no
// worker idle (the callers wake them all first).
//
// Within the bound, the room may still be held by goroutines that have
// been counted out and are returning from their last calls (departing):
// it waits for them (awaitDepartedLocked), so that a new worker never runs
// beside the one it replaces.
func (p *poolCore[T]) canSpawnLocked() bool {
	c := int(p.capacity.Load())
	if c < 0 {
		return true
	}
	held := int(p.running.Load()) + p.stopping
	if held >= c {
		return p.reserved > p.searching+p.stopping
	}
	p.awaitDepartedLocked(c - held)
	return true
}

// awaitDepartedLocked waits until fewer than room goroutines of the pool
// are departing: counted out, and returning from their last calls. They
// need neither the lock nor anything else to finish, and no goroutine can
// start departing while p.lock is held, so the wait ends, in the time of
// those few instructions; it yields the goroutine meanwhile, so that on
// one P they run. It requires p.lock held.
func (p *poolCore[T]) awaitDepartedLocked(room int) {
	for int(p.departing.Load()) >= room {
		runtime.Gosched()
	}
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
