package ants_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

// TestBadInput feeds every constructor and method out-of-range, nil and
// contradictory arguments. Each case must get its documented error or
// no-op: a case that panics, takes longer than badBound, or leaves a
// goroutine behind fails.
//
// A case runs on its own goroutine so that a hang can be reported; it must
// therefore report with t.Errorf, never t.Fatal.
func TestBadInput(t *testing.T) {
	for _, c := range badInputCases {
		t.Run(c.name, func(t *testing.T) {
			ignore := goleak.IgnoreCurrent()
			done := make(chan struct{})
			go func() {
				defer close(done)
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("panic: %v\n%s", r, debug.Stack())
					}
				}()
				c.run(t)
			}()
			select {
			case <-done:
			case <-time.After(2 * badBound):
				_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
				t.Fatalf("hang: the case has not returned after %v (goroutines dumped to stderr)", 2*badBound)
			}
			goleak.VerifyNone(t, ignore)
		})
	}
}

// badBound bounds every wait in a case for something that must happen; a
// case as a whole is bounded by twice as much, so that the wait that hangs
// reports itself first.
const badBound = 10 * time.Second

type badCase struct {
	name string
	run  func(t *testing.T)
}

// badErr checks that err is want.
func badErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) || (want == nil && err != nil) {
		t.Errorf("%s: err = %v, want %v", what, err, want)
	}
}

func badEq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// badRelease releases p and waits for its goroutines.
func badRelease(t *testing.T, what string, p interface {
	Reboot()
	ReleaseTimeout(time.Duration) error
}) {
	t.Helper()
	p.Reboot()
	badErr(t, what+": final ReleaseTimeout", p.ReleaseTimeout(badBound), nil)
}

// badPanics checks that f panics with want: an error's text, or a string.
func badPanics(t *testing.T, what string, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if err, ok := r.(error); ok {
			r = err.Error()
		}
		if r != want {
			t.Errorf("%s: panic %v, want %q", what, r, want)
		}
	}()
	f()
}

// badQuick runs f, a call that must return without waiting for the task
// that badHold holds, and checks that it returns. The task is held until
// f has returned, so a call that waited for it would never return: the
// check waits up to badBound, which no machine's load comes near, and
// fails only for a call that is still waiting then.
func badQuick(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(badBound):
		t.Errorf("%s has not returned after %v: it waits for the held task", what, badBound)
	}
}

// badRun submits a task through submit and waits for it to run.
func badRun(t *testing.T, what string, submit func(task func()) error) {
	t.Helper()
	ran := make(chan struct{})
	if err := submit(func() { close(ran) }); err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	select {
	case <-ran:
	case <-time.After(badBound):
		t.Errorf("%s: the task did not run", what)
	}
}

// badHold occupies one worker of the pool through submit until the
// returned function is called.
func badHold(t *testing.T, submit func(task func()) error) (unblock func()) {
	t.Helper()
	started, gate := make(chan struct{}), make(chan struct{})
	if err := submit(func() {
		close(started)
		<-gate
	}); err != nil {
		t.Errorf("holding a worker: %v", err)
		return func() {}
	}
	<-started
	var once sync.Once
	return func() { once.Do(func() { close(gate) }) }
}

// forBadKinds runs f for every single pool kind, built with size and opts.
func forBadKinds(t *testing.T, size int, opts []ants.Option, f func(name string, p *testPool)) {
	t.Helper()
	for _, k := range kindsWhere(isSingle) {
		p, err := k.new(size, opts...)
		if err != nil {
			t.Errorf("%s(%d): %v", k.name, size, err)
			continue
		}
		f(k.name, p)
		badRelease(t, k.name, p)
	}
}

// forBadMultiKinds runs f for every multi-pool kind.
func forBadMultiKinds(t *testing.T, size, sizePerPool int, opts []ants.Option, f func(name string, p *testPool)) {
	t.Helper()
	for _, k := range kindsWhere(isMulti) {
		p, err := k.newMulti(size, sizePerPool, ants.RoundRobin, opts...)
		if err != nil {
			t.Errorf("%s(%d, %d): %v", k.name, size, sizePerPool, err)
			continue
		}
		f(k.name, p)
		badRelease(t, k.name, p)
	}
}

// badAllocated returns the bytes f allocates.
func badAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

var errBad = errors.New("bad input test")

// badNilCtx is a nil context: the API documents what each call does with
// one (staticcheck's SA1012 flags only a literal nil).
var badNilCtx context.Context

