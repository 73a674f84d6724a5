package ants_test

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// The tests of WorkerPool run it on testWorkers, which check from inside
// the contract a Worker relies on: its calls never overlap, newWorker, every
// Process and Close run on one goroutine, Close comes once and last, and no
// two live Workers share an id. A fleet makes them and records their lives.

// goid returns the id of the calling goroutine, from the header of its
// stack trace ("goroutine 42 [running]:"). The runtime gives no other way
// to tell two goroutines apart, and the tests need only that.
func goid() uint64 {
	var buf [64]byte
	b := bytes.TrimPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	n, err := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	if err != nil {
		panic("goid: " + err.Error())
	}
	return n
}

// job is the argument of the test pools: do, if set, runs inside the
// Worker's Process, and its error is Process's.
type job struct {
	do func(ctx context.Context, w *testWorker) error
}

// result is what a testWorker's Process returns: the Worker's id and how
// many tasks it has run, this one included.
type result struct{ id, n int }

type testWorker struct {
	f      *fleet
	id     int
	goid   uint64 // the goroutine newWorker ran on
	n      int    // tasks run: state that only the Worker's calls touch
	busy   atomic.Bool
	closed atomic.Bool
}

// fleet is the newWorker of a test pool and the record of its Workers.
type fleet struct {
	t *testing.T

	mu      sync.Mutex
	live    map[int]*testWorker // by id, from newWorker until Close returns
	made    []int               // the id of every Worker made, in order
	onNew   func(id int) bool   // if set, runs first in newWorker; false: return nil
	onClose func(w *testWorker) // if set, runs in Close

	closed atomic.Int64
	closes chan int // the id of each Close as it returns, while there is room
}

func newFleet(t *testing.T) *fleet {
	return &fleet{t: t, live: map[int]*testWorker{}, closes: make(chan int, 1024)}
}

// newFleetPool returns a WorkerPool of size on a new fleet, on a fake clock
// that only the test advances, so that no Worker expires unless the test
// says so (an option WithFakeClock replaces it).
func newFleetPool(t *testing.T, size int, opts ...ants.Option) (*ants.WorkerPool[job, result], *fleet) {
	t.Helper()
	return startFleetPool(t, size, append([]ants.Option{ants.WithFakeClock(ants.NewFakeClock())}, opts...)...)
}

// startFleetPool returns a WorkerPool of size on a new fleet. At the end of
// the test it releases the pool, if the test has not, and checks that every
// Worker was closed.
func startFleetPool(t *testing.T, size int, opts ...ants.Option) (*ants.WorkerPool[job, result], *fleet) {
	t.Helper()
	f := newFleet(t)
	p, err := ants.NewWorkerPool(size, f.newWorker, opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := p.ReleaseTimeout(long); err != nil && !errors.Is(err, ants.ErrPoolClosed) {
			t.Errorf("ReleaseTimeout: %v", err)
		}
		waitUntil(t, "every worker exits", func() bool { return p.LiveWorkers() == 0 })
		assert.Empty(t, f.liveIDs(), "Workers never closed")
		assert.NoError(t, p.CheckInvariants())
	})
	return p, f
}

func (f *fleet) newWorker(id int) ants.Worker[job, result] {
	f.mu.Lock()
	onNew := f.onNew
	f.mu.Unlock()
	if onNew != nil && !onNew(id) {
		return nil
	}
	w := &testWorker{f: f, id: id, goid: goid()}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.live[id] != nil {
		f.t.Errorf("id %d given to a new Worker while another holds it", id)
	}
	f.live[id] = w
	f.made = append(f.made, id)
	return w
}

func (w *testWorker) Process(ctx context.Context, j job) (result, error) {
	if !w.busy.CompareAndSwap(false, true) {
		w.f.t.Errorf("Worker %d: overlapping calls of Process", w.id)
	}
	defer w.busy.Store(false)
	if w.closed.Load() {
		w.f.t.Errorf("Worker %d: Process after Close", w.id)
	}
	if g := goid(); g != w.goid {
		w.f.t.Errorf("Worker %d: Process on goroutine %d, newWorker ran on %d", w.id, g, w.goid)
	}
	w.n++
	var err error
	if j.do != nil {
		err = j.do(ctx, w)
	}
	return result{w.id, w.n}, err
}

