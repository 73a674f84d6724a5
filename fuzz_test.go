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
// operation and its argument (see fz.step): among them Pause, with a done
// context so that it returns at once, and Resume (fzOpPace).
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
	fzBound  = 5 * time.Second
)

// fzTask is what a task does.
type fzTask uint8

const (
	fzInstant fzTask = iota
	fzGated
	fzPanic
)

func (k fzTask) String() string { return [...]string{"instant", "gated", "panicking"}[k] }

// fzCall is a submit call of FuzzPool or FuzzSubpool: its task, and its
// result once it returns. FuzzPool keeps those the model says are blocked.
type fzCall struct {
	id     int
	kind   fzTask
	res    chan error
	cancel context.CancelFunc // nil unless it called SubmitContext
	want   error              // its result, once the model has decided it
	wanted bool               // want is set (FuzzSubpool)
	got    error
	done   bool // got is set
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
// depends only on counts and on the order of the task buffer, so the model
// keeps counts: busy workers (all running a gated task once the pool has
// settled), idle workers with the tick they went idle at, the buffer, the
// waiting callers. The model mirrors the documented rules:
//
//   - a submit goes to an idle worker, else to a new worker below capacity,
//     else to the buffer, else fails (TrySubmit, Nonblocking,
//     MaxBlockingTasks reached) or waits;
//   - a worker that finishes exits if the pool is above capacity, else takes
//     the oldest buffered task (whose place goes to the oldest waiter) or the
//     oldest waiter's task, else exits if the pool is closed, else goes idle
//     (on top of the stack, or at the tail of the PreAlloc ring);
//   - a purge tick reaps the idle workers that went idle before tick -
//     expiry, and ends the purge goroutine if no worker is left.
//
// Waiters are taken in FIFO order, except that a cancelled context wakes
// every waiter and each requeues at the tail whenever it next gets the lock,
// possibly behind callers that arrived after the cancel: from then until no
// caller waits, the model only knows how many waiters were taken, and
// FuzzPool learns which from their results. To keep that sound, only gated
// tasks may wait while the order is unknown (fz.canWait), and a context is
// cancelled only if every other waiter's task is gated.
type fzModel struct {
	cap, queue, maxBlocking        int
	preAlloc, nonblocking, noPurge bool
	closed                         bool
	paused                         bool
	running                        int
	idle                           []int64 // tick each idle worker went idle at, oldest first
	busyGated                      int
	buffer                         []fzTask
	waiters                        []*fzCall // blocked as far as the model knows
	unordered                      bool      // waiters' order is unknown
	anonTaken                      int       // waiters taken while unordered, not yet identified
	expecting                      []*fzCall // waiters whose result is decided but not yet checked
	pending                        []fzTask  // tasks handed to a worker, not yet run by the model
	submitted, completed, panicked uint64
	rejected                       uint64
	// slack is how many fewer workers, or more idle ones, the pool may have
	// than the model: a panic ends its worker, and which worker ran the
	// panicking task (one the model keeps idle afterwards, or a fresh one),
	// and whether the slot it frees goes to a fresh worker or to one the
	// model has go on to the next task, depends on the scheduler. settle
	// resolves it from what the pool shows.
	slack            int
	purging, started bool
	now, lastTick    int64 // relative to the FakeClock's start
}

func (m *fzModel) nWaiting() int { return len(m.waiters) - m.anonTaken }

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
	case !m.paused && (len(m.idle) > 0 || m.cap < 0 || m.running < m.cap),
		m.queue < 0 || len(m.buffer) < m.queue:
		return fzAccept
	case try || m.nonblocking || (m.maxBlocking != 0 && m.nWaiting() >= m.maxBlocking):
		return fzOverload
	default:
		return fzWait
	}
}

// accept places an accepted task as the pool does.
func (m *fzModel) accept(k fzTask) {
	m.submitted++
	switch {
	case m.paused:
		m.buffer = append(m.buffer, k)
	case len(m.idle) > 0:
		m.detachIdle()
		m.pending = append(m.pending, k)
	case m.cap < 0 || m.running < m.cap:
		m.spawn(k)
	default:
		m.buffer = append(m.buffer, k)
	}
}

func (m *fzModel) detachIdle() {
	if m.preAlloc {
		m.idle = m.idle[1:]
	} else {
		m.idle = m.idle[:len(m.idle)-1]
	}
}

func (m *fzModel) spawn(k fzTask) {
	m.running++
	if !m.purging && !m.noPurge && !m.closed {
		m.startPurge()
	}
	m.pending = append(m.pending, k)
}

func (m *fzModel) startPurge() {
	m.purging, m.started = true, true
	m.lastTick = m.now
}

