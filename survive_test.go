package ants_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

// Every place where a wrapper runs user code, with user code that panics
// and user code that calls runtime.Goexit: the wrapper still runs every
// task it accepted, its Wait returns with the documented error, the pool
// releases cleanly and no goroutine is left.

// misbehaviour is what the user's code does instead of returning.
type misbehaviour struct {
	name string
	do   func()
}

var misbehaviours = []misbehaviour{
	{"panic", func() { panic("boom") }},
	{"Goexit", runtime.Goexit},
}

// isMisbehaviour checks that err is the *PanicError of m.
func isMisbehaviour(t *testing.T, m misbehaviour, err error) {
	t.Helper()
	var pe *ants.PanicError
	if !assert.ErrorAs(t, err, &pe, "the error of the misbehaving user code") {
		return
	}
	if m.name == "panic" {
		assert.Equal(t, "boom", pe.Value)
	} else {
		assert.Contains(t, pe.Error(), "runtime.Goexit")
	}
}

// surviveGood is how many well-behaved tasks each case gives the wrapper
// after the misbehaving one.
const surviveGood = 8

// ledger counts the well-behaved tasks that ran, by id.
type ledger struct {
	mu  sync.Mutex
	ran []int
}

func (l *ledger) add(id int) {
	l.mu.Lock()
	l.ran = append(l.ran, id)
	l.mu.Unlock()
}

// check asserts that ids 0..n-1 each ran once; ordered asks for that order.
func (l *ledger) check(t *testing.T, n int, ordered bool) {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := make([]int, n)
	for _, id := range l.ran {
		seen[id]++
	}
	for id, c := range seen {
		if c != 1 {
			t.Errorf("task %d ran %d times, want once (ran: %v)", id, c, l.ran)
		}
	}
	if ordered {
		for i, id := range l.ran {
			if i != id {
				t.Errorf("tasks ran out of order: %v", l.ran)
				break
			}
		}
	}
}

// surviveSite is one place where a wrapper runs user code. run gives the
// wrapper, on p, one piece of user code that does bad, then surviveGood
// tasks that record themselves in l, waits for the wrapper and returns the
// error its Wait (or equivalent) reports.
type surviveSite struct {
	name    string
	ordered bool // the good tasks run in the order given
	run     func(t *testing.T, p ants.Submitter, bad func(), l *ledger) error
}

var surviveSites = []surviveSite{
	{name: "Go", run: func(t *testing.T, p ants.Submitter, bad func(), l *ledger) error {
		f := ants.Go(context.Background(), p, func() (int, error) { bad(); return 0, nil })
		var good []*ants.Future[int]
		for i := range surviveGood {
			good = append(good, ants.Go(context.Background(), p, func() (int, error) { l.add(i); return i, nil }))
		}
		for i, g := range good {
			v, err := g.Wait()
			assert.NoError(t, err)
			assert.Equal(t, i, v)
		}
		_, err := f.Wait()
		return err
	}},
	{name: "Group", run: func(t *testing.T, p ants.Submitter, bad func(), l *ledger) error {
		g := ants.NewGroup(p)
		g.Go(func() error { bad(); return nil })
		for i := range surviveGood {
			g.Go(func() error { l.add(i); return nil })
		}
		return g.Wait()
	}},
	{name: "ResultGroup", run: func(t *testing.T, p ants.Submitter, bad func(), l *ledger) error {
		g := ants.NewResultGroup[int](p)
		g.Go(func() (int, error) { bad(); return -1, nil })
		for i := range surviveGood {
			g.Go(func() (int, error) { l.add(i); return i + 1, nil })
		}
		res, err := g.Wait()
		want := []int{0} // a failed task's value is the zero value
		if err == nil {
			want[0] = -1 // bad returned
		}
		for i := range surviveGood {
			want = append(want, i+1)
		}
		assert.Equal(t, want, res)
		return err
	}},
	{name: "Stream task", ordered: true, run: func(t *testing.T, p ants.Submitter, bad func(), l *ledger) error {
		s := ants.NewStream(p)
		s.Go(func() func() { bad(); return nil })
		for i := range surviveGood {
			s.Go(func() func() { return func() { l.add(i) } })
		}
		return s.Wait()
	}},
	{name: "Stream callback", ordered: true, run: func(t *testing.T, p ants.Submitter, bad func(), l *ledger) error {
		s := ants.NewStream(p)
		s.Go(func() func() { return bad })
		for i := range surviveGood {
			s.Go(func() func() { return func() { l.add(i) } })
		}
		return s.Wait()
	}},
	{name: "Keyed", ordered: true, run: func(t *testing.T, p ants.Submitter, bad func(), l *ledger) error {
		k := ants.NewKeyed[string](p)
		gate := make(chan struct{})
		require.NoError(t, k.Submit("k", func() { <-gate; bad() }))
		for i := range surviveGood {
			require.NoError(t, k.Submit("k", func() { l.add(i) }))
		}
		close(gate) // the good tasks are queued behind the bad one
		err := k.Wait()
		assert.Zero(t, k.Keys())
		return err
	}},
}

