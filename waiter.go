package ants

import "math"

// Where a task waits. A task that finds no free worker slot waits in the
// pool's waitQueue, by priority level: in the task buffer while it has room
// (WithQueueSize), its caller returning at once, or else with its caller
// blocked in Submit or Invoke (a waiter). Every event that frees a slot
// gives it to the best unit waiting, buffered or blocked, and every unit
// that leaves the buffer lets the best blocked caller in (admitLocked).
//
// The order is per-level FIFO queues compared at their heads. Within a
// level, buffered tasks come before blocked callers: a caller blocks only
// while the buffer is full, and freed room goes to a blocked caller before
// any new task, so every buffered task of a level arrived before every
// caller of that level still blocked. With strict levels the best unit is
// the head of the highest level. With aging, a head of level L that has
// waited w counts as L + ⌊w/d⌋, and ties go to the earlier arrival: the
// per-level heads are the oldest units of their levels, so comparing heads
// is comparing every unit.
//
// A pool that sees only level 0 has one level, and its units wait exactly
// as in a FIFO buffer with a FIFO of blocked callers.

// waiter is a caller blocked in Submit or Invoke until the pool has room. It
// carries its task, so that whoever frees a slot or buffer room moves the
// task itself and wakes the caller only to return.
type waiter[T any] struct {
	arg     T
	stamp   taskStamp
	x       *taskExtra // with overload control (overload.go); else nil
	level   int
	arrival arrival // kept only with aging

	// state is written under the pool's lock. The caller reads it after a
	// receive from ready, which the waker sends after setting it.
	state waiterState

	// ready is the caller's own wake-up: whoever takes the waiter out of the
	// queue (admitLocked, Release) sends on it once, after releasing the
	// pool's lock. Its capacity of 1 lets the send complete before the
	// caller has started to receive.
	ready chan struct{}

	prev, next *waiter[T]

	// A waiter in state waiterDropped stands for a dropped buffered task,
	// not a caller: waking it reports the drop to pool (reportDrop), with
	// err and the time the task waited, in ns (overload.go).
	pool *poolCore[T]
	err  error
	wait int64

	// nextWake links the waiters taken out of the queue in one critical
	// section, for the waker to wake after unlocking.
	nextWake *waiter[T]
}

type waiterState uint8

const (
	waiterPending  waiterState = iota // in the queue, task not taken
	waiterTaken                       // its task was accepted: Submit returns nil
	waiterClosed                      // the pool was released: ErrPoolClosed
	waiterTimedOut                    // dropped while it waited: ErrQueueTimeout
	waiterDropped                     // a dropped buffered task, to report
)

// wake wakes w and the waiters linked from it by nextWake; nil is a no-op.
// A woken caller may reuse its waiter at once, so the link is read first.
func (w *waiter[T]) wake() {
	for w != nil {
		next := w.nextWake
		w.nextWake = nil
		if w.state == waiterDropped {
			w.pool.reportDrop(w)
		} else {
			w.ready <- struct{}{}
		}
		w = next
	}
}

// arrival orders units with aging: seq is the order of arrival, at the
// time (pool clock, ns).
type arrival struct {
	seq uint64
	at  int64
}

// waiterList is a FIFO of waiters, doubly linked so that a caller whose
// context ends can leave from anywhere in it.
type waiterList[T any] struct {
	head, tail *waiter[T]
	len        int
}

func (l *waiterList[T]) pushBack(w *waiter[T]) {
	w.prev, w.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = w
	} else {
		l.head = w
	}
	l.tail = w
	l.len++
}

func (l *waiterList[T]) remove(w *waiter[T]) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		l.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		l.tail = w.prev
	}
	w.prev, w.next = nil, nil
	l.len--
}

