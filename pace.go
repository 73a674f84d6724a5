package ants

import (
	"context"
	"math"
	"time"
)

// Pace and pause: two more reasons for a task to wait where it waits when
// the pool is full (waiter.go). A task starts when it has a worker slot,
// the pool is not paused, and, with a rate limit, a token is there
// (poolCore.gateOpenLocked); a task that waits for either holds no worker.

// WithRateLimit makes the pool start at most perSecond tasks a second on
// average and burst in a row: a task takes a token as it starts from a bucket
// of burst tokens, full at first and when a limit is set where there was
// none. A task waiting for a token holds no worker, and waits, or is refused,
// as in a full pool, even while Free() reports free workers. perSecond <= 0
// or +Inf is no limit (the default), and burst is then not checked; NaN, or
// burst < 1 with a limit, is ErrInvalidRateLimit.
func WithRateLimit(perSecond float64, burst int) Option {
	return func(opts *Options) {
		opts.RateLimit, opts.RateBurst = perSecond, burst
	}
}

// checkRateLimit returns ErrInvalidRateLimit for values WithRateLimit and
// SetRateLimit refuse, else nil.
func checkRateLimit(perSecond float64, burst int) error {
	if math.IsNaN(perSecond) || (limits(perSecond) && burst < 1) {
		return ErrInvalidRateLimit
	}
	return nil
}

// limits reports whether perSecond is a limit: 0 < perSecond < +Inf.
func limits(perSecond float64) bool { return perSecond > 0 && !math.IsInf(perSecond, 1) }

// tokenBucket is a rate limit's state. Its owner guards it with its lock
// and passes the time (ns, its clock) to every call.
type tokenBucket struct {
	perNs  float64 // tokens gained per ns; 0: no limit
	burst  float64 // at most this many tokens
	tokens float64
	last   int64 // time of the last refill

	perSecond float64 // as set, for RateLimit
	burstSet  int
}

// on reports whether a limit is set.
func (b *tokenBucket) on() bool { return b.perNs > 0 }

// set changes the limit at now. A limit set where there was none starts
// full; a lower burst drops the tokens above it. The values are valid.
func (b *tokenBucket) set(perSecond float64, burst int, now int64) {
	b.perSecond, b.burstSet = perSecond, burst
	if !limits(perSecond) {
		b.perNs, b.tokens = 0, 0
		return
	}
	if b.on() {
		b.refill(now) // at the old rate, up to now
		b.tokens = min(b.tokens, float64(burst))
	} else {
		b.tokens = float64(burst)
	}
	b.perNs, b.burst, b.last = perSecond/1e9, float64(burst), now
}

// refill adds the tokens gained since the last refill.
func (b *tokenBucket) refill(now int64) {
	if now > b.last {
		b.tokens = min(b.burst, b.tokens+float64(now-b.last)*b.perNs)
		b.last = now
	}
}

