// Command httpserver is a small HTTP service whose handlers run their work
// on one shared ants pool: it sheds load with a fast 503 and Retry-After
// when the pool and its buffer are full, serves the pool's metrics for
// Prometheus at /metrics, and on SIGINT or SIGTERM shuts down gracefully:
// in-flight requests finish, then every accepted task, then the pool's
// workers exit. The routes are described in package service.
//
//	go run . -addr 127.0.0.1:8080 -pool 16 -queue 16 -work 20ms
//	curl 'localhost:8080/work?id=1'         # 200 "done 1", or 503 when full
//	curl 'localhost:8080/work/wait?id=2'    # waits for a worker instead
//	curl localhost:8080/metrics | grep ants_pool_
//
// Besides the pool's gauges and counters, /metrics has how long tasks
// waited for a worker and how long they ran, as the histograms
// ants_pool_task_wait_seconds and ants_pool_task_run_seconds; the p99 wait
// over 5 minutes, the figure that says when to grow the pool, is
//
//	histogram_quantile(0.99, sum by (le) (rate(ants_pool_task_wait_seconds_bucket{pool="work"}[5m])))
//
// It is a module of its own, so that neither the ants module nor its
// users depend on client_golang.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/e62cffed/ants"
	"github.com/e62cffed/ants/examples/httpserver/service"
	antsprom "github.com/e62cffed/ants/prometheus"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "httpserver:", err)
		os.Exit(1)
	}
}

// run parses args, serves until ctx is done, and shuts down.
func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("httpserver", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	size := fs.Int("pool", 16, "workers in the pool")
	queue := fs.Int("queue", 16, "task buffer of the pool: requests accepted beyond the busy workers before shedding")
	work := fs.Duration("work", service.DefaultWork, "how long each request's work takes")
	grace := fs.Duration("grace", 10*time.Second, "at shutdown, how long to wait for requests, then for tasks")
	debug := fs.Bool("debug", false, "log at debug level")
	if err := fs.Parse(args); err != nil {
		return err
	}
	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	pool, h, err := build(*size, *queue, *work, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		pool.Release()
		return err
	}
	log.Info("pool", "size", *size, "queue", *queue, "work", *work)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	return service.Serve(ctx, srv, ln, pool, *grace, log)
}

// build makes the service's pool, of size workers and a buffer of queue
// tasks, and its routes, whose requests each run work on the pool. The
// pool reports every task's wait and run time to a TaskObserver, so that
// /metrics has the histograms ants_pool_task_wait_seconds and
// ants_pool_task_run_seconds beside the pool's gauges and counters, and it
// logs a task's panic to log as one structured record. The caller releases
// the pool.
func build(size, queue int, work time.Duration, log *slog.Logger) (*ants.Pool, http.Handler, error) {
	observer := antsprom.NewTaskObserver("work")
	pool, err := ants.NewPool(size, ants.WithQueueSize(queue),
		ants.WithObserver(observer), ants.WithLogger(ants.NewSlogLogger(log)))
	if err != nil {
		return nil, nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		antsprom.NewCollector("work", pool),
		observer,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	h := service.NewHandler(service.Config{
		Pool:    pool,
		Work:    func(ctx context.Context, _ string) { service.Sleep(ctx, work) },
		Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		Logger:  log,
	})
	return pool, h, nil
}
