package main

import (
	"context"
	"errors"
	"time"

	"github.com/e62cffed/ants"
	"github.com/e62cffed/ants/benchmarks/internal/flowsfile"
)

// tenant is one flow as a contender sees it: its name, its weight and the
// sub-pool the partitioned contender gives it.
type tenant struct {
	name   string
	weight int
	share  int
}

// contender is one way to serve the flows.
type contender struct {
	name, role, setup string
	// start returns a started server of cfg.workers workers for tenants.
	start func(cfg config, tenants []tenant) (*server, error)
}

// server is one started pool of a contender.
type server struct {
	// serve submits task for tenant t (its index), blocking while the
	// pool is full; nil if the pool took the task.
	serve func(t int, task func()) error
	// stop releases the pool, waiting for every accepted task.
	stop func() error
}

// contenders lists the pool with flows first, then what a user would build
// instead.
func contenders() []contender {
	return []contender{flowsContender(), fifoContender(), partitionContender()}
}

// weighted reports whether any tenant weighs other than 1.
func weighted(tenants []tenant) bool {
	for _, t := range tenants {
		if t.weight != 1 {
			return true
		}
	}
	return false
}

// flowsContender is one pool, each request submitted in its tenant's flow,
// with the tenants' weights where they are not all 1.
func flowsContender() contender {
	return contender{
		name:  "e62cffed/ants flows",
		role:  flowsfile.RoleFlows,
		setup: "`ants.NewPool(workers, ants.WithQueueSize(buffer))`, with `ants.WithFlowWeights(weight)` where the flows do not all weigh 1; `p.SubmitContext(ants.ContextWithFlow(ctx, tenant), fn)`",
		start: func(cfg config, tenants []tenant) (*server, error) {
			opts := []ants.Option{ants.WithQueueSize(cfg.buffer)}
			if weighted(tenants) {
				w := map[string]int{}
				for _, t := range tenants {
					w[t.name] = t.weight
				}
				opts = append(opts, ants.WithFlowWeights(func(flow string) int { return w[flow] }))
			}
			p, err := ants.NewPool(cfg.workers, opts...)
			if err != nil {
				return nil, err
			}
			ctxs := make([]context.Context, len(tenants))
			for i, t := range tenants {
				ctxs[i] = ants.ContextWithFlow(context.Background(), t.name)
			}
			return &server{
				serve: func(t int, task func()) error { return p.SubmitContext(ctxs[t], task) },
				stop:  func() error { return p.ReleaseTimeout(stallLimit) },
			}, nil
		},
	}
}

// fifoContender is the same pool without flows: every tenant's work waits
// in one FIFO.
func fifoContender() contender {
	return contender{
		name:  "one FIFO pool",
		role:  flowsfile.RoleFIFO,
		setup: "`ants.NewPool(workers, ants.WithQueueSize(buffer))`; `p.SubmitContext(ctx, fn)`, no flow",
		start: func(cfg config, _ []tenant) (*server, error) {
			p, err := ants.NewPool(cfg.workers, ants.WithQueueSize(cfg.buffer))
			if err != nil {
				return nil, err
			}
			ctx := context.Background()
			return &server{
				serve: func(_ int, task func()) error { return p.SubmitContext(ctx, task) },
				stop:  func() error { return p.ReleaseTimeout(stallLimit) },
			}, nil
		},
	}
}

// partitionContender is a static partition: a Subpool per tenant on one
// parent pool without flows.
func partitionContender() contender {
	return contender{
		name: "Subpool per tenant",
		role: flowsfile.RolePartition,
		setup: "`parent := ants.NewPool(workers, ants.WithQueueSize(buffer))`; `ants.NewSubpool(parent, share)` per tenant; `sub.SubmitContext(ctx, fn)`, no flow. " +
			"Shares in the mixed workload: the heavy flow the workers less the light flows' mean use, each light flow 1, the least a sub-pool can have " +
			"(so the shares add up to more than the workers: the parent, FIFO, takes what does not fit); in the backlogged scenarios, the workers split by weight",
		start: func(cfg config, tenants []tenant) (*server, error) {
			p, err := ants.NewPool(cfg.workers, ants.WithQueueSize(cfg.buffer))
			if err != nil {
				return nil, err
			}
			subs := make([]*ants.Subpool, len(tenants))
			for i, t := range tenants {
				subs[i] = ants.NewSubpool(p, t.share)
			}
			ctx := context.Background()
			return &server{
				serve: func(t int, task func()) error { return subs[t].SubmitContext(ctx, task) },
				stop: func() error {
					var errs []error
					for _, s := range subs {
						errs = append(errs, s.ReleaseTimeout(stallLimit))
					}
					return errors.Join(append(errs, p.ReleaseTimeout(stallLimit))...)
				},
			}, nil
		},
	}
}

// stallLimit bounds every wait of the harness beyond the time the offered
// work needs at capacity: a run that takes that much longer has stalled,
// and fails rather than hangs.
const stallLimit = 10 * time.Second
