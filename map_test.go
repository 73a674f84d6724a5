package ants_test

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

// The tests of Map and MapUnordered call the sequence they return with a
// yield function, as a range statement does, so that they build with Go
// 1.22; map_go123_test.go ranges over it.

// mapFunc is Map or MapUnordered for ints.
type mapFunc = func(context.Context, ants.Submitter, int, func(func(int) bool),
	func(context.Context, int) (int, error)) func(func(int, error) bool)

// mapKinds are Map and MapUnordered, for the tests both must pass.
var mapKinds = []struct {
	name string
	m    mapFunc
}{{"Map", ants.Map[int, int]}, {"MapUnordered", ants.MapUnordered[int, int]}}

// countedSeq is a sequence of the ints from 0, n of them (n < 0: without
// end), that counts in taken the values it has handed over, and in asks
// its calls of yield: a value is taken once yield is called with it.
type countedSeq struct {
	n     int
	taken atomic.Int64
	runs  atomic.Int64 // how many times the sequence was started
}

func (c *countedSeq) seq(yield func(int) bool) {
	c.runs.Add(1)
	for i := 0; c.n < 0 || i < c.n; i++ {
		c.taken.Add(1)
		if !yield(i) {
			return
		}
	}
}

// pair is what a loop body received.
type pair struct {
	v   int
	err error
}

// collect ranges over seq to the end and returns every pair.
func collect(seq func(func(int, error) bool)) []pair {
	var got []pair
	seq(func(v int, err error) bool {
		got = append(got, pair{v, err})
		return true
	})
	return got
}

// newMapPool returns a pool of capacity workers, released (and checked for
// a clean release) when the test ends.
func newMapPool(t *testing.T, capacity int, opts ...ants.Option) *ants.Pool {
	t.Helper()
	p, err := ants.NewPool(capacity, opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		if !p.IsClosed() {
			assert.NoError(t, p.ReleaseTimeout(long))
		}
	})
	return p
}

// heldCalls is an fn whose calls each wait for their own release: calls of it
// report their value on started, and return (v*10, nil) once release(v)
// has been called.
type heldCalls struct {
	mu      sync.Mutex
	gates   map[int]chan struct{}
	started chan int
	running atomic.Int64
	most    atomic.Int64 // the most calls running at once
}

func newHeldCalls() *heldCalls {
	return &heldCalls{gates: make(map[int]chan struct{}), started: make(chan int, 1000)}
}

func (h *heldCalls) gate(v int) chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	g, ok := h.gates[v]
	if !ok {
		g = make(chan struct{})
		h.gates[v] = g
	}
	return g
}

func (h *heldCalls) release(v int) { close(h.gate(v)) }

func (h *heldCalls) fn(_ context.Context, v int) (int, error) {
	n := h.running.Add(1)
	for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
	}
	h.started <- v
	<-h.gate(v)
	h.running.Add(-1)
	return v * 10, nil
}

// waitStarted waits until the call of fn on v has started.
func (h *heldCalls) waitStarted(t *testing.T, want map[int]bool, v int) {
	t.Helper()
	for !want[v] {
		want[recv(t, h.started, "a call of fn to start")] = true
	}
}

// TestMapYieldsInOrder: calls finish in reverse order, window by window;
// Map yields their pairs in seq's order, and after k pairs has taken at
// most k + window values.
func TestMapYieldsInOrder(t *testing.T) {
	const window, n = 4, 12
	p := newMapPool(t, 100)
	h := newHeldCalls()
	c := &countedSeq{n: n}
	go func() { // releases each window's calls last first
		started := map[int]bool{}
		for b := 0; b < n; b += window {
			for v := b + window - 1; v >= b; v-- {
				h.waitStarted(t, started, v)
				h.release(v)
			}
		}
	}()
	var got []pair
	ants.Map(context.Background(), p, window, c.seq, h.fn)(func(v int, err error) bool {
		assert.LessOrEqual(t, c.taken.Load(), int64(len(got)+window), "values taken after %d pairs", len(got))
		got = append(got, pair{v, err})
		return true
	})
	want := make([]pair, n)
	for i := range want {
		want[i] = pair{i * 10, nil}
	}
	assert.Equal(t, want, got)
	assert.Equal(t, int64(window), h.most.Load(), "calls at once on a pool with room")
}

