package ants_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

// The stress test runs every pool kind (kinds_test.go; a sub-pool's
// configuration is its pool's) under every configuration that changes how
// a task is placed, while several goroutines submit in every way the API
// allows and, at the same time, tune, release, reboot and release with a
// timeout, while another pauses, resumes and changes the rate limit.
// Submits with a context carry random priority levels (stressLevel), and
// two configurations age them (WithPriorityAging), so that the waiting work
// spans several levels, extremes included. A real clock with an expiry of a
// few milliseconds keeps the purge running throughout. It checks, while it
// runs and at each quiet point:
//
//   - every task whose submit returned nil ran exactly once, and no task
//     whose submit returned an error ran;
//   - errors are of the kinds the call may return;
//   - the counters never contradict each other or the tasks actually run;
//   - after every call, the engine's invariants (checkInvariants), the
//     waiting work's per-level queues included;
//   - at a quiet point, Running <= Cap, nothing waits or is queued, and
//     Submitted == Completed + Panicked;
//   - no call blocks for longer than stressCallBound (a hang fails the test
//     with a dump of every goroutine);
//   - after the final ReleaseTimeout, no goroutine is left (checked once
//     every kind and configuration has finished: they run in parallel).
//
// It is bounded in time (stressDuration per pool kind and configuration)
// and in count (stressMaxOps per goroutine and epoch).

const (
	stressGoroutines = 8 // at least stressOpCount: each makes one operation first (hammer)
	stressEpochs     = 3
	stressExpiry     = 2 * time.Millisecond
	stressCallBound  = 10 * time.Second
)

// stressDuration is how long each pool kind and configuration is hammered.
// The 8 kinds x 7 configurations run go test's -parallel at a time
// (GOMAXPROCS by default), which makes it about 3.5 s in all on 2 cores,
// 7 s on one; a sixth of it under -short, and four times as long with
// ANTS_LONG_TESTS=1 (longTests).
func stressDuration() time.Duration {
	switch {
	case testing.Short():
		return 20 * time.Millisecond
	case longTests():
		return 500 * time.Millisecond
	}
	return 120 * time.Millisecond
}

// stressMaxOps is the most calls each goroutine makes in an epoch: 3000 in
// 120 ms, so that time ends the run of every configuration where the calls
// wait, and the count only ends those that refuse tasks at once.
func stressMaxOps() int { return max(3000, 15*int(stressDuration()/time.Millisecond)) }

// stressConfig is one way of configuring a pool. Two configurations age
// priority levels by about a task's length, so that waiting units do change
// rank while they wait; the others keep strict levels.
type stressConfig struct {
	name        string
	size        int // per sub-pool for the multi-pools
	queueSize   int
	maxBlocking int
	nonblocking bool
	preAlloc    bool
	aging       time.Duration // WithPriorityAging; 0: strict levels
}

func (c stressConfig) options(h *stressHarness) []ants.Option {
	return []ants.Option{
		ants.WithExpiryDuration(stressExpiry),
		ants.WithPreAlloc(c.preAlloc),
		ants.WithQueueSize(c.queueSize),
		ants.WithMaxBlockingTasks(c.maxBlocking),
		ants.WithNonblocking(c.nonblocking),
		ants.WithPriorityAging(c.aging),
		ants.WithPanicHandler(func(any) { h.panics.Add(1) }),
	}
}

// mayOverload reports whether a blocking submit may return ErrPoolOverload.
func (c stressConfig) mayOverload() bool { return c.nonblocking || c.maxBlocking != 0 }

var stressConfigs = []stressConfig{
	{name: "blocking", size: 3},
	{name: "PreAlloc", size: 3, preAlloc: true},
	{name: "QueueSize with aging", size: 3, queueSize: 4, aging: 20 * time.Microsecond},
	{name: "Nonblocking", size: 3, nonblocking: true},
	{name: "Nonblocking with QueueSize", size: 3, nonblocking: true, queueSize: 2},
	{name: "MaxBlockingTasks with aging", size: 3, maxBlocking: 2, aging: 50 * time.Microsecond},
	{name: "PreAlloc with QueueSize and MaxBlockingTasks", size: 3, preAlloc: true, queueSize: 2, maxBlocking: 1},
}

