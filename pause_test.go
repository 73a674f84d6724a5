package ants_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// Pause and Resume: a paused pool starts no task, holds the tasks submitted
// meanwhile where a full pool would, and starts them on Resume in the
// order they would have started, each exactly once.

// pacer is what every pool kind and Subpool add for pace and pause.
type pacer interface {
	Pause(ctx context.Context) error
	Resume()
	Paused() bool
	SetRateLimit(perSecond float64, burst int) error
	RateLimit() (perSecond float64, burst int)
}

// Every pool kind, WorkerPool and Subpool have the API.
var (
	_ pacer = (*ants.Pool)(nil)
	_ pacer = (*ants.PoolWithFunc)(nil)
	_ pacer = (*ants.PoolWithFuncGeneric[int])(nil)
	_ pacer = (*ants.MultiPool)(nil)
	_ pacer = (*ants.MultiPoolWithFunc)(nil)
	_ pacer = (*ants.MultiPoolWithFuncGeneric[int])(nil)
	_ pacer = (*ants.WorkerPool[int, int])(nil)
	_ pacer = (*ants.Subpool)(nil)
)

// pacerOf returns p's pacer.
func pacerOf(p *testPool) pacer { return p.poolAPI.(pacer) }

// pauseNow pauses p, which runs no task, and checks that Pause returns nil
// at once.
func pauseNow(t *testing.T, p pacer) {
	t.Helper()
	require.NoError(t, recv(t, async(func() error { return p.Pause(boundedContext(t)) }), "Pause"))
	require.True(t, p.Paused())
}

// submitHeld submits n tasks of log, numbered from first, one after
// another: each returns at once (into the buffer) or blocks, and the next
// is submitted only once it has done either, so that their order is known.
// It returns the results of the blocked ones and how many went to the
// buffer.
func submitHeld(t *testing.T, p *testPool, log *runLog, first, n int) (blocked []<-chan error, buffered int) {
	t.Helper()
	for i := first; i < first+n; i++ {
		want := p.Waiting() + 1
		errc := submitAsync(p.submit, log.task(i))
		var err error
		returned := false
		waitUntil(t, "the submit to return or block", func() bool {
			select {
			case err = <-errc:
				returned = true
				return true
			default:
				return p.Waiting() == want
			}
		})
		if !returned {
			blocked = append(blocked, errc)
			continue
		}
		require.NoError(t, err)
		buffered++
	}
	return blocked, buffered
}

// waitCompleted waits until p counts n completed tasks.
func waitCompleted(t *testing.T, p poolAPI, n int) {
	t.Helper()
	waitUntil(t, "every task to complete", func() bool { return p.Stats().Completed == uint64(n) })
}

// TestPauseHoldsTasksAndResumeRunsThemInOrderOnce: a paused pool of one
// worker per member takes n tasks, in its buffer or with their callers
// blocked, and starts none: no worker is started, and TrySubmit is refused
// once the buffer is full.
// Resume runs every task exactly once, in submit order where one queue
// orders them (Pool, the function pools, Subpool); in a multi-pool each
// member pool orders its own.
func TestPauseHoldsTasksAndResumeRunsThemInOrderOnce(t *testing.T) {
	const n = 6
	for _, c := range []struct {
		name  string
		queue int // QueueSize per member pool
		kinds func(poolKind) bool
	}{
		{"no buffer", 0, isAny},
		{"a buffer for all", n, isPool},
		{"a buffer for half", n / 2, isSingle},
	} {
		t.Run(c.name, func(t *testing.T) {
			forKinds(t, c.kinds, func(t *testing.T, k poolKind) {
				p := k.mustNew(t, 1, ants.WithQueueSize(c.queue))
				pc := pacerOf(p)
				pauseNow(t, pc)
				assert.True(t, p.Stats().Paused)

				var log runLog
				blocked, buffered := submitHeld(t, p, &log, 0, n)
				if c.queue == 0 || k.family == sub {
					assert.Zero(t, buffered)
				} else if k.family == single {
					assert.Equal(t, min(c.queue, n), buffered)
				}
				assert.Equal(t, n-buffered, p.Waiting())
				if k.ownOptions() {
					assert.Equal(t, buffered, p.Stats().Queued)
				}
				assert.Zero(t, p.Running(), "a worker started, or a task, while paused")
				if k.family != multi || c.queue == 0 { // else its buffer has room left
					assert.ErrorIs(t, p.trySubmit(log.task(-1)), ants.ErrPoolOverload)
				}
				require.NoError(t, p.checkInvariants())

				pc.Resume()
				assert.False(t, pc.Paused())
				assert.False(t, p.Stats().Paused)
				for _, e := range blocked {
					require.NoError(t, recv(t, e, "a blocked submit"))
				}
				waitCompleted(t, p, n)
				ran := log.wait(t, n)
				if isOneQueue(k) {
					assert.Equal(t, seq(n), ran)
				} else {
					slices.Sort(ran)
					assert.Equal(t, seq(n), ran, "each task once")
				}
				require.NoError(t, p.checkInvariants())
			})
		})
	}
}