// surviveSubmitters are the Submitters each site runs on.
var surviveSubmitters = []struct {
	name string
	make func(t *testing.T) (s ants.Submitter, release func() error)
}{
	{"Pool", func(t *testing.T) (ants.Submitter, func() error) {
		p, err := ants.NewPool(2)
		require.NoError(t, err)
		return p, func() error { return p.ReleaseTimeout(long) }
	}},
	{"MultiPool", func(t *testing.T) (ants.Submitter, func() error) {
		p, err := ants.NewMultiPool(2, 1, ants.RoundRobin)
		require.NoError(t, err)
		return p, func() error { return p.ReleaseTimeout(long) }
	}},
	{"Subpool", func(t *testing.T) (ants.Submitter, func() error) {
		p, err := ants.NewPool(2)
		require.NoError(t, err)
		return ants.NewSubpool(p, 1), func() error { return p.ReleaseTimeout(long) }
	}},
	{"own Submitter", func(t *testing.T) (ants.Submitter, func() error) {
		p, err := ants.NewPool(2)
		require.NoError(t, err)
		return struct{ ants.Submitter }{p}, func() error { return p.ReleaseTimeout(long) }
	}},
}

func TestWrappersSurviveUserCodeThatPanicsOrCallsGoexit(t *testing.T) {
	for _, site := range surviveSites {
		for _, m := range misbehaviours {
			for _, sub := range surviveSubmitters {
				t.Run(site.name+"/"+m.name+"/"+sub.name, func(t *testing.T) {
					ignore := goleak.IgnoreCurrent()
					p, release := sub.make(t)
					var l ledger
					err := recv(t, async(func() error { return site.run(t, p, m.do, &l) }),
						"the wrapper's Wait")
					isMisbehaviour(t, m, err)
					l.check(t, surviveGood, site.ordered)
					require.NoError(t, release(), "the pool releases cleanly")
					goleak.VerifyNone(t, ignore)
				})
			}
		}
	}
}

// A Goexit in a Keyed task after which its key's queue is long still runs
// the whole queue, in order, and so does a run of Goexits.
func TestKeyedTasksThatAllCallGoexitStillRunInOrder(t *testing.T) {
	p := newGroupPool(t, 1)
	k := ants.NewKeyed[int](p)
	gate := make(chan struct{})
	var l ledger
	require.NoError(t, k.Submit(0, func() { <-gate }))
	const n = 50
	for i := range n {
		require.NoError(t, k.Submit(0, func() { l.add(i); runtime.Goexit() }))
	}
	close(gate)
	var pe *ants.PanicError
	require.ErrorAs(t, recv(t, async(k.Wait), "Keyed.Wait"), &pe)
	l.check(t, n, true)
	assert.Zero(t, k.Keys())
	s := waitAtRest(t, p)
	assert.Equal(t, uint64(1), s.Panicked, "the runner counts as one task that called Goexit")
}