// The stress test runs on every kind of kinds_test.go. Its tasks are
// h.task(a): the argument a encodes a task id and what the task does
// (stressTaskKind). A sub-pool's pools below it take part: Release closes
// one level at random, so that submits also meet a released parent, Reboot
// reopens them all, a quiet point needs them quiet too, and the final
// release closes every level.

// stressRelease releases p or, for a sub-pool, one of the pools below it,
// at random.
func stressRelease(p *testPool) {
	levels := p.levels()
	levels[rand.IntN(len(levels))].Release()
}

// stressReboot reopens p and the pools below it.
func stressReboot(p *testPool) {
	for _, l := range p.levels() {
		l.Reboot()
	}
}

// stressReleaseTimeout is ReleaseTimeout of p and of the pools below it,
// their errors joined.
func stressReleaseTimeout(p *testPool, d time.Duration) error {
	var errs []error
	for _, l := range p.levels() {
		if err := l.ReleaseTimeout(d); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// stressBelowQuiet reports whether the pools below a sub-pool have finished
// every task they accepted and have only idle workers.
func stressBelowQuiet(p *testPool) bool {
	for _, l := range p.below {
		st := l.Stats()
		if st.Completed+st.Panicked != st.Submitted || st.Running != st.Idle {
			return false
		}
	}
	return true
}

// What a stress task does, in the low bits of its argument.
const (
	stressInstant = iota
	stressSleep
	stressPanic
	stressGoexit
	stressKindBits = 2
)

// Submission states of a task id.
const (
	stressPending int32 = iota
	stressAccepted
	stressRejected
)

// stressHarness records what every task id did and collects violations from
// any goroutine.
type stressHarness struct {
	t      *testing.T
	runs   []atomic.Int32 // how many times each task id ran
	state  []atomic.Int32 // stressPending, stressAccepted or stressRejected
	nextID atomic.Int64

	ran      atomic.Int64 // pool tasks started, group tasks included
	panics   atomic.Int64 // PanicHandler calls
	groupRan atomic.Int64 // group tasks that ran

	failed  atomic.Int64
	calls   [stressGoroutines + 1]stressCall
	hang    chan struct{}
	hangMsg atomic.Pointer[string]
	once    sync.Once
}

// stressCall is what one goroutine is doing: the start of its current call
// (0 if none) and the call's name.
type stressCall struct {
	start atomic.Int64
	op    atomic.Pointer[string]
}

func newStressHarness(t *testing.T, ids int) *stressHarness {
	return &stressHarness{
		t:     t,
		runs:  make([]atomic.Int32, ids),
		state: make([]atomic.Int32, ids),
		hang:  make(chan struct{}),
	}
}

// errorf reports a violation; the first few are logged, all fail the test.
func (h *stressHarness) errorf(format string, args ...any) {
	if h.failed.Add(1) <= 10 {
		h.t.Errorf(format, args...)
	}
}

// newID returns a fresh task id, or -1 when the table is full.
func (h *stressHarness) newID() int {
	id := h.nextID.Add(1) - 1
	if id >= int64(len(h.runs)) {
		h.nextID.Store(int64(len(h.runs)))
		return -1
	}
	return int(id)
}

// task returns the stress task of argument a.
func (h *stressHarness) task(a int) func() {
	return func() { h.run(a) }
}

// run is every stress task's body.
func (h *stressHarness) run(a int) {
	id, kind := a>>stressKindBits, a&(1<<stressKindBits-1)
	h.ran.Add(1)
	if n := h.runs[id].Add(1); n > 1 {
		h.errorf("task %d ran %d times", id, n)
	}
	if h.state[id].Load() == stressRejected {
		h.errorf("task %d ran although its submit returned an error", id)
	}
	switch kind {
	case stressSleep:
		// The task's own work, not synchronisation: long enough for tasks
		// to overlap and fill the pool.
		time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
	case stressPanic:
		panic(fmt.Sprintf("stress task %d panics", id))
	case stressGoexit:
		runtime.Goexit()
	}
}

// settle records the outcome of the submit of task id.
func (h *stressHarness) settle(id int, err error) {
	if err == nil {
		h.state[id].Store(stressAccepted)
		return
	}
	h.state[id].Store(stressRejected)
}

// call runs f as call op of goroutine g, under the watchdog.
func (h *stressHarness) call(g int, op string, f func()) {
	c := &h.calls[g]
	c.op.Store(&op)
	c.start.Store(time.Now().UnixNano())
	f()
	c.start.Store(0)
}

// watch fails the test if a call runs longer than stressCallBound. It
// returns when stop is closed.
func (h *stressHarness) watch(stop <-chan struct{}) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			for g := range h.calls {
				c := &h.calls[g]
				if s := c.start.Load(); s != 0 && now.UnixNano()-s > int64(stressCallBound) {
					h.hung(fmt.Sprintf("goroutine %d: %s has not returned after %v", g, *c.op.Load(), stressCallBound))
					return
				}
			}
		}
	}
}