// TestPauseWorkerPoolKeepsOrder is the same for a WorkerPool: jobs of Go
// wait, buffered and blocked, and run in order on Resume.
func TestPauseWorkerPoolKeepsOrder(t *testing.T) {
	const n = 6
	p, f := newFleetPool(t, 1, ants.WithQueueSize(n/2))
	pauseNow(t, p)
	var log runLog
	futures := make([]chan *ants.Future[result], n)
	for i := range futures {
		futures[i] = make(chan *ants.Future[result], 1)
		go func() {
			futures[i] <- p.Go(context.Background(), job{do: func(context.Context, *testWorker) error {
				log.task(i)()
				return nil
			}})
		}()
		if i < n/2 {
			waitUntil(t, "Go to return", func() bool { return len(futures[i]) == 1 })
		} else {
			waitWaiting(t, p, i+1-n/2)
		}
	}
	assert.Equal(t, n/2, p.Stats().Queued)
	assert.Zero(t, f.madeCount(), "a Worker made while paused")
	p.Resume()
	for _, fc := range futures {
		_, err := recv(t, fc, "Go").Wait()
		require.NoError(t, err)
	}
	assert.Equal(t, seq(n), log.wait(t, n))
	require.NoError(t, p.CheckInvariants())
}

// heldTasks submits n tasks held by g, waits until they all run, and
// returns the count of those that have returned.
func heldTasks(t *testing.T, p *testPool, g *gate, n int) *atomic.Int32 {
	t.Helper()
	var ended atomic.Int32
	started := make(chan struct{}, n)
	for range n {
		require.NoError(t, p.submit(func() {
			started <- struct{}{}
			<-g.ch
			ended.Add(1)
		}))
	}
	for range n {
		recv(t, started, "a held task to start")
	}
	return &ended
}

// TestPauseWaitsForTheLastTask: Pause returns once the last running task
// has ended, not before; a task submitted meanwhile waits, as does one
// submitted after; a second Pause only waits. Resume runs them.
func TestPauseWaitsForTheLastTask(t *testing.T) {
	forEveryKind(t, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 2)
		pc := pacerOf(p)
		first, last := newGate(t), newGate(t)
		endedFirst := heldTasks(t, p, first, p.Cap()-1)
		endedLast := heldTasks(t, p, last, 1)

		var atReturn int32 = -1
		paused := asyncChecked(func() error { return pc.Pause(boundedContext(t)) },
			func() { atReturn = endedFirst.Load() + endedLast.Load() })
		waitUntil(t, "Pause to take effect", pc.Paused)
		ran := make(chan struct{}, 2)
		during := submitAsync(p.submit, signal(ran))
		waitWaiting(t, p, 1)
		first.open()
		waitUntil(t, "the first tasks to end", func() bool { return endedFirst.Load() == int32(p.Cap()-1) })
		again := asyncChecked(func() error { return pc.Pause(badNilCtx) }, func() {
			assert.Equal(t, int32(1), endedLast.Load(), "the second Pause returned early")
		})
		last.open()
		require.NoError(t, recv(t, paused, "Pause"))
		require.NoError(t, recv(t, again, "the second Pause"))
		assert.Equal(t, int32(p.Cap()), atReturn, "Pause returned before the last task ended")

		assert.True(t, pc.Paused())
		after := submitAsync(p.submit, signal(ran))
		waitWaiting(t, p, 2)
		st := p.Stats()
		assert.Zero(t, st.Running-st.Idle, "a task started while paused")
		pc.Resume()
		require.NoError(t, recv(t, during, "the submit made during Pause"))
		require.NoError(t, recv(t, after, "the submit made after Pause"))
		recv(t, ran, "a task to run")
		recv(t, ran, "a task to run")
		require.NoError(t, p.checkInvariants())
	})
}