// TestMapUnorderedYieldsAsCallsReturn: the same calls, released last first
// and each one only once the previous pair was received, come out in the
// order they returned.
func TestMapUnorderedYieldsAsCallsReturn(t *testing.T) {
	const window, n = 4, 12
	p := newMapPool(t, 100)
	h := newHeldCalls()
	c := &countedSeq{n: n}
	yielded := make(chan int, n)
	go func() {
		started := map[int]bool{}
		for b := 0; b < n; b += window {
			for v := b + window - 1; v >= b; v-- {
				h.waitStarted(t, started, v)
				h.release(v)
				if recv(t, yielded, "the pair") != v*10 {
					return // the loop body reports it
				}
			}
		}
	}()
	var got, want []int
	ants.MapUnordered(context.Background(), p, window, c.seq, h.fn)(func(v int, err error) bool {
		assert.LessOrEqual(t, c.taken.Load(), int64(len(got)+window), "values taken after %d pairs", len(got))
		assert.NoError(t, err)
		got = append(got, v)
		yielded <- v
		return true
	})
	for b := 0; b < n; b += window {
		for v := b + window - 1; v >= b; v-- {
			want = append(want, v*10)
		}
	}
	assert.Equal(t, want, got)
}

// TestMapWindowOnALargePool: on a pool of 100 workers, window 3 bounds the
// calls running at once and the values in flight (taken, not yet yielded),
// and that many calls do run at once.
func TestMapWindowOnALargePool(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			const window, n = 3, 30
			p := newMapPool(t, 100)
			var running, most, calls atomic.Int64
			full := make(chan struct{}, n)
			release := make(chan struct{})
			fn := func(_ context.Context, v int) (int, error) {
				calls.Add(1)
				r := running.Add(1)
				for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
				}
				if r == window {
					full <- struct{}{}
				}
				<-release
				running.Add(-1)
				return v, nil
			}
			c := &countedSeq{n: n}
			yielded := int64(0)
			seq := func(yield func(int) bool) {
				c.seq(func(v int) bool {
					assert.LessOrEqual(t, c.taken.Load()-yielded, int64(window), "in flight")
					return yield(v)
				})
			}
			go func() {
				recv(t, full, "window calls to run at once")
				assertNoRecvFunc(t, func() bool { return calls.Load() > window }, "a call beyond the window")
				close(release)
			}()
			got := 0
			k.m(context.Background(), p, window, seq, fn)(func(int, error) bool {
				yielded++
				got++
				return true
			})
			assert.Equal(t, n, got)
			assert.Equal(t, int64(window), most.Load())
		})
	}
}

// assertNoRecvFunc checks that cond does not become true for a brief
// while, as assertNoRecv does for a channel.
func assertNoRecvFunc(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(brief)
	for time.Now().Before(deadline) {
		if cond() {
			t.Errorf("%s happened", what)
			return
		}
		runtime.Gosched()
	}
}

// TestMapSlowFirstValue: while the first call hangs, Map finishes at most
// window - 1 others, and yields nothing; then everything, in order.
func TestMapSlowFirstValue(t *testing.T) {
	const window, n = 4, 10
	p := newMapPool(t, 100)
	release := make(chan struct{})
	var finished atomic.Int64
	fn := func(_ context.Context, v int) (int, error) {
		if v == 0 {
			<-release
		} else {
			defer finished.Add(1)
		}
		return v, nil
	}
	go func() {
		waitUntil(t, "window - 1 calls to finish", func() bool { return finished.Load() == window-1 })
		assertNoRecvFunc(t, func() bool { return finished.Load() > window-1 }, "a finished result beyond window - 1")
		close(release)
	}()
	got := collect(ants.Map(context.Background(), p, window, (&countedSeq{n: n}).seq, fn))
	require.Len(t, got, n)
	for i, g := range got {
		assert.Equal(t, pair{i, nil}, g)
	}
}