func (h *stressHarness) hung(msg string) {
	h.once.Do(func() {
		h.hangMsg.Store(&msg)
		close(h.hang)
	})
}

// await waits for wg, or fails the test with a goroutine dump if the
// watchdog reports a hang or wg takes longer than bound.
func (h *stressHarness) await(wg *sync.WaitGroup, what string, bound time.Duration) {
	h.t.Helper()
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-h.hang:
		fatalHang(h.t, *h.hangMsg.Load())
	case <-time.After(bound):
		fatalHang(h.t, fmt.Sprintf("%s took longer than %v", what, bound))
	}
}

// waitFor polls cond until it holds, failing with a goroutine dump after
// stressCallBound.
func (h *stressHarness) waitFor(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(stressCallBound)
	for !cond() {
		if time.Now().After(deadline) {
			fatalHang(h.t, "waiting until "+what)
		}
		runtime.Gosched()
	}
}

var errStressTask = errors.New("stress: task failed")

// TestStress runs testStress on every kind and configuration, in parallel:
// each run hammers a pool of its own and mostly waits on its tasks, its
// timers and its blocked callers (alone, a run keeps a fifth of a core
// busy, four fifths under -race), so that two at a time make as many calls
// each as one alone, or more. Goroutines of the other runs are about while one ends, so the check
// that none is left behind is made once every run has ended.
func TestStress(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, ignore) })
	forEveryKind(t, func(t *testing.T, kind poolKind) {
		t.Parallel()
		for _, cfg := range stressConfigs {
			t.Run(cfg.name, func(t *testing.T) {
				t.Parallel()
				testStress(t, kind, cfg)
			})
		}
	})
}

func testStress(t *testing.T, kind poolKind, cfg stressConfig) {
	h := newStressHarness(t, stressGoroutines*stressMaxOps()*stressEpochs+stressEpochs+1)
	target, err := kind.new(cfg.size, cfg.options(h)...)
	if err != nil {
		t.Fatalf("creating the pool: %v", err)
	}
	baseCap := target.Cap()
	if want := cfg.size * target.members; baseCap != want {
		t.Fatalf("Cap() = %d, want %d", baseCap, want)
	}

	watchStop := make(chan struct{})
	var watchWG sync.WaitGroup
	watchWG.Add(1)
	go func() {
		defer watchWG.Done()
		h.watch(watchStop)
	}()
	var stopOnce sync.Once
	stopWatch := func() {
		stopOnce.Do(func() {
			close(watchStop)
			watchWG.Wait()
		})
	}
	defer stopWatch()

	perEpoch := stressDuration() / stressEpochs
	var ops [stressOpCount]atomic.Int64
	var paces [3]int // Pause, Resume and SetRateLimit calls made
	for epoch := 0; epoch < stressEpochs && !t.Failed(); epoch++ {
		deadline := time.Now().Add(perEpoch)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for g := 0; g < stressGoroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h.hammer(g, target, cfg, deadline, &ops)
			}()
		}
		var samplerWG sync.WaitGroup
		samplerWG.Add(2)
		go func() {
			defer samplerWG.Done()
			h.sample(target, cfg, stop)
		}()
		go func() {
			defer samplerWG.Done()
			h.pace(target, stop, &paces)
		}()
		h.await(&wg, "the submitting goroutines", perEpoch+2*stressCallBound)
		close(stop)
		samplerWG.Wait()

		h.quiesce(target, cfg, baseCap)
	}
	if t.Failed() {
		_ = stressReleaseTimeout(target, stressCallBound)
		return
	}

	h.call(stressGoroutines, "the final ReleaseTimeout", func() {
		if err := stressReleaseTimeout(target, stressCallBound); err != nil {
			t.Errorf("the final ReleaseTimeout: %v", err)
		}
	})
	if n := target.Running(); n != 0 {
		t.Errorf("Running() = %d after ReleaseTimeout returned nil", n)
	}
	if id := h.newID(); id >= 0 {
		err := target.submit(h.task(id << stressKindBits))
		h.settle(id, err)
		if !errors.Is(err, ants.ErrPoolClosed) {
			t.Errorf("submit after the final release: %v, want ErrPoolClosed", err)
		}
	}
	h.checkTasks()
	stopWatch()

	for op := range ops {
		if ops[op].Load() == 0 && !testing.Short() && (op != stressOpGroup || target.submitter() != nil) {
			t.Errorf("no %s call was made: the test proved less than it claims", stressOpNames[op])
		}
	}
	for i, n := range paces {
		if n == 0 && !testing.Short() {
			t.Errorf("no %s call was made: the test proved less than it claims",
				[...]string{"Pause", "Resume", "SetRateLimit"}[i])
		}
	}
	t.Logf("%d task ids, %d tasks ran, %d group tasks", h.nextID.Load(), h.ran.Load(), h.groupRan.Load())
}