var badInputCases = []badCase{
	{"sizes 0 and negative make unlimited pools", func(t *testing.T) {
		for _, size := range []int{0, -1, math.MinInt} {
			forBadKinds(t, size, nil, func(name string, p *testPool) {
				what := fmt.Sprintf("%s(%d)", name, size)
				badEq(t, what+" Cap()", p.Cap(), -1)
				badEq(t, what+" Free()", p.Free(), -1)
				badRun(t, what, p.submit)
				p.Tune(5)
				badEq(t, what+" Cap() after Tune(5)", p.Cap(), -1)
			})
		}
	}},
	{"size math.MaxInt is capped at math.MaxInt32", func(t *testing.T) {
		forBadKinds(t, math.MaxInt, nil, func(name string, p *testPool) {
			badEq(t, name+" Cap()", p.Cap(), math.MaxInt32)
			badEq(t, name+" Free()", p.Free(), math.MaxInt32)
			badRun(t, name, p.submit)
		})
	}},
	{"size math.MaxInt with PreAlloc allocates megabytes, not gigabytes", func(t *testing.T) {
		const limit = 64 << 20
		for _, k := range kindsWhere(isSingle) {
			var p *testPool
			var err error
			n := badAllocated(func() { p, err = k.new(math.MaxInt, ants.WithPreAlloc(true)) })
			if err != nil {
				t.Errorf("%s(math.MaxInt, PreAlloc): %v", k.name, err)
				continue
			}
			if n > limit {
				t.Errorf("%s(math.MaxInt, PreAlloc) allocated %d MiB", k.name, n>>20)
			}
			badEq(t, k.name+" Cap()", p.Cap(), math.MaxInt32)
			badRun(t, k.name, p.submit)
			p.Tune(10)
			badEq(t, k.name+" Cap() after Tune on a PreAlloc pool", p.Cap(), math.MaxInt32)
			badRelease(t, k.name, p)
		}
		var mp *testPool
		var err error
		n := badAllocated(func() {
			mp, err = kindsWhere(isMulti)[0].newMulti(2, math.MaxInt, ants.LeastTasks, ants.WithPreAlloc(true))
		})
		if err != nil {
			t.Errorf("NewMultiPool(2, math.MaxInt, PreAlloc): %v", err)
			return
		}
		if n > 2*limit {
			t.Errorf("NewMultiPool(2, math.MaxInt, PreAlloc) allocated %d MiB", n>>20)
		}
		badEq(t, "NewMultiPool(2, math.MaxInt) Cap()", mp.Cap(), 2*math.MaxInt32)
		badRun(t, "NewMultiPool(2, math.MaxInt)", mp.submit)
		badRelease(t, "NewMultiPool", mp)
	}},
	{"PreAlloc with an unlimited size is ErrInvalidPreAllocSize", func(t *testing.T) {
		for _, size := range []int{0, -1} {
			for _, k := range kindsWhere(isSingle) {
				_, err := k.new(size, ants.WithPreAlloc(true))
				badErr(t, fmt.Sprintf("%s(%d, PreAlloc)", k.name, size), err, ants.ErrInvalidPreAllocSize)
			}
			for _, k := range kindsWhere(isMulti) {
				_, err := k.newMulti(2, size, ants.RoundRobin, ants.WithPreAlloc(true))
				badErr(t, fmt.Sprintf("%s(2, %d, PreAlloc)", k.name, size), err, ants.ErrInvalidPreAllocSize)
			}
		}
	}},
	{"nil pool functions are ErrLackPoolFunc", func(t *testing.T) {
		p, err := ants.NewPoolWithFunc(1, nil)
		badErr(t, "NewPoolWithFunc(1, nil)", err, ants.ErrLackPoolFunc)
		badEq(t, "NewPoolWithFunc(1, nil) pool is nil", p == nil, true)
		g, err := ants.NewPoolWithFuncGeneric[int](1, nil)
		badErr(t, "NewPoolWithFuncGeneric(1, nil)", err, ants.ErrLackPoolFunc)
		badEq(t, "NewPoolWithFuncGeneric(1, nil) pool is nil", g == nil, true)
		mp, err := ants.NewMultiPoolWithFunc(2, 1, nil, ants.RoundRobin)
		badErr(t, "NewMultiPoolWithFunc(2, 1, nil)", err, ants.ErrLackPoolFunc)
		badEq(t, "NewMultiPoolWithFunc(2, 1, nil) pool is nil", mp == nil, true)
		mg, err := ants.NewMultiPoolWithFuncGeneric[string](2, 1, nil, ants.LeastTasks)
		badErr(t, "NewMultiPoolWithFuncGeneric(2, 1, nil)", err, ants.ErrLackPoolFunc)
		badEq(t, "NewMultiPoolWithFuncGeneric(2, 1, nil) pool is nil", mg == nil, true)
	}},
	{"a multi-pool whose later sub-pool is refused fails as a whole", func(t *testing.T) {
		// An Option is applied once per sub-pool: this one makes the expiry
		// of the second sub-pool invalid, so the constructor must give up
		// and release the first.
		for _, k := range kindsWhere(isMulti) {
			calls := 0
			second := ants.Option(func(o *ants.Options) {
				if calls++; calls == 2 {
					o.ExpiryDuration = -time.Second
				}
			})
			p, err := k.newMulti(3, 1, ants.LeastTasks, second)
			badErr(t, k.name+" with the second sub-pool refused", err, ants.ErrInvalidPoolExpiry)
			badEq(t, k.name+" the pool is nil", p == nil, true)
			badEq(t, k.name+" sub-pools built", calls, 2)
		}
	}},
	{"a multi-pool of 65536 member pools, the most, is made", func(t *testing.T) {
		if raceEnabled {
			return // a second under the race detector, for 70 MiB of pools
		}
		mp, err := ants.NewMultiPool(1<<16, 1, ants.LeastTasks)
		badErr(t, "NewMultiPool(65536, 1)", err, nil)
		if err == nil {
			badRun(t, "NewMultiPool(65536, 1)", mp.Submit)
			badErr(t, "ReleaseTimeout", mp.ReleaseTimeout(badBound), nil)
		}
	}},
	{"multi-pool counts of 0, negative and above 65536 are ErrInvalidMultiPoolSize", func(t *testing.T) {
		for _, size := range []int{0, -1, math.MinInt, 1<<16 + 1, math.MaxInt32, 1 << 40, math.MaxInt} {
			for _, k := range kindsWhere(isMulti) {
				p, err := k.newMulti(size, 1, ants.RoundRobin)
				badErr(t, fmt.Sprintf("%s(%d, 1)", k.name, size), err, ants.ErrInvalidMultiPoolSize)
				badEq(t, "the pool is nil", p == nil, true)
			}
		}
	}},
	{"sizePerPool 0 and negative make unlimited sub-pools", func(t *testing.T) {
		for _, per := range []int{0, -1} {
			forBadMultiKinds(t, 3, per, nil, func(name string, p *testPool) {
				what := fmt.Sprintf("%s(3, %d)", name, per)
				badEq(t, what+" Cap() (the sum of the sub-pools')", p.Cap(), -3)
				for i := 0; i < 3; i++ {
					free, err := p.FreeByIndex(i)
					badErr(t, what+" FreeByIndex", err, nil)
					badEq(t, what+" FreeByIndex", free, -1)
				}
				badRun(t, what, p.submit)
				p.Tune(4)
				badEq(t, what+" Cap() after Tune(4)", p.Cap(), -3)
			})
		}
	}},
	{"invalid load-balancing strategies are ErrInvalidLoadBalancingStrategy", func(t *testing.T) {
		for _, lbs := range []ants.LoadBalancingStrategy{0, 1, 3, 99, -1} {
			for _, k := range kindsWhere(isMulti) {
				_, err := k.newMulti(2, 1, lbs)
				badErr(t, fmt.Sprintf("%s(lbs %d)", k.name, lbs), err, ants.ErrInvalidLoadBalancingStrategy)
			}
		}
	}},
	{"negative expiry is ErrInvalidPoolExpiry unless purge is disabled", func(t *testing.T) {
		for _, d := range []time.Duration{-1, -time.Second, math.MinInt64} {
			for _, k := range kindsWhere(isSingle) {
				_, err := k.new(1, ants.WithExpiryDuration(d))
				badErr(t, fmt.Sprintf("%s(expiry %v)", k.name, d), err, ants.ErrInvalidPoolExpiry)
				p, err := k.new(1, ants.WithExpiryDuration(d), ants.WithDisablePurge(true))
				if err != nil {
					t.Errorf("%s(expiry %v, DisablePurge): %v", k.name, d, err)
					continue
				}
				badRun(t, k.name, p.submit)
				badRelease(t, k.name, p)
			}
			for _, k := range kindsWhere(isMulti) {
				_, err := k.newMulti(2, 1, ants.RoundRobin, ants.WithExpiryDuration(d))
				badErr(t, fmt.Sprintf("%s(expiry %v)", k.name, d), err, ants.ErrInvalidPoolExpiry)
			}
		}
	}},
	{"expiry 0 means one second", func(t *testing.T) {
		const second = time.Second
		c := ants.NewFakeClock()
		p, err := ants.NewPool(2, ants.WithExpiryDuration(0), ants.WithFakeClock(c))
		if err != nil {
			t.Errorf("NewPool(expiry 0): %v", err)
			return
		}
		defer badRelease(t, "expiry 0", p)
		badRun(t, "expiry 0", p.Submit)
		for p.Stats().Idle != 1 {
			runtime.Gosched()
		}
		// The worker went idle with the stamp of the purge's start, t0. A
		// tick at t0+1s keeps it and one at t0+1s+1ns reaps it: the expiry
		// is exactly one second.
		if !c.Advance(second) || !c.Sync() {
			t.Errorf("no purge goroutine took the tick at t0+1s")
			return
		}
		badEq(t, "Running() after the tick at t0+1s", p.Running(), 1)
		if !c.Advance(time.Nanosecond) {
			t.Errorf("no purge goroutine took the tick at t0+1s+1ns")
			return
		}
		deadline := time.Now().Add(badBound)
		for p.Running() != 0 && time.Now().Before(deadline) {
			runtime.Gosched()
		}
		badEq(t, "Running() after the tick at t0+1s+1ns", p.Running(), 0)
	}},
	{"nil tasks are ErrNilTask on an open pool and ErrPoolClosed on a closed one", func(t *testing.T) {
		forBadKinds(t, 1, nil, func(name string, p *testPool) {
			if name == "Pool" {
				for _, closed := range []bool{false, true} {
					want := ants.ErrNilTask
					if closed {
						p.Release()
						want = ants.ErrPoolClosed
					}
					badErr(t, name+" Submit(nil)", p.submit(nil), want)
					badErr(t, name+" TrySubmit(nil)", p.trySubmit(nil), want)
					badErr(t, name+" SubmitContext(ctx, nil)", p.submitContext(context.Background(), nil), want)
				}
				badEq(t, name+" Running() after nil tasks", p.Running(), 0)
				badEq(t, name+" Rejected", p.Stats().Rejected, uint64(6))
			}
		})
		mp, err := ants.NewMultiPool(2, 1, ants.RoundRobin)
		if err != nil {
			t.Errorf("NewMultiPool: %v", err)
			return
		}
		for _, closed := range []bool{false, true} {
			want := ants.ErrNilTask
			if closed {
				_ = mp.ReleaseTimeout(badBound)
				want = ants.ErrPoolClosed
			}
			badErr(t, "MultiPool.Submit(nil)", mp.Submit(nil), want)
			badErr(t, "MultiPool.TrySubmit(nil)", mp.TrySubmit(nil), want)
			badErr(t, "MultiPool.SubmitContext(ctx, nil)", mp.SubmitContext(context.Background(), nil), want)
		}
		badEq(t, "MultiPool Rejected", mp.Stats().Rejected, uint64(6))
		// The default pool is created on first use and starts nothing for a
		// nil task.
		badErr(t, "ants.Submit(nil)", ants.Submit(nil), ants.ErrNilTask)
		badErr(t, "ants.TrySubmit(nil)", ants.TrySubmit(nil), ants.ErrNilTask)
		badErr(t, "ants.SubmitContext(ctx, nil)", ants.SubmitContext(context.Background(), nil), ants.ErrNilTask)
	}},
	{"Invoke(nil) calls the pool function with nil", func(t *testing.T) {
		args := make(chan any, 2)
		p, err := ants.NewPoolWithFunc(0, func(a any) { args <- a })
		if err != nil {
			t.Errorf("NewPoolWithFunc: %v", err)
			return
		}
		badErr(t, "Invoke(nil)", p.Invoke(nil), nil)
		badErr(t, "TryInvoke(nil)", p.TryInvoke(nil), nil)
		badRelease(t, "PoolWithFunc", p)
		for i := 0; i < 2; i++ {
			select {
			case a := <-args:
				badEq(t, "the argument", a, nil)
			default:
				t.Errorf("the function was called %d times, want 2", i)
			}
		}
	}},
	{"nil tasks in groups are ErrNilTask from Wait", func(t *testing.T) {
		p, err := ants.NewPool(1)
		if err != nil {
			t.Errorf("NewPool: %v", err)
			return
		}
		defer badRelease(t, "Pool", p)
		g := ants.NewGroup(p)
		g.Go(nil)
		badEq(t, "TryGo(nil)", g.TryGo(nil), false)
		badErr(t, "Group.Wait", g.Wait(), ants.ErrNilTask)
		rg := ants.NewResultGroup[int](p)
		rg.Go(nil)
		rg.Go(func() (int, error) { return 7, nil })
		res, err := rg.Wait()
		badErr(t, "ResultGroup.Wait", err, ants.ErrNilTask)
		if len(res) != 2 || res[0] != 0 || res[1] != 7 {
			t.Errorf("ResultGroup results = %v, want [0 7]", res)
		}
	}},
	{"nil contexts are taken as context.Background", func(t *testing.T) {
		forBadKinds(t, 1, nil, func(name string, p *testPool) {
			badRun(t, name+" SubmitContext(nil)", func(task func()) error { return p.submitContext(badNilCtx, task) })
			// On a full pool, a nil context waits like Submit.
			unblock := badHold(t, p.submit)
			errc := make(chan error, 1)
			ran := make(chan struct{})
			go func() {
				errc <- p.submitContext(badNilCtx, func() { close(ran) })
			}()
			for p.Waiting() != 1 {
				runtime.Gosched()
			}
			unblock()
			badErr(t, name+" SubmitContext(nil) on a full pool", <-errc, nil)
			<-ran
		})
		forBadMultiKinds(t, 2, 1, nil, func(name string, p *testPool) {
			badRun(t, name+" SubmitContext(nil)", func(task func()) error { return p.submitContext(badNilCtx, task) })
		})
		p, err := ants.NewPool(1)
		if err != nil {
			t.Errorf("NewPool: %v", err)
			return
		}
		defer badRelease(t, "Pool", p)
		g, ctx := ants.NewGroupContext(badNilCtx, p)
		g.Go(func() error { return errBad })
		badErr(t, "NewGroupContext(nil) Wait", g.Wait(), errBad)
		badErr(t, "NewGroupContext(nil) context", ctx.Err(), context.Canceled)
		rg, rctx := ants.NewResultGroupContext[int](badNilCtx, p)
		rg.Go(func() (int, error) { return 1, nil })
		if res, err := rg.Wait(); err != nil || len(res) != 1 || res[0] != 1 {
			t.Errorf("NewResultGroupContext(nil): %v, %v", res, err)
		}
		badEq(t, "NewResultGroupContext(nil) context is done after Wait", rctx.Err() != nil, true)
	}},
	{"ReleaseContext(nil) releases without waiting", func(t *testing.T) {
		forBadKinds(t, 1, nil, func(name string, p *testPool) {
			unblock := badHold(t, p.submit)
			badQuick(t, name+" ReleaseContext(nil)", func() {
				badErr(t, name+" ReleaseContext(nil)", p.ReleaseContext(badNilCtx), nil)
			})
			badEq(t, name+" IsClosed()", p.IsClosed(), true)
			badErr(t, name+" ReleaseContext(nil) again", p.ReleaseContext(badNilCtx), ants.ErrPoolClosed)
			unblock()
		})
		forBadMultiKinds(t, 2, 1, nil, func(name string, p *testPool) {
			unblock := badHold(t, p.submit)
			badQuick(t, name+" ReleaseContext(nil)", func() {
				badErr(t, name+" ReleaseContext(nil)", p.ReleaseContext(badNilCtx), nil)
			})
			badEq(t, name+" IsClosed()", p.IsClosed(), true)
			unblock()
		})
	}},
	{"ReleaseTimeout of zero or less returns at once", func(t *testing.T) {
		for _, d := range []time.Duration{0, -1, math.MinInt64} {
			forBadKinds(t, 2, nil, func(name string, p *testPool) {
				what := fmt.Sprintf("%s ReleaseTimeout(%v)", name, d)
				unblock := badHold(t, p.submit)
				badQuick(t, what, func() { badErr(t, what+" with a busy worker", p.ReleaseTimeout(d), ants.ErrTimeout) })
				badQuick(t, what, func() { badErr(t, what+" again", p.ReleaseTimeout(d), ants.ErrPoolClosed) })
				unblock()
			})
			forBadMultiKinds(t, 2, 1, nil, func(name string, p *testPool) {
				what := fmt.Sprintf("%s ReleaseTimeout(%v)", name, d)
				unblock := badHold(t, p.submit)
				badQuick(t, what, func() { badErr(t, what+" with a busy worker", p.ReleaseTimeout(d), ants.ErrTimeout) })
				badQuick(t, what, func() { badErr(t, what+" again", p.ReleaseTimeout(d), ants.ErrPoolClosed) })
				unblock()
			})
			// A pool that never ran a task has nothing to wait for.
			p, err := ants.NewPool(1)
			if err != nil {
				t.Errorf("NewPool: %v", err)
				return
			}
			badErr(t, fmt.Sprintf("ReleaseTimeout(%v) of an unused pool", d), p.ReleaseTimeout(d), nil)
		}
		forBadKinds(t, 2, nil, func(name string, p *testPool) {
			unblock := badHold(t, p.submit)
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			badQuick(t, name+" ReleaseContext(done)", func() {
				badErr(t, name+" ReleaseContext(done)", p.ReleaseContext(ctx), context.Canceled)
			})
			unblock()
		})
	}},
	{"Tune to 0, negative or huge sizes", func(t *testing.T) {
		forBadKinds(t, 3, nil, func(name string, p *testPool) {
			for _, n := range []int{0, -1, math.MinInt} {
				p.Tune(n)
				badEq(t, fmt.Sprintf("%s Cap() after Tune(%d)", name, n), p.Cap(), 3)
			}
			p.Tune(math.MaxInt)
			badEq(t, name+" Cap() after Tune(math.MaxInt)", p.Cap(), math.MaxInt32)
			badRun(t, name+" after Tune(math.MaxInt)", p.submit)
			p.Tune(1)
			badEq(t, name+" Cap() after Tune(1)", p.Cap(), 1)
		})
		forBadMultiKinds(t, 2, 3, nil, func(name string, p *testPool) {
			for _, n := range []int{0, -1} {
				p.Tune(n)
				badEq(t, fmt.Sprintf("%s Cap() after Tune(%d)", name, n), p.Cap(), 6)
			}
			p.Tune(math.MaxInt)
			badEq(t, name+" Cap() after Tune(math.MaxInt)", p.Cap(), 2*math.MaxInt32)
		})
	}},
	{"Reboot of an open pool does nothing", func(t *testing.T) {
		forBadKinds(t, 2, nil, func(name string, p *testPool) {
			badRun(t, name, p.submit)
			running := p.Running()
			p.Reboot()
			badEq(t, name+" IsClosed()", p.IsClosed(), false)
			badEq(t, name+" Running()", p.Running(), running)
			badRun(t, name+" after Reboot", p.submit)
		})
		forBadMultiKinds(t, 2, 1, nil, func(name string, p *testPool) {
			p.Reboot()
			badEq(t, name+" IsClosed()", p.IsClosed(), false)
			badRun(t, name+" after Reboot", p.submit)
		})
	}},
	{"releasing twice and calls after Release", func(t *testing.T) {
		forBadKinds(t, 2, nil, func(name string, p *testPool) {
			badRun(t, name, p.submit)
			p.Release()
			p.Release()
			badEq(t, name+" IsClosed()", p.IsClosed(), true)
			badErr(t, name+" ReleaseTimeout after Release", p.ReleaseTimeout(time.Second), ants.ErrPoolClosed)
			badErr(t, name+" ReleaseContext after Release", p.ReleaseContext(context.Background()), ants.ErrPoolClosed)
			ran := false
			task := func() { ran = true }
			badErr(t, name+" submit after Release", p.submit(task), ants.ErrPoolClosed)
			badErr(t, name+" try-submit after Release", p.trySubmit(task), ants.ErrPoolClosed)
			badErr(t, name+" submit-with-context after Release", p.submitContext(context.Background(), task), ants.ErrPoolClosed)
			badEq(t, name+" Waiting()", p.Waiting(), 0)
			badEq(t, name+" Cap()", p.Cap(), 2)
			p.Tune(4)
			badEq(t, name+" Cap() after Tune on a closed pool", p.Cap(), 4)
			badEq(t, name+" a rejected task ran", ran, false)
			// Reboot after Release reopens the pool.
			p.Reboot()
			badEq(t, name+" IsClosed() after Reboot", p.IsClosed(), false)
			badRun(t, name+" after Reboot", p.submit)
		})
		forBadMultiKinds(t, 2, 1, nil, func(name string, p *testPool) {
			badErr(t, name+" ReleaseTimeout", p.ReleaseTimeout(badBound), nil)
			badErr(t, name+" ReleaseTimeout again", p.ReleaseTimeout(badBound), ants.ErrPoolClosed)
			badErr(t, name+" ReleaseContext again", p.ReleaseContext(context.Background()), ants.ErrPoolClosed)
			badErr(t, name+" submit after release", p.submit(func() {}), ants.ErrPoolClosed)
			badErr(t, name+" try-submit after release", p.trySubmit(func() {}), ants.ErrPoolClosed)
			badErr(t, name+" submit-with-context after release", p.submitContext(context.Background(), func() {}), ants.ErrPoolClosed)
			badEq(t, name+" IsClosed()", p.IsClosed(), true)
			n, err := p.RunningByIndex(1)
			badErr(t, name+" RunningByIndex after release", err, nil)
			badEq(t, name+" RunningByIndex after release", n, 0)
			p.Reboot()
			badRun(t, name+" after Reboot", p.submit)
		})
	}},
	{"ByIndex out of range is (-1, ErrInvalidPoolIndex)", func(t *testing.T) {
		forBadMultiKinds(t, 3, 1, nil, func(name string, p *testPool) {
			for _, idx := range []int{-1, 3, 4, math.MinInt, math.MaxInt} {
				for getter, f := range map[string]func(int) (int, error){
					"RunningByIndex": p.RunningByIndex,
					"FreeByIndex":    p.FreeByIndex,
					"WaitingByIndex": p.WaitingByIndex,
				} {
					n, err := f(idx)
					what := fmt.Sprintf("%s.%s(%d)", name, getter, idx)
					badErr(t, what, err, ants.ErrInvalidPoolIndex)
					badEq(t, what, n, -1)
				}
			}
			for idx := 0; idx < 3; idx++ {
				n, err := p.FreeByIndex(idx)
				badErr(t, fmt.Sprintf("%s.FreeByIndex(%d)", name, idx), err, nil)
				badEq(t, fmt.Sprintf("%s.FreeByIndex(%d)", name, idx), n, 1)
			}
		})
	}},
	{"nil options are ignored and WithOptions of the zero Options is valid", func(t *testing.T) {
		forBadKinds(t, 1, []ants.Option{nil, ants.WithOptions(ants.Options{}), nil}, func(name string, p *testPool) {
			badRun(t, name, p.submit)
		})
	}},
	{"negative MaxBlockingTasks lets no caller wait", func(t *testing.T) {
		forBadKinds(t, 1, []ants.Option{ants.WithMaxBlockingTasks(-1)}, func(name string, p *testPool) {
			unblock := badHold(t, p.submit)
			badQuick(t, name+" Submit on a full pool", func() {
				badErr(t, name+" Submit on a full pool", p.submit(func() {}), ants.ErrPoolOverload)
			})
			unblock()
		})
	}},
	{"nil and typed nil Submitters panic with ants: nil Submitter", func(t *testing.T) {
		nils := []ants.Submitter{nil, (*ants.Pool)(nil), (*ants.MultiPool)(nil), (*ants.Subpool)(nil),
			&ants.Pool{}, &ants.MultiPool{}, &ants.Subpool{}}
		for _, s := range nils {
			for what, f := range map[string]func(){
				"NewGroup":              func() { ants.NewGroup(s) },
				"NewGroupContext":       func() { ants.NewGroupContext(context.Background(), s) },
				"NewResultGroup":        func() { ants.NewResultGroup[int](s) },
				"NewResultGroupContext": func() { ants.NewResultGroupContext[int](context.Background(), s) },
				"NewStream":             func() { ants.NewStream(s) },
				"NewKeyed":              func() { ants.NewKeyed[int](s) },
				"NewSubpool":            func() { ants.NewSubpool(s, 1) },
				"Go":                    func() { ants.Go(context.Background(), s, func() (int, error) { return 0, nil }) },
			} {
				badPanics(t, fmt.Sprintf("%s(%T)", what, s), "ants: nil Submitter", f)
			}
		}
	}},
	{"nil tasks in futures, streams and keyed queues are ErrNilTask", func(t *testing.T) {
		p, err := ants.NewPool(1)
		if err != nil {
			t.Errorf("NewPool: %v", err)
			return
		}
		defer badRelease(t, "Pool", p)
		_, err = ants.Go[int](context.Background(), p, nil).Wait()
		badErr(t, "Go(nil fn)", err, ants.ErrNilTask)
		s := ants.NewStream(p)
		s.Go(nil)
		ran := false
		s.Go(func() func() { return func() { ran = true } })
		badErr(t, "Stream.Go(nil) Wait", s.Wait(), ants.ErrNilTask)
		badEq(t, "the callback after a nil task ran", ran, true)
		k := ants.NewKeyed[int](p)
		badErr(t, "Keyed.Submit(nil)", k.Submit(1, nil), ants.ErrNilTask)
		badErr(t, "Keyed.SubmitContext(nil task)", k.SubmitContext(context.Background(), 1, nil), ants.ErrNilTask)
		badErr(t, "Keyed.Wait", k.Wait(), nil)
		badEq(t, "Keyed.Keys", k.Keys(), 0)
	}},
	{"nil and cancelled contexts in the wrappers", func(t *testing.T) {
		p, err := ants.NewPool(1)
		if err != nil {
			t.Errorf("NewPool: %v", err)
			return
		}
		defer badRelease(t, "Pool", p)
		v, err := ants.Go(badNilCtx, p, func() (int, error) { return 7, nil }).Wait()
		badErr(t, "Go(nil ctx)", err, nil)
		badEq(t, "Go(nil ctx) value", v, 7)
		_, err = ants.Go(cancelledContext(), p, func() (int, error) { t.Error("ran"); return 0, nil }).Wait()
		badErr(t, "Go(cancelled ctx)", err, context.Canceled)
		k := ants.NewKeyed[string](p)
		badRun(t, "Keyed.SubmitContext(nil ctx)", func(task func()) error { return k.SubmitContext(badNilCtx, "a", task) })
		badErr(t, "Keyed.SubmitContext(cancelled)", k.SubmitContext(cancelledContext(), "a", func() { t.Error("ran") }),
			context.Canceled)
		badErr(t, "Keyed.Wait", k.Wait(), nil)
		g, _ := ants.NewGroupContext(cancelledContext(), p)
		g.Go(func() error { t.Error("ran"); return nil })
		badEq(t, "TryGo on a cancelled group", g.TryGo(func() error { t.Error("ran"); return nil }), false)
		badErr(t, "Group of a cancelled context: Wait", g.Wait(), context.Canceled)
		wp, err := ants.NewWorkerPool(1, func(int) ants.Worker[int, int] { return &surviveWorker{} })
		if err != nil {
			t.Errorf("NewWorkerPool: %v", err)
			return
		}
		defer badRelease(t, "WorkerPool", wp)
		v, err = wp.Process(badNilCtx, 3)
		badErr(t, "WorkerPool.Process(nil ctx)", err, nil)
		badEq(t, "WorkerPool.Process(nil ctx) value", v, 6)
		_, err = wp.Process(cancelledContext(), 3)
		badErr(t, "WorkerPool.Process(cancelled)", err, context.Canceled)
		_, err = wp.Go(cancelledContext(), 3).Wait()
		badErr(t, "WorkerPool.Go(cancelled)", err, context.Canceled)
	}},
	{"wrappers on a released pool get ErrPoolClosed, and work again after Reboot", func(t *testing.T) {
		p, err := ants.NewPool(2)
		if err != nil {
			t.Errorf("NewPool: %v", err)
			return
		}
		defer badRelease(t, "Pool", p)
		sub := ants.NewSubpool(p, 1)
		for round, want := range []error{ants.ErrPoolClosed, nil} {
			if round == 0 {
				p.Release()
			} else {
				p.Reboot()
			}
			what := fmt.Sprintf("round %d", round)
			for _, s := range []ants.Submitter{p, sub} {
				_, err := ants.Go(context.Background(), s, func() (int, error) { return 1, nil }).Wait()
				badErr(t, what+": Go", err, want)
				g := ants.NewGroup(s)
				g.Go(func() error { return nil })
				badErr(t, what+": Group.Wait", g.Wait(), want)
				st := ants.NewStream(s)
				st.Go(func() func() { return nil })
				badErr(t, what+": Stream.Wait", st.Wait(), want)
				k := ants.NewKeyed[int](s)
				badErr(t, what+": Keyed.Submit", k.Submit(1, func() {}), want)
				badErr(t, what+": Keyed.Wait", k.Wait(), nil)
				badEq(t, what+": Keyed.Keys", k.Keys(), 0)
			}
		}
		wp, err := ants.NewWorkerPool(1, func(int) ants.Worker[int, int] { return &surviveWorker{} })
		if err != nil {
			t.Errorf("NewWorkerPool: %v", err)
			return
		}
		wp.Release()
		_, err = wp.Process(context.Background(), 1)
		badErr(t, "WorkerPool.Process after Release", err, ants.ErrPoolClosed)
		_, err = wp.Go(context.Background(), 1).Wait()
		badErr(t, "WorkerPool.Go after Release", err, ants.ErrPoolClosed)
		wp.Reboot()
		_, err = wp.Process(context.Background(), 1)
		badErr(t, "WorkerPool.Process after Reboot", err, nil)
		badRelease(t, "WorkerPool", wp)
	}},
	{"NaN, infinite and signed-zero keys", func(t *testing.T) {
		p, err := ants.NewPool(2)
		if err != nil {
			t.Errorf("NewPool: %v", err)
			return
		}
		defer badRelease(t, "Pool", p)
		k := ants.NewKeyed[float64](p)
		negZero := math.Copysign(0, -1)
		for _, key := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), negZero, 0, -math.NaN()} {
			badRun(t, fmt.Sprintf("Keyed.Submit(%v)", key), func(task func()) error { return k.Submit(key, task) })
		}
		badErr(t, "Keyed.Wait", k.Wait(), nil)
		badEq(t, "Keyed.Keys after Wait", k.Keys(), 0)
	}},
	{"unhashable keys panic as a map does and leave the Keyed usable", func(t *testing.T) {
		p, err := ants.NewPool(1)
		if err != nil {
			t.Errorf("NewPool: %v", err)
			return
		}
		defer badRelease(t, "Pool", p)
		k := ants.NewKeyed[any](p)
		badPanics(t, "Keyed[any].Submit([]int)", "runtime error: comparing uncomparable type []int",
			func() { _ = k.Submit([]int{1}, func() {}) })
		badRun(t, "Keyed[any].Submit after the panic", func(task func()) error { return k.Submit(1, task) })
		badErr(t, "Keyed.Wait", k.Wait(), nil)
		badEq(t, "Keyed.Keys", k.Keys(), 0)
	}},
	{"adaptive capacities out of range are ErrInvalidAdaptiveCapacity", func(t *testing.T) {
		for _, c := range []struct {
			size int
			a    ants.AdaptiveCapacity
		}{
			{4, ants.AdaptiveCapacity{Min: 0, Max: 4}},
			{4, ants.AdaptiveCapacity{Min: -1, Max: 4}},
			{4, ants.AdaptiveCapacity{Min: 5, Max: 4}},
			{4, ants.AdaptiveCapacity{Min: 1, Max: 4, Window: -1}},
			{0, ants.AdaptiveCapacity{Min: 1, Max: 4}},
			{-1, ants.AdaptiveCapacity{Min: 1, Max: 4}},
			{4, ants.AdaptiveCapacity{Min: math.MaxInt, Max: math.MaxInt}},
		} {
			_, err := ants.NewPool(c.size, ants.WithAdaptiveCapacity(c.a))
			badErr(t, fmt.Sprintf("NewPool(%d, %+v)", c.size, c.a), err, ants.ErrInvalidAdaptiveCapacity)
		}
		p, err := ants.NewPool(math.MaxInt, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 1, Max: math.MaxInt}))
		badErr(t, "NewPool(MaxInt) adaptive up to MaxInt", err, nil)
		if err == nil {
			badEq(t, "Cap, clamped", p.Cap(), math.MaxInt32)
			p.Tune(math.MaxInt)
			p.Tune(-1)
			p.Tune(0)
			badEq(t, "Cap after Tune(MaxInt, -1, 0)", p.Cap(), math.MaxInt32)
			badRelease(t, "Pool", p)
		}
	}},
	{"WorkerPool sizes: 0 and negative are ErrInvalidPoolSize, huge is capped", func(t *testing.T) {
		nw := func(int) ants.Worker[int, int] { return &surviveWorker{} }
		for _, size := range []int{0, -1, math.MinInt} {
			_, err := ants.NewWorkerPool(size, nw)
			badErr(t, fmt.Sprintf("NewWorkerPool(%d)", size), err, ants.ErrInvalidPoolSize)
		}
		_, err := ants.NewWorkerPool[int, int](1, nil)
		badErr(t, "NewWorkerPool(nil)", err, ants.ErrLackPoolFunc)
		wp, err := ants.NewWorkerPool(math.MaxInt, nw)
		badErr(t, "NewWorkerPool(MaxInt)", err, nil)
		if err == nil {
			badEq(t, "Cap", wp.Cap(), math.MaxInt32)
			badRelease(t, "WorkerPool", wp)
		}
	}},
	{"rate limits of NaN and Inf", func(t *testing.T) {
		_, err := ants.NewPool(1, ants.WithRateLimit(math.NaN(), 1))
		badErr(t, "WithRateLimit(NaN)", err, ants.ErrInvalidRateLimit)
		p, err := ants.NewPool(1, ants.WithRateLimit(math.Inf(1), 0))
		badErr(t, "WithRateLimit(+Inf, 0): no limit", err, nil)
		if err != nil {
			return
		}
		defer badRelease(t, "Pool", p)
		badErr(t, "SetRateLimit(NaN)", p.SetRateLimit(math.NaN(), 1), ants.ErrInvalidRateLimit)
		badErr(t, "SetRateLimit(-Inf): no limit", p.SetRateLimit(math.Inf(-1), 0), nil)
		badRun(t, "Submit without a limit", p.Submit)
	}},
	{"negative QueueSize buffers without bound", func(t *testing.T) {
		forBadKinds(t, 1, []ants.Option{ants.WithQueueSize(-1)}, func(name string, p *testPool) {
			unblock := badHold(t, p.submit)
			var wg sync.WaitGroup
			const n = 100
			wg.Add(n)
			badQuick(t, name+" 100 submits on a full pool", func() {
				for i := 0; i < n; i++ {
					if err := p.submit(wg.Done); err != nil {
						t.Errorf("%s: submit %d: %v", name, i, err)
						wg.Done()
					}
				}
			})
			badEq(t, name+" Queued", p.Stats().Queued, n)
			unblock()
			wg.Wait()
		})
	}},
}
