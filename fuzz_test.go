package ants_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

// FuzzPool decodes its input into a pool configuration and a sequence of at
// most fzMaxOps operations, applies them to a pool that runs on a FakeClock,
// and after each one compares the pool with a model of it (fzModel): the
// result of every call, Running, Idle, Waiting, Queued, Cap, IsClosed, the
// Stats counters, and the pool's goroutines. Then it drains the pool and
// checks that every task whose submit returned nil ran exactly once and no
// other task ran, and that no goroutine is left.
//
// Input layout: byte 0 chooses the kind and flags, byte 1 the size, buffer
// and MaxBlockingTasks (see newFz), and each following pair of bytes is one
// operation and its argument (see fz.step): among them, from operation byte
// fzOpPace up, Pause with a done context, so that it returns at once, and
// Resume (fz.pace); from fzOpRate up to fzOpPace, SetRateLimit (fz.rate)
// and a ReleaseTimeout that a call races (fz.racedRelease).
//
// The rate limits are slow (fzRate), so that on the FakeClock no token
// comes back within an input: a limit is a count of tokens that only
// SetRateLimit fills, and the pace timer, set while work waits only for a
// token, never fires. The model keeps the count and the timer exactly. Every
// ReleaseTimeout that returns nil is checked at once: every task accepted
// has run, and no timer of the pool is set.
//
// Submits carry priority levels (fzLevels): a submit with a context takes
// the level the argument byte chooses, one without a context is level 0.
// The model orders waiting work by level as the issue specifies, and knows
// which task each freed slot goes to: a task the pool runs out of that
// order fails the input at once. With flag 0x40 levels age
// (WithPriorityAging(fzAging)), on the pool's FakeClock, which the
// "advance" operation moves.
//
// Every call runs on its own goroutine with a bounded wait, so a pool that
// blocks where the model says it must not fails the input instead of hanging
// the fuzzer. Tasks are instant, panicking, or gated: a gated task blocks
// until the "unblock" operation hands it a token.
func FuzzPool(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		fz := newFz(t, data[0], data[1])
		if fz == nil {
			return
		}
		fzSteps(data[2:], fz.step)
		fz.finish()
	})
}

// fzSteps applies step to each pair of bytes of ops, an operation and its
// argument, up to fzMaxOps operations.
func fzSteps(ops []byte, step func(op, arg byte)) {
	for i := 0; i+1 < len(ops) && i/2 < fzMaxOps; i += 2 {
		step(ops[i], ops[i+1])
	}
}

const (
	fzMaxOps = 64
	fzMaxIDs = fzMaxOps + 1
	fzExpiry = time.Minute
	fzAging  = 30 * time.Second
	fzBound  = 5 * time.Second
)

// fzLevels are the priority levels a fuzz input draws from, by an index
// taken from an argument byte: a few small ones, each extreme once. Index 0
// is level 0 and means a context without a level, so that the inputs
// written before levels keep their meaning.
var fzLevels = [16]int{0, 1, -1, 2, 3, -2, 1, 0, 2, -1, 3, 1, 0, -2, math.MinInt, math.MaxInt}

// fzLevelContext returns a cancellable context of fzLevels[i], cancelled
// already if done.
func fzLevelContext(i int, done bool) (context.Context, context.CancelFunc, int) {
	ctx, cancel := context.WithCancel(context.Background())
	if done {
		cancel()
	}
	lv := fzLevels[i%len(fzLevels)]
	if i%len(fzLevels) != 0 {
		ctx = ants.ContextWithPriority(ctx, lv)
	}
	return ctx, cancel, lv
}

// fzTask is what a task does.
type fzTask uint8

const (
	fzInstant fzTask = iota
	fzGated
	fzPanic
)

func (k fzTask) String() string { return [...]string{"instant", "gated", "panicking"}[k] }

// fzCall is a submit call of FuzzPool or FuzzSubpool: its task, its
// priority level, and its result once it returns. FuzzPool's model also
// keeps the tasks it has buffered as fzCalls (res nil for a task buffered
// by its own submit).
type fzCall struct {
	id     int
	kind   fzTask
	level  int
	at     int64 // when it started to wait (FuzzPool's model time)
	res    chan error
	cancel context.CancelFunc // nil unless it called SubmitContext
	want   error              // its result, once the model has decided it
	wanted bool               // want is set (FuzzSubpool)
	got    error
	done   bool // got is set
}

// The order of waiting work, as both fuzzers' models apply it
// to whatever waits: the unit of the highest effective level goes first,
// and between equal effective levels the earlier arrival. A unit arrives
// when its submit call starts, and the fuzzers make one call at a time, so
// the arrival order is the order of the calls' ids. The effective level is
// the level, or with aging d, level + ⌊waited/d⌋ saturating at MaxInt.

// fzEffective returns the effective level of c at now with aging (0:
// strict levels).
func fzEffective(c *fzCall, now, aging int64) int {
	if aging == 0 || now <= c.at {
		return c.level
	}
	k := min((now-c.at)/aging, int64(math.MaxInt))
	if c.level > math.MaxInt-int(k) {
		return math.MaxInt
	}
	return c.level + int(k)
}

// fzBest returns the index in units of the unit that goes first at now, or
// -1 if units is empty.
func fzBest(units []*fzCall, now, aging int64) int {
	best, bestEff := -1, 0
	for i, u := range units {
		e := fzEffective(u, now, aging)
		if best < 0 || e > bestEff || (e == bestEff && u.id < units[best].id) {
			best, bestEff = i, e
		}
	}
	return best
}

// fzRemove returns units without its i-th element, in a new slice.
func fzRemove(units []*fzCall, i int) []*fzCall {
	return append(units[:i:i], units[i+1:]...)
}

// poll records the call's result if it has arrived.
func (c *fzCall) poll() bool {
	if !c.done {
		select {
		case c.got = <-c.res:
			c.done = true
		default:
		}
	}
	return c.done
}