// pace pauses, resumes and changes the rate limit of p, or of a pool below
// it, at random, until stop is closed, checking the engine's invariants
// after each call; it counts its calls in n. It leaves every level resumed
// and without a limit. A pause lasts until the next Resume, a few hundred
// microseconds later: the callers blocked meanwhile wait that long.
func (h *stressHarness) pace(p *testPool, stop <-chan struct{}, n *[3]int) {
	levels := p.levels()
	defer func() {
		for _, l := range levels {
			l.(pacer).Resume()
			if err := l.(pacer).SetRateLimit(0, 0); err != nil {
				h.errorf("SetRateLimit(0, 0): %v", err)
			}
		}
	}()
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		l := levels[rand.IntN(len(levels))].(pacer)
		op := rand.IntN(3)
		if i < 3 {
			op = i // each call is made at least once an epoch
		}
		switch op {
		case 0:
			d := time.Duration(rand.IntN(500)) * time.Microsecond
			ctx, cancel := context.WithTimeout(context.Background(), d)
			var err error
			h.call(stressGoroutines, "Pause", func() { err = l.Pause(ctx) })
			cancel()
			if err != nil && err != context.DeadlineExceeded {
				h.errorf("Pause: %v", err)
			}
			n[op]++
		case 1:
			l.Resume()
			n[op]++
		default:
			rate, burst := 20_000+rand.Float64()*200_000, 1+rand.IntN(8)
			if rand.IntN(3) == 0 {
				rate = 0
			}
			if err := l.SetRateLimit(rate, burst); err != nil {
				h.errorf("SetRateLimit(%v, %d): %v", rate, burst, err)
			}
			n[op]++
		}
		if err := p.checkInvariants(); err != nil {
			h.errorf("after pacing: engine invariant: %v", err)
			return
		}
		// How long the pool stays so, not synchronisation.
		time.Sleep(time.Duration(rand.IntN(300)) * time.Microsecond)
	}
}

// The operations the goroutines mix, with their weights out of 100.
const (
	stressOpSubmit = iota
	stressOpSubmitContext
	stressOpTrySubmit
	stressOpGroup
	stressOpTune
	stressOpRelease
	stressOpReleaseTimeout
	stressOpReboot
	stressOpCount
)

var (
	stressOpNames   = [stressOpCount]string{"Submit", "SubmitContext", "TrySubmit", "Group.Go/TryGo/Wait", "Tune", "Release", "ReleaseTimeout", "Reboot"}
	stressOpWeights = [stressOpCount]int{33, 20, 20, 10, 7, 2, 2, 6}
)

func stressPickOp() int {
	r := rand.IntN(100)
	for op, w := range stressOpWeights {
		if r < w {
			return op
		}
		r -= w
	}
	return stressOpSubmit
}

// stressTaskArg returns the argument of a new task with id: mostly instant
// or short tasks, sometimes one that panics or calls runtime.Goexit.
func stressTaskArg(id int) int {
	var kind int
	switch r := rand.IntN(100); {
	case r < 60:
		kind = stressInstant
	case r < 94:
		kind = stressSleep
	case r < 98:
		kind = stressPanic
	default:
		kind = stressGoexit
	}
	return id<<stressKindBits | kind
}

