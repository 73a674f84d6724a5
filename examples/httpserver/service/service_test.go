package service_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/e62cffed/ants"
	"github.com/e62cffed/ants/examples/httpserver/service"
	antsprom "github.com/e62cffed/ants/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// gatedWork is a Work that records every id it runs and holds each run
// until the gate opens.
type gatedWork struct {
	gate    chan struct{} // closed by open
	started chan string   // each run's id, as it starts
	once    sync.Once
	mu      sync.Mutex
	runs    map[string]int // guarded by mu
}

func newGatedWork(t *testing.T) *gatedWork {
	g := &gatedWork{gate: make(chan struct{}), started: make(chan string, 64), runs: map[string]int{}}
	t.Cleanup(g.open)
	return g
}

func (g *gatedWork) work(ctx context.Context, id string) {
	g.mu.Lock()
	g.runs[id]++
	g.mu.Unlock()
	g.started <- id
	<-g.gate
}

func (g *gatedWork) open() { g.once.Do(func() { close(g.gate) }) }

func (g *gatedWork) ran(id string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.runs[id]
}

// newPool returns a pool released, and waited for, when the test ends.
func newPool(t *testing.T, size, queue int, opts ...ants.Option) *ants.Pool {
	t.Helper()
	p, err := ants.NewPool(size, append([]ants.Option{ants.WithQueueSize(queue)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.ReleaseContext(ctx); err != nil && !errors.Is(err, ants.ErrPoolClosed) {
			t.Errorf("ReleaseContext: %v", err)
		}
	})
	return p
}

// quiet is a logger that drops everything, for handlers under test.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newServer serves cfg's handler on a loopback httptest server closed when
// the test ends.
func newServer(t *testing.T, cfg service.Config) *httptest.Server {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	srv := httptest.NewServer(service.NewHandler(cfg))
	t.Cleanup(srv.Close)
	return srv
}

// result is one response, read whole.
type result struct {
	code       int
	body       string
	retryAfter string
	err        error
}

// get requests url with ctx and reads the whole answer.
func get(ctx context.Context, url string) result {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return result{err: err}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{code: resp.StatusCode, body: string(b), retryAfter: resp.Header.Get("Retry-After"), err: err}
}

// goGet runs get in a goroutine; the channel gets its result.
func goGet(ctx context.Context, url string) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- get(ctx, url) }()
	return ch
}

// waitUntil yields until cond holds, failing the test after 10 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		runtime.Gosched()
	}
}

func wantDone(t *testing.T, r result, id string) {
	t.Helper()
	if r.err != nil || r.code != http.StatusOK || r.body != "done "+id+"\n" {
		t.Fatalf("request %s: %d %q (err %v); want 200 %q", id, r.code, r.body, r.err, "done "+id+"\n")
	}
}