// TestPauseWithADoneContext: Pause returns ctx.Err() when ctx is done
// before the running tasks end, at once if it is done already, and the
// pool stays paused; with no task running it returns nil whatever ctx.
// Pause(nil) is Pause(context.Background()).
func TestPauseWithADoneContext(t *testing.T) {
	forEveryKind(t, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1)
		pc := pacerOf(p)
		require.NoError(t, pc.Pause(cancelledContext()), "an idle pool pauses at once, whatever ctx")
		pc.Resume()

		g := newGate(t)
		occupy(t, p, g, p.Cap())
		ctx, cancel := context.WithCancel(context.Background())
		errc := async(func() error { return pc.Pause(ctx) })
		waitUntil(t, "Pause to take effect", pc.Paused)
		cancel()
		assert.ErrorIs(t, recv(t, errc, "Pause"), context.Canceled)
		assert.True(t, pc.Paused(), "Pause with a done ctx resumed the pool")
		assert.ErrorIs(t, recv(t, async(func() error { return pc.Pause(cancelledContext()) }), "Pause"),
			context.Canceled)
		assert.True(t, pc.Paused())

		ran := make(chan struct{}, 1)
		waiting := submitAsync(p.submit, signal(ran))
		waitWaiting(t, p, 1)
		g.open()
		require.NoError(t, recv(t, async(func() error { return pc.Pause(badNilCtx) }), "Pause(nil)"))
		assert.Equal(t, 1, p.Waiting(), "a task started while paused")
		pc.Resume()
		require.NoError(t, recv(t, waiting, "the waiting submit"))
		recv(t, ran, "the waiting task")
	})
}

// TestPauseOnAReleasedPool: Pause on a released pool returns nil at once,
// even with a task still running, and leaves it unpaused; Resume does
// nothing to a pool that is not paused.
func TestPauseOnAReleasedPool(t *testing.T) {
	forEveryKind(t, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1)
		pc := pacerOf(p)
		pc.Resume()
		assert.False(t, pc.Paused())
		g := newGate(t)
		occupy(t, p, g, 1)
		p.Release()
		require.NoError(t, recv(t, async(func() error { return pc.Pause(context.Background()) }), "Pause"))
		assert.False(t, pc.Paused())
		assert.False(t, p.Stats().Paused)
		g.open()
		p.Reboot()
		assert.False(t, pc.Paused())
		done := make(chan struct{})
		require.NoError(t, p.submit(signal(done)))
		recv(t, done, "a task after Reboot")
	})
}

// snapshot returns the order so far.
func (l *runLog) snapshot() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.ran...)
}

// TestPauseLetsARunningKeyFinishItsQueue: a key of a Keyed whose runner is
// running when its pool is paused goes on with the key's queued tasks,
// those queued while paused too, and Pause waits for them; a key that is
// not running waits for Resume.
func TestPauseLetsARunningKeyFinishItsQueue(t *testing.T) {
	forParents(t, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1)
		pc := pacerOf(p)
		kq := ants.NewKeyed[string](p.poolAPI.(ants.Submitter))
		g := newGate(t)
		started := make(chan struct{}, 1)
		var log runLog
		require.NoError(t, kq.Submit("a", func() {
			started <- struct{}{}
			<-g.ch
			log.task(0)()
		}))
		recv(t, started, "key a's first task")
		require.NoError(t, kq.Submit("a", log.task(1)))

		var atReturn []int
		paused := asyncChecked(func() error { return pc.Pause(boundedContext(t)) },
			func() { atReturn = log.snapshot() })
		waitUntil(t, "Pause to take effect", pc.Paused)
		require.NoError(t, kq.Submit("a", log.task(2)), "queued behind a running key while paused")
		other := async(func() error { return kq.Submit("b", log.task(3)) })
		waitWaiting(t, p, 1)
		g.open()
		require.NoError(t, recv(t, paused, "Pause"))
		assert.Equal(t, []int{0, 1, 2}, atReturn, "Pause returned before key a's queue ran")
		assert.Equal(t, 1, p.Waiting(), "key b started while paused")

		pc.Resume()
		require.NoError(t, recv(t, other, "key b's submit"))
		assert.Equal(t, []int{0, 1, 2, 3}, log.wait(t, 4))
		require.NoError(t, recv(t, async(func() error { return kq.Wait() }), "Keyed.Wait"))
	})
}

// TestPausedSubpoolLeavesItsParentToOtherWork: a paused Subpool hands none
// of its tasks to its parent, whose other work goes on; Resume hands them
// over. A task the Subpool handed over before Pause still starts, and Pause
// waits for it.
func TestPausedSubpoolLeavesItsParentToOtherWork(t *testing.T) {
	forParentsWithOwnOptions(t, func(t *testing.T, k poolKind) {
		t.Run("others go on", func(t *testing.T) {
			parent := k.parent(t, 2)
			sub := ants.NewSubpool(parent, 2)
			pauseNow(t, sub)
			assert.True(t, sub.Stats().Paused)
			ran := make(chan struct{}, 8)
			var subs []<-chan error
			for i := 1; i <= 3; i++ {
				subs = append(subs, submitAsync(sub.Submit, signal(ran)))
				waitWaiting(t, sub, i)
			}
			for range 4 {
				require.NoError(t, parent.SubmitContext(context.Background(), signal(ran)))
				recv(t, ran, "the parent's other task")
			}
			assert.Zero(t, parent.Waiting())
			assert.Zero(t, sub.Stats().Submitted, "the paused sub-pool handed a task over")
			assert.Zero(t, sub.Running())

			sub.Resume()
			for _, e := range subs {
				require.NoError(t, recv(t, e, "the sub-pool's submit"))
				recv(t, ran, "the sub-pool's task")
			}
		})
		t.Run("handed over before Pause", func(t *testing.T) {
			parent := k.exactParent(t, 1)
			g := newGate(t)
			occupyPool(t, parent, g, 1)
			sub := ants.NewSubpool(parent, 2)
			var ran atomic.Bool
			handed := submitAsync(sub.Submit, func() { ran.Store(true) })
			waitWaiting(t, parent, 1) // it holds a slot of sub, and waits in the parent
			paused := asyncChecked(func() error { return sub.Pause(boundedContext(t)) }, func() {
				assert.True(t, ran.Load(), "Pause returned before the handed-over task ran")
			})
			waitUntil(t, "Pause to take effect", sub.Paused)
			g.open()
			require.NoError(t, recv(t, handed, "the handed-over submit"))
			require.NoError(t, recv(t, paused, "Pause"))
			assert.True(t, sub.Paused())
			sub.Resume()
		})
	})
}

