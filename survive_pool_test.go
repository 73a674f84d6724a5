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

// The user's code that a pool runs around its own tasks (the PanicHandler,
// the Logger, the Observer) may panic or call runtime.Goexit, as t.FailNow
// does: the pool still runs every task it accepted, once, its counts stay
// exact, its release returns nil and leaves no goroutine.

// goexitLogger calls runtime.Goexit on every line, after counting it.
type goexitLogger struct{ lines atomic.Int32 }

func (l *goexitLogger) Printf(string, ...any) {
	l.lines.Add(1)
	runtime.Goexit()
}

// lineLogger sends each line it is given to ch, if there is room.
type lineLogger struct{ ch chan<- any }

func (l lineLogger) Printf(format string, args ...any) {
	select {
	case l.ch <- fmt.Sprintf(format, args...):
	default:
	}
}

// misbehavingObserver does m in every TaskDone, after counting the call.
type misbehavingObserver struct {
	m     misbehaviour
	calls atomic.Int32
}

func (o *misbehavingObserver) TaskDone(_, _ time.Duration, _ bool) {
	o.calls.Add(1)
	o.m.do()
}

// hookCase is a pool set up with user code that misbehaves, and the task
// that makes it run.
type hookCase struct {
	name string
	// opts returns the options of the pool; handled receives what the
	// PanicHandler, if the case has one, is called with.
	opts func(handled chan<- any) []ants.Option
	// bad is what the first task does after it records itself.
	bad func()
	// handled is how many calls of the PanicHandler the first task makes.
	handled int
}

var hookCases = []hookCase{
	{name: "PanicHandler calls Goexit", handled: 1, bad: func() { panic("task boom") },
		opts: func(handled chan<- any) []ants.Option {
			return []ants.Option{ants.WithPanicHandler(func(v any) { handled <- v; runtime.Goexit() })}
		}},
	{name: "Logger calls Goexit", bad: func() { panic("task boom") },
		opts: func(chan<- any) []ants.Option {
			return []ants.Option{ants.WithLogger(&goexitLogger{})}
		}},
	{name: "Observer panics", handled: 1, bad: func() {},
		opts: func(handled chan<- any) []ants.Option {
			return []ants.Option{ants.WithObserver(&misbehavingObserver{m: misbehaviours[0]}),
				ants.WithPanicHandler(func(v any) { handled <- v })}
		}},
	{name: "Observer calls Goexit", bad: func() {},
		opts: func(handled chan<- any) []ants.Option {
			return []ants.Option{ants.WithObserver(&misbehavingObserver{m: misbehaviours[1]}),
				ants.WithPanicHandler(func(v any) { handled <- v })}
		}},
	{name: "Observer panics after the task panicked", handled: 2, bad: func() { panic("task boom") },
		opts: func(handled chan<- any) []ants.Option {
			return []ants.Option{ants.WithObserver(&misbehavingObserver{m: misbehaviours[0]}),
				ants.WithPanicHandler(func(v any) { handled <- v })}
		}},
	{name: "Observer panics after the task panicked, no PanicHandler", handled: 2, bad: func() { panic("task boom") },
		opts: func(handled chan<- any) []ants.Option {
			return []ants.Option{ants.WithObserver(&misbehavingObserver{m: misbehaviours[0]}),
				ants.WithLogger(lineLogger{handled})}
		}},
	{name: "Observer calls Goexit after the task panicked", handled: 1, bad: func() { panic("task boom") },
		opts: func(handled chan<- any) []ants.Option {
			return []ants.Option{ants.WithObserver(&misbehavingObserver{m: misbehaviours[1]}),
				ants.WithPanicHandler(func(v any) { handled <- v })}
		}},
	{name: "Observer panics after the task called Goexit", handled: 1, bad: runtime.Goexit,
		opts: func(handled chan<- any) []ants.Option {
			return []ants.Option{ants.WithObserver(&misbehavingObserver{m: misbehaviours[0]}),
				ants.WithPanicHandler(func(v any) { handled <- v })}
		}},
	{name: "Observer and PanicHandler call Goexit", handled: 1, bad: func() { panic("task boom") },
		opts: func(handled chan<- any) []ants.Option {
			return []ants.Option{ants.WithObserver(&misbehavingObserver{m: misbehaviours[1]}),
				ants.WithPanicHandler(func(v any) { handled <- v; runtime.Goexit() })}
		}},
}

