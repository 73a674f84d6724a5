package ants_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/e62cffed/ants"
)

func TestSpinLock(t *testing.T) {
	t.Run("one holder at a time under contention", func(t *testing.T) {
		// More goroutines than cores, so that holders are preempted and
		// waiters reach the backoff; the counter is a plain int, so a
		// second holder is also a data race under -race. Half the
		// goroutines lock as submitters do (LockYielding), half as the
		// workers do, so that both back-offs wait on each other; the
		// holders that yield their goroutine while holding it are what
		// a waiter that only yielded its thread would spin behind.
		var (
			l       ants.SpinLock
			holders atomic.Int32
			count   int
			wg      sync.WaitGroup
		)
		goroutines := 4 * runtime.GOMAXPROCS(0)
		const perGoroutine = 2000
		for i := range goroutines {
			wg.Add(1)
			lock := l.Lock
			if i%2 == 1 {
				lock = l.LockYielding
			}
			go func() {
				defer wg.Done()
				for range perGoroutine {
					lock()
					if n := holders.Add(1); n != 1 {
						t.Errorf("%d holders at once", n)
					}
					count++
					if count%64 == 0 {
						runtime.Gosched() // hold it across a reschedule
					}
					holders.Add(-1)
					l.Unlock()
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, goroutines*perGoroutine, count)
	})
	t.Run("Lock waits for Unlock", func(t *testing.T) {
		var l ants.SpinLock
		l.Lock()
		var unlocked atomic.Bool
		trying, acquired := make(chan struct{}), make(chan bool)
		go func() {
			trying <- struct{}{}
			l.Lock()
			acquired <- unlocked.Load()
			l.Unlock()
		}()
		// The waiter reports what it saw of unlocked, which is set just
		// before Unlock: a Lock that did not wait reports false if it
		// returns before the store, which the handshake and the yield make
		// the usual order. (The subtest above is the thorough check.)
		<-trying
		runtime.Gosched()
		unlocked.Store(true)
		l.Unlock()
		assert.True(t, recv(t, acquired, "the waiter to acquire the lock"), "Lock returned while the lock was held")
	})
	t.Run("the zero value is unlocked and the lock is reusable", func(t *testing.T) {
		// Each Lock must return: on the zero value, and after each Unlock.
		// They run on a goroutine of their own, so that a Lock that spins
		// for ever fails the test after long instead of hanging the suite.
		var l ants.SpinLock
		locked := make(chan int)
		go func() {
			for i := range 3 {
				l.Lock()
				locked <- i
				l.Unlock()
			}
		}()
		for i := range 3 {
			assert.Equal(t, i, recv(t, locked, "Lock of an unlocked lock to return"))
		}
		// Reused, it still excludes: a second Lock waits for the Unlock.
		l.Lock()
		acquired := make(chan struct{})
		go func() {
			l.Lock()
			close(acquired)
			l.Unlock()
		}()
		assertNoRecv(t, acquired, "a Lock of the held lock returning")
		l.Unlock()
		recv(t, acquired, "the waiting Lock to return after Unlock")
	})
}