// hammer is one submitting goroutine: it makes random calls until the
// deadline or stressMaxOps calls. Its first call is operation g (modulo
// their count), so that every operation is made in every epoch however
// few calls a slow machine allows: the rare ones would otherwise be
// missed now and then, and the test would prove less than it claims.
func (h *stressHarness) hammer(g int, p *testPool, cfg stressConfig, deadline time.Time, ops *[stressOpCount]atomic.Int64) {
	for n, maxOps := 0, stressMaxOps(); n < maxOps && time.Now().Before(deadline); n++ {
		op := stressPickOp()
		if n == 0 {
			op = g % stressOpCount
		}
		if op == stressOpGroup && p.submitter() == nil {
			op = stressOpSubmit
		}
		ops[op].Add(1)
		switch op {
		case stressOpSubmit:
			id := h.newID()
			if id < 0 {
				return
			}
			var err error
			if rand.IntN(2) == 0 {
				h.call(g, "Submit", func() { err = p.submit(h.task(stressTaskArg(id))) })
			} else {
				// A submit that waits as long as it takes, at a level.
				ctx := stressLevelContext(context.Background())
				h.call(g, "SubmitContext at a level", func() { err = p.submitContext(ctx, h.task(stressTaskArg(id))) })
			}
			h.settle(id, err)
			h.checkErr("Submit", err, cfg.mayOverload(), nil)
		case stressOpSubmitContext:
			id := h.newID()
			if id < 0 {
				return
			}
			ctx, cancel := stressContext()
			var err error
			h.call(g, "SubmitContext", func() { err = p.submitContext(ctx, h.task(stressTaskArg(id))) })
			h.settle(id, err)
			h.checkErr("SubmitContext", err, cfg.mayOverload(), ctx)
			cancel()
		case stressOpTrySubmit:
			id := h.newID()
			if id < 0 {
				return
			}
			var err error
			h.call(g, "TrySubmit", func() { err = p.trySubmit(h.task(stressTaskArg(id))) })
			h.settle(id, err)
			h.checkErr("TrySubmit", err, true, nil)
		case stressOpGroup:
			h.call(g, "Group.Go/TryGo/Wait", func() { h.group(p, cfg) })
		case stressOpTune:
			size := 1 + rand.IntN(2*cfg.size)
			h.call(g, "Tune", func() { p.Tune(size) })
		case stressOpRelease:
			h.call(g, "Release", func() { stressRelease(p) })
		case stressOpReleaseTimeout:
			d := time.Duration(rand.IntN(2000)) * time.Microsecond
			var err error
			h.call(g, "ReleaseTimeout", func() { err = p.ReleaseTimeout(d) })
			if err != nil && !errors.Is(err, ants.ErrTimeout) && !errors.Is(err, ants.ErrPoolClosed) {
				h.errorf("ReleaseTimeout(%v): unexpected error %v", d, err)
			}
		case stressOpReboot:
			h.call(g, "Reboot", func() { stressReboot(p) })
		}
		if err := p.checkInvariants(); err != nil {
			h.errorf("after %s: engine invariant: %v", stressOpNames[op], err)
			return
		}
	}
}

// stressLevel returns a random priority level: mostly -2 to 3, and now and
// then math.MinInt or math.MaxInt.
func stressLevel() int {
	switch r := rand.IntN(60); r {
	case 0:
		return math.MinInt
	case 1:
		return math.MaxInt
	default:
		return r%6 - 2
	}
}

// stressLevelContext returns ctx with a random level, or ctx itself (level
// 0, no value) one time in four; and in one of three flows, or none, at
// random.
func stressLevelContext(ctx context.Context) context.Context {
	if f := rand.IntN(4); f > 0 {
		ctx = ants.ContextWithFlow(ctx, stressFlows[f-1])
	}
	if rand.IntN(4) == 0 {
		return ctx
	}
	return ants.ContextWithPriority(ctx, stressLevel())
}

var stressFlows = [3]string{"", "tenant-a", "tenant-b"}

// stressContext returns a context that is cancelled before the call, at a
// random moment during it, by a deadline, or never; it carries a random
// level (stressLevelContext).
func stressContext() (context.Context, context.CancelFunc) {
	ctx, cancel := stressCancelContext()
	return stressLevelContext(ctx), cancel
}

