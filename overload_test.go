package ants_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// Overload control: a queue timeout, CoDel with adaptive LIFO, and drops
// that are counted and reported. The tests drive the pool clock by hand,
// and each one keeps a ledger of task ids: which ran, which were dropped,
// with which error.

type idKey struct{}

func withID(ctx context.Context, id int) context.Context {
	return context.WithValue(ctx, idKey{}, id)
}

// dropLedger records what became of each task id.
type dropLedger struct {
	mu      sync.Mutex
	ran     []int
	dropped map[int]error
	waits   []time.Duration // the observer's drop waits
	done    chan int        // every id that ran or was dropped
}

func newDropLedger() *dropLedger {
	return &dropLedger{dropped: map[int]error{}, done: make(chan int, 1024)}
}

func (l *dropLedger) task(id int) func() {
	return func() {
		l.mu.Lock()
		l.ran = append(l.ran, id)
		l.mu.Unlock()
		l.done <- id
	}
}

// handler is the pool's DropHandler: the id comes from the context.
func (l *dropLedger) handler(ctx context.Context, task any, err error) {
	id, _ := ctx.Value(idKey{}).(int)
	l.mu.Lock()
	_, twice := l.dropped[id]
	if twice {
		l.dropped[-id] = errors.New("dropped twice")
	}
	l.dropped[id] = err
	l.mu.Unlock()
	l.done <- id
}

func (l *dropLedger) TaskDone(time.Duration, time.Duration, bool) {}

func (l *dropLedger) TaskDropped(wait time.Duration, err error) {
	l.mu.Lock()
	l.waits = append(l.waits, wait)
	l.mu.Unlock()
}

// await waits until n ids have run or been dropped.
func (l *dropLedger) await(t *testing.T, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		recv(t, l.done, "a task to run or be dropped")
	}
}

func (l *dropLedger) snapshot() (ran []int, dropped map[int]error, waits []time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.ran), maps(l.dropped), slices.Clone(l.waits)
}

