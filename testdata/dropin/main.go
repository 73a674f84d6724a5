// Command dropin is a program written for ants v2.12.1's types, with only
// its import line changed: it copies every pool kind by value, embeds a
// copy in a struct of its own, as services built on ants do, and compares
// two Pool handles. .ci/run requires `go vet` to be clean on it, and runs
// it: it exits non-zero if a copy is not the pool it was copied from.
package main

import (
	"fmt"
	"os"
	"sync"

	ants "github.com/e62cffed/ants"
)

// taskPool wraps a pool by value, as DNS-server code built on ants does.
type taskPool struct {
	ants.Pool
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "dropin:", err)
		os.Exit(1)
	}
	fmt.Println("dropin: every copy is its pool")
}

func run() error {
	pool, err := ants.NewPool(2)
	if err != nil {
		return err
	}
	defer pool.Release()
	tp := &taskPool{Pool: *pool} // copied before first use
	var wg sync.WaitGroup
	var mu sync.Mutex
	ran := 0
	for i := 0; i < 1000; i++ {
		wg.Add(1)
		if err := tp.Submit(func() {
			defer wg.Done()
			mu.Lock()
			ran++
			mu.Unlock()
		}); err != nil {
			return err
		}
	}
	wg.Wait()
	if ran != 1000 {
		return fmt.Errorf("%d of 1000 tasks ran", ran)
	}

	a, b := *pool, tp.Pool
	if a != b {
		return fmt.Errorf("two handles of one pool compare unequal")
	}
	other, err := ants.NewPool(2)
	if err != nil {
		return err
	}
	defer other.Release()
	if *other == a {
		return fmt.Errorf("handles of two pools compare equal")
	}

	b.Tune(5)
	if pool.Cap() != 5 {
		return fmt.Errorf("Tune through a copy: Cap() = %d, want 5", pool.Cap())
	}

	pf, err := ants.NewPoolWithFunc(2, func(any) {})
	if err != nil {
		return err
	}
	pfCopy := *pf
	if err := pfCopy.Invoke(1); err != nil {
		return err
	}
	pfCopy.Release()
	if !pf.IsClosed() {
		return fmt.Errorf("Release through a PoolWithFunc copy left the original open")
	}

	pg, err := ants.NewPoolWithFuncGeneric(2, func(int) {})
	if err != nil {
		return err
	}
	pgCopy := *pg
	pgCopy.Release()
	if !pg.IsClosed() {
		return fmt.Errorf("Release through a PoolWithFuncGeneric copy left the original open")
	}

	mp, err := ants.NewMultiPool(2, 2, ants.RoundRobin)
	if err != nil {
		return err
	}
	mpCopy := *mp
	done := make(chan struct{})
	if err := mpCopy.Submit(func() { close(done) }); err != nil {
		return err
	}
	<-done
	mpCopy.Tune(3)
	if mp.Cap() != 6 {
		return fmt.Errorf("Tune through a MultiPool copy: Cap() = %d, want 6", mp.Cap())
	}
	mpCopy.Release()
	if !mp.IsClosed() {
		return fmt.Errorf("Release through a MultiPool copy left the original open")
	}

	mpf, err := ants.NewMultiPoolWithFunc(2, 2, func(any) {}, ants.LeastTasks)
	if err != nil {
		return err
	}
	mpfCopy := *mpf
	mpfCopy.Release()
	if !mpf.IsClosed() {
		return fmt.Errorf("Release through a MultiPoolWithFunc copy left the original open")
	}

	mpg, err := ants.NewMultiPoolWithFuncGeneric(2, 2, func(string) {}, ants.RoundRobin)
	if err != nil {
		return err
	}
	mpgCopy := *mpg
	mpgCopy.Release()
	if !mpg.IsClosed() {
		return fmt.Errorf("Release through a MultiPoolWithFuncGeneric copy left the original open")
	}
	return nil
}
