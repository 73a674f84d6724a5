package main

import (
	"context"
	"fmt"
	"time"

	"github.com/e62cffed/ants"
	"github.com/gammazero/workerpool"
	"github.com/gammazero/workerpool/pacer"
	pkgz "github.com/go-pkgz/pool"
	"github.com/go-pkgz/pool/middleware"
)

// contender is one library with a rate limit. start returns a pool of
// workers goroutines whose throttled tasks start at most perSecond a second
// and burst in a row. With mixed false every task is throttled, and the
// pool is set up as the library's documentation shows for a rate-limited
// pool; with mixed true it is one shared pool on which throttled and plain
// tasks run side by side, the plain ones not limited.
type contender struct {
	name string
	// setup says how the pool is built, for the report.
	setup, sharedSetup string
	start              func(workers int, perSecond float64, burst int, mixed bool) (*pool, error)
}

// pool is one started pool of a contender.
type pool struct {
	// submit hands t to the pool. It may wait (for a token, for a worker)
	// and may be called from several goroutines at once. The pool calls
	// t.onWorker as soon as a worker takes the task up, and t.run once the
	// task may start (for a throttled task, once it has its token).
	submit func(t task)
	// stop waits for every submitted task to finish and releases the pool.
	stop func() error
	// busy, if not nil, is the library's own count of workers running a
	// task (ours: Stats Running less Idle).
	busy func() int
}

// task is one task handed to a pool.
type task struct {
	throttled     bool
	onWorker, run func()
}

// contenders lists ours first, then the peers that throttle inside the task.
func contenders() []contender {
	return []contender{antsContender(), workerpoolContender(), pkgzContender()}
}

// antsContender is e62cffed/ants: the token is taken at dispatch, and a task
// that waits for one waits where a task waits in a full pool, on no worker.
func antsContender() contender {
	return contender{
		name:        "e62cffed/ants",
		setup:       "`ants.NewPool(workers, ants.WithRateLimit(r, b), ants.WithQueueSize(-1))`; `Submit(task)`",
		sharedSetup: "`p := ants.NewPool(workers)`; `s := ants.NewSubpool(p, 0)`; `s.SetRateLimit(r, b)`; throttled: `s.Submit`, plain: `p.Submit`",
		start: func(workers int, perSecond float64, burst int, mixed bool) (*pool, error) {
			if !mixed {
				// An unbounded buffer, as the peers' queues are: Submit
				// never waits, and the burst is offered all at once.
				p, err := ants.NewPool(workers, ants.WithRateLimit(perSecond, burst), ants.WithQueueSize(-1))
				if err != nil {
					return nil, err
				}
				return &pool{
					submit: func(t task) {
						if err := p.Submit(func() { t.onWorker(); t.run() }); err != nil {
							panic(err) // an open pool with an unbounded buffer refuses nothing
						}
					},
					stop: func() error { return p.ReleaseTimeout(stallLimit) },
					busy: func() int { s := p.Stats(); return s.Running - s.Idle },
				}, nil
			}
			p, err := ants.NewPool(workers)
			if err != nil {
				return nil, err
			}
			s := ants.NewSubpool(p, 0)
			if err := s.SetRateLimit(perSecond, burst); err != nil {
				p.Release()
				return nil, err
			}
			return &pool{
				submit: func(t task) {
					submit := p.Submit
					if t.throttled {
						submit = s.Submit
					}
					if err := submit(func() { t.onWorker(); t.run() }); err != nil {
						panic(err)
					}
				},
				stop: func() error {
					if err := s.ReleaseTimeout(stallLimit); err != nil {
						return err
					}
					return p.ReleaseTimeout(stallLimit)
				},
				busy: func() int { st := p.Stats(); return st.Running - st.Idle },
			}, nil
		},
	}
}

// workerpoolContender is gammazero/workerpool with its pacer: Pace wraps
// the task in a function that first calls the pacer's Next, which returns
// no sooner than the pacer's delay after the previous one; the paced
// function runs on a worker, so the worker waits in Next. The pacer has no
// burst: one task per delay, delay = 1 s / r.
func workerpoolContender() contender {
	return contender{
		name:        "gammazero/workerpool",
		setup:       "`wp := workerpool.New(workers)`; `pc := pacer.NewPacer(time.Second / r)`; `wp.Submit(pc.Pace(task))` (no burst)",
		sharedSetup: "one `workerpool.New(workers)`; throttled: `wp.Submit(pc.Pace(task))`, plain: `wp.Submit(task)`",
		start: func(workers int, perSecond float64, _ int, _ bool) (*pool, error) {
			if perSecond <= 0 {
				return nil, fmt.Errorf("workerpool: pacer needs a positive rate, got %v", perSecond)
			}
			wp := workerpool.New(workers)
			pc := pacer.NewPacer(time.Duration(float64(time.Second) / perSecond))
			return &pool{
				submit: func(t task) {
					if t.throttled {
						paced := pc.Pace(t.run)
						wp.Submit(func() { t.onWorker(); paced() })
						return
					}
					wp.Submit(func() { t.onWorker(); t.run() })
				},
				stop: func() error {
					wp.StopWait()
					pc.Stop() // only once no paced task waits in Next
					return nil
				},
			}, nil
		},
	}
}

// pkgzContender is go-pkgz/pool with its RateLimiter middleware (an
// x/time/rate token bucket whose Wait runs in the worker, before the task).
// The middleware wraps the pool's one worker function, so it applies to
// every task; on the shared pool a routing middleware of ours sends the
// throttled tasks through it and the plain ones past it. Batching is off
// (WithBatchSize(0)): a closed-loop caller cannot wait for a batch to fill.
// Send, not Submit, since several goroutines submit.
func pkgzContender() contender {
	return contender{
		name:        "go-pkgz/pool",
		setup:       "`pool.New[T](workers, worker).WithBatchSize(0).WithWorkerChanSize(1024).Use(middleware.RateLimiter[T](r, b))`; `Send(v)`",
		sharedSetup: "one such pool; a middleware of ours routes throttled values through `middleware.RateLimiter[T](r, b)` and plain ones past it",
		start: func(workers int, perSecond float64, burst int, mixed bool) (*pool, error) {
			base := pkgz.WorkerFunc[task](func(_ context.Context, t task) error {
				t.run()
				return nil
			})
			// onWorker is outermost: it runs as the worker takes the value,
			// before any wait for a token.
			onWorker := func(next pkgz.Worker[task]) pkgz.Worker[task] {
				return pkgz.WorkerFunc[task](func(ctx context.Context, t task) error {
					t.onWorker()
					return next.Do(ctx, t)
				})
			}
			rateLimiter := middleware.RateLimiter[task](perSecond, burst)
			limit := rateLimiter
			if mixed {
				limit = func(next pkgz.Worker[task]) pkgz.Worker[task] {
					limited := rateLimiter(next)
					return pkgz.WorkerFunc[task](func(ctx context.Context, t task) error {
						if t.throttled {
							return limited.Do(ctx, t)
						}
						return next.Do(ctx, t)
					})
				}
			}
			p := pkgz.New[task](workers, base).WithBatchSize(0).WithWorkerChanSize(1024).Use(onWorker, limit)
			if err := p.Go(context.Background()); err != nil {
				return nil, err
			}
			return &pool{
				submit: p.Send,
				stop:   func() error { return p.Close(context.Background()) },
			}, nil
		},
	}
}