// fzModel is what the pool should look like. Every decision the pool makes
// depends only on counts and on the order of the waiting work, so the model
// keeps counts: busy workers (all running a gated task once the pool has
// settled), idle workers with the tick they went idle at; and the waiting
// units, buffered tasks and blocked callers, each with its task, level and
// arrival. The model mirrors the documented rules:
//
//   - a submit goes to an idle worker, else to a new worker below capacity,
//     else to the buffer, else fails (TrySubmit, Nonblocking,
//     MaxBlockingTasks reached) or waits; while the pool is paused it skips
//     the workers and goes to the buffer at once;
//   - a worker that finishes exits if the pool is above capacity, else takes
//     the first waiting unit, buffered or blocked, in the order of fzBest (a
//     buffered one leaves its room to the first blocked caller), unless the
//     pool is paused, else exits if the pool is closed, else goes idle (on
//     top of the stack, or at the tail of the PreAlloc ring);
//   - Resume, and Release of a paused pool, give the free slots to the
//     waiting units in that order, each on an idle worker while there is
//     one (detached as a submit detaches it), else on a new worker;
//   - a purge tick reaps the idle workers that went idle before tick -
//     expiry, and ends the purge goroutine if no worker is left;
//   - a caller whose context ends leaves the waiting work, and the order of
//     the others is unchanged.
//
// The engine keeps the units in per-level FIFOs and compares their heads;
// the model compares every unit, by level (aged at the model's clock) and
// arrival, as the issue states the rule.
type fzModel struct {
	cap, queue, maxBlocking        int
	preAlloc, nonblocking, noPurge bool
	closed                         bool
	paused                         bool
	aging                          int64 // WithPriorityAging in ns; 0: strict levels
	running                        int
	idle                           []int64 // tick each idle worker went idle at, oldest first
	busyGated                      int
	buffer                         []*fzCall      // buffered tasks, in no particular order
	waiters                        []*fzCall      // blocked callers, in no particular order
	expecting                      []*fzCall      // waiters whose result is decided but not yet checked
	pending                        []*fzCall      // tasks handed to a worker, not yet run by the model
	taken                          [fzMaxIDs]bool // tasks handed to a worker
	submitted, completed, panicked uint64
	rejected                       uint64
	// slack is how many fewer or more workers the pool may have than the
	// model, all idle: a panic ends its worker, and which worker ran the
	// panicking task (one the model keeps idle afterwards, or a fresh one)
	// depends on the scheduler; so does which of the workers freed at once,
	// by an instant task or a panic, takes the last waiting tasks, the
	// other going idle or ending. settle resolves it from what the pool
	// shows.
	slack            int
	purging, started bool
	now, lastTick    int64 // relative to the FakeClock's start
	// The rate limit: limited, the tokens left (none come back, fzRate),
	// and whether the pace timer is set (it never fires).
	limited bool
	tokens  int
	armed   bool
}

// gateOpen reports whether a task with a free slot may start now: the
// pool is not paused and, with a limit, a token is left.
func (m *fzModel) gateOpen() bool { return !m.paused && (!m.limited || m.tokens > 0) }

// spend takes the token of a task that starts.
func (m *fzModel) spend() {
	if m.limited {
		m.tokens--
	}
}

// nWaitingUnits is the work that waits: buffered tasks and blocked callers.
func (m *fzModel) nWaitingUnits() int { return len(m.buffer) + len(m.waiters) }

// slotFree reports whether a waiting unit could have a slot, at rest.
func (m *fzModel) slotFree() bool { return m.cap < 0 || m.running-len(m.idle) < m.cap }

// noteArmed sets the pace timer if work waits only for a token, as the
// pool does at every call that leaves work waiting; a timer once set stays
// set until SetRateLimit or Release drops it, since none fires.
func (m *fzModel) noteArmed() {
	if m.limited && !m.paused && m.nWaitingUnits() > 0 && m.slotFree() {
		m.armed = true
	}
}

// fzBucket is the token bucket of a model that had limited and tokens once
// SetRateLimit sets a limit of burst tokens at most, or none (FuzzPool's
// and FuzzSubpool's): a limit where there was none starts full, a lower
// burst drops the tokens above it.
func fzBucket(limited bool, tokens int, limit bool, burst int) (bool, int) {
	switch {
	case !limit:
		return false, 0
	case !limited:
		return true, burst
	default:
		return true, min(tokens, burst)
	}
}

// setRate is SetRateLimit with a limit (burst tokens at most) or none: a
// limit where there was none starts full, a lower burst drops the tokens
// above it; the old timer is dropped and the waiting work takes what the
// slots and tokens allow.
func (m *fzModel) setRate(limit bool, burst int) {
	m.limited, m.tokens = fzBucket(m.limited, m.tokens, limit, burst)
	m.armed = false
	m.admit()
}

// drained reports whether, once the model has drained, the pool holds
// nothing: no task busy or waiting, no worker, no purge goroutine, no pace
// timer. A release waits for it.
func (m *fzModel) drained() bool {
	return m.busyGated == 0 && m.nWaitingUnits() == 0 && len(m.pending) == 0 && m.running == 0 &&
		!m.purging && !m.armed
}

func (m *fzModel) nWaiting() int { return len(m.waiters) }

// fzOutcome is what a submit does.
type fzOutcome int

const (
	fzAccept fzOutcome = iota
	fzWait
	fzClosed
	fzOverload
)

func (o fzOutcome) String() string { return [...]string{"accept", "wait", "closed", "overload"}[o] }

// outcome decides a submit without changing the model.
func (m *fzModel) outcome(try bool) fzOutcome {
	switch {
	case m.closed:
		return fzClosed
	case m.gateOpen() && (len(m.idle) > 0 || m.cap < 0 || m.running < m.cap),
		m.queue < 0 || len(m.buffer) < m.queue:
		return fzAccept
	case try || m.nonblocking || (m.maxBlocking != 0 && m.nWaiting() >= m.maxBlocking):
		return fzOverload
	default:
		return fzWait
	}
}

// accept places an accepted task as the pool does.
func (m *fzModel) accept(c *fzCall) {
	m.submitted++
	switch {
	case !m.gateOpen():
		m.buffer = append(m.buffer, c)
	case len(m.idle) > 0:
		m.spend()
		m.detachIdle()
		m.pending = append(m.pending, c)
	case m.cap < 0 || m.running < m.cap:
		m.spend()
		m.spawn(c)
	default:
		m.buffer = append(m.buffer, c)
	}
}

func (m *fzModel) detachIdle() {
	if m.preAlloc {
		m.idle = m.idle[1:]
	} else {
		m.idle = m.idle[:len(m.idle)-1]
	}
}

func (m *fzModel) spawn(c *fzCall) {
	m.running++
	if !m.purging && !m.noPurge && !m.closed {
		m.startPurge()
	}
	m.pending = append(m.pending, c)
}

func (m *fzModel) startPurge() {
	m.purging, m.started = true, true
	m.lastTick = m.now
}

