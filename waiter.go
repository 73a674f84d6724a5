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
// Within a level, the units are grouped by flow (ContextWithFlow), and the
// flows with work take turns by deficit round robin: the flow whose turn it
// is gets up to its weight of grants, then goes to the back of the round.
// A flow is FIFO within itself, buffered tasks before blocked callers, as
// a level without flows is. Work with no flow is the flow "", kept in the
// level itself, so that a pool that uses no flows never allocates one and
// runs no round: the round is kept only while a level has a flow other
// than "". Aging compares levels by the rank of their oldest unit, over
// their flows' heads.
//
// A pool that sees only level 0 and no flow has one level, and its units
// wait exactly as in a FIFO buffer with a FIFO of blocked callers.

// waiter is a caller blocked in Submit or Invoke until the pool has room. It
// carries its task, so that whoever frees a slot or buffer room moves the
// task itself and wakes the caller only to return.
type waiter[T any] struct {
	arg     T
	stamp   taskStamp
	x       *taskExtra // with overload control (overload.go); else nil
	level   int
	flow    string  // ContextWithFlow's; "" if none
	weight  int     // the flow's weight, if the waiter starts it
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

// flowQueue is the work of one flow waiting at one level: buffered tasks,
// then blocked callers, each FIFO.
type flowQueue[T any] struct {
	tasks    ring[T]
	stamps   ring[taskStamp]  // in step with tasks, if the pool is timed
	arrivals ring[arrival]    // in step with tasks, with aging
	extras   ring[*taskExtra] // in step with tasks, with overload control
	callers  waiterList[T]

	// dead counts the tombstones in tasks: tasks dropped while buffered
	// (overload.go), left in place until they reach an end of the ring.
	// Both ends of the ring hold live tasks (trim).
	dead int

	// The round (deficit round robin), kept while the level has a flow
	// other than "": name and weight are the flow's, deficit the grants
	// left in its turn, next the flow after it, and inRound is set while it
	// is in the round, which it is exactly while it has work.
	name    string
	weight  int
	deficit int
	next    *flowQueue[T]
	inRound bool
}

func (f *flowQueue[T]) empty() bool { return f.tasks.len() == 0 && f.callers.len == 0 }

// quantum is the grants of a turn of f: its weight, at least 1.
func (f *flowQueue[T]) quantum() int { return max(f.weight, 1) }

// waitLevel is the work waiting at one level: the flow "" in itself, the
// other flows in flows, and the round over those with work.
type waitLevel[T any] struct {
	level int
	flowQueue[T]

	// flows holds the flows other than "" that have work at this level;
	// nil until one comes. The round, from head (whose turn it is) to
	// tail, holds every flow with work, "" included, while flows is not
	// empty.
	flows      map[string]*flowQueue[T]
	head, tail *flowQueue[T]
}

// empty reports whether no unit waits at l, in any flow.
func (l *waitLevel[T]) empty() bool { return l.flowQueue.empty() && len(l.flows) == 0 }

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
	flowing  int // flows other than "" with work, at every level

	timed bool  // keep the tasks' stamps
	extra bool  // keep the tasks' extras (overload control; timed too)
	aging int64 // Options.PriorityAging in ns; 0: strict levels
	seq   uint64
	spare []*waitLevel[T] // emptied levels, for reuse
	flows []*flowQueue[T] // emptied flows, for reuse
	peak  map[*waitLevel[T]]int
}

// flowSpare bounds the emptied flows kept for reuse; flowMapReset is the
// size above which a level's map of flows, once empty, is dropped rather
// than kept (a Go map keeps its buckets after its entries are deleted).
const (
	flowSpare    = 64
	flowMapReset = 64
)

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

// flow returns the queue of flow name at l, adding it with weight if it
// is new. It requires a unit of the flow to be added to it next.
func (q *waitQueue[T]) flow(l *waitLevel[T], name string, weight int) *flowQueue[T] {
	if name == "" {
		if l.flowQueue.empty() {
			l.weight = max(weight, 1)
		}
		if len(l.flows) > 0 {
			q.enter(l, &l.flowQueue)
		}
		return &l.flowQueue
	}
	f := l.flows[name]
	if f != nil {
		return f
	}
	if n := len(q.flows); n > 0 {
		f, q.flows = q.flows[n-1], q.flows[:n-1]
	} else {
		f = new(flowQueue[T])
	}
	f.name, f.weight = name, max(weight, 1)
	if l.flows == nil {
		l.flows = make(map[string]*flowQueue[T])
	}
	if len(l.flows) == 0 && !l.flowQueue.empty() {
		q.enter(l, &l.flowQueue) // the round starts: "" was there first
	}
	l.flows[name] = f
	q.flowing++
	q.enter(l, f)
	return f
}

