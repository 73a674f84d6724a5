package ants_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

// A release keeps its word whatever races it: when ReleaseTimeout or
// ReleaseContext returns nil, every task the pool accepted has run exactly
// once and nothing of the pool is left, no goroutine and no timer; when it
// returns an error, every accepted task still runs exactly once later. The
// table below makes every call that changes a pool race a release that
// waits, on every pool kind, WorkerPool and Subpool, in each state where
// work waits: buffered, with callers blocked, paused, and waiting for a
// token of the rate limit.

// drainLedger records the tasks a pool accepted and how often each ran.
type drainLedger struct {
	mu       sync.Mutex
	next     int
	accepted map[int]bool
	ran      map[int]int
	started  chan struct{} // a send as each task starts
}

func newDrainLedger() *drainLedger {
	return &drainLedger{accepted: map[int]bool{}, ran: map[int]int{}, started: make(chan struct{}, 100)}
}

// submit submits a new task with submit, recording it as accepted if submit
// returns nil. The task reports its start, waits for g and records its run.
func (l *drainLedger) submit(submit func(func()) error, g *gate) error {
	l.mu.Lock()
	id := l.next
	l.next++
	l.mu.Unlock()
	err := submit(func() {
		l.started <- struct{}{}
		<-g.ch
		l.mu.Lock()
		l.ran[id]++
		l.mu.Unlock()
	})
	if err == nil {
		l.mu.Lock()
		l.accepted[id] = true
		l.mu.Unlock()
	}
	return err
}

// missing returns what is wrong with the runs so far: an accepted task
// that has not run, a task run twice, or, if final (every submit has
// returned), a task run that was not accepted; "" if nothing is.
func (l *drainLedger) missing(final bool) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id := range l.accepted {
		if l.ran[id] != 1 {
			return fmt.Sprintf("accepted task %d ran %d times", id, l.ran[id])
		}
	}
	for id, n := range l.ran {
		if n != 1 || (final && !l.accepted[id]) {
			return fmt.Sprintf("task %d (accepted %v) ran %d times", id, l.accepted[id], n)
		}
	}
	return ""
}

// drainSubject is a pool of the table, with what the table reads of it.
type drainSubject struct {
	*testPool
	pacer
	clk *ants.FakeClock
	sub *ants.Subpool // the pool itself if it is a sub-pool
}

// releaseWaiting reports whether a release waits for the pool to drain.
func (s *drainSubject) releaseWaiting() bool {
	return s.poolAPI.(interface{ ReleaseWaiting() bool }).ReleaseWaiting()
}

// timers returns the pool's timers that are set or firing: the fake
// clock's, or a sub-pool's own.
func (s *drainSubject) timers() int {
	if s.sub != nil {
		return s.sub.PaceTimers()
	}
	return s.clk.Timers()
}

// workersGone reports whether no worker goroutine of the pool is left; a
// sub-pool has none.
func (s *drainSubject) workersGone() bool {
	if l, ok := s.poolAPI.(interface{ LiveWorkers() int }); ok {
		return l.LiveWorkers() == 0
	}
	return true
}

// drainSize is the size of the pools of the table (of each member pool of
// a multi-pool), and drainQueue their task buffer.
const (
	drainSize  = 2
	drainQueue = 4
)

// drainKind makes the pools of one kind for the table.
type drainKind struct {
	name string
	new  func(t *testing.T, clk *ants.FakeClock, opts ...ants.Option) *drainSubject
}

