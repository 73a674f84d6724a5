package ants_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/e62cffed/ants"
)

// ExampleContextWithFlow shares one pool among tenants. A bulk import of
// one tenant queues a hundred tasks before two other tenants' requests;
// with each request in its tenant's flow, the requests go in turn with the
// import instead of behind it.
func ExampleContextWithFlow() {
	pool, _ := ants.NewPool(1, ants.WithQueueSize(1000))
	defer pool.Release()

	var (
		mu    sync.Mutex
		order []string
		wg    sync.WaitGroup
	)
	submit := func(tenant, what string) {
		wg.Add(1)
		ctx := ants.ContextWithFlow(context.Background(), tenant)
		_ = pool.SubmitContext(ctx, func() {
			defer wg.Done()
			mu.Lock()
			order = append(order, what)
			mu.Unlock()
		})
	}

	busy := make(chan struct{}) // the worker's current task, until all has arrived
	_ = pool.Submit(func() { <-busy })
	for i := 0; i < 100; i++ {
		submit("acme", "import")
	}
	submit("globex", "globex request")
	submit("initech", "initech request")
	close(busy)
	wg.Wait()

	fmt.Println(strings.Join(order[:4], ", "))
	// Output: import, globex request, initech request, import
}
