package ants_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
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

// The rate limit: a token bucket at the gate where a task waits for a
// worker slot. On a fake clock the tests see, to the microsecond, when
// each task is let through; on the real one only generous bounds.

// admitted returns how many of p's accepted tasks have been let through
// the gate: given a slot, to start at once. A task waiting in the buffer
// is accepted (Submitted) but not yet let through (Queued).
func admitted(p poolAPI) int {
	s := p.Stats()
	return int(s.Submitted) - s.Queued
}

// newPacedPool returns a pool of the kind with a limit of rate and burst on
// clk, a buffer of 1000 and a capacity of 1000 per member pool, so that
// only the limit holds tasks back.
func newPacedPool(t *testing.T, k poolKind, clk *ants.FakeClock, rate float64, burst int,
	opts ...ants.Option) *testPool {
	t.Helper()
	return k.mustNew(t, 1000, append([]ants.Option{ants.WithFakeClock(clk), ants.WithDisablePurge(true),
		ants.WithQueueSize(1000), ants.WithRateLimit(rate, burst)}, opts...)...)
}

// submitNoops submits n tasks that do nothing and count themselves on ran.
func submitNoops(t *testing.T, p *testPool, ran *atomic.Int64, n int) {
	t.Helper()
	for range n {
		require.NoError(t, p.submit(func() { ran.Add(1) }))
	}
}

// fakeTime follows a fake clock from the time a test made its pool.
type fakeTime struct {
	clk *ants.FakeClock
	now time.Duration
}

// to moves the clock to d after the start.
func (f *fakeTime) to(d time.Duration) {
	f.clk.Forward(d - f.now)
	f.now = d
}

// paceTrace records, at times of a fake clock, how many tasks a pool has
// let through so far.
type paceTrace struct {
	at []time.Duration
	n  []int
}

func (tr *paceTrace) record(at time.Duration, n int) {
	tr.at = append(tr.at, at)
	tr.n = append(tr.n, n)
}

// checkBound checks the limit over every window between two records: the
// tasks let through after record a and by record b, all of them in
// (at[a], at[b]], number at most burst + rate·(at[b] − at[a]).
func (tr *paceTrace) checkBound(t *testing.T, rate float64, burst int) {
	t.Helper()
	for a := range tr.at {
		for b := a + 1; b < len(tr.at); b++ {
			bound := float64(burst) + rate*(tr.at[b]-tr.at[a]).Seconds()
			if got := tr.n[b] - tr.n[a]; float64(got) > bound+1e-9 {
				t.Fatalf("%d tasks let through in (%v, %v], bound %.3f", got, tr.at[a], tr.at[b], bound)
			}
		}
	}
}

// TestRateLimitLetsTasksThroughAtTheRate: with a limit of 10 a second and
// a burst of 3, 12 tasks submitted at once start 3 at once and then one
// each 100 ms, each when its token comes (not a microsecond before, nor
// after); after a long idle the bucket holds the burst, not more. The
// trace keeps to the bound over every window.
func TestRateLimitLetsTasksThroughAtTheRate(t *testing.T) {
	const rate, burst, n = 10, 3, 12
	const every, eps = time.Second / rate, time.Microsecond
	forSinglePools(t, func(t *testing.T, k poolKind) {
		clk := ants.NewFakeClock()
		p := newPacedPool(t, k, clk, rate, burst)
		ft := fakeTime{clk: clk}
		var tr paceTrace
		var ran atomic.Int64
		tr.record(0, 0)
		submitNoops(t, p, &ran, n)
		require.Equal(t, burst, admitted(p), "the first burst")
		tr.record(0, admitted(p))
		for i := 1; burst+i <= n; i++ {
			ft.to(time.Duration(i)*every - eps)
			require.Equal(t, burst+i-1, admitted(p), "let through before its token, at %v", ft.now)
			tr.record(ft.now, admitted(p))
			ft.to(time.Duration(i)*every + eps)
			require.Equal(t, burst+i, admitted(p), "not let through when its token came, at %v", ft.now)
			tr.record(ft.now, admitted(p))
			require.NoError(t, p.checkInvariants())
		}
		assert.Zero(t, clk.Timers(), "a timer set with no work waiting")

		ft.to(ft.now + 10*time.Second)
		submitNoops(t, p, &ran, n)
		assert.Equal(t, n+burst, admitted(p), "after an idle while, the burst and no more")
		tr.record(ft.now, admitted(p))
		ft.to(ft.now + 5*every) // in one move, each token when it comes
		assert.Equal(t, n+burst+5, admitted(p))
		tr.record(ft.now, admitted(p))
		tr.checkBound(t, rate, burst)

		require.NoError(t, pacerOf(p).SetRateLimit(0, 0))
		assert.Equal(t, 2*n, admitted(p), "removing the limit lets every waiting task through")
		waitCompleted(t, p, 2*n)
		assert.Equal(t, int64(2*n), ran.Load())
	})
}

