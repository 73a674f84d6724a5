package ants_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// The pool's goroutines counted from outside, by their stacks: a goroutine
// is the pool's if its stack runs the body of a worker, of a purge
// goroutine or of a rate limit's timer, and is still at work: not yet
// started (its body at its entry), or in the pool's code past its body.
// One whose innermost frame of the package is its body, past the entry,
// has returned from all of the pool's code: it has been counted out, and
// only its body's last decrement and return are left (waitDeparted). Unlike runtime.NumGoroutine, which
// counts a goroutine until the runtime has torn it down, and the pool's own
// counters, which say what the pool believes, this counts what runs the
// pool's code at one instant, with the world stopped.

// goroutineRole is what a goroutine of the pool is, by the function at the
// bottom of its stack that is the pool's.
type goroutineRole int

const (
	notPool goroutineRole = iota
	workerRole
	purgeRole
	paceRole
)

// poolFuncs maps a function name to its role, for the functions that are
// the body of a pool goroutine.
var poolFuncs = []struct {
	match func(name string) bool
	role  goroutineRole
}{
	{suffix(").run"), workerRole},      // (*goWorker[...]).run
	{suffix(").purgeLoop"), purgeRole}, // (*poolCore[...]).purgeLoop
	{func(name string) bool { return strings.Contains(name, ").armPaceLocked.func") }, paceRole}, // the rate limit's timer
}

// suffix returns a matcher of the names that end in s.
func suffix(s string) func(string) bool {
	return func(name string) bool { return strings.HasSuffix(name, s) }
}

const pkgPrefix = "github.com/e62cffed/ants."

// roleCache caches the role of each PC seen.
var roleCache sync.Map // uintptr -> goroutineRole

// roleOf returns the role of a goroutine whose stack is pcs, or notPool
// for one that is not the pool's or that has left the pool's code.
func roleOf(pcs []uintptr) goroutineRole {
	role, innermost := notPool, true
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		r := frameRole(f.PC, f.Function)
		if r != notPool {
			role = r
			if innermost && f.PC != f.Entry {
				return notPool // returning from its body
			}
		}
		if strings.HasPrefix(f.Function, pkgPrefix) {
			innermost = false
		}
		if !more {
			return role
		}
	}
}

// frameRole returns the role of a goroutine whose body is the function
// name, or notPool if that is no body; cached by pc.
func frameRole(pc uintptr, name string) goroutineRole {
	if r, ok := roleCache.Load(pc); ok {
		return r.(goroutineRole)
	}
	r := notPool
	if strings.HasPrefix(name, pkgPrefix) {
		for _, pf := range poolFuncs {
			if pf.match(name) {
				r = pf.role
				break
			}
		}
	}
	roleCache.Store(pc, r)
	return r
}

// poolCensus is a count of the pool goroutines of the process at one
// instant.
type poolCensus struct {
	workers, purges, paces int
	stacks                 []string // the function names of each pool goroutine's frames
}

// total returns the number of pool goroutines counted.
func (c poolCensus) total() int { return c.workers + c.purges + c.paces }

// takeCensus counts the pool goroutines of the process with the world
// stopped (runtime.GoroutineProfile). If keep is set it records their
// stacks too.
func takeCensus(keep bool) poolCensus {
	records := make([]runtime.StackRecord, runtime.NumGoroutine()+64)
	for {
		n, ok := runtime.GoroutineProfile(records)
		if ok {
			records = records[:n]
			break
		}
		records = make([]runtime.StackRecord, n+64)
	}
	var c poolCensus
	for i := range records {
		pcs := records[i].Stack()
		switch roleOf(pcs) {
		case workerRole:
			c.workers++
		case purgeRole:
			c.purges++
		case paceRole:
			c.paces++
		default:
			continue
		}
		if keep {
			var names []string
			frames := runtime.CallersFrames(pcs)
			for {
				f, more := frames.Next()
				names = append(names, f.Function)
				if !more {
					break
				}
			}
			c.stacks = append(c.stacks, strings.Join(names, " <- "))
		}
	}
	return c
}

// censusPeak records the most pool goroutines seen at once while a pool
// churns. Each sample reads runtime.NumGoroutine, which is cheap; only a
// reading above trigger, where the pool may be over its bound, is settled
// by a census with the world stopped, which counts the pool goroutines
// alone and none that has finished.
type censusPeak struct {
	trigger int
	stopc   chan struct{}
	done    chan struct{}

	workers, purges int // the peaks
	censuses        int // how many censuses were taken
}