// waitLevel is the work waiting at one level: buffered tasks, then blocked
// callers, each FIFO.
type waitLevel[T any] struct {
	level    int
	tasks    ring[T]
	stamps   ring[taskStamp]  // in step with tasks, if the pool is timed
	arrivals ring[arrival]    // in step with tasks, with aging
	extras   ring[*taskExtra] // in step with tasks, with overload control
	callers  waiterList[T]

	// dead counts the tombstones in tasks: tasks dropped while buffered
	// (overload.go), left in place until they reach an end of the ring.
	// Both ends of the ring hold live tasks (trim).
	dead int
}

func (l *waitLevel[T]) empty() bool { return l.tasks.len() == 0 && l.callers.len == 0 }

// waitQueue is the pool's waiting work. Every method requires the pool's
// lock held.
type waitQueue[T any] struct {
	// levels holds the levels with waiting work, highest first, and level 0
	// always (first among the levels <= 0), so that a pool that never sees
	// another level never allocates one.
	levels []*waitLevel[T]
	zero   waitLevel[T]

	buffered int // tasks in the buffer, at every level
	blocked  int // blocked callers, at every level

	timed bool  // keep the tasks' stamps
	extra bool  // keep the tasks' extras (overload control; timed too)
	aging int64 // Options.PriorityAging in ns; 0: strict levels
	seq   uint64
	spare []*waitLevel[T] // emptied levels, for reuse
}

func (q *waitQueue[T]) init(timed, extra bool, aging int64) {
	q.timed, q.extra, q.aging = timed, extra, aging
	q.levels = []*waitLevel[T]{&q.zero}
}

// len returns the number of units waiting.
func (q *waitQueue[T]) len() int { return q.buffered + q.blocked }

// arrive returns the arrival of a unit that starts to wait now; now is
// read only with aging.
func (q *waitQueue[T]) arrive(now int64) arrival {
	if q.aging == 0 {
		return arrival{}
	}
	q.seq++
	return arrival{seq: q.seq, at: now}
}

// level returns the waitLevel of lv, adding it in order if it is new.
func (q *waitQueue[T]) level(lv int) *waitLevel[T] {
	if lv == 0 {
		return &q.zero
	}
	i := 0
	for i < len(q.levels) && q.levels[i].level > lv {
		i++
	}
	if i < len(q.levels) && q.levels[i].level == lv {
		return q.levels[i]
	}
	var l *waitLevel[T]
	if n := len(q.spare); n > 0 {
		l, q.spare = q.spare[n-1], q.spare[:n-1]
	} else {
		l = new(waitLevel[T])
	}
	l.level = lv
	q.levels = append(q.levels, nil)
	copy(q.levels[i+1:], q.levels[i:])
	q.levels[i] = l
	return l
}

// drop removes l from levels if it is empty and not level 0.
func (q *waitQueue[T]) drop(l *waitLevel[T]) {
	if l == &q.zero || !l.empty() {
		return
	}
	for i, m := range q.levels {
		if m == l {
			q.levels = append(q.levels[:i], q.levels[i+1:]...)
			q.levels[len(q.levels):cap(q.levels)][0] = nil
			break
		}
	}
	l.tasks.shrink()
	l.stamps.shrink()
	l.arrivals.shrink()
	l.extras.shrink()
	q.spare = append(q.spare, l)
}

// pushTask buffers arg at level lv.
func (q *waitQueue[T]) pushTask(lv int, arg T, st taskStamp, a arrival, x *taskExtra) {
	l := q.level(lv)
	l.tasks.push(arg)
	if q.timed {
		l.stamps.push(st)
	}
	if q.extra {
		l.extras.push(x)
	}
	if q.aging != 0 {
		l.arrivals.push(a)
	}
	q.buffered++
}

// pushCaller adds the blocked caller w at its level.
func (q *waitQueue[T]) pushCaller(w *waiter[T]) {
	q.level(w.level).callers.pushBack(w)
	q.blocked++
}

// removeCaller takes out w, a blocked caller that gives up.
func (q *waitQueue[T]) removeCaller(w *waiter[T]) {
	l := q.level(w.level)
	l.callers.remove(w)
	q.blocked--
	q.drop(l)
}