// TestRateLimitBoundOverEveryWindow submits tasks at random times, and
// pauses and resumes at random, on a fake clock: over every window T the
// tasks let through number at most burst + rate·T (n·⌈burst/n⌉ + rate·T
// for a multi-pool of n member pools), and, on a single pool, over every
// step after which work still waits, unpaused, at least ⌊rate·T⌋: the
// limit never idles the pool below its rate.
func TestRateLimitBoundOverEveryWindow(t *testing.T) {
	const rate, burst = 10.0, 3
	forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
		rng := rand.New(rand.NewPCG(26, 1))
		clk := ants.NewFakeClock()
		p := newPacedPool(t, k, clk, rate, burst)
		pc := pacerOf(p)
		ft := fakeTime{clk: clk}
		var tr paceTrace
		var ran atomic.Int64
		submitted := 0
		tr.record(0, 0)
		for step := 0; step < 200; step++ {
			if rng.IntN(3) == 0 {
				m := rng.IntN(5)
				submitNoops(t, p, &ran, m)
				submitted += m
			}
			if rng.IntN(10) == 0 {
				if pc.Paused() {
					pc.Resume()
				} else {
					pauseNow(t, pc)
				}
			}
			before, from := admitted(p), ft.now
			tr.record(ft.now, before)
			ft.to(ft.now + time.Duration(rng.IntN(400_000))*time.Microsecond)
			after := admitted(p)
			tr.record(ft.now, after)
			require.NoError(t, p.checkInvariants())
			if k.family == single && !pc.Paused() && p.Stats().Queued > 0 {
				floor := int(math.Floor(rate*(ft.now-from).Seconds() - 1e-9))
				require.GreaterOrEqual(t, after-before, floor,
					"the pool idled below its rate in (%v, %v] with work waiting", from, ft.now)
			}
		}
		b := burst
		if k.family == multi {
			b = p.members * ((burst + p.members - 1) / p.members)
		}
		tr.checkBound(t, rate, b)
		pc.Resume()
		require.NoError(t, pc.SetRateLimit(0, 0))
		waitCompleted(t, p, submitted)
		assert.Equal(t, int64(submitted), ran.Load())
	})
}

// TestMultiPoolSharesTheRateLimit: a multi-pool's limit of 10 a second and
// a burst of 3 gives each of its 2 member pools 5 a second and a burst of
// 2; RateLimit reports the limit as set.
func TestMultiPoolSharesTheRateLimit(t *testing.T) {
	const eps = time.Microsecond
	forMultiPools(t, func(t *testing.T, k poolKind) {
		clk := ants.NewFakeClock()
		p := k.mustNewMulti(t, 2, 1000, ants.RoundRobin, ants.WithFakeClock(clk),
			ants.WithDisablePurge(true), ants.WithQueueSize(1000), ants.WithRateLimit(10, 3))
		pc := pacerOf(p)
		r, b := pc.RateLimit()
		assert.Equal(t, 10.0, r)
		assert.Equal(t, 3, b)
		var ran atomic.Int64
		submitNoops(t, p, &ran, 20) // 10 to each member pool
		assert.Equal(t, 4, admitted(p), "2·⌈3/2⌉ at once")
		ft := fakeTime{clk: clk}
		for i := 1; i <= 3; i++ {
			ft.to(time.Duration(i)*200*time.Millisecond - eps)
			assert.Equal(t, 4+2*(i-1), admitted(p), "at %v", ft.now)
			ft.to(time.Duration(i)*200*time.Millisecond + eps)
			assert.Equal(t, 4+2*i, admitted(p), "each member pool's token every 200 ms, at %v", ft.now)
		}
		require.NoError(t, pc.SetRateLimit(0, 0))
		waitCompleted(t, p, 20)
	})
}