// enter puts f, which is about to have work, at the back of l's round, if
// it is not in it; a flow that finds the round empty starts its turn.
func (q *waitQueue[T]) enter(l *waitLevel[T], f *flowQueue[T]) {
	if f.inRound {
		return
	}
	f.inRound, f.next = true, nil
	if l.tail == nil {
		l.head, l.tail = f, f
		f.deficit = f.quantum()
		return
	}
	l.tail.next = f
	l.tail = f
}

// turn returns the flow whose unit at l gets the next grant: the head of
// the round, or "" if l has no other flow.
func (q *waitQueue[T]) turn(l *waitLevel[T]) *flowQueue[T] {
	if len(l.flows) == 0 {
		return &l.flowQueue
	}
	return l.head
}

// granted counts a grant to a unit of f, the flow of turn(l): f's turn
// ends when its deficit is spent or its work is, and the next flow's
// begins. Then settle.
func (q *waitQueue[T]) granted(l *waitLevel[T], f *flowQueue[T]) {
	if !f.inRound {
		q.settle(l, f)
		return
	}
	f.deficit--
	if f.deficit <= 0 && !f.empty() {
		if l.head == f && l.tail != f {
			// To the back of the round; the next flow's turn begins.
			l.head = f.next
			f.next = nil
			l.tail.next = f
			l.tail = f
			l.head.deficit = l.head.quantum()
		} else {
			f.deficit = f.quantum() // alone in the round: a new turn
		}
	}
	q.settle(l, f)
}

// settle takes f out of l's round, and out of l's flows, if it has no work
// left; and ends the round if "" is the only flow left. A unit taken out
// of f by a drop or a caller's leave calls it as a grant does.
func (q *waitQueue[T]) settle(l *waitLevel[T], f *flowQueue[T]) {
	if !f.empty() {
		return
	}
	if f.inRound {
		q.leaveRound(l, f)
	}
	if f != &l.flowQueue {
		delete(l.flows, f.name)
		q.flowing--
		f.name = ""
		f.tasks.shrink()
		f.stamps.shrink()
		f.arrivals.shrink()
		f.extras.shrink()
		if len(q.flows) < flowSpare {
			q.flows = append(q.flows, f)
		}
		if len(l.flows) == 0 {
			if q.peakFlows(l) > flowMapReset {
				l.flows = nil
			}
			if l.flowQueue.inRound {
				q.leaveRound(l, &l.flowQueue)
			}
		}
	}
}

// peakFlows is how many flows l's map has held since it was made.
func (q *waitQueue[T]) peakFlows(l *waitLevel[T]) int {
	if q.peak == nil {
		return 0
	}
	n := q.peak[l]
	delete(q.peak, l)
	return n
}

// notePeak records that l's map holds n flows.
func (q *waitQueue[T]) notePeak(l *waitLevel[T]) {
	n := len(l.flows)
	if n <= flowMapReset {
		return
	}
	if q.peak == nil {
		q.peak = make(map[*waitLevel[T]]int)
	}
	q.peak[l] = max(q.peak[l], n)
}

// leaveRound takes f out of l's round; if it was the head, the next
// flow's turn begins.
func (q *waitQueue[T]) leaveRound(l *waitLevel[T], f *flowQueue[T]) {
	var prev *flowQueue[T]
	for g := l.head; g != f; g = g.next {
		prev = g
	}
	if prev == nil {
		l.head = f.next
		if l.head != nil {
			l.head.deficit = l.head.quantum()
		}
	} else {
		prev.next = f.next
	}
	if l.tail == f {
		l.tail = prev
	}
	f.next, f.inRound, f.deficit = nil, false, 0
}

