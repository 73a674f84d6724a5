package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestRun(t *testing.T) {
	t.Run("a bad flag is an error", func(t *testing.T) {
		if err := run(context.Background(), []string{"-pool", "many"}); err == nil {
			t.Fatal("run accepted -pool many")
		}
	})
	t.Run("it serves until its context is done and stops cleanly", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := run(ctx, []string{"-addr", "127.0.0.1:0", "-pool", "2"}); err != nil {
			t.Fatalf("run: %v", err)
		}
	})
	t.Run("an address it cannot listen on is an error", func(t *testing.T) {
		if err := run(context.Background(), []string{"-addr", "256.0.0.1:1"}); err == nil {
			t.Fatal("run listened on 256.0.0.1")
		}
	})
}

func TestBuild(t *testing.T) {
	t.Run("after a request /metrics shows its wait and run in the task histograms", func(t *testing.T) {
		pool, h, err := build(config{size: 2, queue: 2, targetSize: 1, targetQueue: 1, work: time.Millisecond}, quiet)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		defer srv.Close()
		if body, code := get(t, srv.URL+"/work?id=1"); code != http.StatusOK || body != "done 1\n" {
			t.Fatalf("GET /work: %d %q; want 200 %q", code, body, "done 1\n")
		}
		// The answer is sent from inside the task; the task is observed
		// once it returns. Releasing the pool waits for its worker, and so
		// for the observation.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := pool.ReleaseContext(ctx); err != nil {
			t.Fatal(err)
		}
		metrics, code := get(t, srv.URL+"/metrics")
		if code != http.StatusOK {
			t.Fatalf("GET /metrics: %d", code)
		}
		for _, want := range []string{
			"# TYPE ants_pool_task_wait_seconds histogram",
			"# TYPE ants_pool_task_run_seconds histogram",
			`ants_pool_task_wait_seconds_count{pool="work"} 1`,
			`ants_pool_task_run_seconds_count{pool="work"} 1`,
			`ants_pool_completed_tasks_total{pool="work"} 1`,
			`ants_pool_dropped_tasks_total{pool="work"} 0`,
			`ants_pool_task_drops_total{pool="work",reason="timeout"} 0`,
			`ants_pool_completed_tasks_total{pool="target"} 0`,
		} {
			if !strings.Contains(metrics, want) {
				t.Errorf("/metrics lacks %q", want)
			}
		}
		if t.Failed() {
			t.Logf("/metrics:\n%s", metrics)
		}
	})
}

// TestTargetRoute floods /work/target, whose pool has a queue target and a
// queue timeout, with more requests at once than its workers can serve
// before the timeout: the pool drops some of the waiting requests' tasks,
// and those are answered 503 with Retry-After, the others 200. Every
// request gets one of the two; the pool's counts and /metrics agree with
// the answers.
func TestTargetRoute(t *testing.T) {
	const requests = 200
	const work = 10 * time.Millisecond // 2 workers: 200 requests take 1 s served one by one
	pools, h, err := build(config{
		size: 1, queue: 1,
		targetSize: 2, targetQueue: 32,
		target: time.Millisecond, interval: 10 * time.Millisecond,
		queueTimeout: 200 * time.Millisecond,
		work:         work,
	}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	type answer struct {
		code             int
		body, retryAfter string
		err              error
	}
	answers := make([]answer, requests)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/work/target?id=%d", srv.URL, i), nil)
			if err != nil {
				answers[i].err = err
				return
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				answers[i].err = err
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			answers[i] = answer{resp.StatusCode, string(b), resp.Header.Get("Retry-After"), err}
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	took := time.Since(began)

	var served, shed int
	for i, a := range answers {
		switch {
		case a.err != nil:
			t.Fatalf("request %d: %v", i, a.err)
		case a.code == http.StatusOK:
			if want := fmt.Sprintf("done %d\n", i); a.body != want {
				t.Fatalf("request %d: 200 %q; want %q", i, a.body, want)
			}
			served++
		case a.code == http.StatusServiceUnavailable:
			if a.retryAfter != "1" {
				t.Fatalf("request %d: 503 with Retry-After %q; want 1", i, a.retryAfter)
			}
			shed++
		default:
			t.Fatalf("request %d: %d %q; want 200 or 503", i, a.code, a.body)
		}
	}
	t.Logf("%d requests in %v: %d served, %d answered 503", requests, took, served, shed)
	if served == 0 || shed == 0 {
		t.Fatalf("%d served and %d answered 503; want some of each", served, shed)
	}

	// Every answer is in, so every task has run or been dropped; releasing
	// the pools waits for their workers, and so for the reports of drops.
	rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer rcancel()
	if err := pools.ReleaseContext(rctx); err != nil {
		t.Fatal(err)
	}
	// A 503 is a task the pool accepted and dropped, or a caller it let
	// wait for room in the buffer and then refused, with ErrQueueTimeout
	// either way: no client went away.
	s := pools[1].Stats()
	if s.Completed != uint64(served) || s.Dropped+s.Rejected != uint64(shed) || s.Submitted != s.Completed+s.Dropped {
		t.Fatalf("the target pool's Stats %+v; want %d completed, %d dropped or rejected, and every submitted task completed or dropped",
			s, served, shed)
	}
	metrics, code := get(t, srv.URL+"/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics: %d", code)
	}
	for _, want := range []string{
		fmt.Sprintf(`ants_pool_completed_tasks_total{pool="target"} %d`, s.Completed),
		fmt.Sprintf(`ants_pool_dropped_tasks_total{pool="target"} %d`, s.Dropped),
		fmt.Sprintf(`ants_pool_task_drops_total{pool="target",reason="timeout"} %d`, s.Dropped),
		fmt.Sprintf(`ants_pool_task_drop_wait_seconds_count{pool="target"} %d`, s.Dropped),
		`ants_pool_task_drops_total{pool="target",reason="canceled"} 0`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// quiet is a logger that drops everything.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// get fetches url and returns its body and status code.
func get(t *testing.T, url string) (string, int) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), resp.StatusCode
}
