package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// demoWorker is one worker of the demo with what it needs to stop.
type demoWorker struct {
	w      *Worker
	nc     *nats.Conn
	closed <-chan struct{}
	err    error
}

// runDemo runs a producer and several workers on one queue in this process,
// each worker with its own connection and pool as if it were its own
// process, and prints a progress line each second until every job is
// acknowledged. Without -url it starts an embedded server first.
func runDemo(args []string) int {
	var c common
	var wl Workload
	var cfg WorkerConfig
	fs := flag.NewFlagSet("demo", flag.ExitOnError)
	c.register(fs)
	registerWorkload(fs, &wl, 20_000)
	workerFlags(fs, &cfg, 8)
	workers := fs.Int("workers", 3, "number of workers")
	_ = fs.Parse(args)
	cfg.NakDelay = min(cfg.NakDelay, 100*time.Millisecond) // so the retries show within the demo
	cfg.Quiet = true                                       // the progress line counts failures instead

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if c.url == "" {
		srv, err := StartEmbedded("", 0)
		if err != nil {
			log.Print(err)
			return 1
		}
		defer srv.Shutdown()
		c.url, c.creds = srv.URL(), "" // the embedded server has no accounts
		fmt.Printf("embedded NATS server with JetStream at %s (store in a temporary directory)\n", c.url)
	}
	nc, js, closed, err := connect(c.url, "demo", c.options()...)
	if err != nil {
		log.Print(err)
		return 1
	}
	defer drain(nc, closed)
	cons, err := c.q.Setup(ctx, js)
	if err == nil {
		err = c.q.Purge(ctx, js) // this demo's own streams: start from zero
	}
	if err != nil {
		log.Print(err)
		return 1
	}

	workCtx, stopWork := context.WithCancel(ctx)
	defer stopWork()
	var wg sync.WaitGroup
	ws := make([]*demoWorker, *workers)
	for i := range ws {
		wc := cfg
		wc.ID = fmt.Sprintf("w%d", i+1)
		d := &demoWorker{}
		var wjs jetstream.JetStream
		var wcons jetstream.Consumer
		if d.nc, wjs, d.closed, err = connect(c.url, wc.ID, c.options()...); err == nil {
			if wcons, err = wjs.Consumer(ctx, c.q.JobsStream(), c.q.Consumer()); err == nil {
				d.w, err = NewWorker(wc, c.q, wjs, wcons)
			}
		}
		if err != nil {
			log.Print(err)
			return 1
		}
		ws[i] = d
		wg.Add(1)
		go func() { // ends when workCtx is done and the worker has drained
			defer wg.Done()
			d.err = d.w.Run(workCtx)
			drain(d.nc, d.closed)
		}()
	}
	fmt.Printf("%d workers, each an ants pool of %d with a buffer of %d; producer publishing %d jobs of ~%v, 1 in %d failing once\n",
		*workers, cfg.Capacity, cfg.Buffer, wl.Jobs, wl.Work, wl.FailEvery)

	start := time.Now()
	produced := make(chan error, 1)
	go func() { produced <- produce(ctx, js, c.q, wl) }() // ends when the server confirmed every job
	published := false
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for finished := false; !finished; {
		select {
		case err := <-produced:
			if err != nil {
				log.Printf("producer: %v", err)
				return 1
			}
			published = true
			fmt.Printf("%5.1fs  producer: all %d jobs stored\n", time.Since(start).Seconds(), wl.Jobs)
		case <-tick.C:
			var line string
			line, finished = progress(ctx, js, cons, c.q, wl.Jobs, ws, start)
			finished = finished && published
			fmt.Println(line)
		case <-ctx.Done():
			fmt.Println("interrupted: stopping the workers")
			finished = true
		}
	}
	elapsed := time.Since(start)
	stopWork()
	wg.Wait()
	for _, d := range ws {
		if d.err != nil {
			log.Print(d.err)
		}
	}
	return summarize(js, c.q, wl, ws, elapsed)
}

// progress returns the progress line and whether every job is acknowledged.
// The counts come from JetStream (results recorded, jobs queued, jobs
// delivered and unacknowledged), the per-worker ones from the workers.
func progress(ctx context.Context, js jetstream.JetStream, cons jetstream.Consumer, q Queue, jobs int, ws []*demoWorker, start time.Time) (string, bool) {
	stream, err := js.Stream(ctx, q.ResultsStream())
	if err != nil {
		return fmt.Sprintf("results stream: %v", err), false
	}
	ci, err := cons.Info(ctx)
	if err != nil {
		return fmt.Sprintf("consumer: %v", err), false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%5.1fs  done %6d/%d  queued %6d  in flight %3d  |",
		time.Since(start).Seconds(), stream.CachedInfo().State.Msgs, jobs, ci.NumPending, ci.NumAckPending)
	for _, d := range ws {
		fmt.Fprintf(&b, "  %s %5d (%d running, %d failed)", d.w.cfg.ID, d.w.done.Load(), d.w.running.Load(), d.w.failed.Load())
	}
	return b.String(), ci.NumPending == 0 && ci.NumAckPending == 0
}

// summarize reads the results back from JetStream and prints what happened.
func summarize(js jetstream.JetStream, q Queue, wl Workload, ws []*demoWorker, elapsed time.Duration) int {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	results, err := q.ReadResults(ctx, js)
	if err != nil {
		log.Print(err)
		return 1
	}
	seen := make(map[int]bool, len(results))
	retried := 0
	for _, r := range results {
		seen[r.Job] = true
		if r.Delivered > 1 {
			retried++
		}
	}
	fmt.Printf("done in %v: %d of %d jobs have a result (%d records, %d duplicates), %d finished on a redelivery\n",
		elapsed.Round(time.Millisecond), len(seen), wl.Jobs, len(results), len(results)-len(seen), retried)
	for _, d := range ws {
		fmt.Printf("  %s: %d jobs, %.0f jobs/s, at most %d running and %d held at once (pool %d + buffer %d)\n",
			d.w.cfg.ID, d.w.done.Load(), float64(d.w.done.Load())/elapsed.Seconds(),
			d.w.maxRunning.Load(), d.w.maxHeld.Load(), d.w.cfg.Capacity, d.w.cfg.Buffer)
	}
	if len(seen) != wl.Jobs {
		return 1
	}
	return 0
}
