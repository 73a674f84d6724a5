package ants_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/e62cffed/ants"
)

// ExampleContextWithPriority runs interactive and background work on one
// pool. The background jobs arrive first and fill the buffer, while both
// workers finish earlier work; the interactive requests, at a higher level,
// go ahead of them as workers free.
//
// The wait of a task is the time from its submit call to its start, which
// is what an Observer reports for every task of the pool. The Observer
// carries no label, so the p99 of each kind is timed here over the same
// span, labelled by the caller; in a service it would go to a histogram with
// a "priority" label.
func ExampleContextWithPriority() {
	pool, _ := ants.NewPool(2, ants.WithQueueSize(1000))
	defer pool.Release()

	var (
		mu    sync.Mutex
		waits = map[string][]time.Duration{}
		wg    sync.WaitGroup
	)
	submit := func(ctx context.Context, kind string) {
		wg.Add(1)
		submitted := time.Now()
		err := pool.SubmitContext(ctx, func() {
			defer wg.Done()
			wait := time.Since(submitted)
			mu.Lock()
			waits[kind] = append(waits[kind], wait)
			mu.Unlock()
			time.Sleep(100 * time.Microsecond) // the work
		})
		if err != nil {
			wg.Done()
		}
	}

	earlier := make(chan struct{}) // the earlier work, done once all has arrived
	for i := 0; i < 2; i++ {
		_ = pool.Submit(func() { <-earlier })
	}

	background := ants.ContextWithPriority(context.Background(), -1)
	interactive := ants.ContextWithPriority(context.Background(), 1)
	for i := 0; i < 200; i++ {
		submit(background, "background")
	}
	for i := 0; i < 20; i++ {
		submit(interactive, "interactive")
	}
	close(earlier)
	wg.Wait()

	p99 := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)*99/100]
	}
	fmt.Println("interactive p99 below background p99:", p99(waits["interactive"]) < p99(waits["background"]))
	// Output: interactive p99 below background p99: true
}
