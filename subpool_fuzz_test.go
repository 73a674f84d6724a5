package ants_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

// FuzzSubpool decodes its input into a sub-pool on a parent and a sequence
// of at most fzMaxOps operations, applies them, and after each one waits
// until the sub-pool has settled and compares it with an exact model
// (fsModel): the result of every call, Running, Waiting, Free, Cap,
// IsClosed, Paused, the Stats counters, and the panics the parent's
// PanicHandler saw. Its operations include Pause (with a done context, so
// that it returns at once: nil, or context.Canceled while a task holds a
// slot) and Resume.
// Then it releases everything and checks that every task whose submit
// returned nil ran exactly once and no other task ran, and that no goroutine
// is left.
//
// Input layout: byte 0 % 3 chooses the parent (a Pool, a MultiPool, or a
// sub-pool on a Pool, all without a limit, so that the parent never makes a
// caller wait and the model stays exact), byte 1 % 5 the sub-pool's size (0:
// no limit), and each following pair of bytes is one operation and its
// argument (see fs.step). Operation bytes from fzOpRate up to fzOpPace are
// SetRateLimit and a ReleaseTimeout that a call races, as in FuzzPool: the
// limits are slow (fzRate), so that no token comes back within an input
// and the model keeps the tokens and the pace timer exactly, and every
// ReleaseTimeout that returns nil is checked at once: every task accepted
// has run, and no timer of the sub-pool is set.
//
// Tasks are instant, panicking, or gated: a gated task holds its slot until
// an "unblock" operation opens its gate. SubmitContext carries a priority
// level (fzLevels), Submit and TrySubmit level 0; a sub-pool gives a freed
// slot to the waiting caller of the highest level, the earliest arrival
// first within a level (a sub-pool's levels do not age). Once instant and
// panicking tasks have finished, the model is exact: every decision depends
// only on the slots held by gated tasks and the waiting callers, in that
// order.
func FuzzSubpool(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		fs := newFs(t, data[0], data[1])
		fzSteps(data[2:], fs.step)
		fs.finish()
	})
}

// fsModel is what the sub-pool should look like once instant and panicking
// tasks have finished. It mirrors subpool.go's rules: a submit takes a slot
// if the sub-pool is open and not paused, nobody waits and held < cap; a
// slot given back goes to the first waiter (fzBest: highest level, then
// earliest arrival) if held <= cap and the sub-pool is not paused, else is
// dropped; a task the parent refuses gives its slot back at once; Resume
// hands the free slots to the waiters, and Release resumes.
type fsModel struct {
	cap          int // -1: no limit
	held         int // slots held, by gated tasks once settled
	closed       bool
	paused       bool
	parentClosed bool
	waiters      []*fzCall // in no particular order
	gated        []int     // ids of the gated tasks running, oldest first

	submitted, completed, panicked, rejected uint64

	// The rate limit: limited, the tokens left (none come back, fzRate) of
	// at most burst, and whether the pace timer is set (it never fires).
	limited       bool
	tokens, burst int
	armed         bool
}

// gateOpen reports whether a caller with a free slot may take it now.
func (m *fsModel) gateOpen() bool { return !m.paused && (!m.limited || m.tokens > 0) }

// spend takes the token of a caller that takes a slot.
func (m *fsModel) spend() {
	if m.limited {
		m.tokens--
	}
}

// slotFree reports whether a caller could take a slot.
func (m *fsModel) slotFree() bool { return m.cap < 0 || m.held < m.cap }

// noteArmed sets the pace timer if callers wait only for a token, as the
// sub-pool does at every call that leaves them waiting; a timer once set
// stays set until SetRateLimit, Pause or Release drops it.
func (m *fsModel) noteArmed() {
	if m.limited && !m.paused && len(m.waiters) > 0 && m.slotFree() {
		m.armed = true
	}
}

// setRate is SetRateLimit: see fzModel.setRate.
func (m *fsModel) setRate(limit bool, burst int) {
	m.limited, m.tokens = fzBucket(m.limited, m.tokens, limit, burst)
	if limit {
		m.burst = burst
	}
	m.armed = false
	m.admit()
}

// take runs the task of a call that has just been given a slot and returns
// the call's result.
func (m *fsModel) take(c *fzCall) error {
	if m.parentClosed {
		m.rejected++
		if m.limited {
			m.tokens = min(m.burst, m.tokens+1) // the token comes back
		}
		m.giveBack()
		return ants.ErrPoolClosed
	}
	m.submitted++
	switch c.kind {
	case fzInstant:
		m.completed++
		m.giveBack()
	case fzPanic:
		m.panicked++
		m.giveBack()
	default:
		m.gated = append(m.gated, c.id)
	}
	return nil
}