// drain runs the tasks handed to workers: instant ones finish at once and
// their worker looks for the next task; gated ones keep their worker busy.
func (m *fzModel) drain() {
	for len(m.pending) > 0 {
		c := m.pending[0]
		m.pending = m.pending[1:]
		m.taken[c.id] = true
		switch c.kind {
		case fzGated:
			m.busyGated++
			continue
		case fzPanic:
			// A panic ends its worker; the capacity goes to the next task.
			m.panicked++
			m.running--
			m.slack++
			m.serve()
			continue
		default:
			m.completed++
		}
		m.afterTask()
	}
}

// afterTask is a worker that has just finished a task.
func (m *fzModel) afterTask() {
	if m.cap >= 0 && m.running > m.cap {
		m.running--
		return
	}
	if m.gateOpen() && m.nWaitingUnits() > 0 {
		m.spend()
		m.pending = append(m.pending, m.nextTask())
		return
	}
	if m.closed {
		m.running--
		return
	}
	m.idle = append(m.idle, m.lastTick)
}

// nextTask takes the task that gets a free slot, or returns nil if
// nothing waits: the first waiting unit, buffered or blocked. A buffered
// one leaves room in the buffer, which goes to the first blocked caller.
func (m *fzModel) nextTask() *fzCall {
	b, w := fzBest(m.buffer, m.now, m.aging), fzBest(m.waiters, m.now, m.aging)
	switch {
	case b < 0 && w < 0:
		return nil
	case w < 0 || (b >= 0 && fzBest([]*fzCall{m.buffer[b], m.waiters[w]}, m.now, m.aging) == 0):
		c := m.buffer[b]
		m.buffer = fzRemove(m.buffer, b)
		if w >= 0 {
			m.buffer = append(m.buffer, m.takeWaiter(w))
		}
		return c
	default:
		return m.takeWaiter(w)
	}
}

// takeWaiter accepts the task of waiters[i], whose call returns nil.
func (m *fzModel) takeWaiter(i int) *fzCall {
	w := m.waiters[i]
	m.waiters = fzRemove(m.waiters, i)
	m.submitted++
	w.want = nil
	m.expecting = append(m.expecting, w)
	return w
}

// finishGated is a gated task that got its token.
func (m *fzModel) finishGated() {
	m.busyGated--
	m.completed++
	m.afterTask()
	m.drain()
}

func (m *fzModel) tune(n int) {
	if n <= 0 || m.preAlloc {
		return
	}
	n = min(n, math.MaxInt32)
	if m.cap < 0 || n == m.cap {
		return
	}
	old := m.cap
	m.cap = n
	if n > old {
		m.serve()
	} else {
		m.stopIdle(m.running - n)
	}
	m.drain()
}

// serve starts workers for buffered tasks and waiters while there is room,
// unless the pool is paused. (Work waits only while no slot is free, or the
// pool is paused, so no worker is idle then: a slot that frees goes to a new
// worker.)
func (m *fzModel) serve() {
	for m.gateOpen() && (m.cap < 0 || m.running < m.cap) && m.nWaitingUnits() > 0 {
		m.spend()
		m.spawn(m.nextTask())
	}
}

func (m *fzModel) stopIdle(n int) {
	for ; n > 0 && len(m.idle) > 0; n-- {
		m.detachIdle()
		m.running--
	}
}

// release reports whether it closed the pool.
func (m *fzModel) release() bool {
	if m.closed {
		return false
	}
	m.closed = true
	for _, w := range m.waiters {
		w.want = ants.ErrPoolClosed
		m.rejected++
		m.expecting = append(m.expecting, w)
	}
	m.waiters = nil
	m.resume() // a paused pool is resumed for its buffered tasks
	m.stopIdle(len(m.idle))
	m.purging = false
	if len(m.buffer) == 0 {
		m.armed = false // nothing is left to wait for a token
	}
	return true
}

// pause is Pause with a done context: on an open pool it pauses and returns
// nil if no task runs, else the context's error; on a released one it
// returns nil and changes nothing.
func (m *fzModel) pause() error {
	if m.closed {
		return nil
	}
	m.paused = true
	if m.busyGated > 0 {
		return context.Canceled
	}
	return nil
}

// resume is Resume: the waiting units take the free slots in the order of
// nextTask, each on an idle worker while there is one, else on a new one.
// The model is at rest (nothing pending), so the busy workers are running
// minus idle.
func (m *fzModel) resume() {
	if !m.paused {
		return
	}
	m.paused = false
	m.admit()
}

// admit gives the free slots to the waiting units in the order of
// nextTask while the gate lets them through, each on an idle worker while
// there is one, else on a new one. The model is at rest (nothing pending),
// so the busy workers are running minus idle.
func (m *fzModel) admit() {
	for m.slotFree() && m.gateOpen() && m.nWaitingUnits() > 0 {
		m.spend()
		c := m.nextTask()
		if len(m.idle) > 0 {
			m.detachIdle()
			m.pending = append(m.pending, c)
		} else {
			m.spawn(c)
		}
	}
}

func (m *fzModel) reboot() {
	if !m.closed {
		return
	}
	m.closed = false
	if m.running > 0 && !m.purging && !m.noPurge {
		m.startPurge()
	}
}

// tick is a purge pass at the model's current time.
func (m *fzModel) tick() {
	cutoff := m.now - int64(fzExpiry)
	n := 0
	for n < len(m.idle) && m.idle[n] < cutoff {
		n++
	}
	m.idle = m.idle[n:]
	m.running -= n
	m.lastTick = m.now
	if m.running == 0 {
		m.purging = false
	}
}

func (m *fzModel) String() string {
	return fmt.Sprintf("{cap %d closed %v paused %v aging %v now %v running %d idle %d busy %d buffer %v waiting %v "+
		"submitted %d completed %d panicked %d rejected %d purging %v lastTick %v limited %v tokens %d armed %v}",
		m.cap, m.closed, m.paused, time.Duration(m.aging), time.Duration(m.now), m.running, len(m.idle), m.busyGated,
		fzUnits(m.buffer), fzUnits(m.waiters),
		m.submitted, m.completed, m.panicked, m.rejected, m.purging, time.Duration(m.lastTick),
		m.limited, m.tokens, m.armed)
}

// fzUnits describes waiting units: task id, level and arrival time.
func fzUnits(units []*fzCall) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, u := range units {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d@L%d,t%v", u.id, u.level, time.Duration(u.at))
	}
	b.WriteByte(']')
	return b.String()
}

