package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
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
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		pool, h, err := build(2, 2, time.Millisecond, quiet)
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