// So too a Stream whose callbacks all call Goexit.
func TestStreamCallbacksThatAllCallGoexitStillRunInOrder(t *testing.T) {
	p := newGroupPool(t, 2)
	s := ants.NewStream(p)
	var l ledger
	const n = 50
	for i := range n {
		s.Go(func() func() { return func() { l.add(i); runtime.Goexit() } })
	}
	var pe *ants.PanicError
	require.ErrorAs(t, recv(t, async(s.Wait), "Stream.Wait"), &pe)
	l.check(t, n, true)
}

// WorkerPool runs three pieces of user code: newWorker, a Worker's Process
// and its Close.
func TestWorkerPoolSurvivesUserCodeThatPanicsOrCallsGoexit(t *testing.T) {
	for _, m := range misbehaviours {
		for _, where := range []string{"newWorker", "Process"} {
			t.Run(where+"/"+m.name, func(t *testing.T) {
				var bad atomic.Bool
				bad.Store(true)
				var closed atomic.Int32
				p, err := ants.NewWorkerPool(2, func(id int) ants.Worker[int, int] {
					if where == "newWorker" && bad.CompareAndSwap(true, false) {
						m.do()
					}
					return &surviveWorker{m: m, bad: &bad, where: where, closed: &closed}
				})
				require.NoError(t, err)
				_, err = p.Process(context.Background(), -1)
				isMisbehaviour(t, m, err)
				futures := make([]*ants.Future[int], surviveGood)
				for i := range futures {
					futures[i] = p.Go(context.Background(), i)
				}
				for i, f := range futures {
					v, err := f.Wait()
					assert.NoError(t, err)
					assert.Equal(t, i*2, v)
				}
				require.NoError(t, p.ReleaseTimeout(long))
				s := p.Stats()
				assert.Equal(t, uint64(1), s.Panicked)
				assert.Equal(t, uint64(surviveGood), s.Completed)
			})
		}
	}
	t.Run("Close/panic", func(t *testing.T) {
		handled := make(chan any, 4)
		p, err := ants.NewWorkerPool(1, func(id int) ants.Worker[int, int] {
			return &surviveWorker{closePanics: true}
		}, ants.WithPanicHandler(func(v any) { handled <- v }))
		require.NoError(t, err)
		for i := range surviveGood {
			v, err := p.Process(context.Background(), i)
			require.NoError(t, err)
			assert.Equal(t, 2*i, v)
		}
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Equal(t, "Close boom", recv(t, handled, "the PanicHandler's call for Close's panic"))
	})
}

// surviveWorker doubles its argument; it misbehaves as told.
type surviveWorker struct {
	m           misbehaviour
	bad         *atomic.Bool
	where       string
	closed      *atomic.Int32
	closePanics bool
}

func (w *surviveWorker) Process(_ context.Context, arg int) (int, error) {
	if arg < 0 && w.where == "Process" && w.bad.CompareAndSwap(true, false) {
		w.m.do()
	}
	return 2 * arg, nil
}

func (w *surviveWorker) Close() {
	if w.closed != nil {
		w.closed.Add(1)
	}
	if w.closePanics {
		panic("Close boom")
	}
}

// flakyObserver misbehaves in its first TaskDone, then counts the calls.
type flakyObserver struct {
	m     misbehaviour
	calls atomic.Int32
}

func (o *flakyObserver) TaskDone(_, _ time.Duration, _ bool) {
	if o.calls.Add(1) == 1 {
		o.m.do()
	}
}

