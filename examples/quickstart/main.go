// Command quickstart runs tasks on a pool with a task buffer, collects
// their results in the order they were given, gets one task's result
// through a future, and releases the pool, waiting for every task.
package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/e62cffed/ants"
)

func main() {
	p, err := ants.NewPool(4, ants.WithQueueSize(100)) // 4 workers, a buffer of 100 tasks
	if err != nil {
		log.Fatal(err)
	}
	defer p.ReleaseTimeout(10 * time.Second) // waits for every accepted task

	g := ants.NewResultGroup[int](p)
	for n := 1; n <= 10; n++ {
		g.Go(func() (int, error) { return n * n, nil }) // runs on the pool's workers
	}
	squares, err := g.Wait() // in the order of the calls; the first error, if any
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("squares:", squares)

	f := ants.Go(context.Background(), p, func() (string, error) {
		return "hello from a worker", nil
	})
	msg, err := f.Wait()
	fmt.Println(msg, err)

	s := p.Stats()
	fmt.Printf("%d tasks on a pool of %d workers\n", s.Submitted, s.Cap)
}