func (w *testWorker) Close() {
	if w.busy.Load() {
		w.f.t.Errorf("Worker %d: Close during Process", w.id)
	}
	if !w.closed.CompareAndSwap(false, true) {
		w.f.t.Errorf("Worker %d: Close called twice", w.id)
	}
	if g := goid(); g != w.goid {
		w.f.t.Errorf("Worker %d: Close on goroutine %d, newWorker ran on %d", w.id, g, w.goid)
	}
	f := w.f
	defer func() {
		// Recorded as Close returns, even by a panic: the id stays held
		// until then, so a new Worker given it meanwhile is caught.
		f.mu.Lock()
		if f.live[w.id] != w {
			f.t.Errorf("Worker %d: closed but not live", w.id)
		}
		delete(f.live, w.id)
		f.mu.Unlock()
		f.closed.Add(1)
		select {
		case f.closes <- w.id:
		default:
		}
	}()
	f.mu.Lock()
	onClose := f.onClose
	f.mu.Unlock()
	if onClose != nil {
		onClose(w) // may block or panic
	}
}

func (f *fleet) setOnNew(fn func(id int) bool) {
	f.mu.Lock()
	f.onNew = fn
	f.mu.Unlock()
}

func (f *fleet) setOnClose(fn func(w *testWorker)) {
	f.mu.Lock()
	f.onClose = fn
	f.mu.Unlock()
}

// liveIDs returns the ids of the live Workers, sorted.
func (f *fleet) liveIDs() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	ids := make([]int, 0, len(f.live))
	for id := range f.live {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// madeCount returns how many Workers newWorker has made.
func (f *fleet) madeCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.made)
}

// held is a job that reports its Worker's id on started and then waits for
// g to open.
func held(g *gate, started chan<- int) job {
	return job{do: func(_ context.Context, w *testWorker) error {
		started <- w.id
		<-g.ch
		return nil
	}}
}

// hold starts n held jobs with Go and returns their futures and the ids of
// the Workers running them, sorted, once all have started.
func hold(t *testing.T, p *ants.WorkerPool[job, result], g *gate, n int) ([]*ants.Future[result], []int) {
	t.Helper()
	started := make(chan int, n)
	fs := make([]*ants.Future[result], n)
	for i := range fs {
		fs[i] = p.Go(context.Background(), held(g, started))
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = recv(t, started, "a held job to start")
	}
	slices.Sort(ids)
	return fs, ids
}

// waitAll waits for every future and fails the test on an error.
func waitAll(t *testing.T, fs []*ants.Future[result]) {
	t.Helper()
	for _, f := range fs {
		recv(t, f.Done(), "a future")
		_, err := f.Wait()
		require.NoError(t, err)
	}
}

// processAsync calls Process from a new goroutine and returns its error.
func processAsync(p *ants.WorkerPool[job, result], j job) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := p.Process(context.Background(), j)
		errc <- err
	}()
	return errc
}

// seq returns 0, 1, ..., n-1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func TestWorkerPoolConstructor(t *testing.T) {
	newWorker := func(int) ants.Worker[int, int] { return nil }
	t.Run("a size that is not positive is ErrInvalidPoolSize", func(t *testing.T) {
		for _, size := range []int{0, -1} {
			p, err := ants.NewWorkerPool(size, newWorker)
			assert.ErrorIs(t, err, ants.ErrInvalidPoolSize)
			assert.Nil(t, p)
		}
	})
	t.Run("a nil newWorker is ErrLackPoolFunc", func(t *testing.T) {
		p, err := ants.NewWorkerPool[int, int](1, nil)
		assert.ErrorIs(t, err, ants.ErrLackPoolFunc)
		assert.Nil(t, p)
	})
	t.Run("negative MinWorkers is ErrInvalidMinWorkers", func(t *testing.T) {
		p, err := ants.NewWorkerPool(1, newWorker, ants.WithMinWorkers(-1))
		assert.ErrorIs(t, err, ants.ErrInvalidMinWorkers)
		assert.Nil(t, p)
	})
	t.Run("the options of every pool apply", func(t *testing.T) {
		p, err := ants.NewWorkerPool(1, newWorker, ants.WithExpiryDuration(-1))
		assert.ErrorIs(t, err, ants.ErrInvalidPoolExpiry)
		assert.Nil(t, p)
	})
	t.Run("no Worker is made and no worker starts before the first task", func(t *testing.T) {
		p, f := newFleetPool(t, 4)
		assert.Equal(t, 0, f.madeCount())
		assert.Equal(t, 0, p.Running())
		assert.Equal(t, 4, p.Cap())
	})
}