// fz applies one input to one pool.
type fz struct {
	t      *testing.T
	p      *testPool
	m      fzModel
	clock  *ants.FakeClock
	ignore goleak.Option

	kinds  [fzMaxIDs]fzTask
	runs   [fzMaxIDs]atomic.Int32
	result [fzMaxIDs]int8 // 0 unknown, 1 accepted, -1 rejected
	nextID int

	tokens    chan struct{} // a gated task takes one to finish
	abort     chan struct{} // closed at cleanup: gated tasks finish
	base      int64         // the FakeClock's start, learned from the pool
	baseKnown bool
	trace     []string
}

// newFz builds the pool that b0 and b1 describe:
//
//	b0 % 3: Pool, PoolWithFunc, PoolWithFuncGeneric[int]
//	b0 & 0x04: PreAlloc; 0x08: Nonblocking; 0x10: DisablePurge;
//	     0x40: WithPriorityAging(fzAging), else strict levels
//	b1 % 5: size (0 is unlimited)
//	(b1 >> 3) & 3: QueueSize 0, 1, 2 or -1 (unbounded)
//	(b1 >> 5) & 3: MaxBlockingTasks 0, 1, 2 or -1
//
// It returns nil if the constructor rightly refused the configuration.
func newFz(t *testing.T, b0, b1 byte) *fz {
	choices := [4]int{0, 1, 2, -1}
	f := &fz{
		t:      t,
		clock:  ants.NewFakeClock(),
		ignore: goleak.IgnoreCurrent(),
		tokens: make(chan struct{}),
		abort:  make(chan struct{}),
	}
	m := &f.m
	m.preAlloc, m.nonblocking, m.noPurge = b0&0x04 != 0, b0&0x08 != 0, b0&0x10 != 0
	if b0&0x40 != 0 {
		m.aging = int64(fzAging)
	}
	size := int(b1 % 5)
	m.queue, m.maxBlocking = choices[(b1>>3)&3], choices[(b1>>5)&3]
	m.cap = size
	if size == 0 {
		m.cap = -1
	}
	opts := []ants.Option{
		ants.WithFakeClock(f.clock),
		ants.WithExpiryDuration(fzExpiry),
		ants.WithPreAlloc(m.preAlloc),
		ants.WithNonblocking(m.nonblocking),
		ants.WithDisablePurge(m.noPurge),
		ants.WithQueueSize(m.queue),
		ants.WithMaxBlockingTasks(m.maxBlocking),
		ants.WithPanicHandler(func(any) {}),
		ants.WithPriorityAging(time.Duration(m.aging)),
	}
	var err error
	f.p, err = kindsWhere(isSingle)[b0%3].new(size, opts...)
	f.logf("new pool: kind %d size %d preAlloc %v nonblocking %v noPurge %v queue %d maxBlocking %d aging %v",
		b0%3, size, m.preAlloc, m.nonblocking, m.noPurge, m.queue, m.maxBlocking, time.Duration(m.aging))
	if m.preAlloc && size == 0 {
		if !errors.Is(err, ants.ErrInvalidPreAllocSize) {
			t.Fatalf("PreAlloc with size 0: err = %v, want ErrInvalidPreAllocSize", err)
		}
		return nil
	}
	if err != nil {
		t.Fatalf("constructor: %v", err)
	}
	t.Cleanup(f.cleanup)
	f.settle()
	return f
}

// task returns the task of id.
func (f *fz) task(id int) func() {
	return func() { f.run(id) }
}

// fzNilCtx is a nil context, for ReleaseContext(nil) (staticcheck's
// SA1012 flags only a literal nil).
var fzNilCtx context.Context

// run is every task's body.
func (f *fz) run(id int) {
	f.runs[id].Add(1)
	switch f.kinds[id] {
	case fzGated:
		select {
		case <-f.tokens:
		case <-f.abort:
		}
	case fzPanic:
		panic(fmt.Sprintf("fuzz task %d panics", id))
	}
}

func (f *fz) logf(format string, args ...any) {
	f.trace = append(f.trace, fmt.Sprintf(format, args...))
}

// fatalf fails the input with the operations so far and the model.
func (f *fz) fatalf(format string, args ...any) {
	f.t.Helper()
	f.t.Fatalf("%s\nmodel: %v\nstats: %+v\noperations:\n  %s", fmt.Sprintf(format, args...), &f.m, f.p.Stats(),
		strings.Join(f.trace, "\n  "))
}

// hang fails the input with a dump of every goroutine.
func (f *fz) hang(format string, args ...any) {
	f.t.Helper()
	_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
	f.fatalf("hang: "+format, args...)
}

// cleanup lets every goroutine of the input finish, whatever happened.
func (f *fz) cleanup() {
	close(f.abort)
	for _, w := range f.m.waiters {
		if w.cancel != nil {
			w.cancel()
		}
	}
	f.p.Release()
	f.p.Reboot()
	_ = f.p.ReleaseTimeout(fzBound)
}

// call runs fn on a new goroutine and returns a channel for its result.
func fzGo(fn func() error) chan error {
	res := make(chan error, 1)
	go func() { res <- fn() }()
	return res
}

// await returns the result of a call that must not block.
func (f *fz) await(what string, res chan error) error {
	f.t.Helper()
	select {
	case err := <-res:
		return err
	case <-time.After(fzBound):
		f.hang("%s has not returned after %v", what, fzBound)
		return nil
	}
}

// do runs fn, which must not block, with a bound.
func (f *fz) do(what string, fn func()) {
	f.t.Helper()
	f.await(what, fzGo(func() error { fn(); return nil }))
}

func (f *fz) newID(k fzTask) int {
	id := f.nextID
	f.nextID++
	f.kinds[id] = k
	return id
}

func (f *fz) mark(id int, err error) {
	if err == nil {
		f.result[id] = 1
	} else {
		f.result[id] = -1
	}
}

// Operations, chosen by the first byte of a pair modulo fzOpCount.
const (
	fzOpSubmitGated = iota
	fzOpSubmitInstant
	fzOpTrySubmit
	fzOpSubmitContext
	fzOpCancelWaiter
	fzOpTune
	fzOpRelease
	fzOpReboot
	fzOpUnblock
	fzOpAdvance
	fzOpReleaseTimeout
	fzOpSubmitPanic
	fzOpSubmitNil
	fzOpCount
)

// fzOpPace is the first operation byte that chooses Pause (even) or Resume
// (odd) instead of op % fzOpCount: no seed written before Pause used an
// operation byte that high, so they keep their meaning. The 16 bytes below
// it, from fzOpRate, choose SetRateLimit (fzOpRate to fzOpRate+7) or a
// raced ReleaseTimeout (the next 8), which no earlier seed used either.
const (
	fzOpPace = 0xf0
	fzOpRate = 0xe0
)

