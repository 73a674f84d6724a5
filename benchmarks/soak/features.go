package main

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The every-feature variant: the service's requests wait for a worker
// (GET /work/wait, SubmitContext) at one of cfg.Levels priority levels,
// and are shed with a 503 once MaxBlockingTasks callers wait; besides the
// tuner, a third goroutine opens a maintenance window (Pause, then Resume)
// every cfg.PauseEvery, a fourth changes the rate limit every
// cfg.RateEvery, the side pool has a task buffer and a rate limit, and a
// new limit races each of its releases; at the end the service's pool is
// released with ReleaseTimeout, whose nil is checked against the count of
// the tasks it accepted.

// featurePool is what the every-feature variant adds to workPool.
type featurePool interface {
	workPool
	Pause(ctx context.Context) error
	Resume()
	SetRateLimit(perSecond float64, burst int) error
	ReleaseTimeout(timeout time.Duration) error
}

// featureSide is what the every-feature variant adds to sidePool.
type featureSide interface {
	sidePool
	SetRateLimit(perSecond float64, burst int) error
}

// levelOf is the priority level of request id: ids take the levels in
// turn, so each gets the same share of the load.
func levelOf(id uint64, levels int) int { return int(id % uint64(levels)) }

// withLevels serves h with each request's context at the priority level
// of its id, as a service would set it from a header or a route.
func withLevels(h http.Handler, levels int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id, err := strconv.ParseUint(r.URL.Query().Get("id"), 10, 64); err == nil {
			r = r.WithContext(ants.ContextWithPriority(r.Context(), levelOf(id, levels)))
		}
		h.ServeHTTP(w, r)
	})
}

// counted counts the tasks its pool accepted and the ones that finished,
// so that the release at the end can be checked: when it returns nil, the
// two must be equal.
type counted struct {
	featurePool
	accepted, finished atomic.Int64
	// final is the outcome of the release at the end (ReleaseContext).
	final finalRelease
}

// finalRelease is what the release at the end returned and found.
type finalRelease struct {
	Err      string `json:"err,omitempty"`
	Accepted int64  `json:"accepted"`
	Finished int64  `json:"finished"` // when the release returned
	Done     bool   `json:"done"`     // the release was made
}

// ok reports whether the release kept its word: nil, with every accepted
// task finished.
func (f finalRelease) ok() bool { return f.Done && f.Err == "" && f.Accepted == f.Finished }

func (c *counted) SubmitContext(ctx context.Context, task func()) error {
	err := c.featurePool.SubmitContext(ctx, func() {
		defer c.finished.Add(1)
		task()
	})
	if err == nil {
		c.accepted.Add(1)
	}
	return err
}

func (c *counted) TrySubmit(task func()) error {
	err := c.featurePool.TrySubmit(func() {
		defer c.finished.Add(1)
		task()
	})
	if err == nil {
		c.accepted.Add(1)
	}
	return err
}

// ReleaseContext is the service's shutdown of the pool: ReleaseTimeout
// until ctx's deadline. Shutdown has let every handler return first, so
// every submit has returned and accepted is final.
func (c *counted) ReleaseContext(ctx context.Context) error {
	d := time.Minute
	if dl, ok := ctx.Deadline(); ok {
		d = time.Until(dl)
	}
	err := c.featurePool.ReleaseTimeout(d)
	c.final = finalRelease{Accepted: c.accepted.Load(), Finished: c.finished.Load(), Done: true}
	if err != nil {
		c.final.Err = err.Error()
	}
	return err
}

// maintain opens a maintenance window every cfg.PauseEvery: Pause, which
// waits for the running tasks (at most cfg.PauseFor), then cfg.PauseFor
// paused, then Resume. Requests meanwhile wait in the buffer or blocked,
// or are shed. It resumes the pool when ctx ends.
func maintain(ctx context.Context, cfg config, p featurePool, n *atomic.Int64) {
	t := time.NewTicker(cfg.PauseEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, cfg.PauseFor)
		_ = p.Pause(pctx) // a timeout leaves it paused: the window is on
		cancel()
		select {
		case <-ctx.Done():
		case <-time.After(cfg.PauseFor):
		}
		p.Resume()
		n.Add(1)
	}
}

// rateLimits is the rate-limit cycle of a pool that serves capacity
// requests a second at its largest: none, three quarters of it, half of
// it.
func rateLimits(capacity float64) []float64 { return []float64{0, capacity * 3 / 4, capacity / 2} }

// pace changes the rate limit every cfg.RateEvery through rateLimits, with
// a burst of the task buffer. It removes the limit when ctx ends.
func pace(ctx context.Context, cfg config, p featurePool, n *atomic.Int64) {
	limits := rateLimits(cfg.capacity(cfg.PoolSize))
	t := time.NewTicker(cfg.RateEvery)
	defer t.Stop()
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			_ = p.SetRateLimit(0, 0)
			return
		case <-t.C:
			_ = p.SetRateLimit(limits[i%len(limits)], max(1, cfg.Queue))
			n.Add(1)
		}
	}
}

// sideRate is the side pool's rate limit: its tasks take a millisecond,
// so it lets a cycle's tasks through in a few milliseconds, and a new
// limit set during the release still finds some waiting for a token.
func sideRate(size int) float64 { return float64(500 * size) }

// releaseRaced releases the side pool p with ReleaseContext while a new
// rate limit is set, the race that once let a release return before the
// tasks waiting for a token ran, and reports whether it kept its word:
// if it returned nil, every task accepted so far has run.
func releaseRaced(ctx context.Context, p featureSide, size int, i int, accepted, ran *atomic.Int64) bool {
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	done := make(chan bool, 1)
	go func() { // ends when the release does, waited for below
		err := p.ReleaseContext(rctx)
		done <- err != nil || ran.Load() == accepted.Load()
	}()
	limits := []float64{sideRate(size) * 2, sideRate(size) / 2, 0, sideRate(size)}
	_ = p.SetRateLimit(limits[i%len(limits)], 1)
	return <-done
}

// levelMetrics keeps the accepted latencies of each priority level.
type levelMetrics []vegeta.Metrics

// add records an accepted answer of id.
func (m levelMetrics) add(id uint64, r *vegeta.Result) {
	if len(m) > 0 {
		m[levelOf(id, len(m))].Add(r)
	}
}

// summaries returns the latencies of each level.
func (m levelMetrics) summaries() []latencies {
	var out []latencies
	for i := range m {
		out = append(out, summarize(&m[i]))
	}
	return out
}
