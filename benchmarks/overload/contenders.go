package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/e62cffed/ants"
	"github.com/e62cffed/ants/benchmarks/internal/overloadfile"
	"github.com/e62cffed/ants/benchmarks/internal/study"
	antsv2 "github.com/panjf2000/ants/v2"
)

// outcome is what became of one request. Every request has exactly one.
type outcome uint8

const (
	pending outcome = iota // not settled yet; never left at the end of a row
	success                // ran and finished by its deadline
	late                   // ran and finished after its deadline
	expired                // accepted, never ran: its deadline passed while it waited
	dropped                // accepted, never ran: the pool dropped it (ErrQueueTimeout)
	refused                // never accepted
)

// contender is one way to serve the requests.
type contender struct {
	name, role, setup string
	// drops and refuses say whether the pool may drop an accepted task
	// (ErrQueueTimeout) and refuse a request at the study's sizes.
	drops, refuses bool
	// start returns a started pool of cfg.workers workers.
	start func(cfg config) (*server, error)
}

// server is one started pool of a contender.
type server struct {
	// serve hands task, a request's work, to the pool, and is called on
	// the request's own goroutine, which it may block. It returns pending
	// if the pool took the task and called it or will call it (the task
	// then settles the request), or the outcome if the pool settled the
	// request without calling the task: refused, dropped or expired.
	serve func(ctx context.Context, task func()) outcome
	// stop waits for every accepted task and releases the pool.
	stop func() error
	// dropped is the pool's own count of dropped tasks, or nil.
	dropped func() int64
}

// contenders lists the pool with a queue target first, then what a user
// would build instead.
func contenders() []contender {
	return []contender{
		targetContender(false), targetContender(true),
		fifoContender(), smallContender(), antsV2Contender(), chanContender(),
	}
}

// settle maps the error of a task the pool did not run to its outcome.
func settle(err error) outcome {
	switch {
	case err == nil:
		return pending
	case errors.Is(err, ants.ErrQueueTimeout):
		return dropped
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		return expired
	default: // ErrPoolOverload, ErrPoolClosed
		return refused
	}
}

// oursServer wraps one of this library's pools.
func oursServer(p *ants.Pool, serve func(ctx context.Context, task func()) outcome) *server {
	return &server{
		serve:   serve,
		stop:    func() error { return p.ReleaseTimeout(stallLimit) },
		dropped: func() int64 { return int64(p.Stats().Dropped) },
	}
}

// goServe serves through ants.Go and waits for the future, as a request
// handler waits for its result.
func goServe(p *ants.Pool) func(ctx context.Context, task func()) outcome {
	return func(ctx context.Context, task func()) outcome {
		f := ants.Go(ctx, p, func() (struct{}, error) { task(); return struct{}{}, nil })
		_, err := f.Wait()
		return settle(err)
	}
}

// targetContender is the pool with a queue target (CoDel and adaptive
// LIFO) on a large buffer; withTimeout adds a queue timeout of the
// deadline less the task's time: a task that waited that long cannot
// finish in time.
func targetContender(withTimeout bool) contender {
	c := contender{
		name:  "e62cffed/ants target",
		role:  overloadfile.RoleTarget,
		drops: true,
		setup: "`ants.NewPool(workers, ants.WithQueueSize(buffer), ants.WithQueueTarget(target, interval))`; `ants.Go(ctx, p, fn)`, then the future's `Wait`",
	}
	if withTimeout {
		c.name, c.role = "e62cffed/ants target+timeout", ""
		c.setup = "as above, with `ants.WithQueueTimeout(deadline − task)`"
	}
	c.start = func(cfg config) (*server, error) {
		opts := []ants.Option{ants.WithQueueSize(cfg.buffer), ants.WithQueueTarget(cfg.target, cfg.interval)}
		if withTimeout {
			opts = append(opts, ants.WithQueueTimeout(cfg.queueTimeout()))
		}
		p, err := ants.NewPool(cfg.workers, opts...)
		if err != nil {
			return nil, err
		}
		return oursServer(p, goServe(p)), nil
	}
	return c
}

// fifoContender is a large FIFO buffer and nothing else: SubmitContext
// waits while the buffer is full, until the request's deadline.
func fifoContender() contender {
	return contender{
		name:  "large FIFO buffer",
		role:  overloadfile.RoleFIFO,
		setup: "`ants.NewPool(workers, ants.WithQueueSize(buffer))`; `p.SubmitContext(ctx, fn)`",
		start: func(cfg config) (*server, error) {
			p, err := ants.NewPool(cfg.workers, ants.WithQueueSize(cfg.buffer))
			if err != nil {
				return nil, err
			}
			return oursServer(p, func(ctx context.Context, task func()) outcome {
				return settle(p.SubmitContext(ctx, task))
			}), nil
		},
	}
}

// smallContender is a buffer of one task per worker, shedding what does not
// fit: TrySubmit never waits.
func smallContender() contender {
	return contender{
		name:    "small buffer, TrySubmit",
		role:    overloadfile.RoleShed,
		refuses: true,
		setup:   "`ants.NewPool(workers, ants.WithQueueSize(workers))`; `p.TrySubmit(fn)`, a request refused when no worker and no slot is free",
		start: func(cfg config) (*server, error) {
			p, err := ants.NewPool(cfg.workers, ants.WithQueueSize(cfg.workers))
			if err != nil {
				return nil, err
			}
			return oursServer(p, func(_ context.Context, task func()) outcome {
				return settle(p.TrySubmit(task))
			}), nil
		},
	}
}

// antsV2Contender is panjf2000/ants with Nonblocking: no buffer, a task
// refused when every worker is busy.
func antsV2Contender() contender {
	return contender{
		name:    "ants v2.12.1 Nonblocking",
		role:    overloadfile.RoleShed,
		refuses: true,
		setup:   "`ants.NewPool(workers, ants.WithNonblocking(true))` of github.com/panjf2000/ants/v2; `p.Submit(fn)`, refused with `ErrPoolOverload` when every worker is busy",
		start: func(cfg config) (*server, error) {
			p, err := antsv2.NewPool(cfg.workers, antsv2.WithNonblocking(true))
			if err != nil {
				return nil, err
			}
			return &server{
				serve: func(_ context.Context, task func()) outcome {
					if err := p.Submit(task); err != nil {
						return refused
					}
					return pending
				},
				stop: func() error { return p.ReleaseTimeout(stallLimit) },
			}, nil
		},
	}
}

// chanContender is workers goroutines reading a buffered channel, the
// request refused when the buffer is full (a select with a default). Its
// buffer is the large one: it is a FIFO buffer that sheds only when full.
func chanContender() contender {
	return contender{
		name:    "channel pool, sheds when full",
		role:    overloadfile.RoleFIFO,
		refuses: true,
		setup:   "`workers` goroutines ranging over `make(chan func(), buffer)`; `select { case ch <- fn: default: refuse }`: a FIFO buffer that sheds when full",
		start: func(cfg config) (*server, error) {
			ch := make(chan func(), cfg.buffer)
			var wg sync.WaitGroup
			for range cfg.workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for t := range ch {
						t()
					}
				}()
			}
			return &server{
				serve: func(_ context.Context, task func()) outcome {
					select {
					case ch <- task:
						return pending
					default:
						return refused
					}
				},
				stop: func() error {
					close(ch)
					return study.Within(stallLimit, func() error { wg.Wait(); return nil })
				},
			}, nil
		},
	}
}

// stallLimit bounds every wait of the harness for the pools after the
// last arrival: a row that leaves requests unsettled that long has
// stalled, and fails rather than hangs.
const stallLimit = 10 * time.Second