func TestWorkerPoolKeepsStateAcrossTasks(t *testing.T) {
	p, f := newFleetPool(t, 1)
	for i := 1; i <= 10; i++ {
		r, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		assert.Equal(t, result{id: 0, n: i}, r, "the same Worker runs every task and counts them")
	}
	assert.Equal(t, []int{0}, f.made)
	s := p.Stats()
	assert.Equal(t, uint64(10), s.Submitted)
	assert.Equal(t, uint64(10), s.Completed)
	require.NoError(t, p.ReleaseTimeout(long))
	assert.Equal(t, int64(1), f.closed.Load())
}

func TestWorkerPoolIDs(t *testing.T) {
	t.Run("ids are dense from 0 and each live Worker holds its own", func(t *testing.T) {
		p, f := newFleetPool(t, 4)
		g := newGate(t)
		fs, ids := hold(t, p, g, 4)
		assert.Equal(t, seq(4), ids)
		assert.Equal(t, seq(4), f.liveIDs())
		g.open()
		waitAll(t, fs)
	})
	t.Run("ids stay dense past the first 64", func(t *testing.T) {
		p, _ := newFleetPool(t, 130)
		g := newGate(t)
		fs, ids := hold(t, p, g, 130)
		assert.Equal(t, seq(130), ids)
		g.open()
		waitAll(t, fs)
	})
	t.Run("a new Worker takes the smallest free id", func(t *testing.T) {
		p, f := newFleetPool(t, 4)
		g := newGate(t)
		started := make(chan int, 4)
		fs := make([]*ants.Future[result], 4)
		for i := range fs {
			// Workers 1 and 3 panic when released, and exit: ids 1 and 3
			// are free, 0 and 2 held by idle Workers.
			fs[i] = p.Go(context.Background(), job{do: func(_ context.Context, w *testWorker) error {
				started <- w.id
				<-g.ch
				if w.id%2 == 1 {
					panic("exit")
				}
				return nil
			}})
		}
		for range fs {
			recv(t, started, "a job to start")
		}
		g.open()
		for _, f := range fs {
			_, _ = f.Wait()
		}
		for range 2 {
			recv(t, f.closes, "the Close of a Worker that panicked")
		}
		waitUntil(t, "their goroutines exit", func() bool { return p.LiveWorkers() == 2 })
		assert.Equal(t, []int{0, 2}, f.liveIDs())

		waitIdle(t, p, 2) // the futures are done a moment before their workers are idle

		g2 := newGate(t)
		fs, ids := hold(t, p, g2, 3)
		assert.Equal(t, []int{0, 1, 2}, ids, "the new Worker got 1, not 3")
		g2.open()
		waitAll(t, fs)
	})
	t.Run("ids freed by expiry are reused", func(t *testing.T) {
		c := ants.NewFakeClock()
		p, f := newFleetPool(t, 3, ants.WithFakeClock(c), ants.WithExpiryDuration(time.Second))
		for round := 0; round < 3; round++ {
			g := newGate(t)
			fs, ids := hold(t, p, g, 3)
			assert.Equal(t, seq(3), ids, "round %d", round)
			g.open()
			waitAll(t, fs)
			waitIdle(t, p, 3)
			require.True(t, c.Advance(time.Second))
			require.True(t, c.Advance(time.Second))
			for range 3 {
				recv(t, f.closes, "an expired Worker's Close")
			}
			waitUntil(t, "the expired workers exit", func() bool { return p.LiveWorkers() == 0 })
		}
		assert.Len(t, f.made, 9)
	})
}

