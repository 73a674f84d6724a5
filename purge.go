package ants

import (
	"runtime"
	"time"
)

// clock is the source of time behind worker expiry. The system clock is the
// default; tests substitute one they advance by hand (export_test.go).
type clock interface {
	now() time.Time
	newTicker(d time.Duration) ticker
	// afterFunc calls f on its own goroutine once d has passed. The stop
	// function it returns cancels the call, as time.Timer.Stop does: it
	// reports true if f will not be called, false if f has been called or
	// is being called.
	afterFunc(d time.Duration, f func()) (stop func() bool)
}

type ticker interface {
	C() <-chan time.Time
	Stop()
}

type systemClock struct{}

func (systemClock) now() time.Time { return time.Now() }

func (systemClock) newTicker(d time.Duration) ticker { return systemTicker{time.NewTicker(d)} }

func (systemClock) afterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

type systemTicker struct{ t *time.Ticker }

func (t systemTicker) C() <-chan time.Time { return t.t.C }
func (t systemTicker) Stop()               { t.t.Stop() }

// startPurgeLocked makes sure a purge goroutine serves the current
// generation of the pool. It requires p.lock held and p.purgeStop == nil.
//
// The purge goroutine exists only while the pool has workers: it is started
// with the first worker, and its generation ends when a pass leaves no worker
// running or when Release closes purgeStop. An idle pool therefore holds no
// goroutine at all. A pool has at most one purge goroutine: if the previous
// generation's goroutine has not exited yet, it takes over the new
// generation (purgeLoop) instead of a second one starting. Its exit is
// counted in p.live, which ReleaseTimeout waits on.
func (p *poolCore[T]) startPurgeLocked() {
	stop := make(chan struct{})
	p.purgeStop = stop
	p.lastTick = p.opts.clock.now().UnixNano()
	if p.purgeAlive {
		return
	}
	// One that has counted itself out may still be returning: the new one
	// starts once it has, so that two never run at once.
	for p.purgeDeparting.Load() {
		runtime.Gosched()
	}
	p.purgeAlive = true
	p.live++
	go p.purgeMain(stop)
}

// purgeMain is the body of the purge goroutine: it runs purgeLoop, and its
// last acts, once the goroutine has been counted out and has returned from
// the pool's code, are the decrements that let a new purge goroutine start
// (startPurgeLocked) and a release return (waitDeparted).
func (p *poolCore[T]) purgeMain(stop chan struct{}) {
	defer p.departing.Add(-1)
	defer p.purgeDeparting.Store(false)
	p.purgeLoop(stop)
}

// purgeLoop serves generations of the pool (each with its stop channel)
// until none is left to serve. Its count-out is its last act: the ticker is
// stopped before it (and a new one made if a new generation turns out to
// need it).
func (p *poolCore[T]) purgeLoop(stop chan struct{}) {
	tk := p.opts.clock.newTicker(p.opts.ExpiryDuration)
	for {
		select {
		case <-stop:
		case now := <-tk.C():
			if p.purge(stop, now) {
				continue
			}
		}
		tk.Stop()
		p.lock.Lock()
		if next := p.purgeStop; next != nil && next != stop {
			// A new generation started while this one ended: serve it.
			stop = next
			p.lock.Unlock()
			tk = p.opts.clock.newTicker(p.opts.ExpiryDuration)
			continue
		}
		p.purgeAlive = false
		p.purgeDeparting.Store(true)
		p.departLocked()
		p.lock.Unlock()
		return
	}
}

// purge stops the workers that have been idle for more than ExpiryDuration
// and reports whether the purge goroutine should keep running.
//
// Workers are stamped with the time of the last tick (p.lastTick) when they
// go idle rather than with time.Now, which keeps the clock off the per-task
// path. A worker stamped at tick k is therefore reaped at tick k+2, after
// between one and two ExpiryDurations of idleness, the same window ants gives.
func (p *poolCore[T]) purge(stop chan struct{}, now time.Time) bool {
	var stopped *goWorker[T]
	p.lock.Lock()
	defer func() {
		p.lock.Unlock()
		stopped.wake()
	}()
	if p.purgeStop != stop { // released, and maybe rebooted, since the tick
		return false
	}
	t := now.UnixNano()
	// MinWorkers: never stop a worker that would leave fewer alive.
	limit := int(p.running.Load()) - p.opts.MinWorkers
	expired := p.workers.refresh(t-int64(p.opts.ExpiryDuration), limit)
	for i, w := range expired {
		p.stopLocked(w)
		w.nextWake, stopped = stopped, w
		expired[i] = nil
	}
	p.lastTick = t
	p.tasks.shrink()
	p.stamps.shrink()
	p.waitq.shrink()
	if p.running.Load() == 0 {
		p.purgeStop = nil
		return false
	}
	return true
}
