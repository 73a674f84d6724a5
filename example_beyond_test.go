package ants_test

import (
	"context"
	"errors"
	"fmt"
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