// giveBack returns one slot: to the first waiter if the limit allows,
// otherwise to the sub-pool.
func (m *fsModel) giveBack() {
	if len(m.waiters) > 0 && (m.cap < 0 || m.held <= m.cap) && m.gateOpen() {
		m.spend()
		m.grant()
		return
	}
	m.held--
}

// grant hands a slot, already counted in held, to the first waiter.
func (m *fsModel) grant() {
	i := fzBest(m.waiters, 0, 0)
	w := m.waiters[i]
	m.waiters = fzRemove(m.waiters, i)
	w.want, w.wanted = m.take(w), true
}

// submit decides a submit call: its result, or that it waits (false).
func (m *fsModel) submit(c *fzCall, try bool) bool {
	switch {
	case m.closed:
		m.rejected++
		c.want = ants.ErrPoolClosed
	case len(m.waiters) == 0 && m.slotFree() && m.gateOpen():
		m.held++
		m.spend()
		c.want = m.take(c)
	case try:
		m.rejected++
		c.want = ants.ErrPoolOverload
	default:
		m.waiters = append(m.waiters, c)
		return false
	}
	c.wanted = true
	return true
}

func (m *fsModel) tune(size int) {
	if size <= 0 || m.cap < 0 || size == m.cap {
		return
	}
	m.cap = size
	m.admit()
}

// admit hands the free slots to the waiters, oldest first, unless the
// sub-pool is paused.
func (m *fsModel) admit() {
	for m.gateOpen() && m.slotFree() && len(m.waiters) > 0 {
		m.held++
		m.spend()
		m.grant()
	}
}

// pause is Pause with a done context: it returns nil if no task holds a
// slot (or the sub-pool is closed, which it leaves alone), else the
// context's error, and the sub-pool is paused either way.
func (m *fsModel) pause() error {
	if m.closed {
		return nil
	}
	m.paused = true
	m.armed = false
	if m.held > 0 {
		return context.Canceled
	}
	return nil
}

// resume is Resume.
func (m *fsModel) resume() {
	if m.paused {
		m.paused = false
		m.admit()
	}
}

// release closes the sub-pool, reporting whether it was open.
func (m *fsModel) release() bool {
	if m.closed {
		return false
	}
	m.closed = true
	for _, w := range m.waiters {
		m.rejected++
		w.want, w.wanted = ants.ErrPoolClosed, true
	}
	m.waiters = nil
	m.paused = false
	m.armed = false
	return true
}

func (m *fsModel) free() int {
	if m.cap < 0 {
		return -1
	}
	return m.cap - m.held
}

func (m *fsModel) String() string {
	return fmt.Sprintf("cap %d held %d closed %v paused %v parentClosed %v waiting %d gated %v submitted %d completed %d panicked %d rejected %d "+
		"limited %v tokens %d burst %d armed %v",
		m.cap, m.held, m.closed, m.paused, m.parentClosed, len(m.waiters), m.gated, m.submitted, m.completed, m.panicked, m.rejected,
		m.limited, m.tokens, m.burst, m.armed)
}

// fs is one input's run.
type fs struct {
	t       *testing.T
	s       *ants.Subpool
	parents []poolAPI // the parent first, then its own parent, if any
	m       fsModel
	ignore  goleak.Option

	calls    []*fzCall
	gates    [fzMaxIDs]chan struct{}
	runs     [fzMaxIDs]atomic.Int32
	handled  atomic.Int64 // panics the parent's PanicHandler saw
	trace    []string
	released bool
}

func newFs(t *testing.T, b0, b1 byte) *fs {
	f := &fs{t: t, ignore: goleak.IgnoreCurrent()}
	opts := []ants.Option{ants.WithPanicHandler(func(any) { f.handled.Add(1) })}
	// Parents without a limit: a Pool, a MultiPool of two, a sub-pool on a
	// Pool (the parent kinds of kinds_test.go, size 0).
	parents := kindsWhere(isParent)
	parent, err := parents[int(b0)%len(parents)].new(0, opts...)
	if err != nil {
		t.Fatalf("creating the parent: %v", err)
	}
	f.parents = parent.levels()
	size := int(b1 % 5)
	f.s = ants.NewSubpool(parent.submitter(), size)
	f.m.cap = size
	if size == 0 {
		f.m.cap = -1
	}
	f.logf("parent %d, size %d", b0%3, size)
	t.Cleanup(f.cleanup)
	return f
}

