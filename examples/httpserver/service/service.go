// Package service is the HTTP service of examples/httpserver: handlers that
// offload their work to one shared pool, shed load with a fast 503 when the
// pool is full, export the pool's metrics, and shut down in the right
// order. Command httpserver wires it to flags; the soak in benchmarks/soak
// drives it under load.
//
// Routes:
//
//	GET /work?id=X         TrySubmit: runs the work on the pool, or answers
//	                       503 with Retry-After at once when every worker
//	                       is busy and the task buffer is full (load shedding)
//	GET /work/wait?id=X    SubmitContext: waits for a worker as long as the
//	                       client waits; a client that goes away first never
//	                       costs a worker
//	GET /work/target?id=X  ants.Go on the Target pool, one with an overload
//	                       control (ants.WithQueueTarget, WithQueueTimeout):
//	                       the request waits in the pool's buffer, and if
//	                       the pool drops its task for waiting too long,
//	                       answers 503 with Retry-After; served only if
//	                       Config.Target is set
//	GET /metrics           the Metrics handler, if one is configured
//
// The work routes answer 200 "done X" once the work has run. The id is
// optional; it is handed to the work function, and tests use it to check
// that every accepted request's work ran exactly once.
//
// /work and /work/target both shed load, at two different moments: /work
// when the request comes and finds every worker busy and the buffer full,
// /work/target after the request has waited in a buffer as long as its
// pool allows (see Config.Target).
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

	// Target, if not nil, is the pool of GET /work/target: one with an
	// overload control, ants.WithQueueTarget or ants.WithQueueTimeout or
	// both, and a task buffer (ants.WithQueueSize) in which requests wait
	// for a worker. Each request's work runs with ants.Go on it, with the
	// request's context. When the pool drops the task before it ran, the
	// future's error is ants.ErrQueueTimeout, and the request is answered
	// 503 with Retry-After, as a full pool's is on /work. A client that
	// goes away while its task waits frees the task's room in the buffer.
	// An *ants.Pool or *ants.MultiPool is a Submitter.
	Target ants.Submitter

	// Metrics, if not nil, is served at /metrics (promhttp.HandlerFor a
	// registry with an antsprom collector, in command httpserver).
	Metrics http.Handler

	// Logger receives one line per failed submission or dropped task
	// other than a shed (ants.ErrPoolOverload, ants.ErrQueueTimeout: those
	// are counted, not logged, since a service shedding thousands of
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
	target     ants.Submitter // nil: no /work/target
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
	h := &handler{pool: cfg.Pool, target: cfg.Target, work: cfg.Work, log: cfg.Logger}
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
	if cfg.Target != nil {
		mux.HandleFunc("GET /work/target", h.targeted)
	}
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

// targeted runs the request's work with ants.Go on the Target pool and
// answers 200 once it has run. If the pool drops the task (it waited past
// the queue target while the pool was overloaded, or past the queue
// timeout), the future ends with ants.ErrQueueTimeout and the request is
// answered 503 with Retry-After; if the pool refuses it at once (closed
// during shutdown), 503 as well. If the client goes away first, there is
// nobody to answer: a task still waiting is dropped with the context's
// error, one already running sees its context done.
func (h *handler) targeted(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("id")
	ctx := r.Context()
	f := ants.Go(ctx, h.target, func() (struct{}, error) {
		h.work(ctx, id)
		return struct{}{}, nil
	})
	select {
	case <-f.Done():
	case <-ctx.Done():
		return // the client has gone away
	}
	if _, err := f.Wait(); err != nil {
		h.refuse(w, r, id, err)
		return
	}
	fmt.Fprintf(w, "done %s\n", id)
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

// refuse answers a failed submission or a dropped task: 503 with
// Retry-After for any refusal or drop of the pool (full, waited too long,
// or closed during shutdown), nothing for a client that has gone away,
// whose context's error is what a task of its own was dropped with.
func (h *handler) refuse(w http.ResponseWriter, r *http.Request, id string, err error) {
	if r.Context().Err() != nil {
		return // the client has gone away: nobody to answer
	}
	if !shed(err) {
		h.log.Warn("submit failed", "path", r.URL.Path, "id", id, "err", err)
	}
	w.Header().Set("Retry-After", h.retryAfter)
	http.Error(w, "busy, retry later", http.StatusServiceUnavailable)
}

// shed reports whether err is the pool shedding load: every worker busy
// and the buffer full (ants.ErrPoolOverload), or a task that waited as
// long as the pool allows (ants.ErrQueueTimeout). Those are counted in the
// pool's Stats (Rejected, Dropped), not logged: a service shedding
// thousands of requests a second must not log each.
func shed(err error) bool {
	return errors.Is(err, ants.ErrPoolOverload) || errors.Is(err, ants.ErrQueueTimeout)
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