// TestWorkerPoolClosesEveryWorkerOnItsGoroutine takes a Worker out by each
// way a worker exits; the testWorker itself checks that Close runs once, on
// the goroutine that made it, never during Process.
func TestWorkerPoolClosesEveryWorkerOnItsGoroutine(t *testing.T) {
	t.Run("purge expiry", func(t *testing.T) {
		c := ants.NewFakeClock()
		p, f := newFleetPool(t, 2, ants.WithFakeClock(c), ants.WithExpiryDuration(time.Second))
		_, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		waitIdle(t, p, 1)
		require.True(t, c.Advance(time.Second))
		assertNoRecv(t, f.closes, "a Close one tick after the Worker went idle")
		require.True(t, c.Advance(time.Second))
		assert.Equal(t, 0, recv(t, f.closes, "the expired Worker's Close"))
		waitRunning(t, p, 0)
	})
	t.Run("shrinking Tune", func(t *testing.T) {
		p, f := newIdleFleet(t, 4)
		p.Tune(1)
		for range 3 {
			recv(t, f.closes, "a surplus Worker's Close")
		}
		assert.Len(t, f.liveIDs(), 1)
		assertNoRecv(t, f.closes, "a fourth Close")
	})
	t.Run("shrinking Tune while busy", func(t *testing.T) {
		p, f := newFleetPool(t, 3)
		g := newGate(t)
		fs, _ := hold(t, p, g, 3)
		p.Tune(1)
		assertNoRecv(t, f.closes, "a Close while its Worker is busy")
		g.open()
		waitAll(t, fs)
		for range 2 {
			recv(t, f.closes, "a surplus Worker's Close after its task")
		}
		assert.Len(t, f.liveIDs(), 1)
	})
	t.Run("Release", func(t *testing.T) {
		p, f := newFleetPool(t, 3)
		g := newGate(t)
		fs, _ := hold(t, p, g, 3)
		g.open()
		waitAll(t, fs)
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Equal(t, int64(3), f.closed.Load())
		assert.Empty(t, f.liveIDs())
	})
	t.Run("panic in Process", func(t *testing.T) {
		var handled atomic.Int32
		p, f := newFleetPool(t, 1, ants.WithPanicHandler(func(any) { handled.Add(1) }))
		_, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		_, err = p.Process(context.Background(), job{do: func(context.Context, *testWorker) error { panic("boom") }})
		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "boom", pe.Value)
		assert.Contains(t, string(pe.Stack), "testWorker", "the stack is the panicking one")
		assert.Equal(t, 0, recv(t, f.closes, "the panicked Worker's Close"))
		assert.Zero(t, handled.Load(), "the PanicHandler saw a panic returned to the caller")
	})
	t.Run("runtime.Goexit in Process", func(t *testing.T) {
		p, f := newFleetPool(t, 1)
		_, err := p.Process(context.Background(), job{do: func(context.Context, *testWorker) error {
			runtime.Goexit()
			return nil
		}})
		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, 0, recv(t, f.closes, "the Close of the Worker whose goroutine ended"))
		r, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		assert.Equal(t, result{id: 0, n: 1}, r, "a new Worker, with the freed id")
	})
}