// drainKinds are every pool kind of the table of kinds and WorkerPool.
func drainKinds() []drainKind {
	var kinds []drainKind
	for _, k := range poolKinds {
		kinds = append(kinds, drainKind{k.name, func(t *testing.T, clk *ants.FakeClock, opts ...ants.Option) *drainSubject {
			p := k.mustNew(t, drainSize, opts...)
			s := &drainSubject{testPool: p, pacer: pacerOf(p), clk: clk}
			s.sub, _ = p.poolAPI.(*ants.Subpool)
			return s
		}})
	}
	kinds = append(kinds, drainKind{"WorkerPool", func(t *testing.T, clk *ants.FakeClock, opts ...ants.Option) *drainSubject {
		p, err := ants.NewWorkerPool(drainSize, func(int) ants.Worker[func(), struct{}] { return funcWorker{} }, opts...)
		require.NoError(t, err)
		tp := &testPool{poolAPI: p, members: 1, submit: func(task func()) error {
			f := p.Go(context.Background(), task)
			select {
			case <-f.Done(): // refused, or accepted and run already
				_, err := f.Wait()
				return err
			default:
				return nil
			}
		}}
		releaseAtEnd(t, tp)
		return &drainSubject{testPool: tp, pacer: p, clk: clk}
	}})
	return kinds
}

// funcWorker is a WorkerPool's Worker that runs the func it is given.
type funcWorker struct{}

func (funcWorker) Process(_ context.Context, task func()) (struct{}, error) {
	task()
	return struct{}{}, nil
}

func (funcWorker) Close() {}

// drainState is a state of the pool in which a release starts waiting.
type drainState struct {
	name string
	// token is set for the state in which tasks wait for a token: the
	// tasks that had one are let finish before the call, so that the
	// release waits for nothing but tokens.
	token bool
	// setUp brings s there: the tasks it submits wait for g.
	setUp func(t *testing.T, s *drainSubject, l *drainLedger, g *gate) (results []<-chan error)
}

// submitOneByOne submits n tasks of l, one after another: each returns (it
// was accepted, or refused) or blocks, and the next is submitted only once
// it has done either. It returns their results.
func submitOneByOne(t *testing.T, s *drainSubject, l *drainLedger, g *gate, n int) []<-chan error {
	t.Helper()
	var results []<-chan error
	for range n {
		want := s.Waiting() + 1
		errc := async(func() error { return l.submit(s.submit, g) })
		waitUntil(t, "a submit to return or block", func() bool { return len(errc) > 0 || s.Waiting() == want })
		results = append(results, errc)
	}
	return results
}

// occupyLedger fills every slot of s with tasks of l held by g.
func occupyLedger(t *testing.T, s *drainSubject, l *drainLedger, g *gate) {
	t.Helper()
	for range s.Cap() {
		require.NoError(t, l.submit(s.submit, g))
	}
	for range s.Cap() {
		recv(t, l.started, "a held task to start")
	}
}

var drainStates = []drainState{
	{name: "buffered", setUp: func(t *testing.T, s *drainSubject, l *drainLedger, g *gate) []<-chan error {
		occupyLedger(t, s, l, g)
		return submitOneByOne(t, s, l, g, 2*s.members)
	}},
	{name: "callers blocked", setUp: func(t *testing.T, s *drainSubject, l *drainLedger, g *gate) []<-chan error {
		occupyLedger(t, s, l, g)
		var results []<-chan error
		for s.Waiting() < 2 {
			results = append(results, submitOneByOne(t, s, l, g, 1)...)
		}
		return results
	}},
	{name: "paused", setUp: func(t *testing.T, s *drainSubject, l *drainLedger, g *gate) []<-chan error {
		occupyLedger(t, s, l, g)
		paused := async(func() error { return s.Pause(boundedContext(t)) })
		waitUntil(t, "the pool to be paused", s.Paused)
		return append(submitOneByOne(t, s, l, g, 2*s.members), paused)
	}},
	{name: "waiting for a token", token: true, setUp: func(t *testing.T, s *drainSubject, l *drainLedger, g *gate) []<-chan error {
		require.NoError(t, s.SetRateLimit(2*float64(s.members), s.members))
		return submitOneByOne(t, s, l, g, 3*s.members)
	}},
}

// drainCall is a call that changes the pool, made while a release waits.
type drainCall struct {
	name string
	call func(t *testing.T, s *drainSubject)
}