// sampleCensus starts sampling; trigger is the reading of
// runtime.NumGoroutine above which the pool may be over its bound.
func sampleCensus(trigger int) *censusPeak {
	s := &censusPeak{trigger: trigger, stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for {
			if runtime.NumGoroutine() > s.trigger {
				c := takeCensus(false)
				s.censuses++
				s.workers = max(s.workers, c.workers)
				s.purges = max(s.purges, c.purges)
			}
			runtime.Gosched()
			select {
			case <-s.stopc:
				return
			default:
			}
		}
	}()
	return s
}

// stop ends sampling; the peaks may be read after it.
func (s *censusPeak) stop() *censusPeak {
	close(s.stopc)
	<-s.done
	return s
}

// noPoolGoroutines waits until no pool goroutine of an earlier test is
// left (a test may end on a Release that does not wait), so that a census
// counts the goroutines of the test's own pool.
func noPoolGoroutines(t *testing.T) {
	t.Helper()
	waitUntil(t, "the pool goroutines of earlier tests have exited", func() bool {
		return takeCensus(false).total() == 0
	})
}

// TestSmallPoolGoroutinesStayWithinCap counts, by their stacks, the
// goroutines of a pool of 4 whose workers come and go: submitters that
// pause now and then for a few expiry periods, in which the purge stops
// idle workers. A worker that freed its place in
// the bound while it still ran the pool's code (waking callers, recycling
// itself) let a fifth start beside it.
func TestSmallPoolGoroutinesStayWithinCap(t *testing.T) {
	const size = 4
	tasks := 20_000
	if raceEnabled {
		tasks = 4_000
	}
	forEachBoundKind(t, func(t *testing.T, k poolKind, newPool func(*testing.T, int, ...ants.Option) boundPool) {
		for _, queue := range []int{0, size} {
			t.Run(fmt.Sprintf("%s/queue=%d", k.name, queue), func(t *testing.T) {
				noPoolGoroutines(t)
				p := newPool(t, size, ants.WithExpiryDuration(20*time.Microsecond), ants.WithQueueSize(queue))
				stop := make(chan struct{})
				peak := make(chan poolCensus)
				go func() {
					var most poolCensus
					for {
						select {
						case <-stop:
							peak <- most
							return
						default:
						}
						c := takeCensus(false)
						if c.workers > size && len(most.stacks) == 0 {
							c = takeCensus(true) // the first census over the bound, with its stacks, for the message
							most.stacks = c.stacks
						}
						most.workers = max(most.workers, c.workers)
						most.purges = max(most.purges, c.purges)
						runtime.Gosched()
					}
				}()
				// Submitters that pause now and then, for a few expiry
				// periods at most: workers go idle, the purge stops them,
				// and new ones start beside those on their way out.
				var wg sync.WaitGroup
				for s := range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range tasks {
							if err := p.submit(noop); err != nil {
								t.Errorf("submit: %v", err)
								return
							}
							if (i+s)%64 == 0 {
								time.Sleep(time.Duration(i%3) * 20 * time.Microsecond)
							}
						}
					}()
				}
				wg.Wait()
				require.NoError(t, p.ReleaseTimeout(long))
				close(stop)
				got := <-peak
				assert.LessOrEqual(t, got.workers, size, "worker goroutines at once\n%s", strings.Join(got.stacks, "\n"))
				assert.LessOrEqual(t, got.purges, p.purges, "purge goroutines at once")
			})
		}
	})
}

// TestNoPoolGoroutineAfterRelease is the promise that once ReleaseTimeout
// returns nil none of the pool's goroutines is left: a census right after
// it, in each of many rounds of a pool whose workers, purge goroutine and
// rate-limit timer are all busy as it is released, finds none running the
// pool's code.
func TestNoPoolGoroutineAfterRelease(t *testing.T) {
	rounds := 300
	if raceEnabled {
		rounds = 100
	}
	noPoolGoroutines(t)
	for round := range rounds {
		opts := []ants.Option{ants.WithExpiryDuration(50 * time.Microsecond), ants.WithQueueSize(8)}
		if round%3 == 2 {
			opts = append(opts, ants.WithRateLimit(1e6, 4))
		}
		p, err := ants.NewPool(8, opts...)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 8 {
					_ = p.Submit(func() { runtime.Gosched() })
				}
			}()
		}
		wg.Wait()
		require.NoError(t, p.ReleaseTimeout(long))
		if c := takeCensus(true); c.total() != 0 {
			t.Fatalf("round %d: %d pool goroutines after ReleaseTimeout returned nil:\n%s",
				round, c.total(), strings.Join(c.stacks, "\n"))
		}
	}
}