// fzRate is the rate of the fuzzers' limits: a token a million seconds,
// so that none comes back within an input, on the FakeClock or a real one.
const fzRate = 1e-6

// fzRates are the limits SetRateLimit sets, by argument: none (two ways),
// and fzRate or twice it with a burst of 1 to 3.
var fzRates = [8]struct {
	perSecond float64
	burst     int
}{{0, 0}, {math.Inf(1), 0}, {fzRate, 1}, {fzRate, 2}, {fzRate, 3}, {2 * fzRate, 1}, {2 * fzRate, 2}, {2 * fzRate, 3}}

// limits reports whether perSecond is a limit, as the pool reads it.
func fzLimits(perSecond float64) bool { return perSecond > 0 && !math.IsInf(perSecond, 1) }

// step applies one operation with its argument.
//
// The submits of a gated, instant or panicking task are Submit (level 0)
// if arg is 0, else SubmitContext at level fzLevels[arg%16]; the
// SubmitContext operation submits a gated task with a context already
// cancelled if arg&1, at level fzLevels[arg>>1%16]. TrySubmit has no
// context: its arg chooses the task. Advance moves the FakeClock: with a
// tick if a purge goroutine runs and arg < 0x80, else only forward, by 0 to
// 3/2 fzAging, so that aging meets every remainder of its floor.
func (f *fz) step(op, arg byte) {
	f.t.Helper()
	m := &f.m
	if op >= fzOpPace {
		f.pace(op&1 == 0)
		m.drain()
		m.noteArmed()
		f.settle()
		return
	}
	if op >= fzOpRate {
		if op < fzOpRate+8 {
			f.rate(arg)
		} else {
			f.racedRelease(arg)
		}
		m.drain()
		m.noteArmed()
		f.settle()
		return
	}
	switch op % fzOpCount {
	case fzOpSubmitGated:
		f.submitAt(fzGated, arg)
	case fzOpSubmitInstant:
		f.submitAt(fzInstant, arg)
	case fzOpSubmitPanic:
		f.submitAt(fzPanic, arg)
	case fzOpTrySubmit:
		f.submit("TrySubmit", fzTask(arg%3), true, nil)
	case fzOpSubmitContext:
		ctx, cancel, lv := fzLevelContext(int(arg>>1), arg&1 != 0)
		f.submit("SubmitContext", fzGated, false, &fzCtx{ctx, cancel, lv})
	case fzOpCancelWaiter:
		f.cancelWaiter(int(arg))
	case fzOpTune:
		n := int(arg%7) - 1
		if arg >= 0xf0 {
			n = math.MaxInt
		}
		f.logf("Tune(%d)", n)
		f.do("Tune", func() { f.p.Tune(n) })
		m.tune(n)
	case fzOpRelease:
		if arg&1 == 0 {
			f.logf("Release()")
			f.do("Release", f.p.Release)
			m.release()
			break
		}
		f.logf("ReleaseContext(nil)")
		var want error
		if !m.release() {
			want = ants.ErrPoolClosed
		}
		if err := f.await("ReleaseContext(nil)", fzGo(func() error {
			return f.p.ReleaseContext(fzNilCtx)
		})); err != want {
			f.fatalf("ReleaseContext(nil) = %v, want %v", err, want)
		}
	case fzOpReboot:
		f.logf("Reboot()")
		f.do("Reboot", f.p.Reboot)
		m.reboot()
	case fzOpUnblock:
		k := 1 + int(arg%3)
		f.logf("unblock %d gated tasks", k)
		for i := 0; i < k && m.busyGated > 0; i++ {
			select {
			case f.tokens <- struct{}{}:
			case <-time.After(fzBound):
				f.hang("no gated task took a token; the model has %d busy", m.busyGated)
			}
			m.finishGated()
		}
	case fzOpAdvance:
		if !m.purging || arg >= 0x80 {
			d := fzAging * time.Duration(arg%4) / 2
			f.logf("forward the clock by %v, no tick", d)
			m.now += int64(d)
			f.clock.Forward(d)
			break
		}
		d := fzExpiry * time.Duration(1+arg%4) / 2
		f.logf("advance the clock by %v", d)
		m.now += int64(d)
		if !f.clock.Advance(d) {
			f.fatalf("no purge goroutine took the tick, but the pool has %d workers", m.running)
		}
		m.tick()
	case fzOpReleaseTimeout:
		f.releaseTimeout()
	case fzOpSubmitNil:
		if f.p.submitter() == nil {
			break // a function pool passes a nil argument to its function
		}
		want := ants.ErrNilTask
		if m.closed {
			want = ants.ErrPoolClosed
		}
		f.logf("Submit(nil): want %v", want)
		if err := f.await("Submit(nil)", fzGo(func() error { return f.p.submit(nil) })); err != want {
			f.fatalf("Submit(nil) = %v, want %v", err, want)
		}
		m.rejected++
	}
	m.drain()
	m.noteArmed()
	f.settle()
}

// rate is SetRateLimit with the limit fzRates[arg%8].
func (f *fz) rate(arg byte) {
	f.t.Helper()
	r := fzRates[arg%8]
	f.logf("SetRateLimit(%v, %d)", r.perSecond, r.burst)
	if err := f.await("SetRateLimit", fzGo(func() error {
		return f.p.poolAPI.(pacer).SetRateLimit(r.perSecond, r.burst)
	})); err != nil {
		f.fatalf("SetRateLimit(%v, %d) = %v", r.perSecond, r.burst, err)
	}
	f.m.setRate(fzLimits(r.perSecond), r.burst)
}

// fzPartner is a call that races a release: what it does to the pool, and
// to the model.
type fzPartner struct {
	name  string
	pool  func(f *fz) error
	model func(m *fzModel) error
}