// flowOfUnit returns the queue of flow name at l, which must have work.
func (l *waitLevel[T]) flowOfUnit(name string) *flowQueue[T] {
	if name == "" {
		return &l.flowQueue
	}
	return l.flows[name]
}

// pushTask buffers arg at level lv, in flow, which weighs weight if it is
// new.
func (q *waitQueue[T]) pushTask(lv int, flow string, weight int, arg T, st taskStamp, a arrival, x *taskExtra) {
	l := q.level(lv)
	f := q.flow(l, flow, weight)
	q.notePeak(l)
	f.tasks.push(arg)
	if q.timed {
		f.stamps.push(st)
	}
	if q.aging != 0 {
		f.arrivals.push(a)
	}
	if q.extra {
		f.extras.push(x)
	}
	q.buffered++
}

// pushCaller adds the blocked caller w at its level and flow.
func (q *waitQueue[T]) pushCaller(w *waiter[T]) {
	l := q.level(w.level)
	f := q.flow(l, w.flow, w.weight)
	q.notePeak(l)
	f.callers.pushBack(w)
	q.blocked++
}

// removeCaller takes out w, a blocked caller that gives up.
func (q *waitQueue[T]) removeCaller(w *waiter[T]) {
	l := q.level(w.level)
	f := l.flowOfUnit(w.flow)
	f.callers.remove(w)
	q.blocked--
	q.settle(l, f)
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

// headRank returns the rank of f's first unit, buffered or blocked, at
// level lv; f must have work.
func (q *waitQueue[T]) headRank(lv int, f *flowQueue[T], now int64) rank {
	if f.tasks.len() > 0 {
		return q.rankOf(lv, f.arrivals.at(0), now)
	}
	return q.rankOf(lv, f.callers.head.arrival, now)
}

// levelRank returns the rank of l's oldest unit, over its flows.
func (q *waitQueue[T]) levelRank(l *waitLevel[T], now int64) rank {
	if len(l.flows) == 0 {
		return q.headRank(l.level, &l.flowQueue, now)
	}
	var best rank
	for f := l.head; f != nil; f = f.next {
		if r := q.headRank(l.level, f, now); f == l.head || r.above(best) {
			best = r
		}
	}
	return best
}

// next returns the level whose unit gets the next free slot, or nil if
// nothing waits. now is read only with aging.
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
		if r := q.levelRank(l, now); best == nil || r.above(bestRank) {
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
	f := q.turn(l)
	if f.tasks.len() > 0 {
		arg, _ = f.tasks.pop()
		if q.timed {
			st, _ = f.stamps.pop()
		}
		if q.aging != 0 {
			f.arrivals.pop()
		}
		q.buffered--
	} else {
		w = f.callers.head
		f.callers.remove(w)
		q.blocked--
		var zero T
		arg, st, w.arg = w.arg, w.stamp, zero
	}
	q.granted(l, f)
	q.drop(l)
	return arg, st, w
}

// pushZero buffers arg at level 0 in the flow "", in a queue that is
// neither timed nor aging: pushTask without the stamp and the arrival.
func (q *waitQueue[T]) pushZero(arg T) {
	if len(q.zero.flows) > 0 {
		q.enter(&q.zero, &q.zero.flowQueue)
	}
	q.zero.tasks.push(arg)
	q.buffered++
}

// popZero removes the first buffered task of level 0, which must exist,
// of a queue that is not timed and has no flow but "", and returns it.
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
// the best-ranked first caller of any level; within a level, the first
// caller of the first flow in the round that has one.
func (q *waitQueue[T]) nextCaller(now int64) *waiter[T] {
	var best *waiter[T]
	var bestRank rank
	for _, l := range q.levels {
		w := l.firstCaller()
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

// firstCaller returns the caller of l that gets buffer room first.
func (l *waitLevel[T]) firstCaller() *waiter[T] {
	if len(l.flows) == 0 {
		return l.callers.head
	}
	for f := l.head; f != nil; f = f.next {
		if f.callers.head != nil {
			return f.callers.head
		}
	}
	return nil
}

// bufferCaller moves the task of w, a blocked caller, into the buffer at
// its level and flow, where it keeps its arrival. The caller is still to
// be woken.
func (q *waitQueue[T]) bufferCaller(w *waiter[T]) {
	l := q.level(w.level)
	f := l.flowOfUnit(w.flow)
	f.callers.remove(w)
	q.blocked--
	f.tasks.push(w.arg)
	if q.timed {
		f.stamps.push(w.stamp)
	}
	if q.aging != 0 {
		f.arrivals.push(w.arrival)
	}
	if q.extra {
		f.extras.push(w.x)
		w.x = nil
	}
	q.buffered++
	var zero T
	w.arg = zero
}

// eachFlow calls fn with every flow of l that has work; fn may settle it.
func (l *waitLevel[T]) eachFlow(fn func(f *flowQueue[T])) {
	if len(l.flows) == 0 {
		if !l.flowQueue.empty() {
			fn(&l.flowQueue)
		}
		return
	}
	var all []*flowQueue[T]
	for f := l.head; f != nil; f = f.next {
		all = append(all, f)
	}
	for _, f := range all {
		fn(f)
	}
}

// popCallers removes every blocked caller, linked by nextWake, for Release.
func (q *waitQueue[T]) popCallers() (all *waiter[T]) {
	for _, l := range append([]*waitLevel[T](nil), q.levels...) {
		l.eachFlow(func(f *flowQueue[T]) {
			for w := f.callers.head; w != nil; w = f.callers.head {
				f.callers.remove(w)
				w.nextWake, all = all, w
			}
			q.settle(l, f)
		})
		q.drop(l)
	}
	q.blocked = 0
	return all
}

// popHead removes the first buffered task of f, a flow of l, which must
// exist, in a queue with extras, and returns it; the ring's ends stay
// live. The caller settles f.
func (q *waitQueue[T]) popHead(f *flowQueue[T]) (T, taskStamp, *taskExtra) {
	arg, _ := f.tasks.pop()
	st, _ := f.stamps.pop()
	x, _ := f.extras.pop()
	if q.aging != 0 {
		f.arrivals.pop()
	}
	q.buffered--
	q.trim(f)
	return arg, st, x
}

// popTail removes the last buffered task of f, which must exist, in a
// queue with extras, and returns it; the ring's ends stay live. The
// caller settles f.
func (q *waitQueue[T]) popTail(f *flowQueue[T]) (T, taskStamp, *taskExtra) {
	arg, _ := f.tasks.popBack()
	st, _ := f.stamps.popBack()
	x, _ := f.extras.popBack()
	if q.aging != 0 {
		f.arrivals.popBack()
	}
	q.buffered--
	q.trim(f)
	return arg, st, x
}

// isDead reports whether x is a tombstone's.
func isDead(x *taskExtra) bool { return x != nil && x.dead }

// trim removes the tombstones at both ends of f's ring, and compacts the
// ring once it holds more tombstones than tasks.
func (q *waitQueue[T]) trim(f *flowQueue[T]) {
	if f.dead == 0 {
		return
	}
	for f.extras.len() > 0 && isDead(f.extras.at(0)) {
		f.tasks.pop()
		f.stamps.pop()
		f.extras.pop()
		if q.aging != 0 {
			f.arrivals.pop()
		}
		f.dead--
	}
	for n := f.extras.len(); n > 0 && isDead(f.extras.at(n-1)); n-- {
		f.tasks.popBack()
		f.stamps.popBack()
		f.extras.popBack()
		if q.aging != 0 {
			f.arrivals.popBack()
		}
		f.dead--
	}
	if f.dead > 32 && 2*f.dead > f.tasks.len() {
		q.compact(f)
	}
}

// compact removes every tombstone of f's ring.
func (q *waitQueue[T]) compact(f *flowQueue[T]) {
	var tasks ring[T]
	var stamps ring[taskStamp]
	var arrivals ring[arrival]
	var extras ring[*taskExtra]
	for f.extras.len() > 0 {
		arg, _ := f.tasks.pop()
		st, _ := f.stamps.pop()
		x, _ := f.extras.pop()
		var a arrival
		if q.aging != 0 {
			a, _ = f.arrivals.pop()
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
	f.tasks, f.stamps, f.arrivals, f.extras, f.dead = tasks, stamps, arrivals, extras, 0
}

// shrink drops the storage of large empty rings (the purge's pass).
func (q *waitQueue[T]) shrink() {
	q.zero.tasks.shrink()
	q.zero.stamps.shrink()
	q.zero.arrivals.shrink()
}