func stressCancelContext() (context.Context, context.CancelFunc) {
	switch rand.IntN(4) {
	case 0:
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	case 1:
		ctx, cancel := context.WithCancel(context.Background())
		tm := time.AfterFunc(time.Duration(rand.IntN(200))*time.Microsecond, cancel)
		return ctx, func() { tm.Stop(); cancel() }
	case 2:
		return context.WithTimeout(context.Background(), time.Duration(rand.IntN(200))*time.Microsecond)
	default:
		return context.WithCancel(context.Background())
	}
}

// checkErr checks that err is one that op may return.
func (h *stressHarness) checkErr(op string, err error, mayOverload bool, ctx context.Context) {
	switch {
	case err == nil, err == ants.ErrPoolClosed:
	case err == ants.ErrPoolOverload:
		if !mayOverload {
			h.errorf("%s returned ErrPoolOverload on a pool that lets callers wait", op)
		}
	case ctx != nil && (err == context.Canceled || err == context.DeadlineExceeded):
		if ctx.Err() != err {
			h.errorf("%s returned %v but its context's error is %v", op, err, ctx.Err())
		}
	default:
		h.errorf("%s: unexpected error %v", op, err)
	}
}

// group runs a few tasks in a Group, some through Go and some through
// TryGo, and checks what Wait reports: with nil, every task ran once; a task
// TryGo refused never ran; an error is one the pool or a task may cause.
func (h *stressHarness) group(p *testPool, cfg stressConfig) {
	g := ants.NewGroup(p.submitter())
	n := 1 + rand.IntN(4)
	var ran [4]atomic.Int32
	var failing, panicking, refused [4]bool
	for i := 0; i < n; i++ {
		failing[i] = rand.IntN(10) == 0
		panicking[i] = !failing[i] && rand.IntN(20) == 0
		task := func() error {
			h.ran.Add(1)
			ran[i].Add(1)
			if failing[i] {
				return errStressTask
			}
			if panicking[i] {
				panic(errStressTask)
			}
			return nil
		}
		if rand.IntN(3) == 0 {
			refused[i] = !g.TryGo(task)
		} else {
			g.Go(task)
		}
	}
	err := g.Wait()
	var total int64
	anyFailed := false
	for i := 0; i < n; i++ {
		r := ran[i].Load()
		switch {
		case r > 1:
			h.errorf("group task %d ran %d times", i, r)
		case refused[i] && r != 0:
			h.errorf("TryGo refused group task %d but it ran", i)
		case err == nil && !refused[i] && r != 1:
			h.errorf("Wait returned nil but group task %d ran %d times", i, r)
		}
		if r == 1 && (failing[i] || panicking[i]) {
			anyFailed = true
		}
		total += int64(r)
	}
	h.groupRan.Add(total)
	var pe *ants.PanicError
	switch {
	case err == nil:
	case err == ants.ErrPoolClosed:
	case err == ants.ErrPoolOverload:
		if !cfg.mayOverload() {
			h.errorf("a group reported ErrPoolOverload on a pool that lets callers wait")
		}
	case err == errStressTask, errors.As(err, &pe) && errors.Is(err, errStressTask):
		if !anyFailed {
			h.errorf("Wait returned %v but no failing task ran", err)
		}
	default:
		h.errorf("Group.Wait: unexpected error %v", err)
	}
}

// sample checks, until stop is closed, the invariants that hold at every
// instant.
func (h *stressHarness) sample(p *testPool, cfg stressConfig, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		default:
		}
		ran0 := h.ran.Load()
		s := p.Stats()
		ran1 := h.ran.Load()
		if done := s.Completed + s.Panicked; done > s.Submitted {
			h.errorf("stats: %d tasks finished but only %d were submitted", done, s.Submitted)
		}
		if uint64(ran0) > s.Submitted {
			h.errorf("stats: %d tasks had started before Submitted read %d", ran0, s.Submitted)
		}
		if s.Completed+s.Panicked > uint64(ran1) {
			h.errorf("stats: %d tasks finished but only %d had started", s.Completed+s.Panicked, ran1)
		}
		if s.Running < 0 || s.Idle < 0 || s.Idle > s.Running || s.Waiting < 0 || s.Queued < 0 {
			h.errorf("stats out of range: %+v", s)
		}
		// A sub-pool's callers wait for a slot whatever its parent's options.
		subpool := len(p.below) > 0
		if cfg.queueSize > 0 && s.Queued > cfg.queueSize*p.members {
			h.errorf("stats: %d tasks queued, buffer size %d x %d", s.Queued, cfg.queueSize, p.members)
		}
		if cfg.nonblocking && s.Waiting != 0 && !subpool {
			h.errorf("stats: %d callers wait on a Nonblocking pool", s.Waiting)
		}
		if cfg.maxBlocking > 0 && s.Waiting > cfg.maxBlocking*p.members && !subpool {
			h.errorf("stats: %d callers wait, MaxBlockingTasks %d x %d", s.Waiting, cfg.maxBlocking, p.members)
		}
		time.Sleep(100 * time.Microsecond) // the sampling period
	}
}

