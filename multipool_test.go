package ants_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/e62cffed/ants"
)

// assertRunningByIndex checks RunningByIndex of every member pool.
func assertRunningByIndex(t *testing.T, mp *testPool, want ...int) {
	t.Helper()
	got := make([]int, len(want))
	for i := range want {
		n, err := mp.RunningByIndex(i)
		require.NoError(t, err)
		got[i] = n
	}
	assert.Equal(t, want, got, "Running of each member pool")
}

func TestMultiPoolConstructors(t *testing.T) {
	t.Run("a size of zero or less is refused", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			for _, size := range []int{0, -1} {
				mp, err := k.newMulti(size, 1, ants.RoundRobin)
				assert.ErrorIs(t, err, ants.ErrInvalidMultiPoolSize)
				assert.Nil(t, mp)
			}
		})
	})
	t.Run("an unknown strategy is refused", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			for _, lbs := range []ants.LoadBalancingStrategy{0, 1, 3, 6, -2} {
				mp, err := k.newMulti(2, 1, lbs)
				assert.ErrorIs(t, err, ants.ErrInvalidLoadBalancingStrategy, "strategy %d", lbs)
				assert.Nil(t, mp)
			}
		})
	})
	t.Run("an invalid member pool option is refused and leaves nothing behind", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			ignore := goleak.IgnoreCurrent()
			mp, err := k.newMulti(3, 0, ants.LeastTasks, ants.WithPreAlloc(true))
			assert.ErrorIs(t, err, ants.ErrInvalidPreAllocSize)
			assert.Nil(t, mp)
			_, err = k.newMulti(3, 2, ants.LeastTasks, ants.WithExpiryDuration(-time.Second))
			assert.ErrorIs(t, err, ants.ErrInvalidPoolExpiry)
			goleak.VerifyNone(t, ignore)
		})
	})
	t.Run("a nil function is refused", func(t *testing.T) {
		mp, err := ants.NewMultiPoolWithFunc(2, 1, nil, ants.RoundRobin)
		assert.ErrorIs(t, err, ants.ErrLackPoolFunc)
		assert.Nil(t, mp)
		g, err := ants.NewMultiPoolWithFuncGeneric[int](2, 1, nil, ants.LeastTasks)
		assert.ErrorIs(t, err, ants.ErrLackPoolFunc)
		assert.Nil(t, g)
	})
}

func TestMultiPoolRoundRobin(t *testing.T) {
	t.Run("tasks go to the member pools in turn, starting at the first", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 3, 2, ants.RoundRobin, ants.WithDisablePurge(true))
			g := newGate(t)
			want := make([]int, 3)
			for i := 0; i < 6; i++ {
				require.NoError(t, mp.submit(g.task(nil)))
				want[i%3]++
				assertRunningByIndex(t, mp, want...)
			}
		})
	})
	t.Run("an overloaded choice is retried once on the least busy member pool", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 2, 1, ants.RoundRobin, ants.WithNonblocking(true), ants.WithDisablePurge(true))
			first, second := newGate(t), newGate(t)
			occupyWith(t, mp.submit, first, 1)  // member pool 0
			occupyWith(t, mp.submit, second, 1) // member pool 1
			second.open()
			waitIdle(t, mp, 1)

			// The turn is member pool 0's, which is full: the task goes to 1.
			started := make(chan struct{}, 1)
			require.NoError(t, mp.submit(newGate(t).task(started)))
			recv(t, started, "the retried task")
			assertRunningByIndex(t, mp, 1, 1)
			assert.Equal(t, 0, mp.Stats().Idle)

			// Every member pool is full now: the retry fails too.
			assert.ErrorIs(t, submitNow(t, mp.submit, func() {}), ants.ErrPoolOverload)
		})
	})
	t.Run("Reboot starts the rotation again at the first member pool", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 3, 2, ants.RoundRobin, ants.WithDisablePurge(true))
			g := newGate(t)
			occupyWith(t, mp.submit, g, 2)
			g.open()
			require.NoError(t, mp.ReleaseTimeout(long))
			mp.Reboot()
			occupyWith(t, mp.submit, newGate(t), 1)
			assertRunningByIndex(t, mp, 1, 0, 0)
		})
	})
}