func TestHandler(t *testing.T) {
	bg := context.Background()

	t.Run("an accepted request runs its work once and answers 200", func(t *testing.T) {
		for _, route := range []string{"/work", "/work/wait"} {
			w := newGatedWork(t)
			w.open()
			p := newPool(t, 2, 2)
			srv := newServer(t, service.Config{Pool: p, Work: w.work})
			wantDone(t, get(bg, srv.URL+route+"?id=a"), "a")
			if n := w.ran("a"); n != 1 {
				t.Fatalf("%s: the work ran %d times; want 1", route, n)
			}
		}
	})

	t.Run("a full pool answers 503 with Retry-After at once and never runs the work", func(t *testing.T) {
		for _, tc := range []struct {
			retryAfter time.Duration
			want       string
		}{{0, "1"}, {300 * time.Millisecond, "1"}, {1500 * time.Millisecond, "2"}, {5 * time.Second, "5"}} {
			w := newGatedWork(t)
			p := newPool(t, 1, 1)
			srv := newServer(t, service.Config{Pool: p, Work: w.work, RetryAfter: tc.retryAfter})
			busy := goGet(bg, srv.URL+"/work?id=busy")
			<-w.started
			queued := goGet(bg, srv.URL+"/work?id=queued")
			waitUntil(t, "a buffered task", func() bool { return p.Stats().Queued == 1 })

			shed := get(bg, srv.URL+"/work?id=shed")
			if shed.code != http.StatusServiceUnavailable || shed.retryAfter != tc.want {
				t.Fatalf("RetryAfter %v: got %d Retry-After %q (err %v); want 503 Retry-After %q",
					tc.retryAfter, shed.code, shed.retryAfter, shed.err, tc.want)
			}
			w.open()
			wantDone(t, <-busy, "busy")
			wantDone(t, <-queued, "queued")
			if n := w.ran("shed"); n != 0 {
				t.Fatalf("the shed request's work ran %d times", n)
			}
			if s := p.Stats(); s.Submitted != 2 || s.Rejected != 1 {
				t.Fatalf("Stats %+v; want 2 submitted, 1 rejected", s)
			}
		}
	})

	t.Run("a client that goes away while waiting never costs a worker", func(t *testing.T) {
		w := newGatedWork(t)
		p := newPool(t, 1, 0)
		srv := newServer(t, service.Config{Pool: p, Work: w.work})
		busy := goGet(bg, srv.URL+"/work?id=busy")
		<-w.started

		ctx, cancel := context.WithCancel(bg)
		gone := goGet(ctx, srv.URL+"/work/wait?id=gone")
		waitUntil(t, "a waiting caller", func() bool { return p.Waiting() == 1 })
		cancel()
		if r := <-gone; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("the client that went away got %d %q, err %v", r.code, r.body, r.err)
		}
		waitUntil(t, "the waiting caller gone", func() bool { return p.Waiting() == 0 })
		w.open()
		wantDone(t, <-busy, "busy")
		if n := w.ran("gone"); n != 0 {
			t.Fatalf("the work of the client that went away ran %d times", n)
		}
		if s := p.Stats(); s.Submitted != 1 || s.Rejected != 1 {
			t.Fatalf("Stats %+v; want 1 submitted, 1 rejected", s)
		}
	})

	t.Run("/work/target answers 503 with Retry-After for a task its pool dropped, and never runs it", func(t *testing.T) {
		const timeout = 50 * time.Millisecond
		w := newGatedWork(t)
		p := newPool(t, 1, 2, ants.WithQueueTimeout(timeout))
		srv := newServer(t, service.Config{Pool: newPool(t, 1, 0), Target: p, Work: w.work, RetryAfter: 2 * time.Second})
		t.Cleanup(w.open) // before the server's Close, which waits for the held request
		busy := goGet(bg, srv.URL+"/work/target?id=busy")
		<-w.started
		late := goGet(bg, srv.URL+"/work/target?id=late")
		waitUntil(t, "a buffered task", func() bool { return p.Stats().Queued == 1 })
		buffered := time.Now()
		// The buffered task is dropped when the worker frees, if it has
		// waited longer than the timeout by then. This waits for the
		// clock, not for another goroutine.
		for time.Since(buffered) <= timeout {
			runtime.Gosched()
		}
		w.open()
		wantDone(t, <-busy, "busy")
		if r := <-late; r.err != nil || r.code != http.StatusServiceUnavailable || r.retryAfter != "2" {
			t.Fatalf("the dropped request got %d Retry-After %q (err %v); want 503 Retry-After 2", r.code, r.retryAfter, r.err)
		}
		if n := w.ran("late"); n != 0 {
			t.Fatalf("the dropped request's work ran %d times", n)
		}
		if s := p.Stats(); s.Submitted != 2 || s.Completed != 1 || s.Dropped != 1 {
			t.Fatalf("Stats %+v; want 2 submitted, 1 completed, 1 dropped", s)
		}
	})

	t.Run("/work/target: a client that goes away while its task waits frees the buffer at once", func(t *testing.T) {
		w := newGatedWork(t)
		p := newPool(t, 1, 1, ants.WithQueueTimeout(time.Hour))
		srv := newServer(t, service.Config{Pool: newPool(t, 1, 0), Target: p, Work: w.work})
		t.Cleanup(w.open) // before the server's Close, which waits for the held request
		busy := goGet(bg, srv.URL+"/work/target?id=busy")
		<-w.started
		ctx, cancel := context.WithCancel(bg)
		gone := goGet(ctx, srv.URL+"/work/target?id=gone")
		waitUntil(t, "a buffered task", func() bool { return p.Stats().Queued == 1 })
		cancel()
		if r := <-gone; !errors.Is(r.err, context.Canceled) {
			t.Fatalf("the client that went away got %d %q, err %v", r.code, r.body, r.err)
		}
		waitUntil(t, "the task of the client that went away dropped", func() bool { return p.Stats().Dropped == 1 })
		if s := p.Stats(); s.Queued != 0 {
			t.Fatalf("Stats %+v; want the buffer empty", s)
		}
		w.open()
		wantDone(t, <-busy, "busy")
		if n := w.ran("gone"); n != 0 {
			t.Fatalf("the work of the client that went away ran %d times", n)
		}
	})

	t.Run("/work/target is served only with a Target pool", func(t *testing.T) {
		srv := newServer(t, service.Config{Pool: newPool(t, 1, 0)})
		if r := get(bg, srv.URL+"/work/target"); r.code != http.StatusNotFound {
			t.Fatalf("GET /work/target without Target: %d; want 404", r.code)
		}
	})

	t.Run("metrics are served at /metrics", func(t *testing.T) {
		p := newPool(t, 3, 0)
		reg := prometheus.NewRegistry()
		reg.MustRegister(antsprom.NewCollector("work", p))
		srv := newServer(t, service.Config{Pool: p, Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})})
		r := get(bg, srv.URL+"/metrics")
		if r.code != http.StatusOK || !strings.Contains(r.body, `ants_pool_capacity_workers{pool="work"} 3`) {
			t.Fatalf("GET /metrics: %d (err %v):\n%s", r.code, r.err, r.body)
		}
		if r := get(bg, newServer(t, service.Config{Pool: p}).URL+"/metrics"); r.code != http.StatusNotFound {
			t.Fatalf("GET /metrics without Metrics: %d; want 404", r.code)
		}
	})

	t.Run("the default work sleeps", func(t *testing.T) {
		p := newPool(t, 1, 0)
		srv := newServer(t, service.Config{Pool: p})
		start := time.Now()
		wantDone(t, get(bg, srv.URL+"/work?id=x"), "x")
		if d := time.Since(start); d < service.DefaultWork {
			t.Fatalf("answered after %v; the work sleeps %v", d, service.DefaultWork)
		}
	})

	t.Run("a nil pool panics at construction", func(t *testing.T) {
		defer func() {
			if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "service: ") {
				t.Fatalf("recovered %v; want a panic with the service prefix", r)
			}
		}()
		service.NewHandler(service.Config{})
	})
}

func TestSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	done := make(chan struct{})
	go func() { service.Sleep(ctx, time.Hour); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Sleep did not return when its context was done")
	}
}

func TestServe(t *testing.T) {
	t.Run("shutdown lets requests in flight finish, then every accepted task, then the workers", func(t *testing.T) {
		w := newGatedWork(t)
		p := newPool(t, 1, 2)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + ln.Addr().String()
		srv := &http.Server{Handler: service.NewHandler(service.Config{Pool: p, Work: w.work, Logger: quiet})}
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		served := make(chan error, 1)
		go func() { served <- service.Serve(ctx, srv, ln, p, 10*time.Second, quiet) }()

		busy := goGet(context.Background(), url+"/work?id=busy")
		<-w.started
		queued := goGet(context.Background(), url+"/work?id=queued")
		// A client that leaves after its task was accepted into the buffer:
		// the task still runs before Serve returns.
		leaveCtx, leave := context.WithCancel(context.Background())
		left := goGet(leaveCtx, url+"/work?id=left")
		waitUntil(t, "two buffered tasks", func() bool { return p.Stats().Queued == 2 })
		leave()
		<-left

		stop()
		select {
		case err := <-served:
			t.Fatalf("Serve returned %v while requests were in flight", err)
		case <-time.After(50 * time.Millisecond):
		}
		w.open()
		wantDone(t, <-busy, "busy")
		wantDone(t, <-queued, "queued")
		if err := <-served; err != nil {
			t.Fatalf("Serve: %v", err)
		}
		if n := w.ran("left"); n != 1 {
			t.Fatalf("the accepted task of the client that left ran %d times before Serve returned; want 1", n)
		}
		if !p.IsClosed() || p.Running() != 0 {
			t.Fatalf("after Serve: closed %v, running %d; want closed with no worker", p.IsClosed(), p.Running())
		}
		if r := get(context.Background(), url+"/work?id=late"); r.err == nil {
			t.Fatalf("a request after shutdown got %d; want a connection error", r.code)
		}
	})

	t.Run("a listener that fails still releases the pool", func(t *testing.T) {
		p := newPool(t, 1, 0)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
		err = service.Serve(context.Background(), &http.Server{Handler: http.NotFoundHandler()}, ln, p, time.Second, quiet)
		if err == nil || !p.IsClosed() {
			t.Fatalf("Serve on a closed listener: %v, pool closed %v; want an error and a closed pool", err, p.IsClosed())
		}
	})
}
