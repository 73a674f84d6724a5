// Command classic is the classic ants demo: 1000 tasks on the default
// pool, a PoolWithFunc that sums 0..999, a Tune, a ReleaseTimeout and a
// Reboot.
package main

import (
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants"
)

func main() {
	const runTimes = 1000

	// 1. Plain tasks on the package-level default pool.
	var wg sync.WaitGroup
	var done atomic.Int64
	for i := 0; i < runTimes; i++ {
		wg.Add(1)
		if err := ants.Submit(func() {
			defer wg.Done()
			time.Sleep(time.Millisecond)
			done.Add(1)
		}); err != nil {
			log.Fatalf("submit: %v", err)
		}
	}
	wg.Wait()
	fmt.Printf("default pool: %d tasks done, %d workers running\n", done.Load(), ants.Running())

	// 2. A pool of one function: sum 0..999 on 10 workers.
	var sum atomic.Int64
	p, err := ants.NewPoolWithFunc(10, func(i any) {
		defer wg.Done()
		sum.Add(int64(i.(int)))
	})
	if err != nil {
		log.Fatal(err)
	}
	for i := 0; i < runTimes; i++ {
		wg.Add(1)
		if err := p.Invoke(i); err != nil {
			log.Fatalf("invoke: %v", err)
		}
	}
	wg.Wait()
	fmt.Printf("pool with func: sum of 0..999 = %d (cap %d, running %d)\n", sum.Load(), p.Cap(), p.Running())

	// 3. Resize it.
	p.Tune(20)
	fmt.Printf("after Tune(20): cap %d\n", p.Cap())

	// 4. Close it and wait for every goroutine to exit.
	if err := p.ReleaseTimeout(5 * time.Second); err != nil {
		log.Fatalf("release: %v", err)
	}
	fmt.Printf("released: closed=%v, running %d, Invoke now returns %q\n", p.IsClosed(), p.Running(), p.Invoke(0))

	// 5. Reopen it and use it again.
	p.Reboot()
	wg.Add(1)
	if err := p.Invoke(1); err != nil {
		log.Fatalf("invoke after reboot: %v", err)
	}
	wg.Wait()
	fmt.Printf("rebooted: closed=%v, sum now %d\n", p.IsClosed(), sum.Load())

	if err := p.ReleaseTimeout(5 * time.Second); err != nil {
		log.Fatalf("release: %v", err)
	}
	if err := ants.ReleaseTimeout(5 * time.Second); err != nil {
		log.Fatalf("release default pool: %v", err)
	}
	fmt.Println("all pools released")
}