func TestWorkerPoolPanics(t *testing.T) {
	boom := job{do: func(context.Context, *testWorker) error { panic("boom") }}
	t.Run("a panic replaces the Worker", func(t *testing.T) {
		p, f := newFleetPool(t, 1)
		r, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		assert.Equal(t, result{0, 1}, r)
		_, err = p.Process(context.Background(), boom)
		require.Error(t, err)
		recv(t, f.closes, "the panicked Worker's Close")
		r, err = p.Process(context.Background(), job{})
		require.NoError(t, err)
		assert.Equal(t, result{0, 1}, r, "a fresh Worker: its count starts again")
		assert.Equal(t, []int{0, 0}, f.made)
	})
	t.Run("a panic in Go's task is the Future's error", func(t *testing.T) {
		p, _ := newFleetPool(t, 1)
		_, err := p.Go(context.Background(), boom).Wait()
		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "boom", pe.Value)
	})
	t.Run("a panic in newWorker is the caller's and frees the id", func(t *testing.T) {
		p, f := newFleetPool(t, 2)
		f.setOnNew(func(id int) bool { panic("no connection") })
		_, err := p.Process(context.Background(), job{})
		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "no connection", pe.Value)
		f.setOnNew(nil)
		r, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		assert.Equal(t, result{0, 1}, r)
		assert.Equal(t, []int{0}, f.made)
	})
	t.Run("a nil Worker is a panic of the caller and frees the id", func(t *testing.T) {
		p, f := newFleetPool(t, 2)
		var asked []int
		f.setOnNew(func(id int) bool { asked = append(asked, id); return false })
		_, err := p.Go(context.Background(), job{}).Wait()
		var pe *ants.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Contains(t, pe.Error(), "nil Worker")
		f.setOnNew(func(id int) bool { asked = append(asked, id); return true })
		r, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		assert.Equal(t, result{0, 1}, r)
		assert.Equal(t, []int{0, 0}, asked)
		assert.Equal(t, int64(0), f.closed.Load(), "a Worker that was never made is not closed")
	})
	t.Run("a panic returned to the caller counts as Panicked, not Completed", func(t *testing.T) {
		var handled atomic.Int32
		p, _ := newFleetPool(t, 1, ants.WithPanicHandler(func(any) { handled.Add(1) }))
		_, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		_, err = p.Process(context.Background(), boom)
		require.Error(t, err)
		_, err = p.Go(context.Background(), boom).Wait()
		require.Error(t, err)
		s := waitAtRest(t, p)
		assert.Equal(t, uint64(3), s.Submitted)
		assert.Equal(t, uint64(1), s.Completed)
		assert.Equal(t, uint64(2), s.Panicked)
		assert.Zero(t, handled.Load())
	})
	t.Run("a nil Worker counts as Panicked", func(t *testing.T) {
		p, f := newFleetPool(t, 1)
		f.setOnNew(func(int) bool { return false })
		_, err := p.Process(context.Background(), job{})
		require.Error(t, err)
		s := waitAtRest(t, p)
		assert.Equal(t, uint64(1), s.Panicked)
		assert.Zero(t, s.Completed)
	})
	t.Run("a panic in Close goes to the PanicHandler and the worker exits", func(t *testing.T) {
		handled := make(chan any, 1)
		p, f := newFleetPool(t, 1, ants.WithPanicHandler(func(v any) { handled <- v }))
		f.setOnClose(func(*testWorker) { panic("close failed") })
		_, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Equal(t, "close failed", recv(t, handled, "the PanicHandler"))
		assert.Equal(t, 0, p.Running())
	})
	t.Run("a panic in Close without a PanicHandler goes to the Logger", func(t *testing.T) {
		logs := make(chan string, 1)
		p, f := newFleetPool(t, 1, ants.WithLogger(testLogger{logs}))
		f.setOnClose(func(*testWorker) { panic("close failed") })
		_, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		require.NoError(t, p.ReleaseTimeout(long))
		assert.Contains(t, recv(t, logs, "the log line"), "close failed")
	})
}

func TestWorkerPoolCallsNeverOverlap(t *testing.T) {
	const (
		callers = 16
		calls   = 200
	)
	p, f := newFleetPool(t, 4)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range calls {
				var err error
				if (c+i)%2 == 0 {
					_, err = p.Process(context.Background(), job{do: func(context.Context, *testWorker) error {
						runtime.Gosched()
						return nil
					}})
				} else {
					_, err = p.Go(context.Background(), job{}).Wait()
				}
				if err != nil {
					t.Errorf("call %d: %v", i, err)
				}
			}
		}()
	}
	wg.Wait()
	// A task counts as completed just after its caller has its result.
	waitUntil(t, "every task counts as completed", func() bool { return p.Stats().Completed == callers*calls })
	for _, id := range f.liveIDs() {
		assert.Less(t, id, 4)
	}
}