func (f *fs) logf(format string, args ...any) {
	f.trace = append(f.trace, fmt.Sprintf(format, args...))
}

func (f *fs) fatalf(format string, args ...any) {
	f.t.Helper()
	f.t.Fatalf(format+"\noperations:\n  %s\nmodel: %v", append(args, strings.Join(f.trace, "\n  "), &f.m)...)
}

// cleanup lets every goroutine of the input finish, whatever happened.
func (f *fs) cleanup() {
	for _, g := range f.gates {
		if g != nil {
			select {
			case <-g:
			default:
				close(g)
			}
		}
	}
	for _, c := range f.calls {
		if c.cancel != nil {
			c.cancel()
		}
	}
	if !f.released {
		f.s.Release()
		f.s.Reboot()
		_ = f.s.ReleaseTimeout(fzBound)
		for _, p := range f.parents {
			p.Reboot()
			_ = p.ReleaseTimeout(fzBound)
		}
	}
}

// task returns the task of call id.
func (f *fs) task(id int, k fzTask) func() {
	switch k {
	case fzGated:
		g := make(chan struct{})
		f.gates[id] = g
		return func() { f.runs[id].Add(1); <-g }
	case fzPanic:
		return func() { f.runs[id].Add(1); panic(fmt.Sprintf("task %d", id)) }
	default:
		return func() { f.runs[id].Add(1) }
	}
}

// Operations, chosen by the first byte of a pair modulo fsOpCount.
const (
	fsOpSubmit = iota
	fsOpSubmitContext
	fsOpTrySubmit
	fsOpSubmitNil
	fsOpUnblock
	fsOpCancel
	fsOpTune
	fsOpRelease
	fsOpReboot
	fsOpReleaseParent
	fsOpRebootParent
	fsOpSubmitDone
	fsOpPause // after the others, so that the seeds keep their meaning
	fsOpResume
	fsOpCount
)

// step applies one operation with its argument and waits until the
// sub-pool agrees with the model.
func (f *fs) step(op, arg byte) {
	f.t.Helper()
	m := &f.m
	if op >= fzOpRate && op < fzOpPace {
		if op < fzOpRate+8 {
			f.rate(arg)
		} else {
			f.racedRelease(arg)
		}
		m.noteArmed()
		f.settle()
		return
	}
	switch op % fsOpCount {
	case fsOpSubmit, fsOpSubmitContext, fsOpTrySubmit:
		f.submit(op%fsOpCount, fzTask(arg%3), int(arg/3))
	case fsOpSubmitNil:
		want := ants.ErrNilTask
		if m.closed {
			want = ants.ErrPoolClosed
		}
		m.rejected++
		var err error
		switch arg % 3 {
		case 0:
			err = f.s.Submit(nil)
		case 1:
			err = f.s.SubmitContext(context.Background(), nil)
		default:
			err = f.s.TrySubmit(nil)
		}
		f.logf("submit nil -> %v", err)
		if err != want {
			f.fatalf("submit(nil) = %v, want %v", err, want)
		}
	case fsOpUnblock:
		if len(m.gated) == 0 {
			return
		}
		i := int(arg) % len(m.gated)
		id := m.gated[i]
		m.gated = append(m.gated[:i:i], m.gated[i+1:]...)
		f.logf("unblock task %d", id)
		close(f.gates[id])
		m.completed++
		m.giveBack()
	case fsOpCancel:
		var cancellable []*fzCall
		for _, w := range m.waiters {
			if w.cancel != nil {
				cancellable = append(cancellable, w)
			}
		}
		if len(cancellable) == 0 {
			return
		}
		c := cancellable[int(arg)%len(cancellable)]
		for i, w := range m.waiters {
			if w == c {
				m.waiters = append(m.waiters[:i:i], m.waiters[i+1:]...)
				break
			}
		}
		f.logf("cancel the waiting task %d", c.id)
		c.cancel()
		m.rejected++
		c.want, c.wanted = context.Canceled, true
	case fsOpTune:
		size := int(arg%6) - 1
		f.logf("Tune(%d)", size)
		f.s.Tune(size)
		m.tune(size)
	case fsOpRelease:
		f.release(arg % 3)
	case fsOpReboot:
		f.logf("Reboot")
		f.s.Reboot()
		m.closed = false
	case fsOpReleaseParent:
		f.logf("release the parent")
		var nilCtx context.Context
		_ = f.parents[0].ReleaseContext(nilCtx)
		m.parentClosed = true
	case fsOpRebootParent:
		f.logf("reboot the parent")
		f.parents[0].Reboot()
		m.parentClosed = false
	case fsOpPause:
		want := m.pause()
		err := f.s.Pause(cancelledContext())
		f.logf("Pause(a done context) -> %v", err)
		if err != want {
			f.fatalf("Pause(a done context) = %v, want %v", err, want)
		}
	case fsOpResume:
		f.logf("Resume")
		f.s.Resume()
		m.resume()
	case fsOpSubmitDone:
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		err := f.s.SubmitContext(ctx, func() { f.t.Error("a task submitted with a done context ran") })
		f.logf("SubmitContext with a done context -> %v", err)
		m.rejected++
		if err != context.Canceled {
			f.fatalf("SubmitContext with a done context = %v, want context.Canceled", err)
		}
	}
	m.noteArmed()
	f.settle()
}