// cancelWatch is an fn for the early-exit tests: the call of value 0
// returns once slow calls have started; the calls of the other values wait
// until their ctx is cancelled, then until slow is closed. So when the loop
// body gets its first pair, the calls of values 1 to slow are in flight.
// It counts the calls that saw the cancellation, and those running.
type cancelWatch struct {
	slowCalls int
	slow      chan struct{}
	started   atomic.Int64 // calls that waited for their ctx
	cancelled atomic.Int64
	running   atomic.Int64
	seenCh    chan struct{}
}

func newCancelWatch(slowCalls int) *cancelWatch {
	return &cancelWatch{slowCalls: slowCalls, slow: make(chan struct{}), seenCh: make(chan struct{}, 100)}
}

func (w *cancelWatch) fn(ctx context.Context, v int) (int, error) {
	if v == 0 {
		for w.started.Load() < int64(w.slowCalls) {
			runtime.Gosched()
		}
		return v, nil
	}
	w.running.Add(1)
	defer w.running.Add(-1)
	w.started.Add(1)
	<-ctx.Done()
	w.cancelled.Add(1)
	w.seenCh <- struct{}{}
	<-w.slow
	return v, ctx.Err()
}

// holdSlow lets the waiting calls return once all have seen their
// cancellation, and a brief while has passed in which returned was not
// closed: the range must not return before its calls have.
func (w *cancelWatch) holdSlow(t *testing.T, returned <-chan struct{}) {
	defer close(w.slow)
	for range w.slowCalls {
		select {
		case <-w.seenCh:
		case <-time.After(long):
			t.Errorf("timed out waiting for the calls to see their ctx cancelled")
			return
		}
	}
	select {
	case <-returned:
		t.Errorf("the range returned before its calls")
	case <-time.After(brief):
	}
}

// TestMapBreak: the loop body stops at the first pair, with window - 1
// calls in flight, on a pool of window workers. seq is asked for no further value,
// the calls see their ctx cancelled, and the range returns only once they
// have returned; the pool takes new work at once, and nothing of the Map
// is left.
func TestMapBreak(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			const window = 4
			p := newMapPool(t, window)
			w := newCancelWatch(window - 1)
			c := &countedSeq{n: -1}
			returned := make(chan struct{})
			go w.holdSlow(t, returned)
			got := 0
			k.m(context.Background(), p, window, c.seq, w.fn)(func(int, error) bool {
				got++
				assert.Equal(t, int64(window), c.taken.Load(), "values taken at the first pair")
				return false
			})
			close(returned)
			assert.Equal(t, 1, got)
			assert.Equal(t, int64(0), w.running.Load(), "calls running after the range returned")
			assert.Equal(t, int64(window-1), w.cancelled.Load(), "calls that saw their ctx cancelled")
			assert.Equal(t, int64(window), c.taken.Load(), "values taken after the break")
			takesAtOnce(t, p, window)
			require.NoError(t, p.ReleaseTimeout(long))
			goleak.VerifyNone(t)
		})
	}
}

// takesAtOnce checks that n tasks all run on p at once: every worker of
// it is free for new work. (A worker is back a moment after its task has
// returned, so the tasks may wait for it that moment.)
func takesAtOnce(t *testing.T, p *ants.Pool, n int) {
	t.Helper()
	g := newGate(t)
	occupyPool(t, p, g, n)
	g.open()
}

// TestMapPanicInLoopBody: a panic in the loop body goes to the caller of
// the range once the calls in flight have seen their ctx cancelled and
// returned.
func TestMapPanicInLoopBody(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			const window = 3
			p := newMapPool(t, window)
			w := newCancelWatch(window - 1)
			c := &countedSeq{n: -1}
			returned := make(chan struct{})
			go w.holdSlow(t, returned)
			r := func() (r any) {
				defer func() { r = recover() }()
				k.m(context.Background(), p, window, c.seq, w.fn)(func(int, error) bool {
					panic("body")
				})
				return nil
			}()
			close(returned)
			assert.Equal(t, "body", r)
			assert.Equal(t, int64(0), w.running.Load(), "calls running after the panic came out")
			assert.Equal(t, int64(window-1), w.cancelled.Load())
			assert.Equal(t, int64(window), c.taken.Load(), "values taken after the panic")
			takesAtOnce(t, p, window)
		})
	}
}

