package ants_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/e62cffed/ants"
)

// slogSink is an io.Writer that hands each write, one record of a slog
// handler or one line of a log.Logger, to the test through a channel, so
// that the test reads what a worker goroutine wrote without a data race.
type slogSink chan []byte

func (s slogSink) Write(p []byte) (int, error) {
	s <- bytes.Clone(p)
	return len(p), nil
}

// next returns the next write, failing the test if none comes within 10 s.
func (s slogSink) next(t *testing.T) []byte {
	t.Helper()
	select {
	case b := <-s:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for a log record")
		return nil
	}
}

// none fails the test if anything was written and not read.
func (s slogSink) none(t *testing.T) {
	t.Helper()
	select {
	case b := <-s:
		t.Fatalf("unexpected log output: %s", b)
	default:
	}
}

// slogRecord decodes one JSON record.
func slogRecord(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("not one JSON record: %v\n%s", err, b)
	}
	return r
}

// newJSONSlog returns a slog.Logger writing JSON records, with their
// source, to a new sink.
func newJSONSlog(level slog.Level) (*slog.Logger, slogSink) {
	sink := make(slogSink, 16)
	h := slog.NewJSONHandler(sink, &slog.HandlerOptions{Level: level, AddSource: true})
	return slog.New(h), sink
}

// panicInSlogTest is the panicking function whose name the stack must show.
//
//go:noinline
func panicInSlogTest() {
	panic("slog test boom")
}

// runPanickingTask runs one task that panics on a pool logging to logger,
// and releases the pool, which waits for the worker, so that whatever the
// panic logged has been written when it returns.
func runPanickingTask(t *testing.T, logger ants.Logger) {
	t.Helper()
	p, err := ants.NewPool(1, ants.WithLogger(logger))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Submit(panicInSlogTest); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.ReleaseContext(ctx); err != nil {
		t.Fatalf("ReleaseContext: %v", err)
	}
}

func TestSlogLogger(t *testing.T) {
	t.Run("a task's panic is one Error record with the value and the stack", func(t *testing.T) {
		l, sink := newJSONSlog(slog.LevelInfo)
		runPanickingTask(t, ants.NewSlogLogger(l))
		r := slogRecord(t, sink.next(t))
		sink.none(t)
		if r["level"] != "ERROR" || r["msg"] != "worker exits from panic" {
			t.Fatalf("record %v; want level ERROR, msg %q", r, "worker exits from panic")
		}
		if r["panic"] != "slog test boom" {
			t.Fatalf("panic attribute %#v; want %q", r["panic"], "slog test boom")
		}
		stack, _ := r["stack"].(string)
		if !strings.Contains(stack, "ants_test.panicInSlogTest") {
			t.Fatalf("stack attribute does not show the panicking function:\n%s", stack)
		}
		src, _ := r["source"].(map[string]any)
		if file, _ := src["file"].(string); file == "" || strings.HasSuffix(file, "/slog.go") {
			t.Fatalf("source %v; want the pool code that logged, not the adapter", r["source"])
		}
	})

	t.Run("an ordinary message keeps its text, at level Info", func(t *testing.T) {
		l, sink := newJSONSlog(slog.LevelInfo)
		ants.NewSlogLogger(l).Printf("pool %s resized to %d\n", "work", 4)
		r := slogRecord(t, sink.next(t))
		if r["level"] != "INFO" || r["msg"] != "pool work resized to 4" {
			t.Fatalf("record %v; want level INFO, msg %q", r, "pool work resized to 4")
		}
		src, _ := r["source"].(map[string]any)
		if file, _ := src["file"].(string); !strings.HasSuffix(file, "/slog_test.go") {
			t.Fatalf("source %v; want the caller of Printf", r["source"])
		}
	})

	t.Run("records below the handler's level are dropped", func(t *testing.T) {
		l, sink := newJSONSlog(slog.LevelError + 1)
		logger := ants.NewSlogLogger(l)
		logger.Printf("dropped")
		runPanickingTask(t, logger)
		sink.none(t)
	})

	t.Run("a nil slog.Logger means slog.Default", func(t *testing.T) {
		l, sink := newJSONSlog(slog.LevelInfo)
		old := slog.Default()
		slog.SetDefault(l)
		t.Cleanup(func() { slog.SetDefault(old) })
		ants.NewSlogLogger(nil).Printf("to the default")
		if r := slogRecord(t, sink.next(t)); r["msg"] != "to the default" {
			t.Fatalf("record %v; want msg %q", r, "to the default")
		}
	})

	t.Run("another Logger still gets the panic through Printf", func(t *testing.T) {
		sink := make(slogSink, 16)
		runPanickingTask(t, log.New(sink, "", 0))
		out := string(sink.next(t))
		sink.none(t)
		if !strings.HasPrefix(out, "worker exits from panic: slog test boom\n") ||
			!strings.Contains(out, "ants_test.panicInSlogTest") {
			t.Fatalf("log output:\n%s", out)
		}
	})
}