func TestMultiPoolLeastTasks(t *testing.T) {
	t.Run("a task goes to the member pool with the fewest busy workers, idle ones not counted", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 3, 4, ants.LeastTasks, ants.WithDisablePurge(true))
			soon, later := newGate(t), newGate(t)
			occupyWith(t, mp.submit, soon, 1)
			assertRunningByIndex(t, mp, 1, 0, 0)
			occupyWith(t, mp.submit, later, 1)
			assertRunningByIndex(t, mp, 1, 1, 0)
			occupyWith(t, mp.submit, later, 1)
			assertRunningByIndex(t, mp, 1, 1, 1)
			occupyWith(t, mp.submit, soon, 1)
			assertRunningByIndex(t, mp, 2, 1, 1)

			// Member pool 0 now has two idle workers and no task; the others
			// have one worker each, busy. Counting workers would pick 1.
			soon.open()
			waitIdle(t, mp, 2)
			occupyWith(t, mp.submit, newGate(t), 1)
			assertRunningByIndex(t, mp, 2, 1, 1)
			assert.Equal(t, 1, mp.Stats().Idle)
		})
	})
}

func TestMultiPoolGetters(t *testing.T) {
	t.Run("the aggregate getters are sums over the member pools", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 3, 2, ants.RoundRobin, ants.WithDisablePurge(true))
			assert.Equal(t, 6, mp.Cap())
			assert.Equal(t, 6, mp.Free())
			g := newGate(t)
			occupyWith(t, mp.submit, g, 4) // member pools 0, 1, 2, 0
			assert.Equal(t, 4, mp.Running())
			assert.Equal(t, 2, mp.Free())
			for i, want := range []int{0, 1, 1} {
				free, err := mp.FreeByIndex(i)
				require.NoError(t, err)
				assert.Equal(t, want, free, "Free of member pool %d", i)
			}

			occupyWith(t, mp.submit, g, 2) // member pools 1, 2: all full
			errc := blocked(t, mp, 1, func() error { return mp.submit(func() {}) })
			for i, want := range []int{1, 0, 0} { // the turn was member pool 0's
				waiting, err := mp.WaitingByIndex(i)
				require.NoError(t, err)
				assert.Equal(t, want, waiting, "Waiting of member pool %d", i)
			}
			s := mp.Stats()
			assert.Equal(t, 6, s.Cap)
			assert.Equal(t, 6, s.Running)
			assert.Equal(t, 1, s.Waiting)
			assert.Equal(t, uint64(6), s.Submitted)

			g.open()
			assert.NoError(t, recv(t, errc, "the blocked Submit"))
		})
	})
	t.Run("an index out of range gives -1 and ErrInvalidPoolIndex", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 3, 2, ants.RoundRobin)
			for _, idx := range []int{-1, 3, 100} {
				for name, byIndex := range map[string]func(int) (int, error){
					"RunningByIndex": mp.RunningByIndex,
					"FreeByIndex":    mp.FreeByIndex,
					"WaitingByIndex": mp.WaitingByIndex,
				} {
					n, err := byIndex(idx)
					assert.Equal(t, -1, n, "%s(%d)", name, idx)
					assert.ErrorIs(t, err, ants.ErrInvalidPoolIndex, "%s(%d)", name, idx)
				}
			}
		})
	})
	t.Run("Tune sets the capacity of every member pool", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 3, 2, ants.LeastTasks)
			mp.Tune(5)
			assert.Equal(t, 15, mp.Cap())
			for i := 0; i < 3; i++ {
				free, err := mp.FreeByIndex(i)
				require.NoError(t, err)
				assert.Equal(t, 5, free, "Free of member pool %d", i)
			}
		})
	})
}

