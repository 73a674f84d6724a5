// Command httpserver is a small HTTP service whose handlers run their work
// on ants pools: it sheds load with a fast 503 and Retry-After when a pool
// and its buffer are full, or when a request has waited in a buffer as
// long as its pool's overload control allows; serves the pools' metrics
// for Prometheus at /metrics; and on SIGINT or SIGTERM shuts down
// gracefully: in-flight requests finish, then every accepted task, then
// the pools' workers exit. The routes are described in package service.
//
//	go run . -addr 127.0.0.1:8080 -pool 16 -queue 16 -work 20ms
//	curl 'localhost:8080/work?id=1'         # 200 "done 1", or 503 when full
//	curl 'localhost:8080/work/wait?id=2'    # waits for a worker instead
//	curl 'localhost:8080/work/target?id=3'  # waits, or 503 once it waited too long
//	curl localhost:8080/metrics | grep ants_pool_
//
// /work and /work/wait share the pool "work"; /work/target has the pool
// "target" of its own, with a large buffer, a queue target (-target,
// -interval) and a queue timeout (-queue-timeout): under sustained
// overload it drops the requests that waited more than twice the target,
// serving the newest first, and a request never waits longer than the
// timeout.
//
// Besides the pools' gauges and counters, /metrics has how long tasks
// waited for a worker and how long they ran, as the histograms
// ants_pool_task_wait_seconds and ants_pool_task_run_seconds, and the
// tasks dropped, by reason, as ants_pool_task_drops_total; the p99 wait
// over 5 minutes, the figure that says when to grow the pool, is
//
//	histogram_quantile(0.99, sum by (le) (rate(ants_pool_task_wait_seconds_bucket{pool="work"}[5m])))
//
// It is a module of its own, so that neither the ants module nor its
// users depend on client_golang.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
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
	var cfg config
	fs.IntVar(&cfg.size, "pool", 16, "workers in the pool of /work and /work/wait")
	fs.IntVar(&cfg.queue, "queue", 16, "task buffer of that pool: requests accepted beyond the busy workers before shedding")
	fs.IntVar(&cfg.targetSize, "target-pool", 16, "workers in the pool of /work/target")
	fs.IntVar(&cfg.targetQueue, "target-queue", 256, "task buffer of the pool of /work/target, in which its requests wait")
	fs.DurationVar(&cfg.target, "target", 5*time.Millisecond, "queue target of the pool of /work/target: under sustained overload, work that waited more than twice this is dropped, newest first served; 0 for none")
	fs.DurationVar(&cfg.interval, "interval", ants.DefaultQueueTargetInterval, "interval of the queue target: how long waits must stay above target before drops begin")
	fs.DurationVar(&cfg.queueTimeout, "queue-timeout", time.Second, "most time a request of /work/target waits for a worker; 0 for no limit")
	fs.DurationVar(&cfg.work, "work", service.DefaultWork, "how long each request's work takes")
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

	pools, h, err := build(cfg, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		_ = pools.ReleaseContext(context.Background())
		return err
	}
	log.Info("pools", "size", cfg.size, "queue", cfg.queue, "work", cfg.work,
		"target-pool", cfg.targetSize, "target-queue", cfg.targetQueue,
		"target", cfg.target, "interval", cfg.interval, "queue-timeout", cfg.queueTimeout)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	return service.Serve(ctx, srv, ln, pools, *grace, log)
}

// config is what the flags set: the two pools and the work.
type config struct {
	size, queue int // the pool of /work and /work/wait

	// The pool of /work/target, with its overload control.
	targetSize, targetQueue int
	target, interval        time.Duration // ants.WithQueueTarget
	queueTimeout            time.Duration // ants.WithQueueTimeout

	work time.Duration // each request's work
}

// pools are the service's pools, released together at shutdown.
type pools []*ants.Pool

// ReleaseContext releases every pool at once, each waiting for its
// accepted tasks and its workers until ctx is done, and returns their
// errors joined.
func (ps pools) ReleaseContext(ctx context.Context) error {
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.ReleaseContext(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// build makes the service's two pools and its routes, whose requests each
// run cfg.work on a pool. The pool "work" of /work and /work/wait has
// cfg.size workers and a buffer of cfg.queue tasks; the pool "target" of
// /work/target has cfg.targetSize workers, a buffer of cfg.targetQueue
// tasks, and the overload control of cfg.target, cfg.interval and
// cfg.queueTimeout. Each pool reports every task's wait and run time, and
// every task it drops, to a TaskObserver, so that /metrics has the
// histograms ants_pool_task_wait_seconds and ants_pool_task_run_seconds
// and the drops beside each pool's gauges and counters; each logs a task's
// panic to log as one structured record. The caller releases the pools.
func build(cfg config, log *slog.Logger) (pools, http.Handler, error) {
	reg := prometheus.NewRegistry()
	newPool := func(name string, size int, opts ...ants.Option) (*ants.Pool, error) {
		observer := antsprom.NewTaskObserver(name)
		opts = append(opts, ants.WithObserver(observer), ants.WithLogger(ants.NewSlogLogger(log)))
		p, err := ants.NewPool(size, opts...)
		if err != nil {
			return nil, err
		}
		reg.MustRegister(antsprom.NewCollector(name, p), observer)
		return p, nil
	}
	work, err := newPool("work", cfg.size, ants.WithQueueSize(cfg.queue))
	if err != nil {
		return nil, nil, err
	}
	target, err := newPool("target", cfg.targetSize, ants.WithQueueSize(cfg.targetQueue),
		ants.WithQueueTarget(cfg.target, cfg.interval), ants.WithQueueTimeout(cfg.queueTimeout))
	if err != nil {
		work.Release()
		return nil, nil, err
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	h := service.NewHandler(service.Config{
		Pool:    work,
		Target:  target,
		Work:    func(ctx context.Context, _ string) { service.Sleep(ctx, cfg.work) },
		Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		Logger:  log,
	})
	return pools{work, target}, h, nil
}