// fzPartners are the calls a raced release meets, by argument; arg>>3
// chooses a limit or a size.
var fzPartners = [8]func(arg byte) fzPartner{
	func(byte) fzPartner {
		return fzPartner{"Stats", func(f *fz) error { _ = f.p.Stats(); return nil }, func(*fzModel) error { return nil }}
	},
	func(byte) fzPartner {
		return fzPartner{"SetRateLimit(0, 0)",
			func(f *fz) error { return f.p.poolAPI.(pacer).SetRateLimit(0, 0) },
			func(m *fzModel) error { m.setRate(false, 0); return nil }}
	},
	func(arg byte) fzPartner {
		r := fzRates[2+(arg>>3)%6]
		return fzPartner{fmt.Sprintf("SetRateLimit(%v, %d)", r.perSecond, r.burst),
			func(f *fz) error { return f.p.poolAPI.(pacer).SetRateLimit(r.perSecond, r.burst) },
			func(m *fzModel) error { m.setRate(true, r.burst); return nil }}
	},
	func(arg byte) fzPartner {
		n := 1 + int(arg>>3)%4
		return fzPartner{fmt.Sprintf("Tune(%d)", n),
			func(f *fz) error { f.p.Tune(n); return nil },
			func(m *fzModel) error { m.tune(n); return nil }}
	},
	func(byte) fzPartner {
		return fzPartner{"Resume()", func(f *fz) error { f.p.poolAPI.(pacer).Resume(); return nil },
			func(m *fzModel) error { m.resume(); return nil }}
	},
	func(byte) fzPartner {
		return fzPartner{"Pause(a done context)",
			func(f *fz) error { return f.p.poolAPI.(pacer).Pause(cancelledContext()) },
			func(m *fzModel) error { return m.pause() }}
	},
	func(byte) fzPartner {
		return fzPartner{"Reboot()", func(f *fz) error { f.p.Reboot(); return nil },
			func(m *fzModel) error { m.reboot(); return nil }}
	},
	func(byte) fzPartner {
		return fzPartner{"Release()", func(f *fz) error { f.p.Release(); return nil },
			func(m *fzModel) error { m.release(); return nil }}
	},
}

// fzReleased is what a release returned, and the runs of the tasks and the
// timers set as it returned (FuzzPool's and FuzzSubpool's).
type fzReleased struct {
	err    error
	runs   [fzMaxIDs]int32
	timers int
}

// releaseAsync makes a release on a new goroutine and returns the channel
// its outcome comes on: with the tasks' runs, read from runs, and the
// timers that timers counts, as the release returned.
func releaseAsync(release func() error, runs *[fzMaxIDs]atomic.Int32, timers func() int) chan fzReleased {
	res := make(chan fzReleased, 1)
	go func() {
		var out fzReleased
		out.err = release()
		for id := range out.runs {
			out.runs[id] = runs[id].Load()
		}
		out.timers = timers()
		res <- out
	}()
	return res
}

// awaitRelease returns the outcome of a release, or calls hang if it has
// not come within 2 fzBound.
func awaitRelease(res chan fzReleased, hang func(format string, args ...any)) fzReleased {
	select {
	case out := <-res:
		return out
	case <-time.After(2 * fzBound):
		hang("a release has not returned after %v", 2*fzBound)
		return fzReleased{}
	}
}

// releaseNow makes a release of the pool on a new goroutine and returns
// its outcome's channel.
func (f *fz) releaseNow(release func() error) chan fzReleased {
	return releaseAsync(release, &f.runs, f.clock.Timers)
}

// awaitReleased returns the outcome of a release, which must come within
// 2 fzBound.
func (f *fz) awaitReleased(res chan fzReleased) fzReleased {
	f.t.Helper()
	return awaitRelease(res, f.hang)
}

// checkNilRelease checks what a release that returned nil found: every
// task the pool accepted had run, once, and no timer of the pool was set.
func (f *fz) checkNilRelease(out fzReleased) {
	f.t.Helper()
	m := &f.m
	if out.timers != 0 {
		f.fatalf("a release returned nil with %d timers of the pool set", out.timers)
	}
	for id := 0; id < f.nextID; id++ {
		if (f.result[id] == 1 || m.taken[id]) && out.runs[id] != 1 {
			f.fatalf("a release returned nil when accepted task %d had run %d times", id, out.runs[id])
		}
	}
	for _, u := range m.buffer {
		f.fatalf("a release returned nil while the model has task %d waiting", u.id)
	}
}

// racedRelease is ReleaseTimeout raced by the call fzPartners[arg%8] makes
// while the release waits. The model decides the outcome beforehand, on a
// copy of itself: nil if the pool drains without another call, within
// fzBound; else ErrTimeout, within 20 ms; a nil is checked at once
// (checkNilRelease). The pool is settled before the call, so that the
// workers the release stops have exited, as in the model, when it comes.
func (f *fz) racedRelease(arg byte) {
	f.t.Helper()
	m := &f.m
	partner := fzPartners[arg%8](arg)
	fut := m.clone()
	wasOpen := fut.release()
	fut.drain()
	fut.noteArmed()
	_ = partner.model(fut)
	fut.drain()
	fut.noteArmed()
	var want error
	d := fzBound
	switch {
	case !wasOpen:
		want, d = ants.ErrPoolClosed, time.Millisecond
	case !fut.drained():
		want, d = ants.ErrTimeout, 20*time.Millisecond
	}
	f.logf("ReleaseTimeout(%v) raced by %s: want %v", d, partner.name, want)

	m.release()
	m.drain()
	m.noteArmed()
	res := f.releaseNow(func() error { return f.p.ReleaseTimeout(d) })
	var out fzReleased
	if wasOpen {
		deadline := time.Now().Add(fzBound)
		for len(res) == 0 && !f.p.poolAPI.(interface{ ReleaseWaiting() bool }).ReleaseWaiting() {
			if time.Now().After(deadline) {
				f.hang("ReleaseTimeout neither returned nor waits")
			}
			runtime.Gosched()
		}
	} else {
		out = f.awaitReleased(res) // at once, before the call can reopen the pool
	}
	f.settle()
	wantPartner := partner.model(m)
	if err := f.await(partner.name, fzGo(func() error { return partner.pool(f) })); err != wantPartner {
		f.fatalf("%s = %v, want %v", partner.name, err, wantPartner)
	}
	if wasOpen {
		out = f.awaitReleased(res)
	}
	if out.err != want {
		f.fatalf("ReleaseTimeout(%v) raced by %s = %v, want %v", d, partner.name, out.err, want)
	}
	if out.err == nil {
		f.checkNilRelease(out)
	}
}

// clone returns a copy of m that can change without changing m: its slices
// and the calls in them are copied.
func (m *fzModel) clone() *fzModel {
	c := *m
	calls := func(us []*fzCall) []*fzCall {
		out := make([]*fzCall, len(us))
		for i, u := range us {
			cu := *u
			out[i] = &cu
		}
		return out
	}
	c.buffer, c.waiters, c.expecting, c.pending = calls(m.buffer), calls(m.waiters), calls(m.expecting), calls(m.pending)
	c.idle = append([]int64(nil), m.idle...)
	return &c
}