// An Observer whose TaskDone panics or calls runtime.Goexit does not cost
// a wrapper a task: what the wrappers accepted still runs, and Wait
// returns. The observer's panic is the pool's (its PanicHandler sees it);
// the task's outcome stands.
func TestWrappersSurviveAnObserverThatPanicsOrCallsGoexit(t *testing.T) {
	for _, site := range surviveSites {
		for _, m := range misbehaviours {
			t.Run(site.name+"/"+m.name, func(t *testing.T) {
				ignore := goleak.IgnoreCurrent()
				obs := &flakyObserver{m: m}
				handled := make(chan any, 4)
				p, err := ants.NewPool(2, ants.WithObserver(obs), ants.WithPanicHandler(func(v any) { handled <- v }))
				require.NoError(t, err)
				var l ledger
				// The user code here behaves: the only misbehaviour is the
				// observer's.
				err = recv(t, async(func() error { return site.run(t, p, func() {}, &l) }), "the wrapper's Wait")
				assert.NoError(t, err, "the task's outcome stands")
				l.check(t, surviveGood, site.ordered)
				require.NoError(t, p.ReleaseTimeout(long))
				if m.name == "panic" {
					assert.Equal(t, "boom", recv(t, handled, "the PanicHandler's call for the observer's panic"))
				}
				assert.GreaterOrEqual(t, obs.calls.Load(), int32(surviveGood+1))
				goleak.VerifyNone(t, ignore)
			})
		}
	}
}

// A Submitter of the user's own whose SubmitContext panics or calls
// runtime.Goexit: the panic or Goexit goes on to the wrapper's caller, and
// the wrapper forgets the task, so that its Wait still returns.
func TestWrappersSurviveASubmitterThatPanicsOrCallsGoexit(t *testing.T) {
	for _, m := range misbehaviours {
		t.Run(m.name, func(t *testing.T) {
			p := newGroupPool(t, 2)
			s := &badSubmitter{p: p, m: m}
			call := func(f func()) {
				s.bad.Store(true)
				done := make(chan struct{})
				go func() {
					defer close(done)
					defer func() { _ = recover() }()
					f()
				}()
				recv(t, done, "the call whose SubmitContext misbehaved")
			}

			g := ants.NewGroup(s)
			call(func() { g.Go(func() error { t.Error("a refused task ran"); return nil }) })
			call(func() { g.TryGo(func() error { t.Error("a refused task ran"); return nil }) })
			g.Go(func() error { return nil })
			assert.ErrorContains(t, recv(t, async(g.Wait), "Group.Wait"), "SubmitContext panicked")

			st := ants.NewStream(s)
			call(func() { st.Go(func() func() { t.Error("a refused task ran"); return nil }) })
			var l ledger
			st.Go(func() func() { return func() { l.add(0) } })
			assert.ErrorContains(t, recv(t, async(st.Wait), "Stream.Wait"), "SubmitContext panicked")
			l.check(t, 1, true)

			k := ants.NewKeyed[int](s)
			call(func() { _ = k.Submit(1, func() { t.Error("a refused task ran") }) })
			assert.Zero(t, k.Keys(), "the key whose runner was refused is idle")
			ran := make(chan struct{})
			require.NoError(t, k.Submit(1, func() { close(ran) }))
			recv(t, ran, "the key's task after the refusal")
			assert.NoError(t, recv(t, async(k.Wait), "Keyed.Wait"))
		})
	}
}

// badSubmitter misbehaves in SubmitContext (and TrySubmit) while bad is
// set, once; otherwise it submits to p.
type badSubmitter struct {
	p   *ants.Pool
	m   misbehaviour
	bad atomic.Bool
}

func (s *badSubmitter) SubmitContext(ctx context.Context, task func()) error {
	if s.bad.CompareAndSwap(true, false) {
		s.m.do()
	}
	return s.p.SubmitContext(ctx, task)
}

func (s *badSubmitter) TrySubmit(task func()) error {
	if s.bad.CompareAndSwap(true, false) {
		s.m.do()
	}
	return s.p.TrySubmit(task)
}

// A Logger that panics or calls Goexit when OnChange's panic is written:
// the Logger's panic goes on to the caller of Tune, but the changes after
// it are still delivered.
func TestOnChangePanicWithALoggerThatMisbehaves(t *testing.T) {
	for _, m := range misbehaviours {
		t.Run(m.name, func(t *testing.T) {
			var calls atomic.Int32
			logger := &flakyLogger{m: m}
			p, err := ants.NewPool(4, ants.WithLogger(logger), ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{
				Min: 1, Max: 64, OnChange: func(old, new int) {
					if calls.Add(1) == 1 {
						panic("OnChange boom")
					}
				}}))
			require.NoError(t, err)
			defer p.Release()
			done := make(chan any, 1)
			go func() {
				defer func() { done <- recover() }()
				p.Tune(8)
			}()
			r := recv(t, done, "the end of the Tune whose OnChange and Logger misbehaved")
			if m.name == "panic" {
				assert.Equal(t, "boom", r, "the Logger's panic goes on to Tune's caller")
			}
			p.Tune(16)
			assert.Equal(t, int32(2), calls.Load(), "the change after the misbehaviour is delivered")
			assert.Equal(t, 16, p.Cap())
		})
	}
}