// TestMapPanicInSeq: seq's own panic goes to the caller after the same
// clean-up.
func TestMapPanicInSeq(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			const window = 4
			p := newMapPool(t, 10)
			w := newCancelWatch(window - 1)
			returned := make(chan struct{})
			go w.holdSlow(t, returned)
			seq := func(yield func(int) bool) {
				for i := 1; i < window; i++ { // the slow calls only: no pair comes
					if !yield(i) {
						return
					}
				}
				for w.started.Load() < window-1 {
					runtime.Gosched()
				}
				panic("seq")
			}
			r := func() (r any) {
				defer func() { r = recover() }()
				collect(k.m(context.Background(), p, window, seq, w.fn))
				return nil
			}()
			close(returned)
			assert.Equal(t, "seq", r)
			assert.Equal(t, int64(0), w.running.Load())
			assert.Equal(t, int64(window-1), w.cancelled.Load())
		})
	}
}

// TestMapErrorsAreValues: an error and a panic of one call each become
// that value's pair, and the iteration goes on. The panic counts in the
// pool's Panicked, and the PanicHandler does not see it.
func TestMapErrorsAreValues(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			handled := make(chan any, 1)
			p := newMapPool(t, 4, ants.WithPanicHandler(func(v any) { handled <- v }))
			boom := errors.New("boom")
			fn := func(_ context.Context, v int) (int, error) {
				switch v {
				case 2:
					return -1, boom
				case 4:
					panic("four")
				case 6:
					runtime.Goexit()
				}
				return v, nil
			}
			got := collect(k.m(context.Background(), p, 2, (&countedSeq{n: 8}).seq, fn))
			require.Len(t, got, 8)
			if k.name == "MapUnordered" {
				slices.SortFunc(got, func(a, b pair) int { return a.v - b.v })
			}
			byValue := map[int]error{}
			for _, g := range got {
				if g.err == nil {
					byValue[g.v] = nil
				}
			}
			assert.Len(t, byValue, 5, "values 0, 1, 3, 5, 7")
			var pe *ants.PanicError
			var errs []error
			for _, g := range got {
				if g.err != nil {
					errs = append(errs, g.err)
				}
			}
			require.Len(t, errs, 3)
			assert.Contains(t, errs, boom)
			panics := 0
			for _, err := range errs {
				if errors.As(err, &pe) {
					panics++
				}
			}
			assert.Equal(t, 2, panics, "the panic and the Goexit")
			if k.name == "Map" {
				assert.Equal(t, []pair{{0, nil}, {1, nil}, {-1, boom}, {3, nil}}, got[:4])
				require.ErrorAs(t, got[4].err, &pe)
				assert.Equal(t, "four", pe.Value)
				assert.Zero(t, got[4].v)
			}
			require.NoError(t, p.ReleaseTimeout(long))
			st := p.Stats()
			assert.Equal(t, uint64(8), st.Submitted)
			assert.Equal(t, uint64(6), st.Completed)
			assert.Equal(t, uint64(2), st.Panicked)
			select {
			case v := <-handled:
				t.Errorf("the PanicHandler saw %v", v)
			default:
			}
		})
	}
}

// TestMapRefusals: a pool that refuses a task gives that value's pair the
// refusal, and the iteration goes on to the next value.
func TestMapRefusals(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			fn := func(_ context.Context, v int) (int, error) { return v, nil }
			want := func(err error) []pair { return []pair{{0, err}, {0, err}, {0, err}} }

			closed, err := ants.NewPool(2)
			require.NoError(t, err)
			closed.Release()
			assert.Equal(t, want(ants.ErrPoolClosed), collect(k.m(nil, closed, 2, (&countedSeq{n: 3}).seq, fn)))

			g := newGate(t)
			nonblocking := newMapPool(t, 1, ants.WithNonblocking(true))
			occupyPool(t, nonblocking, g, 1)
			assert.Equal(t, want(ants.ErrPoolOverload), collect(k.m(nil, nonblocking, 2, (&countedSeq{n: 3}).seq, fn)))

			maxBlocking := newMapPool(t, 1, ants.WithMaxBlockingTasks(1))
			occupyPool(t, maxBlocking, g, 1)
			blocked(t, maxBlocking, 1, func() error { return maxBlocking.Submit(func() {}) })
			assert.Equal(t, want(ants.ErrPoolOverload), collect(k.m(nil, maxBlocking, 2, (&countedSeq{n: 3}).seq, fn)))
			g.open()

			// Refused, then accepted: the pairs keep seq's order in Map.
			sp := ants.NewSubpool(newMapPool(t, 2), 1)
			ok := []pair{{0, nil}, {1, nil}}
			assert.Equal(t, ok, collect(k.m(nil, sp, 2, (&countedSeq{n: 2}).seq, fn)))
			sp.Release()
			assert.Equal(t, want(ants.ErrPoolClosed)[:2], collect(k.m(nil, sp, 2, (&countedSeq{n: 2}).seq, fn)))
		})
	}
}

