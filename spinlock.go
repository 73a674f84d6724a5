package ants

import (
	"runtime"
	"sync/atomic"
)

// spinLock is a test-and-test-and-set lock with backoff. It guards the
// pool's short critical sections (a handful of slice operations), where
// parking a goroutine, as sync.Mutex eventually does, costs more than
// waiting a little.
//
// A waiter that finds it held polls it, then yields in two ways, as the
// runtime's own locks do. A holder that is slow to release is most often
// one whose thread the operating system took off its CPU: on a machine
// with as many busy threads as cores, the runtime's spinning threads and
// other processes compete with it. So the waiter first gives its CPU to
// another thread (osYield, sched_yield on Linux), which keeps its
// goroutine and its P, and costs far less than a trip through the Go
// scheduler. Only a holder that stays slow, because the Go scheduler
// preempted its goroutine, is waited for with runtime.Gosched, which lets
// that goroutine run: yielding the thread alone would leave it off every P
// until the waiters are preempted in turn, 10 ms later. A submitter waits
// otherwise (LockYielding), and so does every waiter of a lock whose owner
// set goroutineYield: the pool of far more workers than Ps, where a waiter
// is more often behind a holder that waits for a P than behind one whose
// thread was descheduled, and polls only briefly (largePoolSpins).
// DESIGN.md, "The experiments that chose the design" (the spinlock's
// yield), has the measurements behind both.
//
// The zero value is unlocked. A spinLock must not be copied after first use.
type spinLock struct {
	state atomic.Uint32

	// goroutineYield makes every waiter yield its goroutine, never its
	// thread; see setGoroutineYield.
	goroutineYield atomic.Bool
}

// setGoroutineYield sets whether every waiter of l yields its goroutine
// from the start, as LockYielding's do, instead of first its thread.
func (l *spinLock) setGoroutineYield(on bool) {
	if l.goroutineYield.Load() != on {
		l.goroutineYield.Store(on)
	}
}

// spinBackoffCap bounds the number of runtime.Gosched calls between two
// attempts. Critical sections are short (DESIGN.md, "The lock"), so a waiter
// that has yielded 16 times in a row is behind a holder that was preempted;
// yielding more would only delay it once the holder runs again.
const spinBackoffCap = 16

// activeSpins is how many times a waiter of a small pool's lock polls it
// before it first yields (a large pool's polls largePoolSpins times).
// runtime.Gosched goes through the scheduler's global run queue and its
// lock, which under contention costs more than the whole critical
// section, so polling first keeps the common short wait off the scheduler;
// polling much longer starves a holder that was descheduled. DESIGN.md
// ("The experiments that chose the design") has the measurements behind the
// value and behind this lock against sync.Mutex.
const activeSpins = 32

// largePoolSpins is how many times a waiter of a large pool's lock (see
// setGoroutineYield) polls it between two yields of its goroutine. There
// many more goroutines are runnable than Ps, and a waiter that gives its P
// at once to one of them lets the holder's core keep the lock's cache
// lines for its next few acquisitions: at capacity 1000, 2 polls instead
// of 32 made no-op tasks from 8 and 64 submitters 8-31% faster (DESIGN.md,
// "Polling before the first yield").
const largePoolSpins = 2

// osYieldRounds is how many times a waiter yields its thread before it
// yields its goroutine (runtime.Gosched). DESIGN.md ("The spinlock's
// yield") has the measurements.
const osYieldRounds = 8

// Lock acquires l. Its fast path is small enough to be inlined.
func (l *spinLock) Lock() {
	if l.state.CompareAndSwap(0, 1) {
		return
	}
	l.lockSlow()
}

// LockYielding is Lock for a submitter that must not outrun the workers:
// while it waits it yields its goroutine from the start, never only its
// thread, so that the goroutines runnable behind it run first. Those are
// mostly workers whose task has just ended, which would give their slot
// back or take the next task. A submitter that kept its P, as Lock's
// waiters do, outruns them: with one submitter and tasks that sleep, the
// pool then sees no idle worker at each submit and starts new ones, up to
// its capacity. That was the sleep workload's 50,000 goroutines and 165
// MiB, against 20,000-33,000 and 70-110 MiB with the old lock and with
// ants (DESIGN.md, "The spinlock's yield"). Submitters use it while tasks
// block, and with an unbounded buffer, which never makes them wait; else
// Lock, whose thread yield costs less.
func (l *spinLock) LockYielding() {
	if l.state.CompareAndSwap(0, 1) {
		return
	}
	if l.goroutineYield.Load() {
		l.lockSlowN(0, largePoolSpins)
		return
	}
	l.lockSlowN(0, activeSpins)
}

func (l *spinLock) lockSlow() {
	if l.goroutineYield.Load() {
		l.lockSlowN(0, largePoolSpins)
		return
	}
	l.lockSlowN(osYieldRounds, activeSpins)
}

// lockSlowN polls l spins times, then yields the thread osRounds times (a
// round of polls before each), then the goroutine with exponential backoff
// (a round of polls between), until it acquires l.
func (l *spinLock) lockSlowN(osRounds, spins int) {
	backoff := 1
	for round := 0; ; round++ {
		// Spin on a plain load first: a failed CAS still takes the cache
		// line exclusively and slows the holder down.
		for i := 0; i < spins; i++ {
			if l.state.Load() == 0 && l.state.CompareAndSwap(0, 1) {
				return
			}
		}
		if round < osRounds {
			osYield()
			continue
		}
		for i := 0; i < backoff; i++ {
			runtime.Gosched()
		}
		if backoff < spinBackoffCap {
			backoff <<= 1
		}
	}
}

// Unlock releases l. Unlocking an unlocked spinLock is a programming error
// that this implementation does not detect.
func (l *spinLock) Unlock() {
	l.state.Store(0)
}
