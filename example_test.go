package ants_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants"
)

func ExampleNewPool() {
	p, err := ants.NewPool(10)
	if err != nil {
		panic(err)
	}
	defer p.Release()

	var wg sync.WaitGroup
	var sum atomic.Int64
	for i := 1; i <= 100; i++ {
		wg.Add(1)
		_ = p.Submit(func() {
			defer wg.Done()
			sum.Add(int64(i))
		})
	}
	wg.Wait()
	fmt.Println("sum:", sum.Load())
	fmt.Println("capacity:", p.Cap())
	// Output:
	// sum: 5050
	// capacity: 10
}

func ExampleNewPoolWithFunc() {
	var wg sync.WaitGroup
	var total atomic.Int64
	p, err := ants.NewPoolWithFunc(4, func(arg any) {
		defer wg.Done()
		total.Add(int64(len(arg.(string))))
	})
	if err != nil {
		panic(err)
	}
	defer p.Release()

	for _, word := range []string{"goroutine", "pool", "ants"} {
		wg.Add(1)
		_ = p.Invoke(word)
	}
	wg.Wait()
	fmt.Println("letters:", total.Load())
	// Output: letters: 17
}

func ExampleNewPoolWithFuncGeneric() {
	var wg sync.WaitGroup
	var squares atomic.Int64
	p, err := ants.NewPoolWithFuncGeneric(4, func(n int) {
		defer wg.Done()
		squares.Add(int64(n * n))
	})
	if err != nil {
		panic(err)
	}
	defer p.Release()

	for n := 1; n <= 10; n++ {
		wg.Add(1)
		_ = p.Invoke(n)
	}
	wg.Wait()
	fmt.Println("sum of squares:", squares.Load())
	// Output: sum of squares: 385
}

func ExampleNewMultiPool() {
	mp, err := ants.NewMultiPool(4, 8, ants.RoundRobin)
	if err != nil {
		panic(err)
	}
	defer func() { _ = mp.ReleaseTimeout(time.Second) }()

	var wg sync.WaitGroup
	var done atomic.Int64
	for i := 0; i < 64; i++ {
		wg.Add(1)
		_ = mp.Submit(func() {
			defer wg.Done()
			done.Add(1)
		})
	}
	wg.Wait()
	fmt.Println("tasks done:", done.Load())
	fmt.Println("capacity:", mp.Cap())
	// Output:
	// tasks done: 64
	// capacity: 32
}

func ExamplePool_Tune() {
	p, err := ants.NewPool(2)
	if err != nil {
		panic(err)
	}
	defer p.Release()

	fmt.Println("cap:", p.Cap(), "free:", p.Free())
	p.Tune(8)
	fmt.Println("cap:", p.Cap(), "free:", p.Free())
	p.Tune(0) // ignored
	fmt.Println("cap:", p.Cap())
	// Output:
	// cap: 2 free: 2
	// cap: 8 free: 8
	// cap: 8
}

func ExamplePool_ReleaseTimeout() {
	p, err := ants.NewPool(4)
	if err != nil {
		panic(err)
	}

	var done atomic.Int64
	for i := 0; i < 8; i++ {
		_ = p.Submit(func() { done.Add(1) })
	}
	// ReleaseTimeout closes the pool and waits for the tasks still running
	// and for every goroutine of the pool to exit.
	err = p.ReleaseTimeout(5 * time.Second)
	fmt.Println("release:", err)
	fmt.Println("tasks done:", done.Load())
	fmt.Println("submit after release:", p.Submit(func() {}))
	fmt.Println("release again:", p.ReleaseTimeout(time.Second))
	// Output:
	// release: <nil>
	// tasks done: 8
	// submit after release: this pool has been closed
	// release again: this pool has been closed
}