// TestRateLimitOnARealClock: on the real clock, with a limit set on an idle
// pool of every kind, n tasks start no sooner than the limit allows (the
// j-th at (j − burst)/rate at the earliest, with 10% to spare for the
// clocks) and all of them in the end. How late they may start is a matter
// for the fake clock's tests: here a loaded machine delays them at will.
func TestRateLimitOnARealClock(t *testing.T) {
	const rate, burst, n = 500.0, 4, 16
	forEveryKind(t, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 8)
		b := burst
		if k.family == multi {
			b = p.members * ((burst + p.members - 1) / p.members)
		}
		var mu sync.Mutex
		var starts []time.Duration
		var wg sync.WaitGroup
		wg.Add(n)
		start := time.Now()
		require.NoError(t, pacerOf(p).SetRateLimit(rate, burst))
		for range n {
			go func() {
				assert.NoError(t, p.submit(func() {
					d := time.Since(start)
					mu.Lock()
					starts = append(starts, d)
					mu.Unlock()
					wg.Done()
				}))
			}()
		}
		recv(t, async(func() error { wg.Wait(); return nil }), "every task to start")
		slices.Sort(starts)
		for j, s := range starts {
			if earliest := time.Duration(0.9 * float64(j+1-b) / rate * float64(time.Second)); s < earliest {
				t.Errorf("task %d started at %v, before %v", j+1, s, earliest)
			}
		}
	})
}

// TestRateLimitHoldsNoWorker: tasks waiting for a token hold no worker and
// no goroutine: with 20 tasks submitted, a limit of 1 a second and a burst
// of 2, two workers run (one per member pool for a multi-pool), and a
// worker starts with each token.
func TestRateLimitHoldsNoWorker(t *testing.T) {
	forSingleAndMultiPools(t, func(t *testing.T, k poolKind) {
		clk := ants.NewFakeClock()
		p := k.mustNew(t, 10, ants.WithFakeClock(clk), ants.WithDisablePurge(true),
			ants.WithQueueSize(100), ants.WithRateLimit(float64(p0(k)), 2))
		g := newGate(t)
		started := make(chan struct{}, 20)
		goroutines := runtime.NumGoroutine()
		for range 20 {
			require.NoError(t, p.submit(g.task(started)))
		}
		for range 2 {
			recv(t, started, "a task let through")
		}
		assert.Equal(t, 2, p.Running(), "workers running for 2 tasks started")
		assert.Equal(t, 18, p.Stats().Queued)
		assert.LessOrEqual(t, runtime.NumGoroutine()-goroutines, 2+2,
			"goroutines for 2 tasks started (2 to spare)")
		clk.Forward(time.Second)
		for range p.members {
			recv(t, started, "a task let through by its token")
		}
		assert.Equal(t, 2+p.members, p.Running())
		g.open()
		require.NoError(t, pacerOf(p).SetRateLimit(0, 0))
		for range 18 - p.members {
			recv(t, started, "a task let through")
		}
	})
}

// p0 is the rate that gives each member pool of a kind 1 a second.
func p0(k poolKind) int {
	if k.family == multi {
		return multiMembers
	}
	return 1
}

// TestRateLimitWorkerPoolMakesAWorkerPerToken: a WorkerPool makes no
// Worker for a job that waits for a token.
func TestRateLimitWorkerPoolMakesAWorkerPerToken(t *testing.T) {
	clk := ants.NewFakeClock()
	p, f := newFleetPool(t, 10, ants.WithFakeClock(clk), ants.WithQueueSize(100), ants.WithRateLimit(1, 1))
	g := newGate(t)
	started := make(chan int, 10)
	var fs []*ants.Future[result]
	for range 10 {
		fs = append(fs, p.Go(context.Background(), held(g, started)))
	}
	recv(t, started, "the first job")
	assert.Equal(t, 1, f.madeCount())
	assert.Equal(t, 1, p.Running())
	clk.Forward(time.Second)
	recv(t, started, "the job of the second token")
	assert.Equal(t, 2, f.madeCount())
	g.open()
	require.NoError(t, p.SetRateLimit(0, 0))
	waitAll(t, fs)
}