// TestReleaseWhilePaused: Release wakes the callers blocked in a paused
// pool with ErrPoolClosed; the buffered tasks, accepted, still run; the
// pool is no longer paused.
func TestReleaseWhilePaused(t *testing.T) {
	forEveryKind(t, func(t *testing.T, k poolKind) {
		queue := 0
		if k.ownOptions() {
			queue = 2
		}
		p := k.mustNew(t, 1, ants.WithQueueSize(queue))
		pc := pacerOf(p)
		pauseNow(t, pc)
		var log runLog
		blocked, buffered := submitHeld(t, p, &log, 0, queue*p.members+2)
		require.Len(t, blocked, 2)
		assert.Equal(t, queue*p.members, buffered)

		p.Release()
		for _, e := range blocked {
			assert.ErrorIs(t, recv(t, e, "a blocked submit"), ants.ErrPoolClosed)
		}
		assert.False(t, pc.Paused())
		assert.False(t, p.Stats().Paused)
		waitCompleted(t, p, buffered)
		assert.ElementsMatch(t, seq(buffered), log.wait(t, buffered), "the buffered tasks, each once, and no other")
		require.NoError(t, p.checkInvariants())
	})
}

// TestRebootAfterReleaseWhilePaused: a pool released while paused is
// rebooted unpaused, with its rate limit, and runs tasks.
func TestRebootAfterReleaseWhilePaused(t *testing.T) {
	forEveryKind(t, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1)
		pc := pacerOf(p)
		require.NoError(t, pc.SetRateLimit(1000, 5))
		pauseNow(t, pc)
		p.Release()
		p.Reboot()
		assert.False(t, pc.Paused())
		r, b := pc.RateLimit()
		assert.Equal(t, 1000.0, r)
		assert.Equal(t, 5, b)
		done := make(chan struct{})
		require.NoError(t, p.submit(signal(done)))
		recv(t, done, "a task after Reboot")
	})
}

// TestTuneWhilePaused: Tune changes the capacity of a paused pool, and
// nothing starts until Resume.
func TestTuneWhilePaused(t *testing.T) {
	forEveryKind(t, func(t *testing.T, k poolKind) {
		p := k.mustNew(t, 1)
		pc := pacerOf(p)
		pauseNow(t, pc)
		ran := make(chan struct{}, 2)
		blocked := blockedSubmits(t, p, 2, signal(ran))
		p.Tune(3)
		assert.Equal(t, 3*p.members, p.Cap())
		assert.Equal(t, 2, p.Waiting(), "a task started while paused")
		assert.Zero(t, p.Running())
		require.NoError(t, p.checkInvariants())
		pc.Resume()
		for _, e := range blocked {
			require.NoError(t, recv(t, e, "a blocked submit"))
			recv(t, ran, "a task")
		}
	})
}

// TestPurgeReapsIdleWorkersWhilePaused: a paused pool's idle workers are
// reaped as an open pool's are.
func TestPurgeReapsIdleWorkersWhilePaused(t *testing.T) {
	const expiry = time.Minute
	forSinglePools(t, func(t *testing.T, k poolKind) {
		c := ants.NewFakeClock()
		p := k.mustNew(t, 3, ants.WithFakeClock(c), ants.WithExpiryDuration(expiry))
		startIdle(t, p, 2)
		pc := pacerOf(p)
		pauseNow(t, pc)
		require.True(t, c.Advance(expiry))
		require.True(t, c.Advance(expiry))
		waitRunning(t, p, 0)
		assert.True(t, pc.Paused())
		pc.Resume()
		done := make(chan struct{})
		require.NoError(t, p.submit(signal(done)))
		recv(t, done, "a task after Resume")
	})
}
