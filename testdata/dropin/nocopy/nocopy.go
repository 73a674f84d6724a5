//go:build nocopy

// Package nocopy copies, by value, each of this library's types that must
// not be copied after first use. It must fail `go vet -tags nocopy`:
// .ci/run requires one "copies lock" report for each copy below, so that
// none of these types loses the lock, or the noCopy, by which vet catches a
// copy. The build tag keeps a plain `go vet ./...` of the module clean.
package nocopy

import (
	"context"

	ants "github.com/e62cffed/ants"
)

type worker struct{}

func (worker) Process(context.Context, int) (int, error) { return 0, nil }
func (worker) Close()                                    {}

// Copies returns a copy of each type; its body is what vet must flag.
func Copies(pool *ants.Pool) []any {
	g := ants.NewGroup(pool)
	rg := ants.NewResultGroup[int](pool)
	sp := ants.NewSubpool(pool, 1)
	st := ants.NewStream(pool)
	kd := ants.NewKeyed[string](pool)
	wp, _ := ants.NewWorkerPool(1, func(int) ants.Worker[int, int] { return worker{} })
	f := ants.Go(context.Background(), pool, func() (int, error) { return 0, nil })
	return []any{
		*g,  // Group
		*rg, // ResultGroup
		*sp, // Subpool
		*st, // Stream
		*kd, // Keyed
		*wp, // WorkerPool
		*f,  // Future
	}
}