var drainCalls = []drainCall{
	{"Tune up", func(_ *testing.T, s *drainSubject) { s.Tune(drainSize + 2) }},
	{"Tune down", func(_ *testing.T, s *drainSubject) { s.Tune(1) }},
	{"SetRateLimit set", func(t *testing.T, s *drainSubject) { require.NoError(t, s.SetRateLimit(2, 1)) }},
	{"SetRateLimit raised", func(t *testing.T, s *drainSubject) { require.NoError(t, s.SetRateLimit(8, 2)) }},
	{"SetRateLimit lowered", func(t *testing.T, s *drainSubject) { require.NoError(t, s.SetRateLimit(1, 1)) }},
	{"SetRateLimit removed", func(t *testing.T, s *drainSubject) { require.NoError(t, s.SetRateLimit(0, 0)) }},
	{"Pause", func(t *testing.T, s *drainSubject) {
		// A released pool is not paused: Pause returns nil at once.
		require.NoError(t, recv(t, async(func() error { return s.Pause(boundedContext(t)) }), "Pause"))
	}},
	{"Resume", func(_ *testing.T, s *drainSubject) { s.Resume() }},
	{"Reboot", func(_ *testing.T, s *drainSubject) {
		// The reopened pool's idle workers would wait for the next task:
		// a second Release lets them go.
		s.Reboot()
		s.Release()
	}},
	{"Stats", func(_ *testing.T, s *drainSubject) { _ = s.Stats() }},
	{"Release", func(_ *testing.T, s *drainSubject) { s.Release() }},
}

// drainMode is how the release is made, and whether it is let succeed.
type drainMode struct {
	name string
	// succeed is set for a release that waits long enough: the test lets
	// the work through after the call. Otherwise the release ends first
	// (expire), with the work held, and the work is let through after.
	succeed bool
	// release starts the release; expire makes it end, if it has not.
	release func(s *drainSubject, ctx context.Context) error
	expire  func(cancel context.CancelFunc)
}

var drainModes = []drainMode{
	{name: "ReleaseTimeout returns nil", succeed: true,
		release: func(s *drainSubject, _ context.Context) error { return s.ReleaseTimeout(long) }},
	{name: "ReleaseContext returns nil", succeed: true,
		release: func(s *drainSubject, ctx context.Context) error { return s.ReleaseContext(ctx) }},
	{name: "ReleaseTimeout times out",
		release: func(s *drainSubject, _ context.Context) error { return s.ReleaseTimeout(time.Millisecond) }},
	{name: "ReleaseContext cancelled",
		release: func(s *drainSubject, ctx context.Context) error { return s.ReleaseContext(ctx) },
		expire:  func(cancel context.CancelFunc) { cancel() }},
}

// releaseOutcome is what a release returned, and what it found as it
// returned: the ledger's complaint and the pool's timers.
type releaseOutcome struct {
	err     error
	missing string
	timers  int
}

// TestReleaseKeepsItsWordWhateverRacesIt is the table: each row makes a
// call race a release that waits on a pool in a state where work waits.
func TestReleaseKeepsItsWordWhateverRacesIt(t *testing.T) {
	for _, k := range drainKinds() {
		t.Run(k.name, func(t *testing.T) {
			for _, st := range drainStates {
				t.Run(st.name, func(t *testing.T) {
					for _, c := range drainCalls {
						t.Run(c.name, func(t *testing.T) {
							for _, m := range drainModes {
								t.Run(m.name, func(t *testing.T) { drainRow(t, k, st, c, m) })
							}
						})
					}
				})
			}
		})
	}
}

