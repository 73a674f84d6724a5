// What a user of github.com/e62cffed/ants builds first: a pool that runs a
// hundred tasks, each exactly once.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/e62cffed/ants"
)

func main() {
	p, err := ants.NewPool(4)
	if err != nil {
		panic(err)
	}
	defer p.Release()
	var ran atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 100; i++ {
		wg.Add(1)
		if err := p.Submit(func() { ran.Add(1); wg.Done() }); err != nil {
			panic(err)
		}
	}
	wg.Wait()
	if ran.Load() != 100 {
		panic(fmt.Sprintf("ran %d tasks, want 100", ran.Load()))
	}
	fmt.Println("ants: 100 tasks ran on a pool of", p.Cap())
}
