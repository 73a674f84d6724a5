// Command jetstream spreads work past one machine: jobs go to a NATS
// JetStream work queue, and each worker process pulls only as many as its
// ants pool can start, runs them, records each result in JetStream and
// acknowledges a job only after its task finished. A worker that dies loses
// nothing: its unacknowledged jobs are redelivered to the others.
//
// Usage:
//
//	go run .                          # the demo: embedded server, a producer, 3 workers, progress each second
//	go run . serve [-port 4222]       # an embedded JetStream server alone, for trying the roles by hand
//	go run . producer -jobs 10000     # publish jobs
//	go run . worker -pool 8 -buffer 8 # pull and run jobs until SIGTERM or Ctrl-C
//
// Every role takes -url (default $NATS_URL). The demo without one starts an
// embedded server in a temporary directory; producer and worker need one.
// Run `go run . ROLE -h` for each role's flags.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"
)

func main() {
	log.SetFlags(log.Ltime | log.Lmicroseconds)
	role, args := "demo", os.Args[1:]
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		role, args = args[0], args[1:]
	}
	var code int
	switch role {
	case "demo":
		code = runDemo(args)
	case "serve":
		code = runServe(args)
	case "producer":
		code = runProducer(args)
	case "worker":
		code = runWorker(args)
	default:
		fmt.Fprintf(os.Stderr, "unknown role %q: want demo, serve, producer or worker\n", role)
		code = 2
	}
	os.Exit(code)
}

// common holds the flags every role shares.
type common struct {
	url   string
	creds string
	q     Queue
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.url, "url", os.Getenv("NATS_URL"), "NATS server URL(s), comma-separated (default $NATS_URL)")
	fs.StringVar(&c.creds, "creds", os.Getenv("NATS_CREDS"), "NATS credentials file, for a secured cluster (default $NATS_CREDS)")
	fs.StringVar(&c.q.Prefix, "prefix", "ANTS", "names the streams PREFIX_JOBS and PREFIX_RESULTS")
	fs.IntVar(&c.q.Replicas, "replicas", 1, "stream replicas (3 on a real cluster)")
	fs.DurationVar(&c.q.AckWait, "ackwait", 30*time.Second, "consumer AckWait: how long a dead worker's jobs wait for redelivery")
}

// haveURL reports whether a server was given, and says what to do if not.
func (c *common) haveURL(role string) bool {
	if c.url == "" {
		log.Printf("%s: no server: give -url or set NATS_URL (or run with no role for the self-contained demo)", role)
	}
	return c.url != ""
}

// options are the connection options the flags ask for.
func (c *common) options() []nats.Option {
	if c.creds == "" {
		return nil
	}
	return []nats.Option{nats.UserCredentials(c.creds)}
}

// connect opens a connection that reconnects for ever and reports when it is
// closed, and a JetStream context on it.
func connect(url, name string, opts ...nats.Option) (*nats.Conn, jetstream.JetStream, <-chan struct{}, error) {
	closed := make(chan struct{})
	nc, err := nats.Connect(url, append([]nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ClosedHandler(func(*nats.Conn) { close(closed) }),
	}, opts...)...)
	if err != nil {
		return nil, nil, nil, err
	}
	// 256 unconfirmed publishes at once bound the producer's memory and
	// still keep the pipe full on loopback.
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(256))
	if err != nil {
		nc.Close()
		return nil, nil, nil, err
	}
	return nc, js, closed, nil
}

// drain lets every subscription and pending publish finish, closes the
// connection and waits, at most 10s, for its goroutines to end.
func drain(nc *nats.Conn, closed <-chan struct{}) {
	if err := nc.Drain(); err != nil {
		nc.Close()
	}
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		log.Printf("connection did not close within 10s")
	}
}

func runServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	port := fs.Int("port", 4222, "client port on 127.0.0.1 (0: any free port)")
	dir := fs.String("store", "", "JetStream store directory (default: a temporary one, removed at exit)")
	_ = fs.Parse(args)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	srv, err := StartEmbedded(*dir, *port)
	if err != nil {
		log.Print(err)
		return 1
	}
	fmt.Printf("NATS with JetStream at %s; Ctrl-C stops it\n", srv.URL())
	<-ctx.Done()
	srv.Shutdown()
	return 0
}