// TestMapContextDone: once ctx is done Map takes no value, waits for the
// calls in flight, drops their pairs and yields (0, ctx.Err()) last.
func TestMapContextDone(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			const window = 4
			p := newMapPool(t, 10)
			w := newCancelWatch(window - 1)
			c := &countedSeq{n: -1}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			returned := make(chan struct{})
			go w.holdSlow(t, returned)
			var got []pair
			k.m(ctx, p, window, c.seq, w.fn)(func(v int, err error) bool {
				got = append(got, pair{v, err})
				if len(got) == 1 {
					cancel()
				} else {
					assert.Equal(t, int64(0), w.running.Load(), "the last pair comes after the calls returned")
				}
				return true
			})
			close(returned)
			assert.Equal(t, []pair{{0, nil}, {0, context.Canceled}}, got)
			assert.Equal(t, int64(window), c.taken.Load(), "values taken after ctx was done")
			assert.Equal(t, int64(window-1), w.started.Load())
			assert.Equal(t, int64(window-1), w.cancelled.Load())
		})
	}
}

// TestMapContextDoneWhileWaiting: ctx ends while Map waits for the pool's
// capacity, for a call to return, or while the loop body runs with tasks
// in the pool's buffer; each time the last pair is (0, ctx.Err()), and a
// task that starts after ctx is done does not call fn.
func TestMapContextDoneWhileWaiting(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			var calls atomic.Int64
			fn := func(_ context.Context, v int) (int, error) { calls.Add(1); return v, nil }

			t.Run("for capacity", func(t *testing.T) {
				p := newMapPool(t, 1)
				g := newGate(t)
				occupyPool(t, p, g, 1)
				ctx, cancel := context.WithCancel(context.Background())
				go func() { waitWaiting(t, p, 1); cancel() }()
				assert.Equal(t, []pair{{0, context.Canceled}}, collect(k.m(ctx, p, 2, (&countedSeq{n: 3}).seq, fn)))
				assert.Equal(t, int64(0), calls.Load())
			})

			t.Run("for a call", func(t *testing.T) {
				p := newMapPool(t, 2)
				ctx, cancel := context.WithCancel(context.Background())
				started := make(chan struct{})
				slow := func(ctx context.Context, v int) (int, error) {
					close(started)
					<-ctx.Done()
					return v, ctx.Err()
				}
				go func() { <-started; cancel() }()
				assert.Equal(t, []pair{{0, context.Canceled}}, collect(k.m(ctx, p, 1, (&countedSeq{n: 3}).seq, slow)))
			})

			t.Run("with tasks in the buffer", func(t *testing.T) {
				p := newMapPool(t, 1, ants.WithQueueSize(4))
				g := newGate(t)
				occupyPool(t, p, g, 1)
				ctx, cancel := context.WithCancel(context.Background())
				seq := func(yield func(int) bool) {
					if !yield(0) || !yield(1) { // both wait in the buffer
						return
					}
					cancel()
					g.open()
					waitUntil(t, "the buffered tasks to run", func() bool { return p.Stats().Completed == 3 })
					yield(2)
				}
				assert.Equal(t, []pair{{0, context.Canceled}}, collect(k.m(ctx, p, 3, seq, fn)))
				assert.Equal(t, int64(0), calls.Load())
			})
		})
	}
}