// pace is Pause with a done context, so that it returns at once (nil, or
// context.Canceled while a task runs), or Resume.
func (f *fz) pace(pause bool) {
	f.t.Helper()
	m := &f.m
	pc := f.p.poolAPI.(pacer)
	if !pause {
		f.logf("Resume()")
		f.do("Resume", pc.Resume)
		m.resume()
		return
	}
	want := m.pause()
	f.logf("Pause(a done context): want %v", want)
	if err := f.await("Pause", fzGo(func() error { return pc.Pause(cancelledContext()) })); err != want {
		f.fatalf("Pause(a done context) = %v, want %v", err, want)
	}
}

type fzCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
	level  int
}

// submitAt submits a task of kind k with Submit if arg is 0, else with
// SubmitContext at level fzLevels[arg%16].
func (f *fz) submitAt(k fzTask, arg byte) {
	f.t.Helper()
	if arg == 0 {
		f.submit("Submit", k, false, nil)
		return
	}
	ctx, cancel, lv := fzLevelContext(int(arg), false)
	f.submit("SubmitContext", k, false, &fzCtx{ctx, cancel, lv})
}

// submit makes one submit call of a task of kind k and checks its result,
// or, if the model says the caller must wait, leaves it waiting.
func (f *fz) submit(name string, k fzTask, try bool, c *fzCtx) {
	f.t.Helper()
	m := &f.m
	id := f.newID(k)
	out := m.outcome(try)
	u := &fzCall{id: id, kind: k, at: m.now}
	what := fmt.Sprintf("task %d, %v", id, k)
	if c != nil {
		u.level = c.level
		what += fmt.Sprintf(", level %d", c.level)
	}
	var call func() error
	switch {
	case try:
		call = func() error { return f.p.trySubmit(f.task(id)) }
	case c != nil:
		call = func() error { return f.p.submitContext(c.ctx, f.task(id)) }
	default:
		call = func() error { return f.p.submit(f.task(id)) }
	}
	if c != nil && c.ctx.Err() != nil {
		f.logf("%s(%s) with a cancelled context", name, what)
	} else {
		f.logf("%s(%s): model says %v", name, what, out)
	}
	res := fzGo(call)

	var want error
	switch {
	case c != nil && c.ctx.Err() != nil:
		want = context.Canceled // checked before anything else
	case out == fzWait:
		u.res = res
		if c != nil {
			u.cancel = c.cancel
		}
		m.waiters = append(m.waiters, u)
		return
	case out == fzClosed:
		want = ants.ErrPoolClosed
	case out == fzOverload:
		want = ants.ErrPoolOverload
	default:
		m.accept(u)
	}
	if c != nil {
		defer c.cancel()
	}
	err := f.await(name, res)
	f.mark(id, err)
	if err != want {
		f.fatalf("%s(task %d) = %v, want %v", name, id, err, want)
	}
	if err != nil {
		m.rejected++
	}
}

// cancelWaiter cancels the context of a waiting SubmitContext caller.
func (f *fz) cancelWaiter(arg int) {
	f.t.Helper()
	m := &f.m
	var cancellable []int
	for i, w := range m.waiters {
		if w.cancel != nil {
			cancellable = append(cancellable, i)
		}
	}
	if len(cancellable) == 0 {
		f.logf("cancel skipped: no cancellable waiter")
		return
	}
	i := cancellable[arg%len(cancellable)]
	w := m.waiters[i]
	f.logf("cancel the context of waiter task %d", w.id)
	w.cancel()
	err := f.await("a cancelled SubmitContext", w.res)
	w.done, w.got = true, err
	f.mark(w.id, err)
	if err != context.Canceled {
		f.fatalf("cancelled SubmitContext(task %d) = %v, want context.Canceled", w.id, err)
	}
	m.rejected++
	m.waiters = fzRemove(m.waiters, i)
}

func (f *fz) releaseTimeout() {
	f.t.Helper()
	m := &f.m
	closed := !m.release()
	m.drain() // the buffered tasks that the Release of a paused pool starts
	var want error
	d := fzBound
	switch {
	case closed:
		want, d = ants.ErrPoolClosed, time.Millisecond
	case m.busyGated > 0 || m.nWaitingUnits() > 0 || m.armed:
		// Gated tasks run, or tasks wait for a token that never comes.
		want, d = ants.ErrTimeout, time.Millisecond
	}
	f.logf("ReleaseTimeout(%v): want %v", d, want)
	out := f.awaitReleased(f.releaseNow(func() error { return f.p.ReleaseTimeout(d) }))
	if out.err != want {
		f.fatalf("ReleaseTimeout(%v) = %v, want %v", d, out.err, want)
	}
	if out.err == nil {
		f.checkNilRelease(out)
	}
}

// settle waits until the pool matches the model, failing the input if it
// does not within fzBound, then checks the invariants that hold at rest.
func (f *fz) settle() {
	f.t.Helper()
	deadline := time.Now().Add(fzBound)
	for {
		diff := f.mismatch()
		if diff == "" {
			break
		}
		if time.Now().After(deadline) {
			f.hang("the pool did not reach the model's state: %s", diff)
		}
		runtime.Gosched()
	}
	m := &f.m
	// Workers that panics ended instead of idle ones: drop them from the
	// model (they all went idle at the same tick, so which does not matter);
	// or idle workers the pool has where the model ended one with a panic
	// instead: add them, idle since the same tick.
	switch d := f.gone(f.p.Stats()); {
	case d > 0:
		m.running -= d
		m.idle = m.idle[:len(m.idle)-d]
	case d < 0:
		m.running -= d
		for ; d < 0; d++ {
			m.idle = append(m.idle, m.lastTick)
		}
	}
	m.slack = 0
	// The waiters whose result was due have it.
	for _, w := range m.expecting {
		f.mark(w.id, w.got)
	}
	m.expecting = nil

	// Invariants that do not depend on the model.
	if err := f.p.checkInvariants(); err != nil {
		f.fatalf("engine invariant: %v", err)
	}
	s := f.p.Stats()
	if c := f.p.Cap(); c >= 0 && s.Running > c && s.Idle > 0 {
		f.fatalf("Running %d > Cap %d with %d idle workers: a shrink left idle workers", s.Running, c, s.Idle)
	}
	wantFree := -1
	if s.Cap >= 0 {
		wantFree = s.Cap - s.Running
	}
	if free := f.p.Free(); free != wantFree {
		f.fatalf("Free() = %d, want Cap - Running = %d", free, wantFree)
	}
	if s.Submitted != s.Completed+s.Panicked+uint64(m.busyGated)+uint64(len(m.buffer)) {
		f.fatalf("Submitted %d != finished %d + running %d + queued %d", s.Submitted, s.Completed+s.Panicked, m.busyGated, len(m.buffer))
	}
}

