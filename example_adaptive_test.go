package ants_test

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/e62cffed/ants"
)

func ExampleWithAdaptiveCapacity() {
	// A pool in front of a downstream whose best concurrency is not known:
	// it starts at 8 and sets its own capacity between 2 and 64.
	var changes atomic.Int64 // a metric in a real program: OnChange never runs concurrently
	p, err := ants.NewPool(8, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{
		Min: 2, Max: 64,
		OnChange: func(old, new int) { changes.Add(1) },
	}))
	if err != nil {
		panic(err)
	}
	defer p.Release()
	fmt.Println("starts at", p.Cap())

	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		_ = p.Submit(func() { defer wg.Done() })
	}
	wg.Wait() // 10 tasks: too few for a decision, which needs 16

	// Tune still sets the capacity, kept within [Min, Max], and adaptation
	// goes on from there.
	p.Tune(1000)
	fmt.Println("after Tune(1000):", p.Cap())

	// A starting size outside [Min, Max] is clamped into it.
	q, _ := ants.NewPool(1000, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 4, Max: 16}))
	defer q.Release()
	fmt.Println("NewPool(1000) between 4 and 16 starts at", q.Cap())

	_, err = ants.NewPool(8, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{Min: 0, Max: 16}))
	fmt.Println(err)
	// Output:
	// starts at 8
	// after Tune(1000): 64
	// NewPool(1000) between 4 and 16 starts at 16
	// ants: invalid adaptive capacity
}