func TestMultiPoolRelease(t *testing.T) {
	t.Run("Release closes every member pool without waiting", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 2, 1, ants.RoundRobin, ants.WithDisablePurge(true))
			g := newGate(t)
			occupyWith(t, mp.submit, g, 2)
			errc := blocked(t, mp, 1, func() error { return mp.submit(func() { t.Error("a task refused by Release ran") }) })
			mp.Release()
			assert.True(t, mp.IsClosed())
			assert.ErrorIs(t, recv(t, errc, "the blocked Submit"), ants.ErrPoolClosed)
			assert.Equal(t, 2, mp.Running(), "Release waited for the busy workers")
			assert.ErrorIs(t, submitNow(t, mp.submit, func() {}), ants.ErrPoolClosed)
			mp.Release() // a no-op on a closed multi-pool
			assert.ErrorIs(t, mp.ReleaseContext(boundedContext(t)), ants.ErrPoolClosed)

			g.open()
			mp.Reboot()
			done := make(chan struct{})
			require.NoError(t, mp.submit(signal(done)))
			recv(t, done, "a task after Release and Reboot")
		})
	})
	t.Run("a released multi-pool refuses tasks and a second release", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 2, 2, ants.RoundRobin)
			done := make(chan struct{})
			require.NoError(t, mp.submit(signal(done)))
			recv(t, done, "the task")
			require.NoError(t, mp.ReleaseTimeout(long))
			assert.True(t, mp.IsClosed())
			assert.ErrorIs(t, submitNow(t, mp.submit, func() {}), ants.ErrPoolClosed)
			assert.ErrorIs(t, mp.ReleaseTimeout(long), ants.ErrPoolClosed)
			assert.ErrorIs(t, mp.ReleaseContext(boundedContext(t)), ants.ErrPoolClosed)
			assert.Equal(t, 0, mp.Running())
		})
	})
	t.Run("Reboot reopens every member pool", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 3, 1, ants.RoundRobin, ants.WithNonblocking(true))
			require.NoError(t, mp.ReleaseTimeout(long))
			mp.Reboot()
			mp.Reboot() // no-op on an open multi-pool
			assert.False(t, mp.IsClosed())
			occupyWith(t, mp.submit, newGate(t), 3)
			assertRunningByIndex(t, mp, 1, 1, 1)
		})
	})
	t.Run("blocked callers are woken with ErrPoolClosed", func(t *testing.T) {
		forMultiPools(t, func(t *testing.T, k poolKind) {
			mp := k.mustNewMulti(t, 2, 1, ants.LeastTasks, ants.WithDisablePurge(true))
			g := newGate(t)
			occupyWith(t, mp.submit, g, 2)
			errc := blocked(t, mp, 1, func() error { return mp.submit(func() {}) })
			var ctx context.Context
			require.NoError(t, mp.ReleaseContext(ctx))
			err := recv(t, errc, "the blocked Submit")
			assert.True(t, errors.Is(err, ants.ErrPoolClosed), "got %v", err)
		})
	})
}

func TestMultiPoolSubmitNil(t *testing.T) {
	mp, err := ants.NewMultiPool(2, 1, ants.RoundRobin)
	require.NoError(t, err)
	assert.ErrorIs(t, mp.Submit(nil), ants.ErrNilTask)
	require.NoError(t, mp.ReleaseTimeout(long))
	assert.ErrorIs(t, mp.Submit(nil), ants.ErrPoolClosed)
	assert.Equal(t, 0, mp.Running())
}

// TestMultiPoolReleaseRacingRebootLeavesItUsable races Release with Reboot
// on an open multi-pool, then reboots it: it must then take a task. The
// stress test found the bug (a Reboot between release's close of the
// multi-pool and of its sub-pools left IsClosed() false with every sub-pool
// closed, and Reboot a no-op); it showed about once in 30,000 rounds, so
// this runs many short rounds: 100,000 or for 300 ms, whichever ends
// first; a tenth of that under -short, ten times as many with
// ANTS_LONG_TESTS=1.
func TestMultiPoolReleaseRacingRebootLeavesItUsable(t *testing.T) {
	rounds, budget := 100000, 300*time.Millisecond
	switch {
	case testing.Short():
		budget /= 10
	case longTests():
		rounds, budget = 10*rounds, 10*budget
	}
	deadline := time.Now().Add(budget)
	for i := 0; i < rounds && time.Now().Before(deadline); i++ {
		mp, err := ants.NewMultiPool(2, 1, ants.RoundRobin, ants.WithDisablePurge(true))
		if err != nil {
			t.Fatal(err)
		}
		start := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			mp.Reboot()
		}()
		go func() {
			defer wg.Done()
			<-start
			mp.Release()
		}()
		close(start)
		wg.Wait()
		mp.Reboot()
		closed := mp.IsClosed()
		err = mp.TrySubmit(func() {})
		// Whatever the outcome of the race, close every sub-pool and wait.
		mp.Release()
		mp.Reboot()
		if rerr := mp.ReleaseTimeout(long); rerr != nil {
			t.Fatalf("iteration %d: ReleaseTimeout: %v", i, rerr)
		}
		if err != nil {
			t.Fatalf("iteration %d: after Release raced Reboot, then Reboot: IsClosed() = %v, TrySubmit = %v", i, closed, err)
		}
	}
}