func runProducer(args []string) int {
	var c common
	var w Workload
	fs := flag.NewFlagSet("producer", flag.ExitOnError)
	c.register(fs)
	registerWorkload(fs, &w, 10_000)
	_ = fs.Parse(args)
	if !c.haveURL("producer") {
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	nc, js, closed, err := connect(c.url, "producer", c.options()...)
	if err != nil {
		log.Printf("producer: %v", err)
		return 1
	}
	defer drain(nc, closed)
	if _, err := c.q.Setup(ctx, js); err != nil {
		log.Printf("producer: %v", err)
		return 1
	}
	start := time.Now()
	if err := produce(ctx, js, c.q, w); err != nil {
		log.Printf("producer: %v", err)
		return 1
	}
	fmt.Printf("producer: published %d jobs in %v\n", w.Jobs, time.Since(start).Round(time.Millisecond))
	return 0
}

func registerWorkload(fs *flag.FlagSet, w *Workload, jobs int) {
	fs.IntVar(&w.Jobs, "jobs", jobs, "number of jobs")
	fs.DurationVar(&w.Work, "work", 4*time.Millisecond, "mean time one job takes")
	fs.IntVar(&w.FailEvery, "fail-every", 500, "every Nth job fails once (by error or panic) and is retried; 0: none")
	fs.IntVar(&w.LongEvery, "long-every", 0, "every Nth job takes -long; 0: none")
	fs.DurationVar(&w.Long, "long", 0, "duration of the -long-every jobs")
}

// workerFlags registers a worker's sizing flags.
func workerFlags(fs *flag.FlagSet, cfg *WorkerConfig, capacity int) {
	fs.IntVar(&cfg.Capacity, "pool", capacity, "ants pool capacity: most jobs running at once")
	fs.IntVar(&cfg.Buffer, "buffer", capacity, "pool task buffer (WithQueueSize): most jobs fetched ahead of a free worker")
	fs.DurationVar(&cfg.NakDelay, "nak-delay", time.Second, "redelivery delay of a failed job")
	fs.DurationVar(&cfg.FetchWait, "fetch-wait", time.Second, "longest wait of one pull request, and so of a stop")
	fs.DurationVar(&cfg.Drain, "drain", 30*time.Second, "longest wait for running jobs at a stop")
	fs.DurationVar(&cfg.AckDelay, "ack-delay", 0, "fault injection: wait between recording a result and acknowledging the job")
}

func runWorker(args []string) int {
	var c common
	var cfg WorkerConfig
	fs := flag.NewFlagSet("worker", flag.ExitOnError)
	c.register(fs)
	host, _ := os.Hostname()
	fs.StringVar(&cfg.ID, "id", fmt.Sprintf("%s-%d", host, os.Getpid()), "worker name in results and logs")
	workerFlags(fs, &cfg, 8)
	_ = fs.Parse(args)
	if !c.haveURL("worker") {
		return 2
	}

	// SIGTERM (or Ctrl-C) stops fetching; Run then waits for the tasks.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	summary, code := serveWorker(ctx, c, cfg)
	stop()
	if code != 0 {
		return code
	}
	// Everything this process started must be gone by now: the pool's
	// workers (ReleaseContext), the in-progress goroutine, the connection's
	// goroutines (drained). goleak retries for a while before it reports.
	if err := goleak.Find(); err != nil {
		fmt.Printf("worker %s exit: goroutines left: %v\n", cfg.ID, err)
		return 3
	}
	// The closing line, which the process test parses.
	fmt.Printf("worker %s exit clean, no goroutine left: %s\n", cfg.ID, summary)
	return 0
}

// serveWorker runs a worker until ctx is done, then drains the connection.
// It returns the worker's summary and the exit code.
func serveWorker(ctx context.Context, c common, cfg WorkerConfig) (string, int) {
	nc, js, closed, err := connect(c.url, cfg.ID, c.options()...)
	if err != nil {
		log.Printf("worker %s: %v", cfg.ID, err)
		return "", 1
	}
	defer drain(nc, closed)
	setupCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	cons, err := c.q.Setup(setupCtx, js)
	cancel()
	if err != nil {
		log.Printf("worker %s: %v", cfg.ID, err)
		return "", 1
	}
	w, err := NewWorker(cfg, c.q, js, cons)
	if err != nil {
		log.Print(err)
		return "", 2
	}
	log.Printf("worker %s: pulling from %s, pool %d + buffer %d", cfg.ID, c.q.JobsStream(), cfg.Capacity, cfg.Buffer)
	start := time.Now()
	if err := w.Run(ctx); err != nil {
		log.Print(err)
		return "", 1
	}
	return fmt.Sprintf("%s seconds=%.3f", w.Summary(), time.Since(start).Seconds()), 0
}
