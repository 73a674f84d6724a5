// What a user of github.com/e62cffed/ants/prometheus builds first: a pool
// whose collector is registered, and a scrape that counts its tasks.
package main

import (
	"context"
	"fmt"
	"sync"

	"github.com/e62cffed/ants"
	antsprom "github.com/e62cffed/ants/prometheus"
	"github.com/prometheus/client_golang/prometheus"
)

func main() {
	p, err := ants.NewPool(4)
	if err != nil {
		panic(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(antsprom.NewCollector("work", p))
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		if err := p.Submit(wg.Done); err != nil {
			panic(err)
		}
	}
	wg.Wait()
	if err := p.ReleaseContext(context.Background()); err != nil {
		panic(err)
	}
	families, err := reg.Gather()
	if err != nil {
		panic(err)
	}
	completed := -1.0
	for _, f := range families {
		if f.GetName() == "ants_pool_completed_tasks_total" {
			completed = f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	if completed != 10 {
		panic(fmt.Sprintf("ants_pool_completed_tasks_total is %v, want 10", completed))
	}
	fmt.Println("antsprom:", len(families), "metric families, 10 tasks completed")
}