// rate is SetRateLimit with the limit fzRates[arg%8].
func (f *fs) rate(arg byte) {
	f.t.Helper()
	r := fzRates[arg%8]
	err := f.s.SetRateLimit(r.perSecond, r.burst)
	f.logf("SetRateLimit(%v, %d) -> %v", r.perSecond, r.burst, err)
	if err != nil {
		f.fatalf("SetRateLimit(%v, %d) = %v", r.perSecond, r.burst, err)
	}
	f.m.setRate(fzLimits(r.perSecond), r.burst)
}

// fsPartners are the calls a raced release of the sub-pool meets, by
// argument, as fzPartners for FuzzPool: what each does to the sub-pool
// and to the model, and the error it returns.
var fsPartners = [8]func(arg byte) (string, func(s *ants.Subpool) error, func(m *fsModel) error){
	func(byte) (string, func(*ants.Subpool) error, func(*fsModel) error) {
		return "Stats", func(s *ants.Subpool) error { _ = s.Stats(); return nil }, func(*fsModel) error { return nil }
	},
	func(byte) (string, func(*ants.Subpool) error, func(*fsModel) error) {
		return "SetRateLimit(0, 0)", func(s *ants.Subpool) error { return s.SetRateLimit(0, 0) },
			func(m *fsModel) error { m.setRate(false, 0); return nil }
	},
	func(arg byte) (string, func(*ants.Subpool) error, func(*fsModel) error) {
		r := fzRates[2+(arg>>3)%6]
		return fmt.Sprintf("SetRateLimit(%v, %d)", r.perSecond, r.burst),
			func(s *ants.Subpool) error { return s.SetRateLimit(r.perSecond, r.burst) },
			func(m *fsModel) error { m.setRate(true, r.burst); return nil }
	},
	func(arg byte) (string, func(*ants.Subpool) error, func(*fsModel) error) {
		n := 1 + int(arg>>3)%4
		return fmt.Sprintf("Tune(%d)", n), func(s *ants.Subpool) error { s.Tune(n); return nil },
			func(m *fsModel) error { m.tune(n); return nil }
	},
	func(byte) (string, func(*ants.Subpool) error, func(*fsModel) error) {
		return "Resume()", func(s *ants.Subpool) error { s.Resume(); return nil },
			func(m *fsModel) error { m.resume(); return nil }
	},
	func(byte) (string, func(*ants.Subpool) error, func(*fsModel) error) {
		return "Pause(a done context)", func(s *ants.Subpool) error { return s.Pause(cancelledContext()) },
			func(m *fsModel) error { return m.pause() }
	},
	func(byte) (string, func(*ants.Subpool) error, func(*fsModel) error) {
		return "Reboot()", func(s *ants.Subpool) error { s.Reboot(); return nil },
			func(m *fsModel) error { m.closed = false; return nil }
	},
	func(byte) (string, func(*ants.Subpool) error, func(*fsModel) error) {
		return "Release()", func(s *ants.Subpool) error { s.Release(); return nil },
			func(m *fsModel) error { m.release(); return nil }
	},
}

// releaseNow makes a release of the sub-pool on a new goroutine and
// returns its outcome's channel.
func (f *fs) releaseNow(release func() error) chan fzReleased {
	return releaseAsync(release, &f.runs, f.s.PaceTimers)
}

