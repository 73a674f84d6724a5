package main

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestEveryLibraryRunsEachSubmittedTaskOnceWithinItsCapacity checks the
// adapters: N submissions from several goroutines, half of the bound task
// (submit) and half of another function (submitFunc), run N tasks, never
// more than capacity at once (the goroutines baseline has no bound).
func TestEveryLibraryRunsEachSubmittedTaskOnceWithinItsCapacity(t *testing.T) {
	const (
		capacity   = 3
		submitters = 4
		perSub     = 500
		n          = submitters * perSub
	)
	for _, lib := range libraries() {
		t.Run(lib.name(), func(t *testing.T) {
			var ran, ranFunc, inFlight, maxInFlight atomic.Int64
			var done sync.WaitGroup
			done.Add(n)
			task := func() {
				cur := inFlight.Add(1)
				for {
					m := maxInFlight.Load()
					if cur <= m || maxInFlight.CompareAndSwap(m, cur) {
						break
					}
				}
				ran.Add(1)
				inFlight.Add(-1)
				done.Done()
			}
			other := func() {
				ranFunc.Add(1)
				task()
			}
			r := lib.start(poolConfig{capacity: capacity}, task)
			var subs sync.WaitGroup
			subs.Add(submitters)
			for i := 0; i < submitters; i++ {
				go func() {
					defer subs.Done()
					for j := 0; j < perSub; j++ {
						if j%2 == 0 {
							r.submit()
						} else {
							r.submitFunc(other)
						}
					}
				}()
			}
			subs.Wait()
			done.Wait()
			r.stop()

			if got := ran.Load(); got != n {
				t.Errorf("ran %d tasks, want %d", got, n)
			}
			if got := ranFunc.Load(); got != n/2 {
				t.Errorf("ran %d tasks given to submitFunc, want %d", got, n/2)
			}
			if m := maxInFlight.Load(); lib.name() != "goroutines" && m > capacity {
				t.Errorf("%d tasks ran at once, capacity %d", m, capacity)
			}
		})
	}
}

func TestSelectLibrariesKeepsTableOrderAndRejectsUnknownNames(t *testing.T) {
	libs, err := selectLibraries("chanpool, e62cffed/ants")
	if err != nil {
		t.Fatal(err)
	}
	if got := libraryNames(libs); got != "e62cffed/ants,chanpool" {
		t.Errorf("selected %s", got)
	}
	if _, err := selectLibraries("e62cffed/ants,nosuchpool"); err == nil {
		t.Error("an unknown library was accepted")
	}
	if all, _ := selectLibraries("all"); len(all) != len(libraries()) {
		t.Errorf("all selected %d libraries", len(all))
	}
}

// TestEveryLibraryNamesAChannelPoolOrNone checks library.like: each names
// one of the channel pools or none, and each channel pool names itself.
func TestEveryLibraryNamesAChannelPoolOrNone(t *testing.T) {
	for _, l := range libraries() {
		switch like := l.like(); {
		case isBaseline(l.name()) && like != l.name():
			t.Errorf("%s is like %q, not itself", l.name(), like)
		case like != "" && !isBaseline(like):
			t.Errorf("%s is like %q, which is no channel pool", l.name(), like)
		}
	}
	if findLibrary(bufferedBaseline) == nil || findLibrary(unbufferedBaseline) == nil {
		t.Error("a channel pool is missing from libraries()")
	}
}
