package ants_test

import (
	"context"
	"errors"
	"slices"
	"sync"
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
	g := newGate(t)
	occupyWith(t, p.Submit, g, 1)
	waitRunning(t, p, 1)

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
	g := newGate(t)
	occupyWith(t, p.Submit, g, 1)
	waitRunning(t, p, 1)
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
			g := newGate(t)
			occupyWith(t, p.Submit, g, 1)
			waitRunning(t, p, 1)
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
	g := newGate(t)
	occupyWith(t, p.Submit, g, 1)
	waitRunning(t, p, 1)
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
	g := newGate(t)
	occupyWith(t, p.Submit, g, 1)
	waitRunning(t, p, 1)
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

	started := make(chan int, 16)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	step := func(id int) func() {
		return func() {
			started <- id
			release <- struct{}{}
			l.task(id)()
		}
	}
	submit := func(ids ...int) {
		for _, id := range ids {
			require.NoError(t, p.SubmitContext(withID(context.Background(), id), step(id)))
		}
	}
	next := func() int { // lets the running task end, returns the next to start
		t.Helper()
		<-release
		return recv(t, started, "the next task to start")
	}

	submit(0)
	require.Equal(t, 0, recv(t, started, "the first task"))
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
	<-release
	l.await(t, 4+4) // 0, 1, 101, 100 ran; 2-5 dropped
	submit(6, 7, 8)
	assert.Equal(t, 6, recv(t, started, "task 6"))
	clock.Forward(50 * time.Millisecond)
	assert.Equal(t, 7, next(), "the waiting work ran out: FIFO again")
	assert.Equal(t, 8, next())
	<-release
	l.await(t, 3)

	ran, dropped, _ := l.snapshot()
	assert.Equal(t, []int{0, 1, 101, 100, 6, 7, 8}, ran)
	assert.Equal(t, map[int]error{2: ants.ErrQueueTimeout, 3: ants.ErrQueueTimeout,
		4: ants.ErrQueueTimeout, 5: ants.ErrQueueTimeout}, dropped)
	s := p.Stats()
	assert.Equal(t, uint64(4), s.Dropped)
}