// TestMapContextAlreadyDone: a done ctx yields its error alone, and seq is
// not even started.
func TestMapContextAlreadyDone(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			p := newMapPool(t, 2)
			c := &countedSeq{n: 5}
			calls := atomic.Int64{}
			fn := func(_ context.Context, v int) (int, error) { calls.Add(1); return v, nil }
			ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
			defer cancel()
			<-ctx.Done()
			assert.Equal(t, []pair{{0, context.DeadlineExceeded}}, collect(k.m(ctx, p, 2, c.seq, fn)))
			assert.Equal(t, int64(0), c.runs.Load())
			assert.Equal(t, int64(0), calls.Load())
			assert.Equal(t, uint64(0), p.Stats().Submitted+p.Stats().Rejected)
		})
	}
}

// TestMapSkipsTasksNotStarted: tasks of a Map waiting in a full pool's
// buffer when the iteration ends run later, as every accepted task does,
// but do not call fn.
func TestMapSkipsTasksNotStarted(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			p := newMapPool(t, 1, ants.WithQueueSize(10))
			g := newGate(t)
			occupyPool(t, p, g, 1)
			var calls atomic.Int64
			fn := func(_ context.Context, v int) (int, error) { calls.Add(1); return v, nil }
			ctx, cancel := context.WithCancel(context.Background())
			c := &countedSeq{n: 10}
			seq := func(yield func(int) bool) {
				c.seq(func(v int) bool {
					if v == 3 { // 0, 1 and 2 wait in the buffer
						waitUntil(t, "three buffered tasks", func() bool { return p.Stats().Queued == 3 })
						cancel()
					}
					return yield(v)
				})
			}
			assert.Equal(t, []pair{{0, context.Canceled}}, collect(k.m(ctx, p, 4, seq, fn)))
			g.open()
			waitUntil(t, "the buffered tasks to run", func() bool { return p.Stats().Completed == 4 })
			assert.Equal(t, int64(0), calls.Load())
		})
	}
}

// TestMapPriority: on a full pool, the tasks of a Map whose ctx carries a
// higher level go ahead of a caller that waited first at level 0.
func TestMapPriority(t *testing.T) {
	p := newMapPool(t, 1)
	g := newGate(t)
	occupyPool(t, p, g, 1)
	var order []string
	var mu sync.Mutex
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	low := blocked(t, p, 1, func() error {
		return p.SubmitContext(context.Background(), func() { note("low") })
	})
	ctx := ants.ContextWithPriority(context.Background(), 5)
	fn := func(ctx context.Context, v int) (int, error) {
		note("map")
		assert.Equal(t, 5, ants.PriorityFromContext(ctx), "fn's ctx carries ctx's level")
		return v, nil
	}
	done := async(func() error {
		for _, pr := range collect(ants.Map(ctx, p, 1, (&countedSeq{n: 2}).seq, fn)) {
			if pr.err != nil {
				return pr.err
			}
		}
		return nil
	})
	waitWaiting(t, p, 2)
	g.open()
	require.NoError(t, recv(t, done, "the Map"))
	require.NoError(t, recv(t, low, "the low-level submit"))
	waitUntil(t, "every task to run", func() bool { return p.Stats().Completed == 4 })
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, "map", order[0])
}

// TestMapStartsNoGoroutine: on a full pool of 2 workers, 1000 values at
// window 64 never raise the goroutine count past the pool's workers and its
// purge goroutine.
func TestMapStartsNoGoroutine(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			p := newMapPool(t, 2)
			base := runtime.NumGoroutine()
			var most atomic.Int64
			look := func() {
				n := int64(runtime.NumGoroutine())
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
			}
			ctx, cancel := context.WithCancel(context.Background()) // a context of the standard library's
			defer cancel()
			seq := func(yield func(int) bool) {
				for i := range 1000 {
					look()
					if !yield(i) {
						return
					}
				}
			}
			fn := func(_ context.Context, v int) (int, error) { look(); return v, nil }
			n := 0
			k.m(ctx, p, 64, seq, fn)(func(int, error) bool { look(); n++; return true })
			assert.Equal(t, 1000, n)
			assert.LessOrEqual(t, most.Load(), int64(base+2+1), "goroutines: the test's, 2 workers and the purge")
		})
	}
}