// awaitReleased returns the outcome of a release, which must come within
// 2 fzBound.
func (f *fs) awaitReleased(res chan fzReleased) fzReleased {
	f.t.Helper()
	return awaitRelease(res, f.fatalf)
}

// checkNilRelease checks what a release that returned nil found: every
// task the sub-pool accepted had run, once, and no timer of it was set.
func (f *fs) checkNilRelease(out fzReleased) {
	f.t.Helper()
	if out.timers != 0 {
		f.fatalf("a release returned nil with %d timers of the sub-pool set", out.timers)
	}
	for _, c := range f.calls {
		if c.wanted && c.want == nil && out.runs[c.id] != 1 {
			f.fatalf("a release returned nil when accepted task %d had run %d times", c.id, out.runs[c.id])
		}
	}
}

// racedRelease is ReleaseTimeout raced by the call fsPartners[arg%8]
// makes while the release waits: nil, within fzBound, if no gated task
// holds a slot once the call is made, else ErrTimeout within 20 ms
// (instant and panicking tasks are over at rest); a nil is checked at once
// (checkNilRelease).
func (f *fs) racedRelease(arg byte) {
	f.t.Helper()
	m := &f.m
	name, call, model := fsPartners[arg%8](arg)
	wasOpen := m.release()
	var want error
	d := fzBound
	switch {
	case !wasOpen:
		want, d = ants.ErrPoolClosed, time.Millisecond
	case len(m.gated) > 0:
		want, d = ants.ErrTimeout, 20*time.Millisecond
	}
	f.logf("ReleaseTimeout(%v) raced by %s: want %v", d, name, want)
	res := f.releaseNow(func() error { return f.s.ReleaseTimeout(d) })
	var out fzReleased
	if wasOpen {
		deadline := time.Now().Add(fzBound)
		for len(res) == 0 && !f.s.ReleaseWaiting() {
			if time.Now().After(deadline) {
				f.fatalf("ReleaseTimeout neither returned nor waits")
			}
			runtime.Gosched()
		}
	} else {
		out = f.awaitReleased(res) // at once, before the call can reopen the sub-pool
	}
	f.settle()
	wantCall := model(m)
	if err := call(f.s); err != wantCall {
		f.fatalf("%s = %v, want %v", name, err, wantCall)
	}
	if wasOpen {
		out = f.awaitReleased(res)
	}
	if out.err != want {
		f.fatalf("ReleaseTimeout(%v) raced by %s = %v, want %v", d, name, out.err, want)
	}
	if out.err == nil {
		f.checkNilRelease(out)
	}
}

// submit starts a submit call of a new task of kind k on its own goroutine;
// SubmitContext's is at level fzLevels[lv%16].
func (f *fs) submit(op byte, k fzTask, lv int) {
	id := len(f.calls)
	c := &fzCall{id: id, kind: k, res: make(chan error, 1)}
	f.calls = append(f.calls, c)
	task := f.task(id, k)
	var call func() error
	name := [...]string{"Submit", "SubmitContext", "TrySubmit"}[op]
	switch op {
	case fsOpSubmit:
		call = func() error { return f.s.Submit(task) }
	case fsOpSubmitContext:
		var ctx context.Context
		ctx, c.cancel, c.level = fzLevelContext(lv, false)
		name = fmt.Sprintf("SubmitContext[level %d]", c.level)
		call = func() error { return f.s.SubmitContext(ctx, task) }
	default:
		call = func() error { return f.s.TrySubmit(task) }
	}
	go func() { c.res <- call() }()
	if f.m.submit(c, op == fsOpTrySubmit) {
		f.logf("%s(%v task %d) -> want %v", name, k, id, c.want)
	} else {
		f.logf("%s(%v task %d) waits", name, k, id)
	}
}