func maps(m map[int]error) map[int]error {
	c := make(map[int]error, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func TestQueueTimeoutDropsExpiredBufferedTasks(t *testing.T) {
	clock := ants.NewFakeClock()
	l := newDropLedger()
	p, err := ants.NewPool(1, ants.WithQueueSize(8), ants.WithQueueTimeout(10*time.Millisecond),
		ants.WithFakeClock(clock), ants.WithDropHandler(l.handler), ants.WithObserver(l))
	require.NoError(t, err)
	defer p.Release()
	g := holdWorker(t, p)

	for id := 1; id <= 3; id++ {
		require.NoError(t, p.SubmitContext(withID(context.Background(), id), l.task(id)))
	}
	clock.Forward(5 * time.Millisecond)
	for id := 4; id <= 5; id++ {
		require.NoError(t, p.SubmitContext(withID(context.Background(), id), l.task(id)))
	}
	clock.Forward(6 * time.Millisecond) // 1-3 have waited 11 ms, 4-5 6 ms
	g.open()
	l.await(t, 5)

	ran, dropped, waits := l.snapshot()
	assert.Equal(t, []int{4, 5}, ran)
	assert.Len(t, dropped, 3)
	for id := 1; id <= 3; id++ {
		assert.ErrorIs(t, dropped[id], ants.ErrQueueTimeout, "task %d", id)
	}
	assert.Equal(t, []time.Duration{11 * time.Millisecond, 11 * time.Millisecond, 11 * time.Millisecond}, waits)
	require.NoError(t, p.ReleaseTimeout(long))
	s := p.Stats()
	assert.Equal(t, uint64(6), s.Submitted)
	assert.Equal(t, uint64(3), s.Completed)
	assert.Equal(t, uint64(3), s.Dropped)
	assert.Equal(t, s.Submitted, s.Completed+s.Panicked+s.Dropped)
}

func TestQueueTimeoutFullBufferLetsNewWorkIn(t *testing.T) {
	clock := ants.NewFakeClock()
	l := newDropLedger()
	p, err := ants.NewPool(1, ants.WithQueueSize(2), ants.WithQueueTimeout(10*time.Millisecond),
		ants.WithFakeClock(clock), ants.WithDropHandler(l.handler), ants.WithNonblocking(true))
	require.NoError(t, err)
	defer p.Release()
	g := holdWorker(t, p)
	for id := 1; id <= 2; id++ {
		require.NoError(t, p.SubmitContext(withID(context.Background(), id), l.task(id)))
	}
	assert.ErrorIs(t, p.SubmitContext(withID(context.Background(), 3), l.task(3)), ants.ErrPoolOverload)
	clock.Forward(10 * time.Millisecond)
	// The buffer is full of expired tasks: the next submit drops them and
	// takes their room, with no worker free.
	require.NoError(t, p.SubmitContext(withID(context.Background(), 4), l.task(4)))
	l.await(t, 2)
	_, dropped, _ := l.snapshot()
	assert.Equal(t, map[int]error{1: ants.ErrQueueTimeout, 2: ants.ErrQueueTimeout}, dropped)
	assert.Equal(t, 1, p.Stats().Queued)
	g.open()
	l.await(t, 1)
	ran, _, _ := l.snapshot()
	assert.Equal(t, []int{4}, ran)
}

func TestContextEndFreesBufferRoom(t *testing.T) {
	for _, opt := range []struct {
		name string
		opt  ants.Option
	}{
		{"queue timeout", ants.WithQueueTimeout(time.Hour)},
		{"queue target", ants.WithQueueTarget(time.Hour, 0)},
	} {
		t.Run(opt.name, func(t *testing.T) {
			l := newDropLedger()
			p, err := ants.NewPool(1, ants.WithQueueSize(2), opt.opt, ants.WithDropHandler(l.handler))
			require.NoError(t, err)
			defer p.Release()
			g := holdWorker(t, p)
			ctx1, cancel1 := context.WithCancel(withID(context.Background(), 1))
			require.NoError(t, p.SubmitContext(ctx1, l.task(1)))
			require.NoError(t, p.SubmitContext(withID(context.Background(), 2), l.task(2)))
			require.ErrorIs(t, p.TrySubmit(l.task(3)), ants.ErrPoolOverload)

			cancel1() // its room goes at once, with no worker free
			l.await(t, 1)
			_, dropped, _ := l.snapshot()
			assert.Equal(t, map[int]error{1: context.Canceled}, dropped)
			assert.Equal(t, 1, p.Stats().Queued)
			require.NoError(t, p.SubmitContext(withID(context.Background(), 3), l.task(3)))

			g.open()
			l.await(t, 2)
			require.NoError(t, p.ReleaseTimeout(long))
			ran, _, _ := l.snapshot()
			assert.Equal(t, []int{2, 3}, ran)
			s := p.Stats()
			assert.Equal(t, uint64(1), s.Dropped)
			assert.Equal(t, s.Submitted, s.Completed+s.Panicked+s.Dropped)
		})
	}
}

func TestContextEndWithoutOverloadRunsTask(t *testing.T) {
	l := newDropLedger()
	p, err := ants.NewPool(1, ants.WithQueueSize(2), ants.WithDropHandler(l.handler))
	require.NoError(t, err)
	defer p.Release()
	g := holdWorker(t, p)
	ctx, cancel := context.WithCancel(withID(context.Background(), 1))
	require.NoError(t, p.SubmitContext(ctx, l.task(1)))
	cancel()
	g.open()
	l.await(t, 1)
	ran, dropped, _ := l.snapshot()
	assert.Equal(t, []int{1}, ran)
	assert.Empty(t, dropped)
	assert.Zero(t, p.Stats().Dropped)
}

func TestQueueTimeoutBlockedCaller(t *testing.T) {
	clock := ants.NewFakeClock()
	p, err := ants.NewPool(1, ants.WithQueueTimeout(10*time.Millisecond), ants.WithFakeClock(clock))
	require.NoError(t, err)
	defer p.Release()
	g := holdWorker(t, p)
	ran := make(chan struct{}, 1)
	errc := blocked(t, p, 1, func() error { return p.Submit(signal(ran)) })
	clock.Forward(10 * time.Millisecond)
	assert.ErrorIs(t, recv(t, errc, "the blocked Submit to time out"), ants.ErrQueueTimeout)
	s := p.Stats()
	assert.Equal(t, uint64(1), s.Rejected)
	assert.Zero(t, s.Dropped)
	assert.Zero(t, s.Waiting)
	g.open()
	require.NoError(t, p.ReleaseTimeout(long))
	assertNoRecv(t, ran, "the timed-out task to run")
}

// stepper hands out tasks that report their start and then hold their
// worker until the test ends them, so that the test decides when each
// slot frees, and so when each grant is made, on the pool's fake clock.
type stepper struct {
	t             *testing.T
	started       chan int
	release, stop chan struct{}
}

func newStepper(t *testing.T) *stepper {
	s := &stepper{t: t, started: make(chan int, 64), release: make(chan struct{}), stop: make(chan struct{})}
	t.Cleanup(func() { close(s.stop) })
	return s
}

// task returns task id, which calls then, if not nil, once it is ended.
func (s *stepper) task(id int, then func()) func() {
	return func() {
		s.started <- id
		select {
		case s.release <- struct{}{}:
		case <-s.stop:
		}
		if then != nil {
			then()
		}
	}
}

// end ends the running task.
func (s *stepper) end() { <-s.release }

// next returns the id of the next task to start.
func (s *stepper) next() int {
	s.t.Helper()
	return recv(s.t, s.started, "the next task to start")
}

// TestQueueTargetAdaptiveLIFO walks the CoDel state machine through the
// grants of one worker: FIFO while no interval has seen only long waits,
// then, overloaded, the stale tasks dropped and the newest first, and back
// once the waiting work runs out.
func TestQueueTargetAdaptiveLIFO(t *testing.T) {
	clock := ants.NewFakeClock()
	l := newDropLedger()
	p, err := ants.NewPool(1, ants.WithQueueSize(100),
		ants.WithQueueTarget(10*time.Millisecond, 100*time.Millisecond),
		ants.WithFakeClock(clock), ants.WithDropHandler(l.handler))
	require.NoError(t, err)
	defer p.Release()

	s := newStepper(t)
	submit := func(ids ...int) {
		for _, id := range ids {
			require.NoError(t, p.SubmitContext(withID(context.Background(), id), s.task(id, l.task(id))))
		}
	}
	next := func() int { // ends the running task, returns the next to start
		t.Helper()
		s.end()
		return s.next()
	}

	submit(0)
	require.Equal(t, 0, s.next(), "the first task")
	submit(1, 2, 3, 4, 5)
	clock.Forward(50 * time.Millisecond)
	assert.Equal(t, 1, next(), "not overloaded: FIFO") // the interval starts, wait 50 ms
	clock.Forward(105 * time.Millisecond)
	submit(100, 101)
	clock.Forward(5 * time.Millisecond)
	// The interval ended with no wait within target: overloaded. Tasks 2-5
	// have waited 160 ms > 2*target and go; the newest goes first.
	assert.Equal(t, 101, next())
	assert.Equal(t, 100, next())
	s.end()
	l.await(t, 4+4) // 0, 1, 101, 100 ran; 2-5 dropped
	// A queue emptied for a moment (here by the sweep of drops and the
	// grants) keeps the state: still overloaded, the newest first.
	submit(6, 7, 8)
	assert.Equal(t, 6, s.next())
	clock.Forward(5 * time.Millisecond)
	assert.Equal(t, 8, next(), "still overloaded")
	assert.Equal(t, 7, next())
	s.end()
	l.await(t, 3)
	// One that stays empty for an interval resets it.
	clock.Forward(100 * time.Millisecond)
	submit(9, 10, 11)
	assert.Equal(t, 9, s.next())
	clock.Forward(50 * time.Millisecond)
	assert.Equal(t, 10, next(), "the waiting work ran out: FIFO again")
	assert.Equal(t, 11, next())
	s.end()
	l.await(t, 3)

	ran, dropped, _ := l.snapshot()
	assert.Equal(t, []int{0, 1, 101, 100, 6, 8, 7, 9, 10, 11}, ran)
	assert.Equal(t, map[int]error{2: ants.ErrQueueTimeout, 3: ants.ErrQueueTimeout,
		4: ants.ErrQueueTimeout, 5: ants.ErrQueueTimeout}, dropped)
	assert.Equal(t, uint64(4), p.Stats().Dropped)
}

// chanWorker is a WorkerPool's Worker whose Process waits on a gate, then
// returns arg.
type chanWorker struct{ g *gate }

func (w chanWorker) Process(_ context.Context, arg int) (int, error) {
	if arg < 0 {
		<-w.g.ch
	}
	return arg, nil
}
func (chanWorker) Close() {}

// TestWrappersSeeDrops runs each wrapper on a pool with a queue timeout
// (directly, through a Subpool, and through a MultiPool): a task that the
// pool drops ends with ErrQueueTimeout in what the wrapper reports, and
// never runs.
func TestWrappersSeeDrops(t *testing.T) {
	type parent struct {
		name string
		// make returns the Submitter, a submit to the pool below, and that
		// pool's Stats.
		make func(t *testing.T, opts ...ants.Option) (ants.Submitter, func(func()) error, func() ants.Stats)
	}
	parents := []parent{
		{"Pool", func(t *testing.T, opts ...ants.Option) (ants.Submitter, func(func()) error, func() ants.Stats) {
			p, err := ants.NewPool(1, opts...)
			require.NoError(t, err)
			t.Cleanup(p.Release)
			return p, p.Submit, p.Stats
		}},
		{"Subpool", func(t *testing.T, opts ...ants.Option) (ants.Submitter, func(func()) error, func() ants.Stats) {
			p, err := ants.NewPool(1, opts...)
			require.NoError(t, err)
			t.Cleanup(p.Release)
			return ants.NewSubpool(p, 4), p.Submit, p.Stats
		}},
		{"MultiPool", func(t *testing.T, opts ...ants.Option) (ants.Submitter, func(func()) error, func() ants.Stats) {
			mp, err := ants.NewMultiPool(1, 1, ants.RoundRobin, opts...)
			require.NoError(t, err)
			t.Cleanup(mp.Release)
			return mp, mp.Submit, mp.Stats
		}},
	}
	ran := func(flag *bool) func() { return func() { *flag = true } }
	wrappers := []struct {
		name string
		// start hands one task to the wrapper on s; wait returns its error.
		start func(s ants.Submitter, task func()) (wait func() error)
	}{
		{"Go", func(s ants.Submitter, task func()) func() error {
			f := ants.Go(context.Background(), s, func() (int, error) { task(); return 1, nil })
			return func() error { _, err := f.Wait(); return err }
		}},
		{"Group", func(s ants.Submitter, task func()) func() error {
			g := ants.NewGroup(s)
			g.Go(func() error { task(); return nil })
			return g.Wait
		}},
		{"ResultGroup", func(s ants.Submitter, task func()) func() error {
			g := ants.NewResultGroup[int](s)
			g.Go(func() (int, error) { task(); return 1, nil })
			return func() error { _, err := g.Wait(); return err }
		}},
		{"Map", func(s ants.Submitter, task func()) func() error {
			errc := make(chan error, 1)
			go ants.Map(context.Background(), s, 1, func(yield func(int) bool) { yield(1) },
				func(context.Context, int) (int, error) { task(); return 1, nil })(func(_ int, err error) bool {
				errc <- err
				return true
			})
			return func() error { return <-errc }
		}},
		{"MapUnordered", func(s ants.Submitter, task func()) func() error {
			errc := make(chan error, 1)
			go ants.MapUnordered(context.Background(), s, 1, func(yield func(int) bool) { yield(1) },
				func(context.Context, int) (int, error) { task(); return 1, nil })(func(_ int, err error) bool {
				errc <- err
				return true
			})
			return func() error { return <-errc }
		}},
		{"Stream", func(s ants.Submitter, task func()) func() error {
			st := ants.NewStream(s)
			st.Go(func() func() { task(); return nil })
			return st.Wait
		}},
		{"Keyed", func(s ants.Submitter, task func()) func() error {
			k := ants.NewKeyed[int](s)
			if err := k.Submit(1, task); err != nil {
				return func() error { return err }
			}
			return k.Wait
		}},
	}
	for _, pa := range parents {
		for _, w := range wrappers {
			t.Run(pa.name+"/"+w.name, func(t *testing.T) {
				clock := ants.NewFakeClock()
				s, occupy, stats := pa.make(t, ants.WithQueueSize(8), ants.WithQueueTimeout(10*time.Millisecond),
					ants.WithFakeClock(clock))
				g := newGate(t)
				started := make(chan struct{}, 1)
				require.NoError(t, occupy(g.task(started)))
				recv(t, started, "the pool to be busy")
				var didRun bool
				wait := w.start(s, ran(&didRun))
				waitUntil(t, "the task to be buffered", func() bool { return stats().Queued == 1 })
				clock.Forward(10 * time.Millisecond)
				g.open()
				assert.ErrorIs(t, wait(), ants.ErrQueueTimeout)
				assert.False(t, didRun)
				assert.Equal(t, uint64(1), stats().Dropped)
				if sp, ok := s.(*ants.Subpool); ok {
					waitUntil(t, "the sub-pool's slot to come back", func() bool { return sp.Running() == 0 && sp.Free() == 4 })
					st := sp.Stats()
					assert.Equal(t, uint64(1), st.Dropped)
					assert.Equal(t, st.Submitted, st.Completed+st.Panicked+st.Dropped)
				}
			})
		}
	}
	t.Run("WorkerPool", func(t *testing.T) {
		clock := ants.NewFakeClock()
		g := newGate(t)
		p, err := ants.NewWorkerPool(1, func(int) ants.Worker[int, int] { return chanWorker{g} },
			ants.WithQueueSize(8), ants.WithQueueTimeout(10*time.Millisecond), ants.WithFakeClock(clock))
		require.NoError(t, err)
		defer p.Release()
		busy := p.Go(context.Background(), -1)
		waitRunning(t, p, 1)
		waitUntil(t, "the worker to be busy", func() bool { return p.Stats().Idle == 0 && p.Stats().Queued == 0 })
		f := p.Go(context.Background(), 1)
		errc := async(func() error { _, err := p.Process(context.Background(), 2); return err })
		waitUntil(t, "both tasks to be buffered", func() bool { return p.Stats().Queued == 2 })
		clock.Forward(10 * time.Millisecond)
		g.open()
		_, err = busy.Wait()
		require.NoError(t, err)
		_, err = f.Wait()
		assert.ErrorIs(t, err, ants.ErrQueueTimeout)
		assert.ErrorIs(t, recv(t, errc, "Process to return"), ants.ErrQueueTimeout)
		assert.Equal(t, uint64(2), p.Stats().Dropped)
	})
}

func TestDropHandlerGetsInvokeArgument(t *testing.T) {
	clock := ants.NewFakeClock()
	g := newGate(t)
	got := make(chan any, 1)
	p, err := ants.NewPoolWithFunc(1, func(arg any) {
		if arg == "hold" {
			<-g.ch
		}
	}, ants.WithQueueSize(4), ants.WithQueueTimeout(time.Millisecond), ants.WithFakeClock(clock),
		ants.WithDropHandler(func(ctx context.Context, task any, err error) {
			assert.Equal(t, context.Background(), ctx)
			assert.ErrorIs(t, err, ants.ErrQueueTimeout)
			got <- task
		}))
	require.NoError(t, err)
	defer p.Release()
	require.NoError(t, p.Invoke("hold"))
	waitRunning(t, p, 1)
	require.NoError(t, p.Invoke(42))
	clock.Forward(time.Millisecond)
	g.open()
	assert.Equal(t, 42, recv(t, got, "the drop of 42"))
}

func TestOverloadBadInput(t *testing.T) {
	ctors := map[string]func(opts ...ants.Option) error{
		"NewPool": func(opts ...ants.Option) error { _, err := ants.NewPool(1, opts...); return err },
		"NewPoolWithFunc": func(opts ...ants.Option) error {
			_, err := ants.NewPoolWithFunc(1, func(any) {}, opts...)
			return err
		},
		"NewPoolWithFuncGeneric": func(opts ...ants.Option) error {
			_, err := ants.NewPoolWithFuncGeneric(1, func(int) {}, opts...)
			return err
		},
		"NewMultiPool": func(opts ...ants.Option) error {
			_, err := ants.NewMultiPool(2, 1, ants.RoundRobin, opts...)
			return err
		},
		"NewMultiPoolWithFunc": func(opts ...ants.Option) error {
			_, err := ants.NewMultiPoolWithFunc(2, 1, func(any) {}, ants.RoundRobin, opts...)
			return err
		},
		"NewMultiPoolWithFuncGeneric": func(opts ...ants.Option) error {
			_, err := ants.NewMultiPoolWithFuncGeneric(2, 1, func(int) {}, ants.RoundRobin, opts...)
			return err
		},
		"NewWorkerPool": func(opts ...ants.Option) error {
			_, err := ants.NewWorkerPool(1, func(int) ants.Worker[int, int] { return chanWorker{} }, opts...)
			return err
		},
	}
	for name, ctor := range ctors {
		assert.ErrorIs(t, ctor(ants.WithQueueTimeout(-1)), ants.ErrInvalidQueueTimeout, name)
		assert.ErrorIs(t, ctor(ants.WithQueueTarget(-1, 0)), ants.ErrInvalidQueueTarget, name)
		assert.ErrorIs(t, ctor(ants.WithQueueTarget(time.Millisecond, -1)), ants.ErrInvalidQueueTarget, name)
		assert.NoError(t, ctor(ants.WithQueueTimeout(0), ants.WithQueueTarget(0, 0)), name)
	}

	t.Run("a timeout below the clock's resolution drops every task that waited", func(t *testing.T) {
		l := newDropLedger()
		p, err := ants.NewPool(1, ants.WithQueueSize(4), ants.WithQueueTimeout(time.Nanosecond),
			ants.WithDropHandler(l.handler))
		require.NoError(t, err)
		defer p.Release()
		g := holdWorker(t, p)
		require.NoError(t, p.SubmitContext(withID(context.Background(), 1), l.task(1)))
		time.Sleep(time.Millisecond) // more than a nanosecond on any clock
		g.open()
		l.await(t, 1)
		_, dropped, _ := l.snapshot()
		assert.Equal(t, map[int]error{1: ants.ErrQueueTimeout}, dropped)
		// A task that finds a free worker does not wait, and runs.
		require.NoError(t, p.ReleaseTimeout(long))
	})

	t.Run("a target above the timeout leaves the timeout to drop first", func(t *testing.T) {
		clock := ants.NewFakeClock()
		l := newDropLedger()
		p, err := ants.NewPool(1, ants.WithQueueSize(4), ants.WithQueueTimeout(10*time.Millisecond),
			ants.WithQueueTarget(50*time.Millisecond, 0), ants.WithFakeClock(clock), ants.WithDropHandler(l.handler))
		require.NoError(t, err)
		defer p.Release()
		g := holdWorker(t, p)
		require.NoError(t, p.SubmitContext(withID(context.Background(), 1), l.task(1)))
		require.NoError(t, p.SubmitContext(withID(context.Background(), 2), l.task(2)))
		clock.Forward(10 * time.Millisecond)
		g.open()
		l.await(t, 2)
		_, dropped, _ := l.snapshot()
		assert.Equal(t, map[int]error{1: ants.ErrQueueTimeout, 2: ants.ErrQueueTimeout}, dropped)
	})
}

// TestQueueTargetCallersOnly runs CoDel on a pool with no buffer: the
// blocked callers take turns, newest first while overloaded, and those
// that waited too long when their turn comes return ErrQueueTimeout.
func TestQueueTargetCallersOnly(t *testing.T) {
	clock := ants.NewFakeClock()
	p, err := ants.NewPool(1, ants.WithQueueTarget(10*time.Millisecond, 100*time.Millisecond), ants.WithFakeClock(clock))
	require.NoError(t, err)
	defer p.Release()
	s := newStepper(t)
	require.NoError(t, p.Submit(s.task(0, nil)))
	require.Equal(t, 0, s.next())
	errs := map[int]<-chan error{}
	for id := 1; id <= 3; id++ {
		errs[id] = blocked(t, p, id, func() error { return p.Submit(s.task(id, nil)) })
	}
	clock.Forward(50 * time.Millisecond)
	s.end()
	assert.Equal(t, 1, s.next(), "FIFO before the overload")
	require.NoError(t, recv(t, errs[1], "caller 1"))
	clock.Forward(105 * time.Millisecond)
	errs[100] = blocked(t, p, 3, func() error { return p.Submit(s.task(100, nil)) })
	clock.Forward(5 * time.Millisecond)
	s.end()
	assert.Equal(t, 100, s.next(), "overloaded: the newest caller first")
	require.NoError(t, recv(t, errs[100], "caller 100"))
	s.end()
	// 2 and 3 have waited 160 ms > 2*target: each is dropped at its turn.
	assert.ErrorIs(t, recv(t, errs[3], "caller 3"), ants.ErrQueueTimeout)
	assert.ErrorIs(t, recv(t, errs[2], "caller 2"), ants.ErrQueueTimeout)
	st := p.Stats()
	assert.Equal(t, uint64(2), st.Rejected)
	assert.Zero(t, st.Dropped)
}

func TestReleaseDrainsAndDropsExpired(t *testing.T) {
	clock := ants.NewFakeClock()
	l := newDropLedger()
	p, err := ants.NewPool(1, ants.WithQueueSize(4), ants.WithQueueTimeout(10*time.Millisecond),
		ants.WithFakeClock(clock), ants.WithDropHandler(l.handler))
	require.NoError(t, err)
	g := holdWorker(t, p)
	require.NoError(t, p.SubmitContext(withID(context.Background(), 1), l.task(1)))
	clock.Forward(10 * time.Millisecond)
	require.NoError(t, p.SubmitContext(withID(context.Background(), 2), l.task(2)))
	errc := async(func() error { return p.ReleaseTimeout(long) })
	waitUntil(t, "the release to wait", func() bool { return p.IsClosed() })
	g.open()
	require.NoError(t, recv(t, errc, "the release"))
	ran, dropped, _ := l.snapshot()
	assert.Equal(t, []int{2}, ran)
	assert.Equal(t, map[int]error{1: ants.ErrQueueTimeout}, dropped)
}

func TestPausedBufferExpires(t *testing.T) {
	clock := ants.NewFakeClock()
	l := newDropLedger()
	p, err := ants.NewPool(2, ants.WithQueueSize(4), ants.WithQueueTimeout(10*time.Millisecond),
		ants.WithFakeClock(clock), ants.WithDropHandler(l.handler))
	require.NoError(t, err)
	defer p.Release()
	require.NoError(t, p.Pause(context.Background()))
	require.NoError(t, p.SubmitContext(withID(context.Background(), 1), l.task(1)))
	clock.Forward(10 * time.Millisecond)
	require.NoError(t, p.SubmitContext(withID(context.Background(), 2), l.task(2)))
	p.Resume()
	l.await(t, 2)
	ran, dropped, _ := l.snapshot()
	assert.Equal(t, []int{2}, ran)
	assert.Equal(t, map[int]error{1: ants.ErrQueueTimeout}, dropped)
}

// TestContextWatchStartsNoGoroutine buffers a thousand tasks with
// contexts that can end: watching them for their end starts no goroutine.
func TestContextWatchStartsNoGoroutine(t *testing.T) {
	const n = 1000
	p, err := ants.NewPool(1, ants.WithQueueSize(n), ants.WithQueueTimeout(time.Hour))
	require.NoError(t, err)
	defer p.Release()
	g := holdWorker(t, p)
	before := runtime.NumGoroutine()
	cancels := make([]context.CancelFunc, n)
	var ran atomic.Int32
	for i := range cancels {
		var ctx context.Context
		ctx, cancels[i] = context.WithCancel(context.Background())
		require.NoError(t, p.SubmitContext(ctx, func() { ran.Add(1) }))
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), before+10)
	for _, cancel := range cancels[:n/2] {
		cancel()
	}
	waitUntil(t, "half the buffer to be dropped", func() bool { return p.Stats().Dropped == n/2 })
	assert.Equal(t, n/2, p.Stats().Queued)
	for _, cancel := range cancels[n/2:] {
		defer cancel()
	}
	g.open()
	require.NoError(t, p.ReleaseTimeout(long))
	assert.Equal(t, int32(n/2), ran.Load())
}

// TestOverloadStressLedger submits from many goroutines to pools with
// overload control, with contexts that end at random, while the pool is
// tuned and finally released: every accepted task runs or is dropped,
// exactly once, and the counts agree with the ledger.
func TestOverloadStressLedger(t *testing.T) {
	for _, opts := range []struct {
		name string
		opts []ants.Option
	}{
		{"timeout", []ants.Option{ants.WithQueueSize(16), ants.WithQueueTimeout(50 * time.Microsecond)}},
		{"target", []ants.Option{ants.WithQueueSize(16), ants.WithQueueTarget(20*time.Microsecond, time.Millisecond)}},
		{"both, callers only", []ants.Option{ants.WithQueueTimeout(200 * time.Microsecond), ants.WithQueueTarget(20*time.Microsecond, time.Millisecond)}},
		{"flows and levels only", []ants.Option{ants.WithQueueSize(8), ants.WithPriorityAging(100 * time.Microsecond),
			ants.WithFlowWeights(func(flow string) int { return len(flow) % 3 })}},
		{"both, levels", []ants.Option{ants.WithQueueSize(8), ants.WithQueueTimeout(200 * time.Microsecond),
			ants.WithQueueTarget(20*time.Microsecond, time.Millisecond), ants.WithPriorityAging(100 * time.Microsecond)}},
	} {
		t.Run(opts.name, func(t *testing.T) {
			const submitters, each = 8, 300
			var mu sync.Mutex
			outcome := map[int]string{}
			note := func(id int, what string) {
				mu.Lock()
				defer mu.Unlock()
				if prev, ok := outcome[id]; ok {
					t.Errorf("task %d: %s after %s", id, what, prev)
				}
				outcome[id] = what
			}
			handler := func(ctx context.Context, _ any, err error) {
				note(ctx.Value(idKey{}).(int), "dropped")
			}
			p, err := ants.NewPool(3, append(opts.opts, ants.WithDropHandler(handler))...)
			require.NoError(t, err)
			var accepted atomic.Int64
			var wg sync.WaitGroup
			for s := 0; s < submitters; s++ {
				wg.Add(1)
				go func(s int) {
					defer wg.Done()
					for i := 0; i < each; i++ {
						id := s*each + i
						ctx := withID(ants.ContextWithPriority(context.Background(), i%3), id)
						ctx = ants.ContextWithFlow(ctx, fmt.Sprint("flow", (s+i)%4))
						var cancel context.CancelFunc = func() {}
						if i%4 == 0 {
							ctx, cancel = context.WithCancel(ctx)
						}
						err := p.SubmitContext(ctx, func() {
							if i%7 == 0 { // a longer task, so that work waits
								for start := time.Now(); time.Since(start) < 20*time.Microsecond; {
								}
							}
							note(id, "ran")
						})
						if err == nil {
							accepted.Add(1)
						}
						cancel()
						if s == 0 && i%50 == 0 {
							p.Tune(2 + i%3)
						}
					}
				}(s)
			}
			wg.Wait()
			require.NoError(t, p.ReleaseTimeout(long))
			st := p.Stats()
			mu.Lock()
			defer mu.Unlock()
			ran, dropped := 0, 0
			for _, what := range outcome {
				if what == "ran" {
					ran++
				} else {
					dropped++
				}
			}
			assert.Equal(t, int(accepted.Load()), ran+dropped, "accepted tasks")
			assert.Equal(t, uint64(accepted.Load()), st.Submitted)
			assert.Equal(t, uint64(ran), st.Completed)
			assert.Equal(t, uint64(dropped), st.Dropped)
			assert.Equal(t, st.Submitted, st.Completed+st.Panicked+st.Dropped)
			require.NoError(t, p.CheckInvariants())
			t.Logf("%d accepted: %d ran, %d dropped; %d refused", accepted.Load(), ran, dropped, st.Rejected)
		})
	}
}

// TestQueueTargetBurstPasses queues a burst that one worker takes 50 ms to
// run, at a target of 10 ms: waits reach 5*target, yet the queue drains
// within the interval, so the pool is never overloaded and drops nothing.
// Then the same backlog kept up for longer than an interval is dropped
// down.
func TestQueueTargetBurstPasses(t *testing.T) {
	clock := ants.NewFakeClock()
	l := newDropLedger()
	p, err := ants.NewPool(1, ants.WithQueueSize(64),
		ants.WithQueueTarget(10*time.Millisecond, 100*time.Millisecond),
		ants.WithFakeClock(clock), ants.WithDropHandler(l.handler))
	require.NoError(t, err)
	defer p.Release()
	s := newStepper(t)
	submit := func(id int) {
		require.NoError(t, p.SubmitContext(withID(context.Background(), id), s.task(id, l.task(id))))
	}
	// Each task "runs" 10 ms of the clock: end it, and see which starts.
	runFor := func() int {
		t.Helper()
		clock.Forward(10 * time.Millisecond)
		s.end()
		return s.next()
	}
	submit(0)
	s.next()
	for id := 1; id <= 5; id++ {
		submit(id)
	}
	for id := 1; id <= 5; id++ {
		assert.Equal(t, id, runFor())
	}
	clock.Forward(10 * time.Millisecond)
	s.end()
	l.await(t, 6)
	_, dropped, _ := l.snapshot()
	assert.Empty(t, dropped, "a burst shorter than an interval")

	// Sustained: two arrivals per task time for 300 ms.
	next := 100
	submit(next)
	s.next()
	for i := 0; i < 30; i++ {
		submit(next + 1)
		submit(next + 2)
		next += 2
		runFor()
	}
	assert.NotZero(t, p.Stats().Dropped, "a standing queue")
	assert.LessOrEqual(t, p.Stats().Queued, 5, "the queue is kept near 2*target of work")
}
