package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants"
	antsv2 "github.com/panjf2000/ants/v2"
)

// workPool is what the soak needs of the service's pool: the handlers'
// two submits, the shutdown's ReleaseContext, a Stats snapshot for the
// samples and /metrics, and Tune for the tuning goroutine.
type workPool interface {
	TrySubmit(task func()) error
	SubmitContext(ctx context.Context, task func()) error
	ReleaseContext(ctx context.Context) error
	Stats() ants.Stats
	Tune(size int)
}

// sidePool is the pool a third goroutine releases and reboots over and
// over while the service runs.
type sidePool interface {
	Submit(task func()) error
	Release()
	ReleaseContext(ctx context.Context) error
	Reboot()
}

// variant is one way of running the service's work.
type variant struct {
	name string
	note string // how it differs, for the report
	// newWork returns the service's pool of size workers and a task buffer
	// of queue where the variant has one.
	newWork func(size, queue int) (workPool, error)
	// newSide returns the side pool, or nil where the variant has none.
	newSide  func(size int) (sidePool, error)
	tunes    bool // whether Tune changes anything
	features bool // priorities, pause, rate limits and the checked release (features.go)
}

// variants are the three the soak compares.
var variants = []variant{
	{
		name: "e62cffed/ants",
		note: "TrySubmit on a pool with a task buffer of -queue",
		newWork: func(size, queue int) (workPool, error) {
			return ants.NewPool(size, ants.WithQueueSize(queue))
		},
		newSide: func(size int) (sidePool, error) { return ants.NewPool(size) },
		tunes:   true,
	},
	{
		name: everyFeature,
		note: "SubmitContext at -levels priority levels, shed past MaxBlockingTasks of -queue; " +
			"Pause/Resume, SetRateLimit, a rate-limited side pool, ReleaseTimeout checked at the end",
		newWork: func(size, queue int) (workPool, error) {
			return ants.NewPool(size, ants.WithQueueSize(queue), ants.WithMaxBlockingTasks(max(1, queue)))
		},
		newSide: func(size int) (sidePool, error) {
			return ants.NewPool(size, ants.WithQueueSize(2*size), ants.WithRateLimit(sideRate(size), 1))
		},
		tunes:    true,
		features: true,
	},
	{
		name: "ants v2.12.1",
		note: "Submit on a Nonblocking pool (ants has no task buffer, so -queue is not used)",
		newWork: func(size, _ int) (workPool, error) {
			p, err := antsv2.NewPool(size, antsv2.WithNonblocking(true))
			if err != nil {
				return nil, err
			}
			return &v2Pool{p: p}, nil
		},
		newSide: func(size int) (sidePool, error) {
			p, err := antsv2.NewPool(size)
			if err != nil {
				return nil, err
			}
			return v2Side{p}, nil
		},
		tunes: true,
	},
	{
		name: "goroutine-per-request",
		note: "a go statement per request: nothing bounds, sheds, tunes or reboots",
		newWork: func(int, int) (workPool, error) {
			return &perRequest{}, nil
		},
	},
}

// everyFeature is the variant that runs every feature at once; the default
// run leaves it out (-variants names it).
const everyFeature = "e62cffed/ants every feature"

// findVariant returns the variant called name, or an error listing them.
func findVariant(name string) (variant, error) {
	var names []string
	for _, v := range variants {
		if v.name == name {
			return v, nil
		}
		names = append(names, fmt.Sprintf("%q", v.name))
	}
	return variant{}, fmt.Errorf("unknown variant %q; have %v", name, names)
}

// v2Pool adapts a Nonblocking panjf2000/ants v2.12.1 pool: its Submit
// never waits, so it is TrySubmit, and its ErrPoolOverload becomes ours
// so the service sheds with a 503. ants v2 keeps no counters and no idle
// count; the adapter counts around each task (two atomic adds per task, a
// cost ours does not pay) so that Stats means the same for both.
type v2Pool struct {
	p                              *antsv2.Pool
	submitted, completed, rejected atomic.Uint64
	busy                           atomic.Int64 // tasks running now
}

func (a *v2Pool) TrySubmit(task func()) error {
	err := a.p.Submit(func() {
		a.busy.Add(1)
		defer func() { a.busy.Add(-1); a.completed.Add(1) }()
		task()
	})
	switch {
	case err == nil:
		a.submitted.Add(1)
		return nil
	case errors.Is(err, antsv2.ErrPoolOverload):
		a.rejected.Add(1)
		return ants.ErrPoolOverload
	default:
		a.rejected.Add(1)
		return err
	}
}

// SubmitContext is TrySubmit: a Nonblocking ants v2 pool cannot wait, and
// its blocking Submit takes no context.
func (a *v2Pool) SubmitContext(_ context.Context, task func()) error { return a.TrySubmit(task) }

func (a *v2Pool) ReleaseContext(ctx context.Context) error {
	return v2ReleaseContext(ctx, a.p)
}

func (a *v2Pool) Stats() ants.Stats {
	running := a.p.Running()
	return ants.Stats{
		Cap:       a.p.Cap(),
		Running:   running,
		Idle:      max(0, running-int(a.busy.Load())),
		Waiting:   a.p.Waiting(),
		Submitted: a.submitted.Load(),
		Completed: a.completed.Load(),
		Rejected:  a.rejected.Load(),
	}
}

func (a *v2Pool) Tune(size int) { a.p.Tune(size) }

// v2ReleaseContext is ReleaseContext for an ants v2 pool, which has only
// ReleaseTimeout: it waits until ctx's deadline, or 30 s without one.
func v2ReleaseContext(ctx context.Context, p *antsv2.Pool) error {
	d := 30 * time.Second
	if dl, ok := ctx.Deadline(); ok {
		d = time.Until(dl)
	}
	return p.ReleaseTimeout(d)
}

// v2Side is an ants v2 side pool.
type v2Side struct{ p *antsv2.Pool }

func (s v2Side) Submit(task func()) error                 { return s.p.Submit(task) }
func (s v2Side) Release()                                 { s.p.Release() }
func (s v2Side) ReleaseContext(ctx context.Context) error { return v2ReleaseContext(ctx, s.p) }
func (s v2Side) Reboot()                                  { s.p.Reboot() }

// perRequest is goroutine-per-request: every submit starts a goroutine.
// It never sheds; ReleaseContext refuses new tasks and waits for the
// running ones.
type perRequest struct {
	mu     sync.RWMutex // held for reading while adding to wg, for writing to close
	closed bool         // guarded by mu
	wg     sync.WaitGroup

	submitted, completed atomic.Uint64
	running              atomic.Int64
}

func (g *perRequest) TrySubmit(task func()) error {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return ants.ErrPoolClosed
	}
	g.wg.Add(1)
	g.running.Add(1)
	g.submitted.Add(1)
	go func() { // exits when task returns; ReleaseContext waits for it
		defer g.wg.Done()
		defer func() { g.running.Add(-1); g.completed.Add(1) }()
		task()
	}()
	return nil
}

func (g *perRequest) SubmitContext(_ context.Context, task func()) error { return g.TrySubmit(task) }

func (g *perRequest) ReleaseContext(ctx context.Context) error {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	done := make(chan struct{})
	go func() { g.wg.Wait(); close(done) }() // exits when the last task does
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *perRequest) Stats() ants.Stats {
	return ants.Stats{
		Cap:       -1,
		Running:   int(g.running.Load()),
		Submitted: g.submitted.Load(),
		Completed: g.completed.Load(),
	}
}

func (g *perRequest) Tune(int) {}