func TestWorkerPoolContext(t *testing.T) {
	seen := func(flag *atomic.Bool) job {
		return job{do: func(context.Context, *testWorker) error { flag.Store(true); return nil }}
	}
	t.Run("a ctx already done returns at once", func(t *testing.T) {
		p, f := newFleetPool(t, 1)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var saw atomic.Bool
		_, err := p.Process(ctx, seen(&saw))
		assert.ErrorIs(t, err, context.Canceled)
		_, err = p.Go(ctx, seen(&saw)).Wait()
		assert.ErrorIs(t, err, context.Canceled)
		assert.False(t, saw.Load())
		assert.Equal(t, 0, f.madeCount())
		assert.Equal(t, uint64(2), p.Stats().Rejected)
	})
	t.Run("a ctx done while waiting for capacity", func(t *testing.T) {
		p, _ := newFleetPool(t, 2)
		g := newGate(t)
		fs, _ := hold(t, p, g, 2)
		ctx, cancel := context.WithCancel(context.Background())
		var saw atomic.Bool
		errc := make(chan error, 1)
		go func() {
			_, err := p.Process(ctx, seen(&saw))
			errc <- err
		}()
		waitWaiting(t, p, 1)
		cancel()
		assert.ErrorIs(t, recv(t, errc, "Process to give up"), context.Canceled)
		g.open()
		waitAll(t, fs)
		assert.False(t, saw.Load(), "a Worker saw the arg of a cancelled call")
	})
	t.Run("a ctx done while the task waits in the buffer", func(t *testing.T) {
		p, f := newFleetPool(t, 2, ants.WithQueueSize(1))
		g := newGate(t)
		fs, _ := hold(t, p, g, 2)
		ctx, cancel := context.WithCancel(context.Background())
		var saw atomic.Bool
		fut := p.Go(ctx, seen(&saw))
		assert.Equal(t, 1, p.Stats().Queued)
		cancel()
		g.open()
		waitAll(t, fs)
		_, err := fut.Wait()
		assert.ErrorIs(t, err, context.Canceled)
		assert.False(t, saw.Load(), "a Worker saw the arg of a cancelled call")
		assert.Equal(t, 2, f.madeCount())
	})
	t.Run("once started, the Worker's result is returned whatever ctx does", func(t *testing.T) {
		p, _ := newFleetPool(t, 1)
		ctx, cancel := context.WithCancel(context.Background())
		started, finish := make(chan struct{}), make(chan struct{})
		errWorker := errors.New("worker says no")
		rc := make(chan error, 1)
		go func() {
			_, err := p.Process(ctx, job{do: func(ctx context.Context, _ *testWorker) error {
				close(started)
				<-ctx.Done() // the Worker sees the caller give up
				<-finish
				return errWorker
			}})
			rc <- err
		}()
		recv(t, started, "the task to start")
		cancel()
		assertNoRecv(t, rc, "Process returning while its Worker runs")
		close(finish)
		assert.ErrorIs(t, recv(t, rc, "Process"), errWorker)
	})
	t.Run("a nil ctx is Background", func(t *testing.T) {
		p, _ := newFleetPool(t, 1)
		var nilCtx context.Context
		r, err := p.Process(nilCtx, job{})
		require.NoError(t, err)
		assert.Equal(t, result{0, 1}, r)
	})
}

func TestWorkerPoolRefusesAsSubmitContext(t *testing.T) {
	t.Run("Nonblocking", func(t *testing.T) {
		p, _ := newFleetPool(t, 1, ants.WithNonblocking(true))
		g := newGate(t)
		fs, _ := hold(t, p, g, 1)
		_, err := p.Process(context.Background(), job{})
		assert.ErrorIs(t, err, ants.ErrPoolOverload)
		_, err = p.Go(context.Background(), job{}).Wait()
		assert.ErrorIs(t, err, ants.ErrPoolOverload)
		g.open()
		waitAll(t, fs)
	})
	t.Run("MaxBlockingTasks", func(t *testing.T) {
		p, _ := newFleetPool(t, 1, ants.WithMaxBlockingTasks(1))
		g := newGate(t)
		fs, _ := hold(t, p, g, 1)
		waiter := processAsync(p, job{})
		waitWaiting(t, p, 1)
		_, err := p.Process(context.Background(), job{})
		assert.ErrorIs(t, err, ants.ErrPoolOverload)
		g.open()
		waitAll(t, fs)
		assert.NoError(t, recv(t, waiter, "the waiting call"))
	})
	t.Run("a closed pool", func(t *testing.T) {
		p, _ := newFleetPool(t, 1)
		g := newGate(t)
		fs, _ := hold(t, p, g, 1)
		waiter := processAsync(p, job{})
		waitWaiting(t, p, 1)
		p.Release()
		assert.ErrorIs(t, recv(t, waiter, "the waiting call"), ants.ErrPoolClosed)
		_, err := p.Process(context.Background(), job{})
		assert.ErrorIs(t, err, ants.ErrPoolClosed)
		_, err = p.Go(context.Background(), job{}).Wait()
		assert.ErrorIs(t, err, ants.ErrPoolClosed)
		g.open()
		waitAll(t, fs)
	})
}