// drain runs the tasks handed to workers: instant ones finish at once and
// their worker looks for the next task; gated ones keep their worker busy.
func (m *fzModel) drain() {
	for len(m.pending) > 0 {
		k := m.pending[0]
		m.pending = m.pending[1:]
		switch k {
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
	if !m.paused {
		if k, ok := m.nextTask(); ok {
			m.pending = append(m.pending, k)
			return
		}
	}
	if m.closed {
		m.running--
		return
	}
	m.idle = append(m.idle, m.lastTick)
}

func (m *fzModel) nextTask() (fzTask, bool) {
	if len(m.buffer) > 0 {
		k := m.buffer[0]
		m.buffer = m.buffer[1:]
		if wk, ok := m.takeWaiter(); ok {
			m.buffer = append(m.buffer, wk)
		}
		return k, true
	}
	return m.takeWaiter()
}

func (m *fzModel) takeWaiter() (fzTask, bool) {
	if m.nWaiting() == 0 {
		return 0, false
	}
	m.submitted++
	if m.unordered {
		m.anonTaken++
		return fzGated, true
	}
	w := m.waiters[0]
	m.waiters = m.waiters[1:]
	w.want = nil
	m.expecting = append(m.expecting, w)
	return w.kind, true
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
// unless the pool is paused. (Work waits only while no slot is free, so no
// worker is idle then: a slot that frees goes to a new worker.)
func (m *fzModel) serve() {
	for !m.paused && (m.cap < 0 || m.running < m.cap) {
		k, ok := m.nextTask()
		if !ok {
			return
		}
		m.spawn(k)
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
	m.waiters, m.unordered = nil, false
	m.resume() // a paused pool is resumed for its buffered tasks
	m.stopIdle(len(m.idle))
	m.purging = false
	return true
}

// pause is Pause with a done context: on an open pool it pauses and
// returns nil if no task runs, else the context's error; on a closed one
// it returns nil and changes nothing.
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

// resume is Resume: the waiting work takes the free slots, in order, each
// on an idle worker while there is one, else on a new worker.
func (m *fzModel) resume() {
	if !m.paused {
		return
	}
	m.paused = false
	for m.cap < 0 || m.running-len(m.idle) < m.cap {
		k, ok := m.nextTask()
		if !ok {
			return
		}
		if len(m.idle) > 0 {
			m.detachIdle()
			m.pending = append(m.pending, k)
		} else {
			m.spawn(k)
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
	return fmt.Sprintf("{cap %d closed %v running %d idle %d busy %d buffer %v waiting %d (unordered %v, %d taken) "+
		"submitted %d completed %d panicked %d rejected %d purging %v lastTick %v}",
		m.cap, m.closed, m.running, len(m.idle), m.busyGated, m.buffer, m.nWaiting(), m.unordered, m.anonTaken,
		m.submitted, m.completed, m.panicked, m.rejected, m.purging, time.Duration(m.lastTick))
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
//	b0 & 0x04: PreAlloc; 0x08: Nonblocking; 0x10: DisablePurge
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
	}
	var err error
	f.p, err = kindsWhere(isSingle)[b0%3].new(size, opts...)
	f.logf("new pool: kind %d size %d preAlloc %v nonblocking %v noPurge %v queue %d maxBlocking %d",
		b0%3, size, m.preAlloc, m.nonblocking, m.noPurge, m.queue, m.maxBlocking)
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

// fzOpPace is where an operation byte chooses Pause (even) or Resume (odd)
// instead: from 0xf0 up, which the seeds do not use as operations, so that
// they keep their meaning.
const fzOpPace = 0xf0

// step applies one operation with its argument.
func (f *fz) step(op, arg byte) {
	f.t.Helper()
	m := &f.m
	if op >= fzOpPace {
		f.pace(op&1 == 0)
		m.drain()
		f.settle()
		return
	}
	switch op % fzOpCount {
	case fzOpSubmitGated:
		f.submit("Submit", fzGated, false, nil)
	case fzOpSubmitInstant:
		f.submit("Submit", fzInstant, false, nil)
	case fzOpSubmitPanic:
		f.submit("Submit", fzPanic, false, nil)
	case fzOpTrySubmit:
		f.submit("TrySubmit", fzTask(arg%3), true, nil)
	case fzOpSubmitContext:
		ctx, cancel := context.WithCancel(context.Background())
		if arg&1 != 0 {
			cancel()
		}
		f.submit("SubmitContext", fzGated, false, &fzCtx{ctx, cancel})
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
		if !m.purging {
			f.logf("advance skipped: no purge goroutine")
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
	f.settle()
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
}

// canWait reports whether a task of kind k may join the waiters: any kind
// while their order is known, only gated tasks otherwise.
func (f *fz) canWait(k fzTask) bool { return k == fzGated || !f.m.unordered }

// submit makes one submit call of a task of kind k and checks its result,
// or, if the model says the caller must wait, leaves it waiting.
func (f *fz) submit(name string, k fzTask, try bool, c *fzCtx) {
	f.t.Helper()
	m := &f.m
	id := f.newID(k)
	out := m.outcome(try)
	if out == fzWait && !f.canWait(k) {
		// Keep the model exact: such a caller must not wait now.
		name, try, out = "TrySubmit", true, fzOverload
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
		f.logf("%s(task %d, %v) with a cancelled context", name, id, k)
	} else {
		f.logf("%s(task %d, %v): model says %v", name, id, k, out)
	}
	res := fzGo(call)

	var want error
	switch {
	case c != nil && c.ctx.Err() != nil:
		want = context.Canceled // checked before anything else
	case out == fzWait:
		w := &fzCall{id: id, kind: k, res: res}
		if c != nil {
			w.cancel = c.cancel
		}
		m.waiters = append(m.waiters, w)
		return
	case out == fzClosed:
		want = ants.ErrPoolClosed
	case out == fzOverload:
		want = ants.ErrPoolOverload
	default:
		m.accept(k)
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
	rest := append(append([]*fzCall(nil), m.waiters[:i]...), m.waiters[i+1:]...)
	for _, o := range rest {
		if o.kind != fzGated {
			f.logf("cancel skipped: would reorder waiters with tasks that are not gated")
			return
		}
	}
	f.logf("cancel the context of waiter task %d", w.id)
	w.cancel()
	err := f.await("a cancelled SubmitContext", w.res)
	w.done, w.got = true, err
	f.mark(w.id, err)
	if err != context.Canceled {
		f.fatalf("cancelled SubmitContext(task %d) = %v, want context.Canceled", w.id, err)
	}
	m.rejected++
	m.waiters = rest
	// The cancel woke every waiter; each requeues at the tail when it gets
	// the lock again, which may be after callers that arrive later.
	m.unordered = len(rest) > 0
}

func (f *fz) releaseTimeout() {
	f.t.Helper()
	m := &f.m
	closed := !m.release()
	m.drain() // the buffered tasks a paused pool's Release starts
	var want error
	d := fzBound
	switch {
	case closed:
		want, d = ants.ErrPoolClosed, time.Millisecond
	case m.busyGated > 0:
		want, d = ants.ErrTimeout, time.Millisecond
	}
	f.logf("ReleaseTimeout(%v): want %v", d, want)
	err := f.await("ReleaseTimeout", fzGo(func() error { return f.p.ReleaseTimeout(d) }))
	if err != want {
		f.fatalf("ReleaseTimeout(%v) = %v, want %v", d, err, want)
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
	// fresh workers that took the slots panics freed, now idle: add them.
	if d := f.gone(f.p.Stats()); d > 0 {
		m.running -= d
		m.idle = m.idle[:len(m.idle)-d]
	} else {
		for ; d < 0; d++ {
			m.running++
			m.idle = append(m.idle, m.lastTick)
		}
	}
	m.slack = 0
	// The waiters whose result was due have it; the anonymous ones taken
	// are identified by their result.
	for _, w := range m.expecting {
		f.mark(w.id, w.got)
	}
	m.expecting = nil
	if m.anonTaken > 0 {
		rest := m.waiters[:0]
		for _, w := range m.waiters {
			if w.done {
				f.mark(w.id, nil)
				continue
			}
			rest = append(rest, w)
		}
		m.waiters, m.anonTaken = rest, 0
	}
	if len(m.waiters) == 0 {
		m.unordered = false
	}

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

// mismatch returns how the pool differs from the model, or "".
// gone returns how many of the model's idle workers the pool does not have
// because a panic ended them instead, or, negative, how many more idle
// workers the pool has because the slot a panic freed went to a fresh
// worker (see fzModel.slack); 0 if the pool's state cannot be explained
// that way.
func (f *fz) gone(s ants.Stats) int {
	m := &f.m
	d := m.running - s.Running
	switch {
	case d > 0 && d <= m.slack && d <= len(m.idle):
		return d
	case d < 0 && -d <= m.slack && s.Idle-len(m.idle) == -d:
		return d
	}
	return 0
}

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
	check("live goroutines", pr.Live, m.running-gone+purging)
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
	returned := 0
	for _, w := range m.waiters {
		if !w.poll() {
			continue
		}
		returned++
		if !m.unordered {
			f.fatalf("waiter task %d returned %v while the model has it waiting", w.id, w.got)
		}
		if w.got != nil {
			f.fatalf("waiter task %d returned %v; only a worker taking its task may end its wait here", w.id, w.got)
		}
	}
	if returned > m.anonTaken {
		f.fatalf("%d waiters returned, but workers took only %d tasks from waiters", returned, m.anonTaken)
	}
	check("waiters taken that returned", returned, m.anonTaken)
	return strings.Join(diffs, "; ")
}

// finish drains the pool and checks that tasks ran exactly when accepted
// and that nothing is left running.
func (f *fz) finish() {
	f.t.Helper()
	m := &f.m
	f.logf("finish: Release, unblock everything, Reboot, ReleaseTimeout")
	f.do("Release", f.p.Release)
	m.release()
	m.drain()
	f.settle()
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