// TestSetRateLimitWhileWorkWaits: raising the rate lets waiting work
// through at the new rate at once, not when the old rate's next token was
// due; lowering it or the burst takes effect at once, the burst dropping
// the tokens above it; removing the limit lets through all that the slots
// allow. RateLimit reports each as set.
func TestSetRateLimitWhileWorkWaits(t *testing.T) {
	const eps = time.Microsecond
	forSinglePools(t, func(t *testing.T, k poolKind) {
		t.Run("up", func(t *testing.T) {
			clk := ants.NewFakeClock()
			p := newPacedPool(t, k, clk, 1.0/3600, 1) // a token an hour
			var ran atomic.Int64
			submitNoops(t, p, &ran, 5)
			require.Equal(t, 1, admitted(p))
			require.NoError(t, pacerOf(p).SetRateLimit(10, 1))
			ft := fakeTime{clk: clk}
			ft.to(100*time.Millisecond - eps)
			assert.Equal(t, 1, admitted(p))
			ft.to(100*time.Millisecond + eps)
			assert.Equal(t, 2, admitted(p), "not let through at the new rate")
			ft.to(400*time.Millisecond + eps)
			assert.Equal(t, 5, admitted(p))
			waitCompleted(t, p, 5)
			require.NoError(t, p.checkInvariants())
		})
		t.Run("down", func(t *testing.T) {
			clk := ants.NewFakeClock()
			p := newPacedPool(t, k, clk, 10, 1)
			var ran atomic.Int64
			submitNoops(t, p, &ran, 5)
			require.Equal(t, 1, admitted(p))
			ft := fakeTime{clk: clk}
			ft.to(50 * time.Millisecond)
			require.NoError(t, pacerOf(p).SetRateLimit(1, 1))
			r, b := pacerOf(p).RateLimit()
			assert.Equal(t, 1.0, r)
			assert.Equal(t, 1, b)
			// Half a token at 10 a second; the other half at 1 a second.
			ft.to(550*time.Millisecond - eps)
			assert.Equal(t, 1, admitted(p), "let through at the old rate")
			ft.to(550*time.Millisecond + eps)
			assert.Equal(t, 2, admitted(p))
			require.NoError(t, pacerOf(p).SetRateLimit(0, 0))
			waitCompleted(t, p, 5)
		})
		t.Run("burst down", func(t *testing.T) {
			clk := ants.NewFakeClock()
			p := newPacedPool(t, k, clk, 10, 10)
			require.NoError(t, pacerOf(p).SetRateLimit(10, 2))
			var ran atomic.Int64
			submitNoops(t, p, &ran, 10)
			assert.Equal(t, 2, admitted(p), "the tokens above the new burst were kept")
			require.NoError(t, pacerOf(p).SetRateLimit(10, 20))
			assert.Equal(t, 2, admitted(p), "raising the burst made tokens")
			ft := fakeTime{clk: clk}
			ft.to(100*time.Millisecond + eps)
			assert.Equal(t, 3, admitted(p))
			require.NoError(t, pacerOf(p).SetRateLimit(0, 0))
			waitCompleted(t, p, 10)
		})
		t.Run("off, with blocked callers", func(t *testing.T) {
			for _, off := range []float64{0, -1, math.Inf(1)} {
				clk := ants.NewFakeClock()
				p := k.mustNew(t, 10, ants.WithFakeClock(clk), ants.WithDisablePurge(true),
					ants.WithRateLimit(1, 1))
				ran := make(chan struct{}, 4)
				require.NoError(t, p.submit(signal(ran)))
				recv(t, ran, "the first task")
				blocked := blockedSubmits(t, p, 3, signal(ran))
				require.NoError(t, pacerOf(p).SetRateLimit(off, 0))
				for _, e := range blocked {
					require.NoError(t, recv(t, e, "a blocked submit"))
					recv(t, ran, "a task")
				}
				r, b := pacerOf(p).RateLimit()
				assert.Equal(t, off, r)
				assert.Zero(t, b)
				require.NoError(t, p.checkInvariants())
			}
		})
	})
}