func TestWorkerPoolMinWorkers(t *testing.T) {
	c := ants.NewFakeClock()
	p, f := newFleetPool(t, 4, ants.WithFakeClock(c), ants.WithExpiryDuration(time.Second), ants.WithMinWorkers(2))
	g := newGate(t)
	fs, _ := hold(t, p, g, 4)
	g.open()
	waitAll(t, fs)
	waitIdle(t, p, 4)
	require.True(t, c.Advance(time.Second))
	require.True(t, c.Advance(time.Second))
	for range 2 {
		recv(t, f.closes, "the Close of a Worker above the minimum")
	}
	for range 5 {
		require.True(t, c.Advance(time.Second), "the purge goroutine stays while workers are kept")
	}
	require.True(t, c.Sync())
	assertNoRecv(t, f.closes, "a Close below the minimum")
	assert.Equal(t, 2, p.Running())
	assert.Len(t, f.liveIDs(), 2)

	// The kept Workers still have their state.
	r, err := p.Process(context.Background(), job{})
	require.NoError(t, err)
	assert.Equal(t, 2, r.n)

	require.NoError(t, p.ReleaseTimeout(long))
	assert.Equal(t, int64(4), f.closed.Load(), "Release stops the kept Workers too")
}

func TestWorkerPoolTune(t *testing.T) {
	t.Run("after a growing Tune ids reach the new capacity", func(t *testing.T) {
		p, f := newFleetPool(t, 2)
		g := newGate(t)
		fs, _ := hold(t, p, g, 2)
		started := make(chan int, 1)
		waiter := processAsync(p, held(g, started))
		waitWaiting(t, p, 1)
		p.Tune(4)
		assert.Equal(t, 2, recv(t, started, "the waiting call to start on a new worker"))
		more, ids := hold(t, p, g, 1)
		assert.Equal(t, []int{3}, ids)
		assert.Equal(t, seq(4), f.liveIDs())
		g.open()
		waitAll(t, append(fs, more...))
		assert.NoError(t, recv(t, waiter, "the waiting call"))
	})
	t.Run("after a shrinking Tune the surplus ids are free", func(t *testing.T) {
		p, f := newIdleFleet(t, 4)
		p.Tune(2)
		for range 2 {
			recv(t, f.closes, "a surplus Worker's Close")
		}
		waitUntil(t, "the surplus workers exit", func() bool { return p.LiveWorkers() == 2 })
		require.Len(t, f.liveIDs(), 2)
		p.Tune(4)
		g2 := newGate(t)
		fs, ids := hold(t, p, g2, 4)
		assert.Equal(t, seq(4), ids, "the kept Workers and two new ones with the freed ids")
		g2.open()
		waitAll(t, fs)
		assert.Len(t, f.made, 6)
	})
}