// flakyLogger misbehaves in its first Printf.
type flakyLogger struct {
	m     misbehaviour
	calls atomic.Int32
}

func (l *flakyLogger) Printf(string, ...any) {
	if l.calls.Add(1) == 1 {
		l.m.do()
	}
}

// An OnChange that panics when the pool itself changes its capacity, on a
// worker after a task: the panic is logged, not charged to the task.
func TestOnChangePanicOnAWorkerIsNoTasksPanic(t *testing.T) {
	logs := make(chan string, 64)
	var handled, calls atomic.Int32
	p, err := ants.NewPool(8,
		ants.WithLogger(testLogger{logs}),
		ants.WithPanicHandler(func(any) { handled.Add(1) }),
		ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 1, Max: 64, Window: time.Nanosecond,
			OnChange: func(old, new int) {
				calls.Add(1)
				panic(fmt.Sprintf("OnChange(%d, %d)", old, new))
			}}))
	require.NoError(t, err)
	defer p.Release()
	deadline := time.Now().Add(long)
	for calls.Load() < 1 && time.Now().Before(deadline) {
		g := ants.NewGroup(p)
		for range 64 {
			g.Go(func() error { time.Sleep(50 * time.Microsecond); return nil })
		}
		require.NoError(t, g.Wait())
	}
	require.GreaterOrEqual(t, calls.Load(), int32(1), "the pool changed its capacity")
	before := calls.Load()
	p.Tune(p.Cap()%64 + 1) // a change after the panic: delivered, and its panic logged
	assert.Greater(t, calls.Load(), before, "OnChange is called after its panic")
	assert.Contains(t, recv(t, logs, "the log line of OnChange's panic"), "AdaptiveCapacity.OnChange(")
	s := waitAtRest(t, p)
	assert.Zero(t, s.Panicked, "no task panicked")
	assert.Zero(t, handled.Load(), "the PanicHandler is for tasks")
}

// An OnChange that calls runtime.Goexit when the pool itself changes its
// capacity ends that worker, which the pool counts as a task that
// panicked; the changes after it are still delivered, and the pool stays
// whole.
func TestOnChangeGoexitOnAWorkerEndsOnlyThatWorker(t *testing.T) {
	var calls atomic.Int32
	p, err := ants.NewPool(8, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 1, Max: 64,
		Window: time.Nanosecond, OnChange: func(old, new int) {
			if calls.Add(1) == 1 {
				runtime.Goexit()
			}
		}}))
	require.NoError(t, err)
	var done atomic.Int64
	submitted := 0
	deadline := time.Now().Add(long)
	for calls.Load() < 1 && time.Now().Before(deadline) {
		g := ants.NewGroup(p)
		for range 64 {
			submitted++
			g.Go(func() error { time.Sleep(50 * time.Microsecond); done.Add(1); return nil })
		}
		require.NoError(t, g.Wait())
	}
	require.GreaterOrEqual(t, calls.Load(), int32(1), "the pool changed its capacity")
	before := calls.Load()
	p.Tune(p.Cap()%64 + 1)
	assert.Greater(t, calls.Load(), before, "OnChange is called after its Goexit")
	assert.Equal(t, int64(submitted), done.Load(), "every task ran")
	s := waitAtRest(t, p)
	assert.Equal(t, uint64(1), s.Panicked, "the worker whose OnChange called Goexit")
	assert.GreaterOrEqual(t, p.Running(), 0)
	require.NoError(t, p.ReleaseTimeout(long))
	assert.Zero(t, p.Running())
}
