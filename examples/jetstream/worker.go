package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants"
	"github.com/nats-io/nats.go/jetstream"
)

// WorkerConfig sizes a worker.
type WorkerConfig struct {
	ID        string        // names the worker in results and logs
	Capacity  int           // pool size: most jobs running at once
	Buffer    int           // pool task buffer: most jobs fetched but not started
	NakDelay  time.Duration // how long a failed job waits before its redelivery
	FetchWait time.Duration // longest wait of one pull request; also the longest delay of a stop
	Drain     time.Duration // longest wait for running jobs at a stop
	Quiet     bool          // do not log each failed attempt (the demo counts them instead)

	// AckDelay is fault injection: a wait between recording a job's result
	// and acknowledging it, which widens the window in which a crash makes a
	// duplicate. The process test sets it on the worker it kills. 0 in use.
	AckDelay time.Duration
}

// Worker pulls jobs from the shared consumer and runs each on its own ants
// pool, so the pool's capacity plus its buffer bounds what this process takes
// from the queue.
//
// The bound that matters is on jobs delivered to this worker and not yet
// acknowledged ("held"): a crash hands exactly those back to the queue, and
// those already recorded in the results stream then run twice. The worker
// keeps it at Capacity+Buffer:
//   - a pull asks for at most the room the pool has (room: its free workers
//     plus its buffer's free slots), and every job it delivers goes straight
//     into the pool, so no job waits outside it;
//   - a job's task records the result, then acknowledges with DoubleAck, which
//     returns only when the server has the acknowledgement; the job stops
//     counting as held, and its pool slot frees, only after that.
//
// Each job costs two round trips to the server on top of its work (storing
// the result, confirming the acknowledgement) and its share of a pull. In
// the process test, on a loaded 2-core machine over loopback, a pool of 4
// running 4 ms jobs completes 450-650 jobs/s instead of 1,000: some 2-5 ms
// per job, which the pool's workers overlap.
//
// Run is called once; the counters may be read concurrently at any time.
type Worker struct {
	cfg     WorkerConfig
	q       Queue
	js      jetstream.JetStream
	cons    jetstream.Consumer
	pool    *ants.Pool
	ackWait time.Duration // the consumer's, as the server has it

	// freed has a value whenever a task ended since the fetch loop last
	// looked; capacity 1, sent without waiting, so a task never blocks on it.
	freed chan struct{}

	// held maps each job being kept alive (fetched, and its ack or nak not
	// yet begun) to when it last showed progress to the server: its
	// delivery, or the last in-progress ack. Guarded by heldMu, which is also
	// held while sending in-progress acks, so that none is sent for a job
	// already acknowledged.
	heldMu sync.Mutex
	held   map[jetstream.Msg]time.Time

	running    atomic.Int64 // tasks running now
	maxRunning atomic.Int64 // most tasks running at once
	holding    atomic.Int64 // jobs delivered here whose ack or nak is not yet sent and confirmed
	maxHeld    atomic.Int64 // most jobs held at once: the duplicates a crash can cause
	done       atomic.Int64 // jobs finished and acknowledged
	failed     atomic.Int64 // attempts that failed or panicked, nak'd for redelivery
	handoffs   atomic.Int64 // submits that waited for a worker to finish its task's last lines (see accept)
	progress   atomic.Int64 // in-progress acks sent
}

// NewWorker returns a worker with its pool. The pool's idle workers are kept
// (DisablePurge): a worker process is busy by design, and it saves the purge
// goroutine.
func NewWorker(cfg WorkerConfig, q Queue, js jetstream.JetStream, cons jetstream.Consumer) (*Worker, error) {
	if cfg.Capacity <= 0 || cfg.Buffer < 0 {
		return nil, fmt.Errorf("worker %s: capacity must be positive and buffer not negative", cfg.ID)
	}
	pool, err := ants.NewPool(cfg.Capacity, ants.WithQueueSize(cfg.Buffer), ants.WithDisablePurge(true))
	if err != nil {
		return nil, err
	}
	ackWait := cons.CachedInfo().Config.AckWait
	if ackWait <= 0 {
		ackWait = 30 * time.Second // the server's default
	}
	return &Worker{
		cfg: cfg, q: q, js: js, cons: cons, pool: pool, ackWait: ackWait,
		freed: make(chan struct{}, 1),
		held:  make(map[jetstream.Msg]time.Time),
	}, nil
}