func TestWorkerPoolReleaseAndReboot(t *testing.T) {
	t.Run("ReleaseTimeout returns nil only after every Close has returned", func(t *testing.T) {
		p, f := newFleetPool(t, 3)
		unblock := make(chan struct{})
		f.setOnClose(func(*testWorker) { <-unblock })
		g := newGate(t)
		fs, _ := hold(t, p, g, 3)
		g.open()
		waitAll(t, fs)
		done := make(chan error, 1)
		go func() { done <- p.ReleaseTimeout(long) }()
		assertNoRecv(t, done, "ReleaseTimeout returning while Close runs")
		close(unblock)
		require.NoError(t, recv(t, done, "ReleaseTimeout"))
		assert.Equal(t, int64(3), f.closed.Load())
		assert.Empty(t, f.liveIDs())
	})
	t.Run("ReleaseTimeout times out while a Close runs", func(t *testing.T) {
		p, f := newFleetPool(t, 1)
		unblock := make(chan struct{})
		f.setOnClose(func(*testWorker) { <-unblock })
		_, err := p.Process(context.Background(), job{})
		require.NoError(t, err)
		assert.ErrorIs(t, p.ReleaseTimeout(brief), ants.ErrTimeout)
		close(unblock)
		recv(t, f.closes, "the Close")
	})
	t.Run("busy Workers finish their task and close after Release", func(t *testing.T) {
		p, f := newFleetPool(t, 2)
		g := newGate(t)
		fs, _ := hold(t, p, g, 2)
		p.Release()
		assertNoRecv(t, f.closes, "a Close while its Worker is busy")
		g.open()
		waitAll(t, fs)
		for range 2 {
			recv(t, f.closes, "a Close after Release")
		}
	})
	t.Run("Reboot makes new Workers with ids from 0", func(t *testing.T) {
		p, f := newFleetPool(t, 2)
		g := newGate(t)
		fs, _ := hold(t, p, g, 2)
		g.open()
		waitAll(t, fs)
		require.NoError(t, p.ReleaseTimeout(long))
		assert.True(t, p.IsClosed())
		p.Reboot()
		assert.False(t, p.IsClosed())
		g2 := newGate(t)
		fs, ids := hold(t, p, g2, 2)
		assert.Equal(t, seq(2), ids)
		g2.open()
		waitAll(t, fs)
		assert.Equal(t, []int{0, 1, 0, 1}, sortedPairs(f.made))
	})
}

// sortedPairs sorts each consecutive pair of ids, which two concurrent
// starts may record in either order.
func sortedPairs(ids []int) []int {
	out := slices.Clone(ids)
	for i := 0; i+1 < len(out); i += 2 {
		slices.Sort(out[i : i+2])
	}
	return out
}

// TestWorkerPoolGoroutinesStayWithinCap churns a WorkerPool with a short
// expiry and a panic every 50 tasks (each retires its worker): the
// goroutines never pass the capacity plus the purge goroutine, and no two
// live Workers share an id or hold one past the capacity.
func TestWorkerPoolGoroutinesStayWithinCap(t *testing.T) {
	const (
		size    = 8
		callers = 32
	)
	n := 50_000
	if raceEnabled {
		n = 10_000
	}
	base := runtime.NumGoroutine()
	p, f := startFleetPool(t, size, ants.WithExpiryDuration(time.Millisecond), ants.WithQueueSize(size))
	var maxID atomic.Int64
	boom := job{do: func(_ context.Context, w *testWorker) error { panic(w.id) }}
	track := job{do: func(_ context.Context, w *testWorker) error {
		for m := maxID.Load(); int64(w.id) > m && !maxID.CompareAndSwap(m, int64(w.id)); m = maxID.Load() {
		}
		return nil
	}}
	s := sampleCensus(base + callers + 1 + size + 1)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(n); i = next.Add(1) {
				j := track
				if i%50 == 0 {
					j = boom
				}
				if _, err := p.Process(context.Background(), j); err != nil && i%50 != 0 {
					t.Errorf("task %d: %v", i, err)
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, p.ReleaseTimeout(long))
	assertWithinBound(t, s.stop(), size, 1)
	assert.Less(t, maxID.Load(), int64(size))
	assert.Equal(t, f.closed.Load(), int64(f.madeCount()))
}

// newIdleFleet is newFleetPool(t, n) after n tasks ran at once on it: n
// Workers made, every one of them idle.
func newIdleFleet(t *testing.T, n int) (*ants.WorkerPool[job, result], *fleet) {
	t.Helper()
	p, f := newFleetPool(t, n)
	g := newGate(t)
	fs, _ := hold(t, p, g, n)
	g.open()
	waitAll(t, fs)
	waitIdle(t, p, n)
	return p, f
}