// checkCounts asserts that every level of p holds between 0 and its
// capacity of running workers, and that Free is what is left of it.
func checkCounts(t *testing.T, p *testPool) {
	t.Helper()
	for _, l := range p.levels() {
		r, c := l.Running(), l.Cap()
		assert.GreaterOrEqual(t, r, 0, "Running")
		if c > 0 {
			assert.LessOrEqual(t, r, c, "Running within the capacity")
			assert.Equal(t, c-r, l.Free(), "Free")
		}
	}
}

func TestPoolsSurviveAPanicHandlerLoggerOrObserverThatMisbehaves(t *testing.T) {
	for _, c := range hookCases {
		t.Run(c.name, func(t *testing.T) {
			forEveryKind(t, func(t *testing.T, k poolKind) {
				ignore := goleak.IgnoreCurrent()
				handled := make(chan any, 4*(surviveGood+1))
				p, err := k.new(2, c.opts(handled)...)
				require.NoError(t, err)
				var l ledger
				var wg sync.WaitGroup
				// Rounds of one misbehaving task then good ones, so that
				// a pool whose workers all ended still has to run tasks.
				const rounds = 3
				for r := range rounds {
					wg.Add(1)
					require.NoError(t, p.submit(func() {
						defer wg.Done()
						l.add(r * (surviveGood + 1))
						c.bad()
					}))
					for i := range surviveGood {
						wg.Add(1)
						require.NoError(t, p.submit(func() { defer wg.Done(); l.add(r*(surviveGood+1) + 1 + i) }))
					}
				}
				recv(t, async(func() error { wg.Wait(); return nil }), "every accepted task")
				l.check(t, rounds*(surviveGood+1), false)
				for _, lv := range p.levels() {
					s := waitAtRest(t, lv)
					if c.name == "PanicHandler calls Goexit" || c.name == "Logger calls Goexit" {
						assert.GreaterOrEqual(t, s.Panicked, uint64(rounds), "the tasks that panicked")
					}
				}
				checkCounts(t, p)
				for _, lv := range p.levels() {
					require.NoError(t, lv.ReleaseTimeout(long), "every accepted task ran")
					assert.Zero(t, lv.Running())
				}
				if k.family != sub { // a Subpool's tasks report through its own wrapper
					// Each misbehaving task's calls, at least; an
					// observer also misbehaves on the good tasks.
					assert.GreaterOrEqual(t, len(handled), rounds*c.handled, "the PanicHandler's calls")
				}
				goleak.VerifyNone(t, ignore)
			})
		})
	}
}

// goexitWorker doubles its argument; it misbehaves as told.
type goexitWorker struct {
	processGoexit bool // Process calls runtime.Goexit for a negative argument
	closeDo       func()
	closed        *atomic.Int32
}

func (w *goexitWorker) Process(_ context.Context, arg int) (int, error) {
	if arg < 0 && w.processGoexit {
		runtime.Goexit()
	}
	if arg < 0 {
		panic("Process boom")
	}
	return 2 * arg, nil
}

func (w *goexitWorker) Close() {
	w.closed.Add(1)
	if w.closeDo != nil {
		w.closeDo()
	}
}