// quiesce brings the pool to a quiet point (open, at its base capacity,
// every accepted task finished) and checks the invariants that hold there.
func (h *stressHarness) quiesce(p *testPool, cfg stressConfig, baseCap int) {
	h.t.Helper()
	stressReboot(p)
	p.Tune(cfg.size)
	// A quiet point: every accepted task has finished, nothing waits or is
	// queued, and every worker left is idle.
	quiet := func() bool {
		s := p.Stats()
		return s.Completed+s.Panicked == s.Submitted && s.Waiting == 0 && s.Queued == 0 && s.Running == s.Idle &&
			stressBelowQuiet(p)
	}
	h.waitFor("a quiet point", quiet)
	// There every worker is idle or gone, so the pool, open again, must
	// take a task without waiting.
	if id := h.newID(); id >= 0 {
		err := p.trySubmit(h.task(id << stressKindBits))
		h.settle(id, err)
		if err != nil {
			h.errorf("TrySubmit on a quiet pool after Reboot: %v", err)
		}
	}
	h.waitFor("a quiet point after the probe", quiet)
	s := p.Stats()
	if s.Cap != baseCap || p.Cap() != baseCap {
		h.errorf("Cap() = %d (stats %d) after Tune(%d), want %d", p.Cap(), s.Cap, cfg.size, baseCap)
	}
	if r := p.Running(); r > p.Cap() {
		h.errorf("at a quiet point Running() = %d > Cap() = %d", r, p.Cap())
	}
	for i := 0; p.byIndex != nil && i < p.members; i++ {
		if r, err := p.RunningByIndex(i); err != nil || r > cfg.size {
			h.errorf("at a quiet point RunningByIndex(%d) = %d, %v; capacity %d", i, r, err, cfg.size)
		}
	}
	if w := p.Waiting(); w != 0 {
		h.errorf("at a quiet point Waiting() = %d", w)
	}
	if s.Idle > s.Running {
		h.errorf("at a quiet point: %+v", s)
	}
	if got := uint64(h.ran.Load()); got != s.Submitted {
		h.errorf("at a quiet point %d tasks ran but Submitted = %d", got, s.Submitted)
	}
	if got, want := s.Submitted, uint64(h.accepted()+h.groupRan.Load()); got != want {
		h.errorf("Submitted = %d, but %d submits returned nil and %d group tasks ran", got, h.accepted(), h.groupRan.Load())
	}
	h.checkTasks()
}

// accepted returns the number of task ids whose submit returned nil.
func (h *stressHarness) accepted() int64 {
	var n int64
	for id := range min(int(h.nextID.Load()), len(h.state)) {
		if h.state[id].Load() == stressAccepted {
			n++
		}
	}
	return n
}

// checkTasks checks, once every submit has returned and every accepted task
// has finished, that accepted tasks ran once and rejected ones never.
func (h *stressHarness) checkTasks() {
	var bad []string
	for id := range min(int(h.nextID.Load()), len(h.state)) {
		st, runs := h.state[id].Load(), h.runs[id].Load()
		switch {
		case st == stressAccepted && runs != 1:
			bad = append(bad, fmt.Sprintf("task %d was accepted and ran %d times", id, runs))
		case st == stressRejected && runs != 0:
			bad = append(bad, fmt.Sprintf("task %d was rejected and ran %d times", id, runs))
		case st == stressPending:
			bad = append(bad, fmt.Sprintf("task %d: its submit never returned", id))
		}
	}
	if len(bad) > 0 {
		h.errorf("%d tasks broke exactly-once: %s", len(bad), strings.Join(bad[:min(len(bad), 5)], "; "))
	}
}