// TestRateLimitLetsThroughWorkThatFindsTheBucketEmpty: a task that comes
// to an idle pool (or sub-pool) whose bucket is empty, with nothing else
// waiting or running, is let through when its token comes; nothing else
// need happen in the pool.
func TestRateLimitLetsThroughWorkThatFindsTheBucketEmpty(t *testing.T) {
	for _, queue := range []int{0, 10} {
		t.Run(fmt.Sprintf("QueueSize %d", queue), func(t *testing.T) {
			forSinglePools(t, func(t *testing.T, k poolKind) {
				clk := ants.NewFakeClock()
				p := k.mustNew(t, 2, ants.WithFakeClock(clk), ants.WithDisablePurge(true),
					ants.WithQueueSize(queue), ants.WithRateLimit(1, 1))
				done := make(chan struct{}, 2)
				require.NoError(t, p.submit(signal(done)))
				recv(t, done, "the first task")
				waitIdle(t, p, 1)
				second := submitAsync(p.submit, signal(done))
				waitUntil(t, "the second task to wait", func() bool {
					s := p.Stats()
					return s.Waiting+s.Queued == 1
				})
				require.NoError(t, p.checkInvariants())
				clk.Forward(time.Second)
				require.NoError(t, recv(t, second, "the second submit"))
				recv(t, done, "the second task")
			})
		})
	}
	t.Run("Subpool", func(t *testing.T) {
		sub := ants.NewSubpool(newGroupPool(t, 2), 2)
		require.NoError(t, sub.SetRateLimit(50, 1))
		done := make(chan struct{}, 2)
		require.NoError(t, sub.Submit(signal(done)))
		recv(t, done, "the first task")
		waitUntil(t, "the sub-pool to be idle", func() bool { return sub.Free() == 2 })
		require.NoError(t, recv(t, submitAsync(sub.Submit, signal(done)), "the second submit"))
		recv(t, done, "the second task")
	})
}

// TestSubpoolRateLimitPacesOnlyItsOwnTasks: a Subpool's limit holds its
// own tasks back, holding no slot of its parent, while the parent's other
// work goes on; removing it lets them through.
func TestSubpoolRateLimitPacesOnlyItsOwnTasks(t *testing.T) {
	forParentsWithOwnOptions(t, func(t *testing.T, k poolKind) {
		parent := k.parent(t, 4)
		sub := ants.NewSubpool(parent, 4)
		require.NoError(t, sub.SetRateLimit(1.0/1000, 1)) // a token each 1000 s
		ran := make(chan struct{}, 8)
		require.NoError(t, sub.Submit(signal(ran)))
		recv(t, ran, "the sub-pool's first task")
		var waiting []<-chan error
		for i := 1; i <= 2; i++ {
			waiting = append(waiting, submitAsync(sub.Submit, signal(ran)))
			waitWaiting(t, sub, i)
		}
		for range 4 {
			require.NoError(t, parent.SubmitContext(context.Background(), signal(ran)))
			recv(t, ran, "the parent's other task")
		}
		assert.Zero(t, parent.Waiting())
		assert.Equal(t, uint64(1), sub.Stats().Submitted)
		require.NoError(t, sub.SetRateLimit(0, 0))
		for _, e := range waiting {
			require.NoError(t, recv(t, e, "a paced submit"))
			recv(t, ran, "a paced task")
		}
	})
}

// TestReleaseTimeoutWaitsForTasksWaitingForAToken: ReleaseTimeout waits
// for the buffered tasks that still wait for a token, and those of a
// paused pool, which Release lets through at the limit; it returns once
// every one has run.
func TestReleaseTimeoutWaitsForTasksWaitingForAToken(t *testing.T) {
	for _, paused := range []bool{false, true} {
		t.Run(fmt.Sprintf("paused %v", paused), func(t *testing.T) {
			forSinglePools(t, func(t *testing.T, k poolKind) {
				clk := ants.NewFakeClock()
				p := newPacedPool(t, k, clk, 1, 1)
				if paused {
					pauseNow(t, pacerOf(p))
				}
				var ran atomic.Int64
				submitNoops(t, p, &ran, 4)
				released := asyncChecked(func() error { return p.ReleaseTimeout(long) }, func() {
					assert.Equal(t, int64(4), ran.Load(), "ReleaseTimeout returned before every task ran")
				})
				waitUntil(t, "Release to let the first task through", func() bool {
					return p.IsClosed() && admitted(p) == 1
				})
				assert.False(t, pacerOf(p).Paused())
				for i := 1; i <= 3; i++ {
					clk.Forward(time.Second)
					assert.Equal(t, 1+i, admitted(p))
				}
				require.NoError(t, recv(t, released, "ReleaseTimeout"))
				assert.Zero(t, p.poolAPI.(interface{ LiveWorkers() int }).LiveWorkers())
			})
		})
	}
}

