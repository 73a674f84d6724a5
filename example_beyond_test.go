package ants_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants"
)

// A caller that cannot wait long for a worker gives up when its context
// ends; its task never runs.
func ExamplePool_SubmitContext() {
	p, _ := ants.NewPool(1)
	release := make(chan struct{})
	_ = p.Submit(func() { <-release }) // the only worker is busy

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := p.SubmitContext(ctx, func() { fmt.Println("never printed") })
	fmt.Println(err)
	fmt.Println(errors.Is(err, context.DeadlineExceeded))

	close(release)
	_ = p.ReleaseTimeout(time.Second)
	// Output:
	// context deadline exceeded
	// true
}

// The first error cancels the group's context, and the tasks that have not
// started yet are skipped.
func ExampleNewGroupContext() {
	p, _ := ants.NewPool(1, ants.WithQueueSize(8)) // one worker: tasks run in turn
	defer p.ReleaseTimeout(time.Second)

	g, ctx := ants.NewGroupContext(context.Background(), p)
	for _, name := range []string{"a", "b", "c"} {
		g.Go(func() error {
			if name == "b" {
				return fmt.Errorf("fetch %s: not found", name)
			}
			fmt.Println("fetched", name)
			return nil
		})
	}
	err := g.Wait()
	fmt.Println("error:", err)
	fmt.Println("context:", ctx.Err())
	// Output:
	// fetched a
	// error: fetch b: not found
	// context: context canceled
}

// A ResultGroup returns its results in the order the tasks were given,
// whatever order they finish in.
func ExampleNewResultGroup() {
	p, _ := ants.NewPool(4)
	defer p.ReleaseTimeout(time.Second)

	g := ants.NewResultGroup[int](p)
	for i := 1; i <= 5; i++ {
		g.Go(func() (int, error) { return i * i, nil })
	}
	squares, err := g.Wait()
	fmt.Println(squares, err)
	// Output: [1 4 9 16 25] <nil>
}

// With a task buffer, Submit returns at once while every worker is busy;
// the buffered tasks run in order, even after Release.
func ExampleWithQueueSize() {
	p, _ := ants.NewPool(1, ants.WithQueueSize(2))
	start := make(chan struct{})
	_ = p.Submit(func() { <-start; fmt.Println("first") })
	for _, name := range []string{"second", "third"} {
		_ = p.Submit(func() { fmt.Println(name) }) // buffered: returns at once
	}
	fmt.Println("queued:", p.Stats().Queued)
	fmt.Println("full:", errors.Is(p.TrySubmit(func() {}), ants.ErrPoolOverload))

	close(start)
	_ = p.ReleaseTimeout(time.Second) // waits until the buffer has drained
	// Output:
	// queued: 2
	// full: true
	// first
	// second
	// third
}

// Stats counts every task the pool accepted, and how it ended, and every
// submission it refused.
func ExamplePool_Stats() {
	p, _ := ants.NewPool(2, ants.WithPanicHandler(func(any) {}))
	_ = p.Submit(func() {})
	_ = p.Submit(func() {})
	_ = p.Submit(func() { panic("oops") })
	_ = p.ReleaseTimeout(time.Second) // waits for the tasks
	_ = p.Submit(func() {})           // refused: the pool is closed

	s := p.Stats()
	fmt.Printf("submitted %d, completed %d, panicked %d, rejected %d\n",
		s.Submitted, s.Completed, s.Panicked, s.Rejected)
	// Output: submitted 3, completed 2, panicked 1, rejected 1
}

// A sub-pool gives one part of a program a limit of its own on a pool that
// the whole program shares: here at most two uploads run at once, however
// many are queued, while the other six workers stay available to other work.
func ExampleNewSubpool() {
	p, _ := ants.NewPool(8) // shared by the whole program
	defer p.ReleaseTimeout(time.Second)

	uploads := ants.NewSubpool(p, 2)
	var running, peak atomic.Int32
	g := ants.NewGroup(uploads) // groups, like Submit, wait for a free slot
	for i := 0; i < 10; i++ {
		g.Go(func() error {
			n := running.Add(1)
			for old := peak.Load(); n > old && !peak.CompareAndSwap(old, n); old = peak.Load() {
			}
			time.Sleep(time.Millisecond) // the upload
			running.Add(-1)
			return nil
		})
	}
	fmt.Println("error:", g.Wait())
	fmt.Println("at most 2 at once:", peak.Load() <= 2)

	// Releasing the sub-pool leaves the shared pool open.
	_ = uploads.ReleaseTimeout(time.Second)
	s := uploads.Stats()
	fmt.Printf("submitted %d, completed %d\n", s.Submitted, s.Completed)
	fmt.Println("sub-pool closed:", uploads.IsClosed(), "pool closed:", p.IsClosed())
	// Output:
	// error: <nil>
	// at most 2 at once: true
	// submitted 10, completed 10
	// sub-pool closed: true pool closed: false
}

// Go runs a task on a pool and returns a Future; Wait blocks for its typed
// result, and Done suits a select.
func ExampleGo() {
	p, _ := ants.NewPool(2)
	defer p.ReleaseTimeout(time.Second)

	ctx := context.Background()
	size := ants.Go(ctx, p, func() (int, error) { return len("hello, world"), nil })
	owner := ants.Go(ctx, p, func() (string, error) { return "", errors.New("owner: not found") })

	n, err := size.Wait()
	fmt.Println(n, err)
	select {
	case <-owner.Done():
		_, err := owner.Wait() // returns at once
		fmt.Println(err)
	case <-time.After(time.Minute):
		fmt.Println("timed out")
	}
	// Output:
	// 12 <nil>
	// owner: not found
}

// A Stream runs its tasks concurrently and their callbacks one at a time,
// in the order of Go, so the callbacks can write to a plain slice or an
// io.Writer.
func ExampleNewStream() {
	p, _ := ants.NewPool(4)
	defer p.ReleaseTimeout(time.Second)

	s := ants.NewStream(p)
	var lines []string // written by the callbacks only
	for _, word := range []string{"stream", "of", "ordered", "results"} {
		s.Go(func() func() {
			n := len(word) // on a worker, concurrently with the other tasks
			return func() { lines = append(lines, fmt.Sprintf("%s=%d", word, n)) }
		})
	}
	err := s.Wait()
	fmt.Println(lines, err)
	// Output: [stream=6 of=2 ordered=7 results=7] <nil>
}

// Keyed runs the tasks of one key in order, one at a time, and the tasks of
// different keys concurrently: here, each account's operations apply in the
// order they were submitted.
func ExampleNewKeyed() {
	p, _ := ants.NewPool(4)
	defer p.ReleaseTimeout(time.Second)

	k := ants.NewKeyed[string](p)
	balances := map[string]*int{"alice": new(int), "bob": new(int)}
	var mu sync.Mutex // guards history; each balance is only touched by its key's tasks
	var history []string
	apply := func(account string, amount int) {
		_ = k.Submit(account, func() {
			b := balances[account]
			if *b+amount < 0 {
				mu.Lock()
				history = append(history, fmt.Sprintf("%s: refused %d", account, amount))
				mu.Unlock()
				return
			}
			*b += amount
		})
	}
	apply("alice", 10)
	apply("bob", 5)
	apply("alice", -7)
	apply("bob", -8) // more than bob has: refused, since his +5 came first
	apply("alice", -3)

	err := k.Wait()
	fmt.Println(*balances["alice"], *balances["bob"], history, err, k.Keys())
	// Output: 0 5 [bob: refused -8] <nil> 0
}