// rank is what aging compares: the effective level, then the arrival.
type rank struct {
	eff int
	seq uint64
}

// above reports whether a unit of rank r goes before one of rank s.
func (r rank) above(s rank) bool { return r.eff > s.eff || (r.eff == s.eff && r.seq < s.seq) }

// rankOf returns the rank of a unit of level lv that arrived at a, at now.
func (q *waitQueue[T]) rankOf(lv int, a arrival, now int64) rank {
	return rank{eff: agedLevel(lv, now-a.at, q.aging), seq: a.seq}
}

// agedLevel is lv + ⌊waited/aging⌋, saturating at math.MaxInt.
func agedLevel(lv int, waited, aging int64) int {
	if waited <= 0 {
		return lv
	}
	k := waited / aging
	if k > int64(math.MaxInt) || lv > math.MaxInt-int(k) {
		return math.MaxInt
	}
	return lv + int(k)
}

// headRank returns the rank of l's first unit, buffered or blocked.
func (q *waitQueue[T]) headRank(l *waitLevel[T], now int64) rank {
	if l.tasks.len() > 0 {
		return q.rankOf(l.level, l.arrivals.at(0), now)
	}
	return q.rankOf(l.level, l.callers.head.arrival, now)
}

// next returns the level whose first unit gets the next free slot, or nil
// if nothing waits. now is read only with aging.
func (q *waitQueue[T]) next(now int64) *waitLevel[T] {
	var best *waitLevel[T]
	var bestRank rank
	for _, l := range q.levels {
		if l.empty() {
			continue
		}
		if q.aging == 0 {
			return l
		}
		if r := q.headRank(l, now); best == nil || r.above(bestRank) {
			best, bestRank = l, r
		}
	}
	return best
}

// popSlot removes the unit that gets a free slot, which must exist, and
// returns its task; w is its caller if it was blocked (the caller's task
// is then taken, and the caller still to be woken), nil if it was
// buffered.
func (q *waitQueue[T]) popSlot(now int64) (arg T, st taskStamp, w *waiter[T]) {
	l := q.next(now)
	if l.tasks.len() > 0 {
		arg, _ = l.tasks.pop()
		if q.timed {
			st, _ = l.stamps.pop()
		}
		if q.aging != 0 {
			l.arrivals.pop()
		}
		q.buffered--
	} else {
		w = l.callers.head
		l.callers.remove(w)
		q.blocked--
		var zero T
		arg, st, w.arg = w.arg, w.stamp, zero
	}
	q.drop(l)
	return arg, st, w
}

// pushZero buffers arg at level 0, in a queue that is neither timed nor
// aging: pushTask without the stamp and the arrival.
func (q *waitQueue[T]) pushZero(arg T) {
	q.zero.tasks.push(arg)
	q.buffered++
}

// popZero removes the first buffered task of level 0, which must exist,
// of a queue that is not timed, and returns it.
func (q *waitQueue[T]) popZero() T {
	arg, _ := q.zero.tasks.pop()
	if q.aging != 0 {
		q.zero.arrivals.pop()
	}
	q.buffered--
	return arg
}

// nextCaller returns the blocked caller that gets the next buffer room, or
// nil if none waits: the first caller of the highest level, or with aging
// the best-ranked first caller of any level.
func (q *waitQueue[T]) nextCaller(now int64) *waiter[T] {
	var best *waiter[T]
	var bestRank rank
	for _, l := range q.levels {
		w := l.callers.head
		if w == nil {
			continue
		}
		if q.aging == 0 {
			return w
		}
		if r := q.rankOf(l.level, w.arrival, now); best == nil || r.above(bestRank) {
			best, bestRank = w, r
		}
	}
	return best
}