// take takes a token at now if there is one.
func (b *tokenBucket) take(now int64) bool {
	b.refill(now)
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// refund gives back the token of a task that took one and did not start
// (a Subpool's task its parent refused).
func (b *tokenBucket) refund() {
	if b.on() {
		b.tokens = min(b.burst, b.tokens+1)
	}
}

// wait returns how long from now until a token is there; at least 1ns.
func (b *tokenBucket) wait(now int64) time.Duration {
	b.refill(now)
	d := math.Ceil((1 - b.tokens) / b.perNs)
	if d < 1 || math.IsNaN(d) {
		return 1
	}
	if d > math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(d)
}

// gateOpenLocked reports whether a task that has a free slot may start now,
// and takes its token if the pool has a rate limit. It requires p.lock
// held.
func (p *poolCore[T]) gateOpenLocked() bool {
	if !p.gated {
		return true
	}
	return !p.paused && (!p.bucket.on() || p.bucket.take(p.clockNow()))
}

// clockNow returns the pool clock's time in ns: the runtime's monotonic
// clock for the system clock, which costs a third of time.Now under the
// lock, else the clock tests set.
func (p *poolCore[T]) clockNow() int64 {
	if _, ok := p.opts.clock.(systemClock); ok {
		return nanotime()
	}
	return p.opts.clock.now().UnixNano()
}

// setGateLocked sets gated from paused and the limit. It requires p.lock
// held.
func (p *poolCore[T]) setGateLocked() {
	p.gated = p.paused || p.bucket.on()
	p.pausedFlag.Store(p.paused)
}

// armPaceLocked sets a timer, unless one is set, to admit waiting work when
// the next token is there: a limit never idles the pool below its rate,
// and refill needs no event from the pool. The timer counts in live, as the
// goroutines it will start do, so that ReleaseTimeout waits for the tasks
// it admits. It requires p.lock held and a rate limit.
func (p *poolCore[T]) armPaceLocked() {
	if p.paceArmed {
		return
	}
	p.paceArmed = true
	p.live++
	gen := p.paceGen
	p.paceStop = p.opts.clock.afterFunc(p.bucket.wait(p.clockNow()), func() {
		defer p.departing.Add(-1) // its last act (waitDeparted)
		p.paced(gen)
	})
}

// paceWaitingLocked sets the timer of armPaceLocked if work waits only for
// a token: what every path that leaves work waiting does. It requires
// p.lock held.
func (p *poolCore[T]) paceWaitingLocked() {
	if p.waitq.len() > 0 && p.slotFreeLocked() && !p.paused && p.bucket.on() {
		p.armPaceLocked()
	}
}

// disownPaceLocked drops the timer set by armPaceLocked, if any: for a new
// limit, whose caller sets one at the new limit's time if work waits for a
// token, or for a released pool with no work left waiting. A timer it stops
// counts out of live at once. One that could not be stopped is firing: it
// stays counted, in paceOrphans, until it has found itself disowned
// (paceGen) and counted itself out, so that a release never reports a
// drained pool while a goroutine of it still runs. It requires p.lock
// held.
func (p *poolCore[T]) disownPaceLocked() {
	if !p.paceArmed {
		return
	}
	p.paceArmed = false
	p.paceGen++
	if p.paceStop() {
		p.countOutLocked()
	} else {
		p.paceOrphans++
	}
	p.paceStop = nil
}

// paced is the timer of armPaceLocked, of generation gen: it admits the
// work the tokens now allow, setting the timer again if more waits, and
// counts itself out; a disowned timer only counts itself out.
func (p *poolCore[T]) paced(gen uint64) {
	p.lock.Lock()
	if gen != p.paceGen {
		p.paceOrphans--
		p.departLocked()
		p.lock.Unlock()
		return
	}
	p.paceStop = nil
	p.paceArmed = false
	taken := p.admitLocked()
	next := p.kickLocked()
	if taken == nil && next == nil {
		p.departLocked()
		p.lock.Unlock()
		return
	}
	p.lock.Unlock()
	taken.wake()
	next.wake()
	p.countOut() // its last act: the wake-ups are sent on the pool's behalf
}

// Pause stops the pool from starting tasks and waits until none runs.
func (p *poolCore[T]) Pause(ctx context.Context) error {
	ctx = orBackground(ctx)
	p.lock.Lock()
	if p.closed.Load() {
		p.lock.Unlock()
		return nil
	}
	p.paused = true
	p.setGateLocked()
	for p.busy+p.reserved > 0 {
		if p.pauseIdle == nil {
			p.pauseIdle = make(chan struct{})
		}
		idle := p.pauseIdle
		p.lock.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return ctx.Err()
		}
		p.lock.Lock()
	}
	p.lock.Unlock()
	return nil
}

// noteIdleLocked wakes Pause when no task is running or about to. It
// requires p.lock held.
func (p *poolCore[T]) noteIdleLocked() {
	if p.pauseIdle != nil && p.busy+p.reserved == 0 {
		closeZero(&p.pauseIdle)
	}
}

// Resume lets a paused pool start tasks again; see the package doc.
func (p *poolCore[T]) Resume() {
	p.lock.Lock()
	if !p.paused {
		p.lock.Unlock()
		return
	}
	p.paused = false
	p.setGateLocked()
	taken := p.admitLocked()
	next := p.kickLocked()
	p.lock.Unlock()
	taken.wake()
	next.wake()
}

// Paused reports whether the pool is paused.
func (p *poolCore[T]) Paused() bool { return p.pausedFlag.Load() }

// SetRateLimit changes the pool's rate limit at once; see the package doc.
func (p *poolCore[T]) SetRateLimit(perSecond float64, burst int) error {
	if err := checkRateLimit(perSecond, burst); err != nil {
		return err
	}
	p.lock.Lock()
	p.bucket.set(perSecond, burst, p.clockNow())
	p.disownPaceLocked()
	p.setGateLocked()
	taken := p.admitLocked()
	next := p.kickLocked()
	p.lock.Unlock()
	taken.wake()
	next.wake()
	return nil
}

// RateLimit returns the rate limit as last set (none: perSecond <= 0 or +Inf).
func (p *poolCore[T]) RateLimit() (perSecond float64, burst int) {
	p.lock.Lock()
	defer p.lock.Unlock()
	return p.bucket.perSecond, p.bucket.burstSet
}
