// This file holds one benchmark and nothing else: BenchmarkFloorFullPool,
// kept because DESIGN.md ("The floor") cites it for the skeleton beside the
// unbuffered channel pool. No test uses the skeleton; delete the file once
// that section no longer needs it.

package ants

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// BenchmarkFloorFullPool measures the floor of the pool's shape for a
// pool that is always full (capacity GOMAXPROCS, more submitters than
// workers): the smallest bounded queue built from the same parts, a
// spinLock and sync.Conds, against the unbuffered channel pool. Every submit
// waits for a worker there, and with a Cond the waiting costs more lock
// operations than with a channel: the caller takes the lock to find the
// pool full, the Cond's own runtime lock to wait, and the lock again when
// it wakes (sync.Cond's contract), and the worker that admits it takes the
// lock and the Cond's runtime lock to Signal; a channel does all of this
// under its one lock. The pool is a little faster than this skeleton (its
// workers park on channels, and it signals after unlocking), but its
// waiting callers pay the same Cond cycle (DESIGN.md, "The floor"):
//
//	go test -run '^$' -bench 'FloorFullPool|Submit$/cap=2/|ChannelPoolUnbuffered$/cap=2/' -benchtime 200000x -count 6 . | tee floor.txt
func BenchmarkFloorFullPool(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	for _, submitters := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("skeleton/submitters=%d", submitters), func(b *testing.B) {
			q := newSkeleton(workers)
			defer q.close()
			runFloor(b, submitters, q.submit)
		})
		b.Run(fmt.Sprintf("chan/submitters=%d", submitters), func(b *testing.B) {
			ch := make(chan func())
			var wg sync.WaitGroup
			for i := 0; i < workers; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for task := range ch {
						task()
					}
				}()
			}
			defer wg.Wait()
			defer close(ch)
			runFloor(b, submitters, func(task func()) { ch <- task })
		})
	}
}

// runFloor submits b.N no-op tasks from n goroutines and waits for them.
func runFloor(b *testing.B, n int, submit func(func())) {
	var done sync.WaitGroup
	done.Add(b.N)
	task := done.Done
	b.ResetTimer()
	var subs sync.WaitGroup
	for i := 0; i < n; i++ {
		k := b.N / n
		if i < b.N%n {
			k++
		}
		subs.Add(1)
		go func() {
			defer subs.Done()
			for j := 0; j < k; j++ {
				submit(task)
			}
		}()
	}
	subs.Wait()
	done.Wait()
}

// skeleton is the least a pool of the design card's shape does for a task:
// at most capacity tasks accepted and unfinished (ants' contract), callers
// waiting on a Cond while it is full, and capacity workers waiting on
// another Cond while nothing is queued. No buffer, no purge, no options.
type skeleton struct {
	lock     spinLock
	full     sync.Cond // callers wait here while accepted == capacity
	empty    sync.Cond // workers wait here while tasks is empty
	tasks    []func()
	accepted int // tasks accepted and unfinished
	capacity int
	closed   bool
	wg       sync.WaitGroup
}

func newSkeleton(capacity int) *skeleton {
	q := &skeleton{capacity: capacity}
	q.full.L, q.empty.L = &q.lock, &q.lock
	for i := 0; i < capacity; i++ {
		q.wg.Add(1)
		go q.work()
	}
	return q
}

func (q *skeleton) submit(task func()) {
	q.lock.Lock()
	for q.accepted == q.capacity {
		q.full.Wait()
	}
	q.accepted++
	q.tasks = append(q.tasks, task)
	q.lock.Unlock()
	q.empty.Signal()
}

func (q *skeleton) work() {
	defer q.wg.Done()
	q.lock.Lock()
	for {
		for len(q.tasks) == 0 && !q.closed {
			q.empty.Wait()
		}
		if len(q.tasks) == 0 {
			q.lock.Unlock()
			return
		}
		task := q.tasks[0]
		q.tasks = q.tasks[1:]
		q.lock.Unlock()
		task()
		q.lock.Lock()
		q.accepted--
		q.full.Signal()
	}
}

func (q *skeleton) close() {
	q.lock.Lock()
	q.closed = true
	q.lock.Unlock()
	q.empty.Broadcast()
	q.wg.Wait()
}
