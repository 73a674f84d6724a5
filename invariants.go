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
// flows and their round, the rings in step, and the counts. It requires
// the owner's lock held.
func (q *waitQueue[T]) check() error {
	buffered, blocked, flowing, zero := 0, 0, 0, false
	for i, l := range q.levels {
		if i > 0 && q.levels[i-1].level <= l.level {
			return fmt.Errorf("wait levels out of order: %d before %d", q.levels[i-1].level, l.level)
		}
		if l == &q.zero {
			zero = true
		} else if l.empty() || l.level == 0 {
			return fmt.Errorf("wait level %d is empty or a second level 0", l.level)
		}
		if err := q.checkRound(l); err != nil {
			return err
		}
		flowing += len(l.flows)
		for _, f := range append([]*flowQueue[T]{&l.flowQueue}, mapValues(l.flows)...) {
			b, n, err := q.checkFlow(l, f)
			if err != nil {
				return err
			}
			buffered += b
			blocked += n
		}
	}
	switch {
	case !zero:
		return fmt.Errorf("wait level 0 missing")
	case buffered != q.buffered || blocked != q.blocked:
		return fmt.Errorf("waiting: %d buffered and %d blocked counted, %d and %d queued",
			q.buffered, q.blocked, buffered, blocked)
	case flowing != q.flowing:
		return fmt.Errorf("%d flows counted, %d held", q.flowing, flowing)
	}
	return nil
}

func mapValues[T any](m map[string]*flowQueue[T]) []*flowQueue[T] {
	all := make([]*flowQueue[T], 0, len(m))
	for _, f := range m {
		all = append(all, f)
	}
	return all
}

// checkRound checks l's round: kept only while l has a flow but "", and
// then holding exactly the flows with work, each once.
func (q *waitQueue[T]) checkRound(l *waitLevel[T]) error {
	if len(l.flows) == 0 {
		if l.head != nil || l.tail != nil || l.inRound {
			return fmt.Errorf("wait level %d: a round with no flow but \"\"", l.level)
		}
		return nil
	}
	in := map[*flowQueue[T]]bool{}
	var last *flowQueue[T]
	for f := l.head; f != nil; f = f.next {
		if in[f] || !f.inRound || f.empty() {
			return fmt.Errorf("wait level %d: flow %q in the round twice, unmarked or empty", l.level, f.name)
		}
		in[f] = true
		last = f
	}
	if last != l.tail {
		return fmt.Errorf("wait level %d: the round's tail is not its last flow", l.level)
	}
	if !l.flowQueue.empty() != in[&l.flowQueue] {
		return fmt.Errorf("wait level %d: the flow \"\" has work %v, in the round %v", l.level, !l.flowQueue.empty(), in[&l.flowQueue])
	}
	for name, f := range l.flows {
		if f.name != name || f.empty() || !in[f] {
			return fmt.Errorf("wait level %d: flow %q (named %q) empty or out of the round", l.level, name, f.name)
		}
	}
	return nil
}

// checkFlow checks f's rings and callers, and returns its buffered tasks
// and blocked callers.
func (q *waitQueue[T]) checkFlow(l *waitLevel[T], f *flowQueue[T]) (buffered, blocked int, _ error) {
	if q.timed && f.stamps.size != f.tasks.size {
		return 0, 0, fmt.Errorf("wait level %d: %d stamps for %d tasks", l.level, f.stamps.size, f.tasks.size)
	}
	if q.aging != 0 && f.arrivals.size != f.tasks.size {
		return 0, 0, fmt.Errorf("wait level %d: %d arrivals for %d tasks", l.level, f.arrivals.size, f.tasks.size)
	}
	n := 0
	for w := f.callers.head; w != nil; w = w.next {
		if w.level != l.level || w.flow != f.name || w.state != waiterPending {
			return 0, 0, fmt.Errorf("wait level %d flow %q holds a caller of level %d flow %q in state %d",
				l.level, f.name, w.level, w.flow, w.state)
		}
		n++
	}
	if n != f.callers.len {
		return 0, 0, fmt.Errorf("wait level %d: %d callers linked, %d counted", l.level, n, f.callers.len)
	}
	if q.extra && f.extras.size != f.tasks.size {
		return 0, 0, fmt.Errorf("wait level %d: %d extras for %d tasks", l.level, f.extras.size, f.tasks.size)
	}
	dead := 0
	for i := 0; q.extra && i < f.extras.size; i++ {
		if isDead(f.extras.at(i)) {
			if i == 0 || i == f.extras.size-1 {
				return 0, 0, fmt.Errorf("wait level %d: a tombstone at an end of its ring", l.level)
			}
			dead++
		}
	}
	if dead != f.dead {
		return 0, 0, fmt.Errorf("wait level %d: %d tombstones, %d counted", l.level, dead, f.dead)
	}
	return f.tasks.size - dead, n, nil
}