// drainRow is one row of the table.
func drainRow(t *testing.T, k drainKind, st drainState, c drainCall, m drainMode) {
	clk := ants.NewFakeClock()
	s := k.new(t, clk, ants.WithFakeClock(clk), ants.WithDisablePurge(true), ants.WithQueueSize(drainQueue))
	l := newDrainLedger()
	g := newGate(t)
	results := st.setUp(t, s, l, g)

	ctx, cancel := context.WithTimeout(context.Background(), long)
	defer cancel()
	done := make(chan releaseOutcome, 1)
	go func() {
		err := m.release(s, ctx)
		out := releaseOutcome{err: err}
		if err == nil {
			out.missing, out.timers = l.missing(false), s.timers()
		}
		done <- out
	}()
	waitUntil(t, "the release to wait", func() bool { return len(done) > 0 || s.releaseWaiting() })
	if st.token {
		// The tasks that had a token finish; the rest wait for one.
		g.open()
		waitUntil(t, "the workers to exit", func() bool { return len(done) > 0 || s.workersGone() })
	}
	c.call(t, s)

	if m.succeed {
		g.open()
	} else if m.expire != nil {
		m.expire(cancel)
	}
	out := drive(t, s, done)
	if out.err == nil {
		assert.Empty(t, out.missing, "a release returned nil before every accepted task ran")
		assert.Zero(t, out.timers, "a release returned nil with a timer of the pool set")
		if s.sub == nil {
			goleak.VerifyNone(t)
		} else {
			// The parents' workers are theirs: release them first.
			for _, b := range s.below {
				require.NoError(t, b.ReleaseTimeout(long))
			}
			goleak.VerifyNone(t)
		}
	} else {
		if errors.Is(out.err, ants.ErrTimeout) {
			assert.Contains(t, m.name, "ReleaseTimeout")
		} else {
			assert.ErrorIs(t, out.err, context.Canceled)
		}
		g.open()
		waitUntil(t, "every accepted task to run", func() bool {
			if s.clk != nil {
				s.clk.Forward(time.Second)
			}
			return l.missing(false) == ""
		})
	}
	for _, r := range results {
		_ = recv(t, r, "a submit or Pause to return")
	}
	assert.Empty(t, l.missing(true))
	assert.NoError(t, s.checkInvariants())
}

// drive moves the fake clock on, a second at a time, until the release
// returns, and returns what it returned.
func drive(t *testing.T, s *drainSubject, done <-chan releaseOutcome) releaseOutcome {
	t.Helper()
	deadline := time.After(2 * long)
	for {
		select {
		case out := <-done:
			return out
		case <-deadline:
			fatalHang(t, "the release did not return")
		case <-time.After(time.Millisecond):
			s.clk.Forward(time.Second)
		}
	}
}

// TestReleaseWokenWhenTheLastWaitingCallerLeaves: a release waits; the
// pool is rebooted and paused, a caller blocks in it, and its idle worker
// expires; when the caller gives up, nothing of the pool is left, and the
// release returns nil.
func TestReleaseWokenWhenTheLastWaitingCallerLeaves(t *testing.T) {
	forSinglePools(t, func(t *testing.T, k poolKind) {
		clk := ants.NewFakeClock()
		p := k.mustNew(t, 1, ants.WithFakeClock(clk), ants.WithExpiryDuration(time.Minute))
		g := newGate(t)
		occupy(t, p, g, 1)
		released := async(func() error { return p.ReleaseContext(boundedContext(t)) })
		waitUntil(t, "the release to wait", p.poolAPI.(interface{ ReleaseWaiting() bool }).ReleaseWaiting)
		p.Reboot()
		paused := async(func() error { return pacerOf(p).Pause(boundedContext(t)) })
		waitUntil(t, "the pool to be paused", pacerOf(p).Paused)
		ctx, cancel := context.WithCancel(context.Background())
		caller := blocked(t, p, 1, func() error { return p.submitContext(ctx, func() {}) })
		g.open()
		require.NoError(t, recv(t, paused, "Pause"))
		waitIdle(t, p, 1)
		require.True(t, clk.Advance(time.Minute))
		require.True(t, clk.Advance(time.Minute)) // the idle worker expires
		waitUntil(t, "the worker to exit", func() bool { return p.poolAPI.(interface{ LiveWorkers() int }).LiveWorkers() == 0 })
		assertNoRecv(t, released, "the release while a caller waits")
		cancel()
		assert.ErrorIs(t, recv(t, caller, "the caller"), context.Canceled)
		require.NoError(t, recv(t, released, "the release"))
		assert.NoError(t, p.checkInvariants())
	})
}