// gone returns how many of the model's idle workers the pool does not have
// because a panic ended them instead, or minus how many more idle workers it
// has because a panic ended a worker the model kept (see fzModel.slack), or
// 0 if the pool's state cannot be explained that way.
func (f *fz) gone(s ants.Stats) int {
	m := &f.m
	d := m.running - s.Running
	if d > m.slack || -d > m.slack || d > len(m.idle) {
		return 0
	}
	return d
}

// mismatch returns how the pool differs from the model, or "".
func (f *fz) mismatch() string {
	m := &f.m
	var diffs []string
	check := func(what string, got, want any) {
		if got != want {
			diffs = append(diffs, fmt.Sprintf("%s = %v, want %v", what, got, want))
		}
	}
	s := f.p.Stats()
	gone := f.gone(s)
	wantCap := m.cap
	check("Cap()", f.p.Cap(), wantCap)
	check("IsClosed()", f.p.IsClosed(), m.closed)
	check("Paused", s.Paused, m.paused)
	check("Paused()", f.p.poolAPI.(pacer).Paused(), m.paused)
	check("Running", s.Running, m.running-gone)
	check("Running()", f.p.Running(), m.running-gone)
	check("Idle", s.Idle, len(m.idle)-gone)
	check("Waiting", s.Waiting, m.nWaiting())
	check("Waiting()", f.p.Waiting(), m.nWaiting())
	check("Queued", s.Queued, len(m.buffer))
	check("Submitted", s.Submitted, m.submitted)
	check("Completed", s.Completed, m.completed)
	check("Panicked", s.Panicked, m.panicked)
	check("Rejected", s.Rejected, m.rejected)

	pr := f.p.probe()
	purging := 0
	if m.purging {
		purging = 1
	}
	armed := 0
	if m.armed {
		armed = 1
	}
	check("live goroutines and pace timer", pr.Live, m.running-gone+purging+armed)
	check("timers set", f.clock.Timers(), armed)
	check("purge goroutine running", pr.Purging, m.purging)
	if m.started {
		if !f.baseKnown && pr.LastTick != 0 {
			f.base, f.baseKnown = pr.LastTick-m.lastTick, true
		}
		check("last tick", time.Duration(pr.LastTick-f.base), time.Duration(m.lastTick))
	}

	for _, w := range m.expecting {
		if !w.poll() {
			diffs = append(diffs, fmt.Sprintf("waiter task %d has not returned (want %v)", w.id, w.want))
		} else if w.got != w.want {
			f.fatalf("waiter task %d returned %v, want %v", w.id, w.got, w.want)
		}
	}
	for _, w := range m.waiters {
		if w.poll() {
			f.fatalf("waiter task %d (level %d) returned %v while the model has it waiting behind %v",
				w.id, w.level, w.got, f.ahead(w))
		}
	}
	// Which tasks have started: a task the model has waiting that ran was
	// taken out of order.
	for id := 0; id < f.nextID; id++ {
		switch got := f.runs[id].Load(); {
		case got > 0 && !m.taken[id]:
			u := f.waitingUnit(id)
			if u == nil {
				f.fatalf("task %d ran, but the model has it neither started nor waiting", id)
			}
			f.fatalf("task %d (level %d) ran while the model has it waiting behind %v, and gave the slot to %v",
				id, u.level, f.ahead(u), f.notStarted())
		case got == 0 && m.taken[id]:
			diffs = append(diffs, fmt.Sprintf("task %d has not started", id))
		}
	}
	return strings.Join(diffs, "; ")
}

// waitingUnit returns the waiting unit, buffered or blocked, of task id, or
// nil.
func (f *fz) waitingUnit(id int) *fzCall {
	for _, u := range append(append([]*fzCall(nil), f.m.buffer...), f.m.waiters...) {
		if u.id == id {
			return u
		}
	}
	return nil
}

// notStarted returns the tasks the model has handed to a worker that have
// not started.
func (f *fz) notStarted() []int {
	var ids []int
	for id := 0; id < f.nextID; id++ {
		if f.m.taken[id] && f.runs[id].Load() == 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// ahead describes the units that go before u by the model's order: those
// that wait with it and would get a slot first, then how many are running.
func (f *fz) ahead(u *fzCall) string {
	m := &f.m
	var before []*fzCall
	for _, o := range append(append([]*fzCall(nil), m.buffer...), m.waiters...) {
		if o != u && fzBest([]*fzCall{o, u}, m.now, m.aging) == 0 {
			before = append(before, o)
		}
	}
	return fmt.Sprintf("%s (effective level %d at %v; %d busy)", fzUnits(before),
		fzEffective(u, m.now, m.aging), time.Duration(m.now), m.busyGated)
}

// finish drains the pool and checks that tasks ran exactly when accepted
// and that nothing is left running.
func (f *fz) finish() {
	f.t.Helper()
	m := &f.m
	f.logf("finish: Release, unblock everything, remove the rate limit, Reboot, ReleaseTimeout")
	f.do("Release", f.p.Release)
	m.release()
	m.drain()
	m.noteArmed()
	f.settle()
	if m.limited {
		f.rate(0) // the tasks waiting for a token run
		m.drain()
		m.noteArmed()
		f.settle()
	}
	for m.busyGated > 0 {
		select {
		case f.tokens <- struct{}{}:
		case <-time.After(fzBound):
			f.hang("no gated task took a token; the model has %d busy", m.busyGated)
		}
		m.finishGated()
	}
	f.settle()
	f.do("Reboot", f.p.Reboot)
	m.reboot()
	f.settle()
	f.releaseTimeout()
	f.settle()

	if m.running != 0 || m.purging {
		f.fatalf("the model is not empty after the final release")
	}
	for id := 0; id < f.nextID; id++ {
		want := int32(0)
		switch f.result[id] {
		case 1:
			want = 1
		case 0:
			f.fatalf("task %d: its submit never returned", id)
		}
		if got := f.runs[id].Load(); got != want {
			f.fatalf("task %d (accepted: %v) ran %d times", id, want == 1, got)
		}
	}
	s := f.p.Stats()
	if s.Submitted != s.Completed+s.Panicked {
		f.fatalf("after the final release Submitted %d != Completed %d + Panicked %d", s.Submitted, s.Completed, s.Panicked)
	}
	goleak.VerifyNone(f.t, f.ignore)
	if testing.Verbose() {
		f.t.Logf("operations:\n  %s\nfinal model: %v", strings.Join(f.trace, "\n  "), m)
	}
}