// bufferCaller moves the task of w, a blocked caller, into the buffer at
// its level, where it keeps its arrival. The caller is still to be woken.
func (q *waitQueue[T]) bufferCaller(w *waiter[T]) {
	l := q.level(w.level)
	l.callers.remove(w)
	q.blocked--
	l.tasks.push(w.arg)
	if q.timed {
		l.stamps.push(w.stamp)
	}
	if q.extra {
		l.extras.push(w.x)
		w.x = nil
	}
	if q.aging != 0 {
		l.arrivals.push(w.arrival)
	}
	q.buffered++
	var zero T
	w.arg = zero
}

// popCallers removes every blocked caller, linked by nextWake, for Release.
func (q *waitQueue[T]) popCallers() (all *waiter[T]) {
	for _, l := range append([]*waitLevel[T](nil), q.levels...) {
		for w := l.callers.head; w != nil; w = l.callers.head {
			l.callers.remove(w)
			w.nextWake, all = all, w
		}
		q.drop(l)
	}
	q.blocked = 0
	return all
}

// popHead removes the first buffered task of l, which must exist, in a
// queue with extras, and returns it; the ring's ends stay live.
func (q *waitQueue[T]) popHead(l *waitLevel[T]) (T, taskStamp, *taskExtra) {
	arg, _ := l.tasks.pop()
	st, _ := l.stamps.pop()
	x, _ := l.extras.pop()
	if q.aging != 0 {
		l.arrivals.pop()
	}
	q.buffered--
	q.trim(l)
	return arg, st, x
}

// popTail removes the last buffered task of l, which must exist, in a
// queue with extras, and returns it; the ring's ends stay live.
func (q *waitQueue[T]) popTail(l *waitLevel[T]) (T, taskStamp, *taskExtra) {
	arg, _ := l.tasks.popBack()
	st, _ := l.stamps.popBack()
	x, _ := l.extras.popBack()
	if q.aging != 0 {
		l.arrivals.popBack()
	}
	q.buffered--
	q.trim(l)
	return arg, st, x
}

// isDead reports whether x is a tombstone's.
func isDead(x *taskExtra) bool { return x != nil && x.dead }

// trim removes the tombstones at both ends of l's ring, and compacts the
// ring once it holds more tombstones than tasks.
func (q *waitQueue[T]) trim(l *waitLevel[T]) {
	if l.dead == 0 {
		return
	}
	for l.extras.len() > 0 && isDead(l.extras.at(0)) {
		l.tasks.pop()
		l.stamps.pop()
		l.extras.pop()
		if q.aging != 0 {
			l.arrivals.pop()
		}
		l.dead--
	}
	for n := l.extras.len(); n > 0 && isDead(l.extras.at(n-1)); n-- {
		l.tasks.popBack()
		l.stamps.popBack()
		l.extras.popBack()
		if q.aging != 0 {
			l.arrivals.popBack()
		}
		l.dead--
	}
	if l.dead > 32 && 2*l.dead > l.tasks.len() {
		q.compact(l)
	}
}

// compact removes every tombstone of l's ring.
func (q *waitQueue[T]) compact(l *waitLevel[T]) {
	var tasks ring[T]
	var stamps ring[taskStamp]
	var arrivals ring[arrival]
	var extras ring[*taskExtra]
	for l.extras.len() > 0 {
		arg, _ := l.tasks.pop()
		st, _ := l.stamps.pop()
		x, _ := l.extras.pop()
		var a arrival
		if q.aging != 0 {
			a, _ = l.arrivals.pop()
		}
		if isDead(x) {
			continue
		}
		tasks.push(arg)
		stamps.push(st)
		extras.push(x)
		if q.aging != 0 {
			arrivals.push(a)
		}
	}
	l.tasks, l.stamps, l.arrivals, l.extras, l.dead = tasks, stamps, arrivals, extras, 0
}

// shrink drops the storage of large empty rings (the purge's pass).
func (q *waitQueue[T]) shrink() {
	q.zero.tasks.shrink()
	q.zero.stamps.shrink()
	q.zero.arrivals.shrink()
}
