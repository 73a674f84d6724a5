package ants

import "time"

// clock is the source of time behind worker expiry. The system clock is the
// default; tests substitute one they advance by hand (export_test.go).
type clock interface {
	now() time.Time
	newTicker(d time.Duration) ticker
}

type ticker interface {
	C() <-chan time.Time
	Stop()
}

type systemClock struct{}

func (systemClock) now() time.Time { return time.Now() }

func (systemClock) newTicker(d time.Duration) ticker { return systemTicker{time.NewTicker(d)} }

type systemTicker struct{ t *time.Ticker }

func (t systemTicker) C() <-chan time.Time { return t.t.C }
func (t systemTicker) Stop()               { t.t.Stop() }

// startPurgeLocked starts the purge goroutine. It requires p.lock held and no
// purge goroutine running for the current generation (p.purgeStop == nil).
//
// The purge goroutine exists only while the pool has workers: it is started
// with the first worker, and exits when a pass leaves no worker running, when
// Release closes purgeStop, or when it finds that purgeStop has been replaced
// (a Release and Reboot happened while it slept). An idle pool therefore
// holds no goroutine at all. Its exit is counted in p.live, which
// ReleaseTimeout waits on.
func (p *poolCore[T]) startPurgeLocked() {
	stop := make(chan struct{})
	p.purgeStop = stop
	p.live++
	p.lastTick = p.opts.clock.now().UnixNano()
	tk := p.opts.clock.newTicker(p.opts.ExpiryDuration)
	go p.purgeLoop(stop, tk)
}

func (p *poolCore[T]) purgeLoop(stop chan struct{}, tk ticker) {
	defer p.goroutineExited()
	defer tk.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tk.C():
			if !p.purge(stop, now) {
				return
			}
		}
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
	p.lock.Lock()
	defer p.lock.Unlock()
	if p.purgeStop != stop {
		return false
	}
	t := now.UnixNano()
	expired := p.workers.refresh(t - int64(p.opts.ExpiryDuration))
	for i, w := range expired {
		p.stopLocked(w)
		expired[i] = nil
	}
	p.lastTick = t
	p.tasks.shrink()
	p.kickLocked().wake() // an expired worker may have been due to take a reserved task
	if p.running.Load() == 0 {
		p.purgeStop = nil
		return false
	}
	return true
}