// TestMapRangesAgain: each range over the result runs seq again.
func TestMapRangesAgain(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			p := newMapPool(t, 4)
			c := &countedSeq{n: 5}
			m := k.m(context.Background(), p, 2, c.seq, func(_ context.Context, v int) (int, error) { return v + 1, nil })
			for round := 1; round <= 2; round++ {
				got := collect(m)
				if k.name == "MapUnordered" {
					slices.SortFunc(got, func(a, b pair) int { return a.v - b.v })
				}
				assert.Equal(t, []pair{{1, nil}, {2, nil}, {3, nil}, {4, nil}, {5, nil}}, got)
				assert.Equal(t, int64(round), c.runs.Load())
			}
		})
	}
}

// TestMapOnWrappersOfThePool: a Subpool limits a Map's calls, an
// Observer times each of its tasks, and fn's ctx carries ctx's values.
func TestMapOnWrappersOfThePool(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			rec := new(taskRecorder)
			p := newMapPool(t, 10, ants.WithObserver(rec))
			sp := ants.NewSubpool(p, 2)
			type key struct{}
			ctx := context.WithValue(context.Background(), key{}, "v")
			var running, most atomic.Int64
			both := make(chan struct{})
			var once sync.Once
			fn := func(ctx context.Context, v int) (int, error) {
				assert.Equal(t, "v", ctx.Value(key{}))
				r := running.Add(1)
				for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
				}
				if r == 2 {
					once.Do(func() { close(both) })
				}
				<-both
				running.Add(-1)
				if v == 5 {
					panic("five")
				}
				return v, nil
			}
			got := collect(k.m(ctx, sp, 8, (&countedSeq{n: 12}).seq, fn))
			require.Len(t, got, 12)
			assert.Equal(t, int64(2), most.Load(), "calls at once on a Subpool of 2")
			require.NoError(t, p.ReleaseTimeout(long))
			reports := rec.reports()
			require.Len(t, reports, 12)
			panicked := 0
			for _, r := range reports {
				if r.panicked {
					panicked++
				}
			}
			assert.Equal(t, 1, panicked)
			assert.Equal(t, uint64(1), sp.Stats().Panicked)
			assert.Equal(t, uint64(1), p.Stats().Panicked)
		})
	}
}

// TestMapBadArguments: a nil Submitter, seq or fn panics at the call; a nil
// ctx is context.Background(); window < 1 is 1.
func TestMapBadArguments(t *testing.T) {
	p := newMapPool(t, 4)
	seq := (&countedSeq{n: 3}).seq
	fn := func(_ context.Context, v int) (int, error) { return v, nil }
	for _, k := range mapKinds {
		assert.PanicsWithValue(t, "ants: nil Submitter", func() { k.m(nil, nil, 1, seq, fn) })
		assert.Panics(t, func() { k.m(nil, p, 1, nil, fn) })
		assert.Panics(t, func() { k.m(nil, p, 1, seq, nil) })
	}
	var nilCtx context.Context
	assert.Equal(t, []pair{{0, nil}, {1, nil}, {2, nil}}, collect(ants.Map(nilCtx, p, 0, seq, fn)))

	var running, most atomic.Int64
	one := func(_ context.Context, v int) (int, error) {
		r := running.Add(1)
		for m := most.Load(); r > m && !most.CompareAndSwap(m, r); m = most.Load() {
		}
		runtime.Gosched()
		running.Add(-1)
		return v, nil
	}
	for _, k := range mapKinds {
		assert.Len(t, collect(k.m(context.Background(), p, -5, (&countedSeq{n: 50}).seq, one)), 50)
	}
	assert.Equal(t, int64(1), most.Load(), "window < 1 is 1")
}

// TestMapSeqAfterStop: a seq that ignores yield's false and goes on is
// taken no further value.
func TestMapSeqAfterStop(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			p := newMapPool(t, 4)
			var calls atomic.Int64
			fn := func(_ context.Context, v int) (int, error) { calls.Add(1); return v, nil }
			stubborn := func(yield func(int) bool) {
				for i := range 10 {
					yield(i) // ignores false
				}
			}
			n := 0
			k.m(context.Background(), p, 1, stubborn, fn)(func(int, error) bool { n++; return false })
			assert.Equal(t, 1, n)
			assert.Equal(t, int64(1), calls.Load())
		})
	}
}