// release is Release, ReleaseContext(nil) or ReleaseTimeout, by variant.
func (f *fs) release(variant byte) {
	m := &f.m
	wasOpen := m.release()
	switch variant {
	case 0:
		f.logf("Release")
		f.s.Release()
	case 1:
		var nilCtx context.Context
		err := f.s.ReleaseContext(nilCtx)
		f.logf("ReleaseContext(nil) -> %v", err)
		if want := map[bool]error{true: nil, false: ants.ErrPoolClosed}[wasOpen]; err != want {
			f.fatalf("ReleaseContext(nil) = %v, want %v", err, want)
		}
	default:
		// Once instant tasks are done, only gated ones hold slots, so the
		// wait ends at once or never.
		var want error
		switch {
		case !wasOpen:
			want = ants.ErrPoolClosed
		case len(m.gated) > 0:
			want = ants.ErrTimeout
		}
		out := f.awaitReleased(f.releaseNow(func() error { return f.s.ReleaseTimeout(time.Millisecond) }))
		f.logf("ReleaseTimeout(1ms) -> %v", out.err)
		if out.err != want {
			f.fatalf("ReleaseTimeout(1ms) = %v, want %v", out.err, want)
		}
		if out.err == nil {
			f.checkNilRelease(out)
		}
	}
}

// settle waits until the sub-pool agrees with the model, failing the input
// if it does not within fzBound, or at once if a call the model says waits
// has returned.
func (f *fs) settle() {
	f.t.Helper()
	deadline := time.Now().Add(fzBound)
	for {
		diff := f.mismatch()
		if diff == "" {
			return
		}
		if time.Now().After(deadline) {
			f.fatalf("the sub-pool does not match the model after %v: %s", fzBound, diff)
		}
		runtime.Gosched()
	}
}

// mismatch describes how the sub-pool differs from the model, or returns "".
func (f *fs) mismatch() string {
	m := &f.m
	for _, c := range f.calls {
		switch {
		case c.wanted && !c.poll():
			return fmt.Sprintf("task %d: its submit has not returned (want %v)", c.id, c.want)
		case c.wanted && c.got != c.want:
			f.fatalf("task %d: submit returned %v, want %v", c.id, c.got, c.want)
		case !c.wanted && c.poll():
			f.fatalf("task %d: submit returned %v, but the model says it waits", c.id, c.got)
		}
	}
	want := ants.Stats{
		Cap:       m.cap,
		Running:   len(m.gated),
		Waiting:   len(m.waiters),
		Paused:    m.paused,
		Submitted: m.submitted,
		Completed: m.completed,
		Panicked:  m.panicked,
		Rejected:  m.rejected,
	}
	var diffs []string
	if got := f.s.Stats(); got != want {
		diffs = append(diffs, fmt.Sprintf("Stats() = %+v, want %+v", got, want))
	}
	check := func(what string, got, want any) {
		if got != want {
			diffs = append(diffs, fmt.Sprintf("%s = %v, want %v", what, got, want))
		}
	}
	check("Free()", f.s.Free(), m.free())
	check("Cap()", f.s.Cap(), m.cap)
	check("Running()", f.s.Running(), len(m.gated))
	check("Waiting()", f.s.Waiting(), len(m.waiters))
	check("IsClosed()", f.s.IsClosed(), m.closed)
	check("Paused()", f.s.Paused(), m.paused)
	check("panics the PanicHandler saw", uint64(f.handled.Load()), m.panicked)
	armed := 0
	if m.armed {
		armed = 1
	}
	check("PaceTimers()", f.s.PaceTimers(), armed)
	return strings.Join(diffs, "; ")
}

// finish releases everything and checks that tasks ran exactly when
// accepted and that nothing is left running.
func (f *fs) finish() {
	f.t.Helper()
	m := &f.m
	f.logf("finish: Release, unblock everything, Reboot, ReleaseTimeout")
	f.release(0)
	f.settle()
	for len(m.gated) > 0 {
		f.step(fsOpUnblock, 0)
	}
	f.step(fsOpReboot, 0)
	f.step(fsOpRebootParent, 0)
	f.released = true
	if err := f.s.ReleaseTimeout(fzBound); err != nil {
		f.fatalf("the final ReleaseTimeout: %v", err)
	}
	for _, p := range f.parents {
		if err := p.ReleaseTimeout(fzBound); err != nil {
			f.fatalf("releasing the parent: %v", err)
		}
	}
	for _, c := range f.calls {
		want := int32(0)
		if c.want == nil {
			want = 1
		}
		if got := f.runs[c.id].Load(); got != want {
			f.fatalf("task %d (submit returned %v) ran %d times", c.id, c.got, got)
		}
	}
	if s := f.s.Stats(); s.Submitted != s.Completed+s.Panicked || s.Running != 0 {
		f.fatalf("after the final release: %+v", s)
	}
	goleak.VerifyNone(f.t, f.ignore)
	if testing.Verbose() {
		f.t.Logf("operations:\n  %s\nfinal model: %v", strings.Join(f.trace, "\n  "), m)
	}
}