// TestRateLimitBadInput: NaN, or a burst below 1 with a limit, is
// ErrInvalidRateLimit from every constructor and from SetRateLimit, which
// then changes nothing; no limit (perSecond <= 0 or +Inf) takes any burst.
func TestRateLimitBadInput(t *testing.T) {
	type limit struct {
		r float64
		b int
	}
	bad := []limit{{math.NaN(), 1}, {math.NaN(), 0}, {10, 0}, {10, -1}, {0.5, math.MinInt}}
	good := []limit{{0, 0}, {-1, -5}, {math.Inf(1), 0}, {math.Inf(-1), 0}, {-0.5, math.MinInt},
		{1e-9, 1}, {1e12, math.MaxInt}}
	constructors := map[string]func(opts ...ants.Option) (poolAPI, error){
		"NewPool": func(opts ...ants.Option) (poolAPI, error) { return ants.NewPool(2, opts...) },
		"NewPoolWithFunc": func(opts ...ants.Option) (poolAPI, error) {
			return ants.NewPoolWithFunc(2, runArg, opts...)
		},
		"NewPoolWithFuncGeneric": func(opts ...ants.Option) (poolAPI, error) {
			return ants.NewPoolWithFuncGeneric(2, func(int) {}, opts...)
		},
		"NewMultiPool": func(opts ...ants.Option) (poolAPI, error) {
			return ants.NewMultiPool(2, 2, ants.RoundRobin, opts...)
		},
		"NewMultiPoolWithFunc": func(opts ...ants.Option) (poolAPI, error) {
			return ants.NewMultiPoolWithFunc(2, 2, runArg, ants.RoundRobin, opts...)
		},
		"NewMultiPoolWithFuncGeneric": func(opts ...ants.Option) (poolAPI, error) {
			return ants.NewMultiPoolWithFuncGeneric(2, 2, func(int) {}, ants.LeastTasks, opts...)
		},
		"NewWorkerPool": func(opts ...ants.Option) (poolAPI, error) {
			return ants.NewWorkerPool(2, func(int) ants.Worker[int, int] { return nil }, opts...)
		},
	}
	for name, newPool := range constructors {
		t.Run(name, func(t *testing.T) {
			for _, c := range bad {
				_, err := newPool(ants.WithRateLimit(c.r, c.b))
				assert.ErrorIs(t, err, ants.ErrInvalidRateLimit, "WithRateLimit(%v, %d)", c.r, c.b)
				_, err = newPool(ants.WithOptions(ants.Options{RateLimit: c.r, RateBurst: c.b}))
				assert.ErrorIs(t, err, ants.ErrInvalidRateLimit, "Options{%v, %d}", c.r, c.b)
			}
			for _, c := range good {
				p, err := newPool(ants.WithRateLimit(c.r, c.b))
				require.NoError(t, err, "WithRateLimit(%v, %d)", c.r, c.b)
				pc := p.(pacer)
				r, b := pc.RateLimit()
				assert.Equal(t, c.r, r, "RateLimit after WithRateLimit(%v, %d)", c.r, c.b)
				assert.Equal(t, c.b, b, "RateLimit after WithRateLimit(%v, %d)", c.r, c.b)
				require.NoError(t, p.ReleaseTimeout(long))
			}
		})
	}
	setters := map[string]func(t *testing.T) (pacer, func(task func()) error){
		"Pool": func(t *testing.T) (pacer, func(task func()) error) {
			p := newGroupPool(t, 4)
			return p, p.Submit
		},
		"MultiPool": func(t *testing.T) (pacer, func(task func()) error) {
			p := poolKinds[3].mustNew(t, 2)
			return pacerOf(p), p.submit
		},
		"Subpool": func(t *testing.T) (pacer, func(task func()) error) {
			s := ants.NewSubpool(newGroupPool(t, 4), 4)
			return s, s.Submit
		},
	}
	for name, mk := range setters {
		t.Run(name+".SetRateLimit", func(t *testing.T) {
			pc, submit := mk(t)
			require.NoError(t, pc.SetRateLimit(1000, 3))
			for _, c := range bad {
				assert.ErrorIs(t, pc.SetRateLimit(c.r, c.b), ants.ErrInvalidRateLimit, "(%v, %d)", c.r, c.b)
				r, b := pc.RateLimit()
				assert.Equal(t, 1000.0, r, "changed by a refused SetRateLimit")
				assert.Equal(t, 3, b, "changed by a refused SetRateLimit")
			}
			done := make(chan struct{}, 1)
			require.NoError(t, submit(signal(done)))
			recv(t, done, "a task under the limit kept")
			for _, c := range good {
				require.NoError(t, pc.SetRateLimit(c.r, c.b), "(%v, %d)", c.r, c.b)
			}
		})
	}
}
