package ants_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/e62cffed/ants"
)

// BenchmarkMap measures Map and MapUnordered per value: one range over b.N
// no-op values, on a pool of cap workers, with at most window in flight.
// Stream, the ordered way to do the same before Map, runs the same shapes
// for comparison (its window is its own, 1024):
//
//	go test -run '^$' -bench 'Map$' -benchmem -count 6 . | tee map.txt
//	benchstat -col '.name@(stream map unordered)' map.txt
func BenchmarkMap(b *testing.B) {
	noop := func(_ context.Context, v int) (int, error) { return v, nil }
	for _, capacity := range benchCaps() {
		for _, window := range []int{64, runtime.GOMAXPROCS(0)} {
			shape := fmt.Sprintf("cap=%d/window=%d", capacity, window)
			b.Run("stream/"+shape, func(b *testing.B) {
				p := benchMapPool(b, capacity)
				s := ants.NewStream(p)
				sum := 0
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					s.Go(func() func() {
						r, _ := noop(context.Background(), i)
						return func() { sum += r }
					})
				}
				if err := s.Wait(); err != nil {
					b.Fatal(err)
				}
			})
			for _, kind := range []struct {
				name string
				m    func(context.Context, ants.Submitter, int, func(func(int) bool), func(context.Context, int) (int, error)) func(func(int, error) bool)
			}{{"map", ants.Map[int, int]}, {"unordered", ants.MapUnordered[int, int]}} {
				b.Run(kind.name+"/"+shape, func(b *testing.B) {
					p := benchMapPool(b, capacity)
					seq := func(yield func(int) bool) {
						for i := 0; i < b.N; i++ {
							if !yield(i) {
								return
							}
						}
					}
					n := 0
					b.ReportAllocs()
					b.ResetTimer()
					kind.m(context.Background(), p, window, seq, noop)(func(_ int, err error) bool {
						if err != nil {
							b.Fatal(err)
						}
						n++
						return true
					})
					if n != b.N {
						b.Fatalf("%d pairs, want %d", n, b.N)
					}
				})
			}
		}
	}
}

// benchMapPool returns a pool of capacity workers, released when b ends.
func benchMapPool(b *testing.B, capacity int) *ants.Pool {
	p, err := ants.NewPool(capacity)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = p.ReleaseTimeout(5 * time.Second) })
	return p
}
