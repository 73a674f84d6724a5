package ants_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// The helpers every test file shares: the bounds of every wait (long,
// brief), gates that hold tasks back, calls made on a goroutine of their
// own, waits that fail the test rather than hang it, and waits for a state
// of a pool. The table of pool kinds, and the helpers that pick some of
// them, are in kinds_test.go.

// long bounds every wait for something that must happen; reaching it fails
// the test. brief is the window of the "must not happen" checks that no
// synchronisation can replace (see assertNoRecv), and a timeout meant to
// expire.
const (
	long  = 10 * time.Second
	brief = 20 * time.Millisecond
)

// gate holds back the tasks made by its task method until it is opened.
type gate struct {
	ch   chan struct{}
	once sync.Once
}

// newGate returns a closed gate that opens when the test ends.
func newGate(t *testing.T) *gate {
	g := &gate{ch: make(chan struct{})}
	t.Cleanup(g.open)
	return g
}

func (g *gate) open() { g.once.Do(func() { close(g.ch) }) }

// task returns a task that reports on started, if it is not nil, and then
// waits for the gate to open.
func (g *gate) task(started chan<- struct{}) func() {
	return func() {
		if started != nil {
			started <- struct{}{}
		}
		<-g.ch
	}
}

// occupy submits n tasks held by g and waits until all of them run.
func occupy(t *testing.T, p *testPool, g *gate, n int) {
	t.Helper()
	occupyWith(t, p.submit, g, n)
}

// occupyWith is occupy for any submit function.
func occupyWith(t *testing.T, submit func(func()) error, g *gate, n int) {
	t.Helper()
	started := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		require.NoError(t, submit(g.task(started)))
	}
	for i := 0; i < n; i++ {
		recv(t, started, "a held task to start")
	}
}

// occupyPool fills the n workers of p with tasks held by l.
func occupyPool(t *testing.T, p ants.Submitter, l *gate, n int) {
	t.Helper()
	started := make(chan struct{}, n)
	for range n {
		require.NoError(t, p.SubmitContext(context.Background(), l.task(started)))
	}
	for range n {
		recv(t, started, "a held task to start")
	}
}

// signal returns a task that sends on ch.
func signal(ch chan<- struct{}) func() {
	return func() { ch <- struct{}{} }
}

// async runs call on a new goroutine and returns its result. It returns
// once the goroutine has started, so that the call is under way.
func async(call func() error) <-chan error {
	errc := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		close(started)
		errc <- call()
	}()
	<-started
	return errc
}

// asyncChecked is async(call) with check run as call returns, for what
// must have happened before it may return: an early return is then caught
// whenever it happens, not only within assertNoRecv's window.
func asyncChecked(call func() error, check func()) <-chan error {
	return async(func() error {
		err := call()
		check()
		return err
	})
}

// submitAsync submits task from a new goroutine and returns the result.
func submitAsync(submit func(func()) error, task func()) <-chan error {
	return async(func() error { return submit(task) })
}

// blocked runs call on a new goroutine, waits until p counts n blocked
// callers, call's among them, and returns call's result.
func blocked(t *testing.T, p interface{ Waiting() int }, n int, call func() error) <-chan error {
	t.Helper()
	errc := async(call)
	waitWaiting(t, p, n)
	return errc
}

// blockedSubmits submits task from n new goroutines, waits until all n
// are blocked in p, and returns their results.
func blockedSubmits(t *testing.T, p *testPool, n int, task func()) []<-chan error {
	t.Helper()
	results := make([]<-chan error, n)
	for i := range results {
		results[i] = submitAsync(p.submit, task)
	}
	waitWaiting(t, p, n)
	return results
}

// submitNow submits task and returns the result, failing the test if the
// call does not return in time: for calls expected to fail at once.
func submitNow(t *testing.T, submit func(func()) error, task func()) error {
	t.Helper()
	return recv(t, submitAsync(submit, task), "Submit to return")
}

// boundedContext returns a context that ends when the test does or after
// long, whichever comes first, so that a wait that should end never hangs
// the suite.
func boundedContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), long)
	t.Cleanup(cancel)
	return ctx
}

// cancelledContext returns a context that is already cancelled.
func cancelledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// recv returns the next value from ch, failing the test if none comes in time.
func recv[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(long):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// assertNoRecv checks that nothing arrives on ch for a brief while: that a
// call does not return, or a task does not run, while the test still holds
// back what it waits for. The window suffices because what it watches is
// already under way when it starts (async returns only once its goroutine
// runs the call; a task's submit has returned), and it waits for nothing
// but what the test holds: done wrong, it would deliver within
// microseconds of its own work, a thousandth of brief. Where the end state
// can show the bad event instead, the tests check that (a refused task
// after ReleaseTimeout; what a returning call must have seen, recorded as
// it returns).
func assertNoRecv[T any](t *testing.T, ch <-chan T, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("%s happened too early (%v)", what, v)
	case <-time.After(brief):
	}
}

// waitUntil waits for a state that the pool reaches without telling anyone,
// such as a caller having blocked or a worker having parked, by yielding
// until cond holds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(long)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		runtime.Gosched()
	}
}

// longTests reports whether the long versions of the tests run: with
// ANTS_LONG_TESTS=1 in the environment, and not under -short. They are
// TestAdaptiveCapacityAcceptance, 16 s of real time, skipped otherwise;
// TestStress for 500 ms per pool kind and configuration instead of 120 ms;
// and ten times the rounds of TestMultiPoolReleaseRacingRebootLeavesItUsable
// and TestShrinkThenGrowServesAtOnce. CI runs them in a step of their own
// (.ci/run).
func longTests() bool { return os.Getenv("ANTS_LONG_TESTS") == "1" && !testing.Short() }

// fatalHang dumps every goroutine to standard error and fails the test:
// for a wait that should have ended long ago, where the stacks show what
// each goroutine waits for.
func fatalHang(t *testing.T, msg string) {
	t.Helper()
	_ = pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
	t.Fatalf("hang: %s (goroutines dumped to stderr)", msg)
}

// waitIdle waits until the pool has n idle workers.
func waitIdle(t *testing.T, p interface{ Stats() ants.Stats }, n int) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%d workers are idle", n), func() bool { return p.Stats().Idle == n })
}

// waitRunning waits until the pool has n worker goroutines: a worker the
// pool stops leaves Running() when its goroutine exits, a moment later.
func waitRunning(t *testing.T, p interface{ Running() int }, n int) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%d workers are running", n), func() bool { return p.Running() == n })
}

// waitWaiting waits until n callers are blocked in the pool.
func waitWaiting(t *testing.T, p interface{ Waiting() int }, n int) {
	t.Helper()
	waitUntil(t, fmt.Sprintf("%d callers are blocked", n), func() bool { return p.Waiting() == n })
}

// startIdle makes p start n workers, with n tasks at once, and waits
// until all n are idle.
func startIdle(t *testing.T, p *testPool, n int) {
	t.Helper()
	g := newGate(t)
	occupy(t, p, g, n)
	g.open()
	waitIdle(t, p, n)
}

// testLogger sends every message it is given on ch, dropping those that do
// not fit.
type testLogger struct{ ch chan string }

func (l testLogger) Printf(format string, args ...any) {
	select {
	case l.ch <- fmt.Sprintf(format, args...):
	default:
	}
}
