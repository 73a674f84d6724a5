// Package service is the HTTP service of examples/httpserver: handlers that
// offload their work to one shared pool, shed load with a fast 503 when the
// pool is full, export the pool's metrics, and shut down in the right
// order. Command httpserver wires it to flags; the soak in benchmarks/soak
// drives it under load.
//
// Routes:
//
//	GET /work?id=X       TrySubmit: runs the work on the pool, or answers 503
//	                     with Retry-After at once when every worker is busy
//	                     and the task buffer is full (load shedding)
//	GET /work/wait?id=X  SubmitContext: waits for a worker as long as the
//	                     client waits; a client that goes away first never
//	                     costs a worker
//	GET /metrics         the Metrics handler, if one is configured
//
// Both work routes answer 200 "done X" once the work has run. The id is
// optional; it is handed to the work function, and tests use it to check
// that every accepted request's work ran exactly once.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/e62cffed/ants"
)

// Pool is what the handlers need of a pool; *ants.Pool has both methods.
// TrySubmit must return at once, with ants.ErrPoolOverload when no worker
// and no buffer slot is free; SubmitContext must give up with ctx.Err()
// when ctx is done first. Either returns nil only if task will run exactly
// once.
type Pool interface {
	TrySubmit(task func()) error
	SubmitContext(ctx context.Context, task func()) error
}

// Releaser is what Serve needs of a pool at shutdown; *ants.Pool has it.
type Releaser interface {
	ReleaseContext(ctx context.Context) error
}

// Work is the work of one request, run on a pool worker. ctx is the
// request's context: it is done once the client has gone away, and
// well-behaved work then stops early. id is the request's id parameter.
type Work func(ctx context.Context, id string)

// Config configures NewHandler. Only Pool is required.
type Config struct {
	Pool Pool

	// Work is what each request runs on the pool; nil means Sleep for
	// DefaultWork.
	Work Work

	// RetryAfter is the delay a 503 asks the client to wait before trying
	// again, sent in whole seconds (rounded up, at least 1); 0 means 1 s.
	RetryAfter time.Duration

	// Metrics, if not nil, is served at /metrics (promhttp.HandlerFor a
	// registry with an antsprom collector, in command httpserver).
	Metrics http.Handler

	// Logger receives one line per failed submission other than a shed
	// (those are counted, not logged: a service shedding thousands of
	// requests a second must not log each). Nil means slog.Default().
	Logger *slog.Logger
}

// DefaultWork is how long the default Work sleeps: a stand-in for a call
// to a database or another service.
const DefaultWork = 20 * time.Millisecond

// Sleep is the default Work: it waits d, or until ctx is done.
func Sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// handler serves the routes; its fields are set by NewHandler and only read
// afterwards, so it is safe for concurrent requests.
type handler struct {
	pool       Pool
	work       Work
	retryAfter string // the Retry-After header's value, in seconds
	log        *slog.Logger
}

// NewHandler returns the service's routes (see the package doc). It panics
// with the prefix "service:" if cfg.Pool is nil.
func NewHandler(cfg Config) http.Handler {
	if cfg.Pool == nil {
		panic("service: NewHandler with a nil Pool")
	}
	h := &handler{pool: cfg.Pool, work: cfg.Work, log: cfg.Logger}
	if h.work == nil {
		h.work = func(ctx context.Context, _ string) { Sleep(ctx, DefaultWork) }
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	secs := math.Ceil(cfg.RetryAfter.Seconds())
	h.retryAfter = strconv.Itoa(max(1, int(min(secs, math.MaxInt32))))

	mux := http.NewServeMux()
	mux.HandleFunc("GET /work", h.shed)
	mux.HandleFunc("GET /work/wait", h.wait)
	if cfg.Metrics != nil {
		mux.Handle("GET /metrics", cfg.Metrics)
	}
	return mux
}

// shed runs the request's work if a worker or a buffer slot is free right
// now, and answers 503 with Retry-After at once otherwise. The task is
// accepted before the handler waits for it, so it runs even if the client
// goes away in the meantime; the work then sees its context done.
func (h *handler) shed(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, func(_ context.Context, task func()) error { return h.pool.TrySubmit(task) })
}

// wait runs the request's work, waiting for a worker for as long as the
// client waits: if the client goes away first, SubmitContext returns and
// the work never runs.
func (h *handler) wait(w http.ResponseWriter, r *http.Request) {
	h.serve(w, r, h.pool.SubmitContext)
}

// serve submits the request's work with submit, then waits for it and
// answers 200, or returns without an answer if the client has gone away.
func (h *handler) serve(w http.ResponseWriter, r *http.Request, submit func(context.Context, func()) error) {
	id := r.URL.Query().Get("id")
	ctx := r.Context()
	done := make(chan struct{})
	err := submit(ctx, func() {
		defer close(done)
		h.work(ctx, id)
	})
	if err != nil {
		h.refuse(w, r, id, err)
		return
	}
	select {
	case <-done:
		fmt.Fprintf(w, "done %s\n", id)
	case <-ctx.Done():
	}
}

// refuse answers a failed submission: 503 with Retry-After for any
// refusal of the pool (full, or closed during shutdown), nothing for a
// client that has gone away.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, id string, err error) {
	if r.Context().Err() != nil {
		return // the client has gone away: nobody to answer
	}
	if !errors.Is(err, ants.ErrPoolOverload) {
		h.log.Warn("submit failed", "path", r.URL.Path, "id", id, "err", err)
	}
	w.Header().Set("Retry-After", h.retryAfter)
	http.Error(w, "busy, retry later", http.StatusServiceUnavailable)
}

// Serve serves srv's handler on ln until ctx is done, then shuts down in
// the order net/http's Server.Shutdown documents for a service: stop
// accepting, let in-flight requests finish (Shutdown), and only then
// release what they used, the pool, with ReleaseContext, which waits for
// every accepted task, including ones whose client went away, to finish
// and their workers to exit. grace bounds each of the two waits. It
// returns the first error: from serving, shutting down, or releasing.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, pool Releaser, grace time.Duration, log *slog.Logger) error {
	if log == nil {
		log = slog.Default()
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }() // exits when Shutdown closes ln; Serve waits for it below
	log.Info("serving", "addr", ln.Addr().String())

	var err error
	select {
	case err = <-served:
		// The listener failed before any shutdown.
	case <-ctx.Done():
		log.Info("shutting down: no new connections, waiting for requests in flight")
		sctx, cancel := context.WithTimeout(context.Background(), grace)
		err = srv.Shutdown(sctx)
		cancel()
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
	}
	log.Info("releasing the pool: waiting for accepted tasks")
	rctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if rerr := pool.ReleaseContext(rctx); rerr != nil && err == nil {
		err = fmt.Errorf("release pool: %w", rerr)
	}
	if err != nil {
		log.Error("stopped", "err", err)
		return err
	}
	log.Info("stopped cleanly")
	return nil
}