// room is how many more jobs the pool can take: its free workers plus its
// buffer's free slots, counted from the jobs' side as Cap()+Buffer-held.
// The pool's own figures, Free() plus Idle (Free counts idle workers as
// running) plus Buffer-Queued from Stats, give the same number except in the
// instant after a task returns and before its worker is idle again: they lag
// the task's end, which is when the fetch loop is woken, and a loop woken too
// early would sleep until the next task ends, or for ever if none is left.
// held never lags: it drops inside the task, after the acknowledgement.
// Only the fetch loop adds jobs, so until its next pull room can only grow.
func (w *Worker) room() int {
	return w.pool.Cap() + w.cfg.Buffer - int(w.holding.Load())
}

// Run pulls and runs jobs until ctx is done, then stops: it makes no new
// pull, lets the pull under way deliver (its jobs run too), waits up to
// cfg.Drain for every task with ReleaseContext, and stops the in-progress
// goroutine. Jobs still unacknowledged after that are redelivered elsewhere
// once AckWait passes. The caller then drains the connection.
func (w *Worker) Run(ctx context.Context) error {
	keepAliveStop := make(chan struct{})
	var keepAliveDone sync.WaitGroup
	keepAliveDone.Add(1)
	go func() { // exits when keepAliveStop closes, below; Run waits for it
		defer keepAliveDone.Done()
		w.keepAlive(keepAliveStop)
	}()

	w.fetchLoop(ctx)

	drain, cancel := context.WithTimeout(context.Background(), w.cfg.Drain)
	defer cancel()
	err := w.pool.ReleaseContext(drain)
	close(keepAliveStop)
	keepAliveDone.Wait()
	if err != nil {
		return fmt.Errorf("worker %s: waiting for tasks: %w", w.cfg.ID, err)
	}
	return nil
}

func (w *Worker) fetchLoop(ctx context.Context) {
	for ctx.Err() == nil {
		n := w.room()
		if n <= 0 {
			select {
			case <-w.freed:
			case <-ctx.Done():
			}
			continue
		}
		// No FetchContext: cancelling a pull would drop jobs the server
		// already delivered to it, leaving them unacknowledged until AckWait.
		// A stop waits for the pull to end instead, at most FetchWait.
		batch, err := w.cons.Fetch(n, jetstream.FetchMaxWait(w.cfg.FetchWait))
		if err != nil {
			log.Printf("worker %s: fetch: %v", w.cfg.ID, err)
			w.pause(ctx)
			continue
		}
		for msg := range batch.Messages() {
			w.accept(msg)
		}
		if err := batch.Error(); err != nil {
			log.Printf("worker %s: fetch: %v", w.cfg.ID, err)
			w.pause(ctx)
		}
	}
}

