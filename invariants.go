package ants

import "fmt"

// checkInvariantsLocked returns an error naming the first invariant on
// poolCore's fields that does not hold, or nil. It requires p.lock held, and
// holds at every point where the lock is released; the fuzz and stress tests
// call it after every step, so that a change that breaks one fails there.
//
// The goroutine bound, running+stopping <= capacity, is not checked: it may
// be exceeded after a shrinking Tune, which the fields do not record. The
// tests check it from outside, with runtime.NumGoroutine.
func (p *poolCore[T]) checkInvariantsLocked() error {
	c := int(p.capacity.Load())
	running := int(p.running.Load())
	idle := p.workers.len()
	buffered, blocked := p.waitq.buffered, p.waitq.blocked
	purge, pace := 0, p.paceOrphans
	if p.purgeAlive {
		purge = 1
	}
	if p.paceArmed {
		pace++
	}
	switch {
	case p.busy < 0 || p.reserved < 0 || p.searching < 0 || p.stopping < 0:
		return fmt.Errorf("negative count: busy %d, reserved %d, searching %d, stopping %d",
			p.busy, p.reserved, p.searching, p.stopping)
	case p.reserved != p.tasks.size:
		return fmt.Errorf("%d reserved tasks but %d in the ring", p.reserved, p.tasks.size)
	case p.timed && p.stamps.size != p.tasks.size:
		return fmt.Errorf("%d stamps for %d tasks in the ring", p.stamps.size, p.tasks.size)
	case p.queueSize >= 0 && buffered > p.queueSize:
		return fmt.Errorf("%d buffered tasks, QueueSize %d", buffered, p.queueSize)
	case p.waitq.len() > 0 && (c < 0 || p.busy+p.reserved < c) && !p.gated:
		return fmt.Errorf("%d units wait while a slot is free: "+
			"busy %d + reserved %d < capacity %d", p.waitq.len(), p.busy, p.reserved, c)
	case running != p.busy+idle+p.searching:
		return fmt.Errorf("running %d != busy %d + idle %d + searching %d",
			running, p.busy, idle, p.searching)
	case p.reserved > 0 && p.searching == 0 && idle > 0 && p.onWay.Load() == 0 && !p.kickWanted.Load():
		return fmt.Errorf("%d reserved tasks with %d idle workers and none searching",
			p.reserved, idle)
	case p.reserved > p.searching+idle+p.stopping && !p.kickWanted.Load():
		// Every reserved task has a worker on its way: one searching, an
		// idle one the chain will wake, or a stopping one that will stay
		// for it (leaveOrStay); else a worker woken with a task will kick.
		return fmt.Errorf("%d reserved tasks, but %d searching, %d idle and %d stopping workers to take them",
			p.reserved, p.searching, idle, p.stopping)
	case p.live < running+p.stopping+purge+pace:
		return fmt.Errorf("live %d < running %d + stopping %d + purge %d + pace timers %d",
			p.live, running, p.stopping, purge, pace)
	case p.callersWaking.Load() < 0:
		return fmt.Errorf("%d callers waking", p.callersWaking.Load())
	case p.paceOrphans < 0 || p.paceArmed != (p.paceStop != nil):
		return fmt.Errorf("pace timer armed %v with stop %v, %d orphans",
			p.paceArmed, p.paceStop != nil, p.paceOrphans)
	// The drained condition, what a release waits for (drainedLocked): it
	// holds only once no accepted work is left, and while work is left,
	// something of the pool will run it, unless the pool is paused.
	case !p.paused && p.live == 0 && (p.reserved > 0 || p.waitq.len() > 0):
		return fmt.Errorf("%d reserved and %d waiting units with nothing of the pool to run them",
			p.reserved, p.waitq.len())
	case p.allExited != nil && p.drainedLocked():
		return fmt.Errorf("a release waits on a drained pool")
	case blocked > 0 && (p.queueSize < 0 || buffered < p.queueSize):
		return fmt.Errorf("%d callers blocked while the buffer has room", blocked)
	case p.purgeStop != nil && !p.purgeAlive:
		return fmt.Errorf("a purge generation with no purge goroutine")
	case p.gated != (p.paused || p.bucket.on()) || p.pausedFlag.Load() != p.paused:
		return fmt.Errorf("gate %v with paused %v (flag %v) and limit %v",
			p.gated, p.paused, p.pausedFlag.Load(), p.bucket.on())
	case p.waitq.len() > 0 && (c < 0 || p.busy+p.reserved < c) && !p.paused && !p.paceArmed:
		return fmt.Errorf("%d units wait for a token with no timer set", p.waitq.len())
	case p.paused && p.closed.Load():
		return fmt.Errorf("a released pool is paused")
	}
	return p.waitq.check()
}

// check returns an error naming the first invariant of the waitQueue that
// does not hold, or nil: the levels in order, each in use but level 0, the
// rings in step, and the counts. It requires the owner's lock held.
func (q *waitQueue[T]) check() error {
	buffered, blocked, zero := 0, 0, false
	for i, l := range q.levels {
		if i > 0 && q.levels[i-1].level <= l.level {
			return fmt.Errorf("wait levels out of order: %d before %d", q.levels[i-1].level, l.level)
		}
		if l == &q.zero {
			zero = true
		} else if l.empty() || l.level == 0 {
			return fmt.Errorf("wait level %d is empty or a second level 0", l.level)
		}
		if q.timed && l.stamps.size != l.tasks.size {
			return fmt.Errorf("wait level %d: %d stamps for %d tasks", l.level, l.stamps.size, l.tasks.size)
		}
		if q.aging != 0 && l.arrivals.size != l.tasks.size {
			return fmt.Errorf("wait level %d: %d arrivals for %d tasks", l.level, l.arrivals.size, l.tasks.size)
		}
		n := 0
		for w := l.callers.head; w != nil; w = w.next {
			if w.level != l.level || w.state != waiterPending {
				return fmt.Errorf("wait level %d holds a caller of level %d in state %d", l.level, w.level, w.state)
			}
			n++
		}
		if n != l.callers.len {
			return fmt.Errorf("wait level %d: %d callers linked, %d counted", l.level, n, l.callers.len)
		}
		dead := 0
		if q.extra && l.extras.size != l.tasks.size {
			return fmt.Errorf("wait level %d: %d extras for %d tasks", l.level, l.extras.size, l.tasks.size)
		}
		for i := 0; q.extra && i < l.extras.size; i++ {
			if isDead(l.extras.at(i)) {
				if i == 0 || i == l.extras.size-1 {
					return fmt.Errorf("wait level %d: a tombstone at an end of its ring", l.level)
				}
				dead++
			}
		}
		if dead != l.dead {
			return fmt.Errorf("wait level %d: %d tombstones, %d counted", l.level, dead, l.dead)
		}
		buffered += l.tasks.size - dead
		blocked += n
	}
	switch {
	case !zero:
		return fmt.Errorf("wait level 0 missing")
	case buffered != q.buffered || blocked != q.blocked:
		return fmt.Errorf("waiting: %d buffered and %d blocked counted, %d and %d queued",
			q.buffered, q.blocked, buffered, blocked)
	}
	return nil
}