// A WorkerPool runs a Worker's Close, which may call runtime.Goexit or
// panic, and its PanicHandler, Logger or Observer, which may call
// runtime.Goexit: at a worker's normal exit (Tune, Release), after a
// Process that panicked (the worker retires) and after one that called
// runtime.Goexit (the worker ends on the panic path). Each Process call
// returns, Running stays exact, and the release returns nil.
func TestWorkerPoolSurvivesACloseOrHandlerThatCallsGoexit(t *testing.T) {
	cases := []struct {
		name    string
		closeDo func()
		opts    []ants.Option
	}{
		{name: "Close calls Goexit", closeDo: runtime.Goexit},
		{name: "Close panics, PanicHandler calls Goexit", closeDo: func() { panic("Close boom") },
			opts: []ants.Option{ants.WithPanicHandler(func(any) { runtime.Goexit() })}},
		{name: "Close panics, Logger calls Goexit", closeDo: func() { panic("Close boom") },
			opts: []ants.Option{ants.WithLogger(&goexitLogger{})}},
		{name: "Close calls Goexit, PanicHandler calls Goexit", closeDo: runtime.Goexit,
			opts: []ants.Option{ants.WithPanicHandler(func(any) { runtime.Goexit() })}},
		{name: "Observer panics", opts: []ants.Option{
			ants.WithObserver(&misbehavingObserver{m: misbehaviours[0]}), ants.WithPanicHandler(func(any) {})}},
		{name: "Observer calls Goexit", opts: []ants.Option{
			ants.WithObserver(&misbehavingObserver{m: misbehaviours[1]})}},
	}
	for _, c := range cases {
		for _, processGoexit := range []bool{false, true} {
			name := c.name + "/Process panics"
			if processGoexit {
				name = c.name + "/Process calls Goexit"
			}
			t.Run(name, func(t *testing.T) {
				ignore := goleak.IgnoreCurrent()
				var closed atomic.Int32
				const size = 4
				p, err := ants.NewWorkerPool(size, func(int) ants.Worker[int, int] {
					return &goexitWorker{processGoexit: processGoexit, closeDo: c.closeDo, closed: &closed}
				}, c.opts...)
				require.NoError(t, err)
				check := func(when string) {
					t.Helper()
					r := p.Running()
					assert.GreaterOrEqual(t, r, 0, "Running "+when)
					assert.LessOrEqual(t, r, p.Cap(), "Running "+when)
					assert.Equal(t, p.Cap()-r, p.Free(), "Free "+when)
				}
				var l ledger
				const n = 3 * size
				run := func(from int) {
					futures := make([]*ants.Future[int], 0, n)
					for i := range n {
						futures = append(futures, p.Go(context.Background(), from+i))
					}
					for i, f := range futures {
						v, err := f.Wait()
						if assert.NoError(t, err) && assert.Equal(t, 2*(from+i), v) {
							l.add(from + i)
						}
					}
				}
				run(0)
				for range 2 { // a worker that misbehaves, then retires or ends
					_, err := p.Process(context.Background(), -1)
					var pe *ants.PanicError
					assert.ErrorAs(t, err, &pe)
				}
				run(n)
				waitAtRest(t, p)
				check("after the failed tasks")
				p.Tune(1) // workers exit at once, each Close misbehaving
				run(2 * n)
				waitAtRest(t, p)
				check("after a shrinking Tune")
				p.Tune(size)
				run(3 * n)
				l.check(t, 4*n, false)
				require.NoError(t, p.ReleaseTimeout(long))
				assert.Zero(t, p.Running(), "Running after the release")
				s := p.Stats()
				assert.Equal(t, uint64(4*n+2), s.Submitted, fmt.Sprintf("%+v", s))
				assert.Equal(t, s.Submitted, s.Completed+s.Panicked, fmt.Sprintf("%+v", s))
				if c.closeDo != nil {
					// An observer's misbehaviour counts its task as
					// panicked; a Close's counts no task.
					assert.Equal(t, uint64(2), s.Panicked, fmt.Sprintf("%+v", s))
				}
				goleak.VerifyNone(t, ignore)
			})
		}
	}
}