// pause waits FetchWait, or less if ctx is done, after a failed pull, so
// that a lost server is not polled in a tight loop.
func (w *Worker) pause(ctx context.Context) {
	t := time.NewTimer(w.cfg.FetchWait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// accept hands a delivered job to the pool.
func (w *Worker) accept(msg jetstream.Msg) {
	w.hold(msg)
	task := func() { w.process(msg) }
	err := w.pool.TrySubmit(task)
	if errors.Is(err, ants.ErrPoolOverload) {
		// room said there is a slot: a task has returned and its worker is
		// on its way back to the pool. Submit waits the moment that takes
		// (the worker takes this task directly), so the job is not held
		// outside the pool for longer than that.
		w.handoffs.Add(1)
		err = w.pool.Submit(task)
	}
	if err != nil { // the pool is closed: only if Run is misused
		log.Printf("worker %s: submit: %v", w.cfg.ID, err)
		w.forget(msg)
		w.holding.Add(-1)
		_ = msg.Nak()
	}
}

// process is one job's task: run it, record the result, acknowledge.
func (w *Worker) process(msg jetstream.Msg) {
	n := w.running.Add(1)
	raise(&w.maxRunning, n)
	defer func() {
		w.running.Add(-1)
		w.holding.Add(-1) // acknowledged (or nak'd): no longer this worker's
		select {          // wake the fetch loop if it waits for room
		case w.freed <- struct{}{}:
		default:
		}
	}()

	meta, err := msg.Metadata()
	if err == nil {
		err = w.run(msg, meta)
	}
	if err == nil {
		err = w.record(msg, meta)
	}
	w.forget(msg) // no in-progress ack after this point
	if err != nil {
		w.failed.Add(1)
		if !w.cfg.Quiet {
			log.Printf("worker %s: %v; redelivery in %v", w.cfg.ID, err, w.cfg.NakDelay)
		}
		if err := msg.NakWithDelay(w.cfg.NakDelay); err != nil {
			log.Printf("worker %s: nak: %v", w.cfg.ID, err)
		}
		return
	}
	if w.cfg.AckDelay > 0 {
		time.Sleep(w.cfg.AckDelay)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := msg.DoubleAck(ctx); err != nil {
		// The job will be redelivered and run again: a duplicate, which the
		// results stream shows.
		log.Printf("worker %s: ack: %v", w.cfg.ID, err)
		return
	}
	w.done.Add(1)
}

// run does the job's work. A panic in it becomes an error, so that the job
// is nak'd like any failure and the pool's worker goes on.
func (w *Worker) run(msg jetstream.Msg, meta *jetstream.MsgMetadata) (err error) {
	var job Job
	if err := json.Unmarshal(msg.Data(), &job); err != nil {
		return fmt.Errorf("job %s: %w", msg.Subject(), err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("job %d panicked: %v", job.ID, r)
		}
	}()
	time.Sleep(job.Work) // the job's work
	if meta.NumDelivered == 1 {
		switch job.Fail {
		case "error":
			return fmt.Errorf("job %d failed on its first delivery, as asked", job.ID)
		case "panic":
			panic("first delivery, as asked")
		}
	}
	return nil
}

// record publishes the job's result and waits for the server to store it.
func (w *Worker) record(msg jetstream.Msg, meta *jetstream.MsgMetadata) error {
	id, err := jobIDFromSubject(msg.Subject())
	if err != nil {
		return fmt.Errorf("job subject %s: %w", msg.Subject(), err)
	}
	data, err := json.Marshal(Result{
		Job: id, Worker: w.cfg.ID, Delivered: meta.NumDelivered,
		MaxRunning: w.maxRunning.Load(), MaxHeld: w.maxHeld.Load(),
		Capacity: w.cfg.Capacity, Buffer: w.cfg.Buffer, At: time.Now(),
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := w.js.Publish(ctx, w.q.resultSubject(id), data); err != nil {
		return fmt.Errorf("job %d: recording result: %w", id, err)
	}
	return nil
}

// hold counts a delivered job as this worker's and starts keeping it alive.
func (w *Worker) hold(msg jetstream.Msg) {
	raise(&w.maxHeld, w.holding.Add(1))
	w.heldMu.Lock()
	w.held[msg] = time.Now()
	w.heldMu.Unlock()
}

// forget stops keeping msg alive; the job still counts as held until its
// acknowledgement is confirmed.
func (w *Worker) forget(msg jetstream.Msg) {
	w.heldMu.Lock()
	delete(w.held, msg)
	w.heldMu.Unlock()
}

// keepAlive sends an in-progress ack for every held job that has shown no
// progress for a third of AckWait, checking every sixth, so a job running
// or buffered for longer than AckWait is not redelivered to another worker
// meanwhile. It returns when stop closes.
func (w *Worker) keepAlive(stop <-chan struct{}) {
	every := max(w.ackWait/6, 10*time.Millisecond)
	stale := w.ackWait / 3
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			w.heldMu.Lock()
			for msg, last := range w.held {
				if now.Sub(last) < stale {
					continue
				}
				if err := msg.InProgress(); err != nil && !errors.Is(err, jetstream.ErrMsgAlreadyAckd) {
					log.Printf("worker %s: in-progress ack: %v", w.cfg.ID, err)
				}
				w.progress.Add(1)
				w.held[msg] = now
			}
			w.heldMu.Unlock()
		}
	}
}

// Summary is the worker's closing line: its counters, which the process
// test parses.
func (w *Worker) Summary() string {
	return fmt.Sprintf("done=%d failed=%d max_running=%d max_held=%d capacity=%d buffer=%d handoffs=%d in_progress_acks=%d",
		w.done.Load(), w.failed.Load(), w.maxRunning.Load(), w.maxHeld.Load(),
		w.cfg.Capacity, w.cfg.Buffer, w.handoffs.Load(), w.progress.Load())
}

// raise sets m to v if v is larger.
func raise(m *atomic.Int64, v int64) {
	for {
		old := m.Load()
		if v <= old || m.CompareAndSwap(old, v) {
			return
		}
	}
}
