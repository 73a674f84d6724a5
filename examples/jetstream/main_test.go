package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// The process test's figures.
const (
	testJobs      = 10_000
	testFailEvery = 500  // one job in 500 fails once (error or panic in turn)
	testLongEvery = 2300 // not a multiple of testFailEvery: a long job does not also fail
	testCapacity  = 4    // each worker's pool
	testBuffer    = 4    // each worker's task buffer
	killAt        = 3000 // distinct results when w1 is killed
	joinAt        = 6000 // distinct results when w4 starts
	busyUntil     = 9000 // distinct results until when the queue surely had work for all: throughput is measured up to there
	// AckWait is how long the killed worker's jobs stay invisible. It is
	// well above the in-progress period (AckWait/3, checked every AckWait/6)
	// so that a loaded machine does not let a live worker's job expire; the
	// long jobs take longer than AckWait and so need those in-progress acks.
	testAckWait = 4 * time.Second
	testLong    = 5 * time.Second
)

// TestWorkersAcrossProcesses runs the pattern for real: an embedded server
// on loopback, 10,000 jobs, three worker processes built from this command,
// one SIGKILLed mid-way, a fourth joining later, and the survivors stopped
// with SIGTERM. Everything it asserts it reads back from JetStream or from
// the workers' closing lines.
func TestWorkersAcrossProcesses(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 110*time.Second)
	defer cancel()
	bin := buildCommand(t)

	srv, err := StartEmbedded(t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	nc, js, closed, err := connect(srv.URL(), "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drain(nc, closed) }) // before srv.Shutdown: cleanups run last-in first-out
	q := Queue{Prefix: "TEST", Replicas: 1, AckWait: testAckWait}
	cons, err := q.Setup(ctx, js)
	if err != nil {
		t.Fatal(err)
	}

	// Every result record, as it is stored, drives the test's timeline; the
	// assertions use the stream itself, read back at the end. The channel
	// holds every record the run can make, so the subscription never drops.
	records := make(chan *nats.Msg, 2*testJobs)
	if _, err := nc.ChanSubscribe(q.resultsFilter(), records); err != nil {
		t.Fatal(err)
	}

	wl := Workload{Jobs: testJobs, Work: 4 * time.Millisecond, FailEvery: testFailEvery, LongEvery: testLongEvery, Long: testLong}
	if err := produce(ctx, js, q, wl); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	workers := map[string]*workerProc{}
	// w1, the one to be killed, waits 20 ms between recording a result and
	// acknowledging it, so that the kill most likely finds tasks in that
	// window and makes duplicates to count.
	workers["w1"] = startWorker(t, bin, srv.URL(), q, "w1", "-ack-delay", "20ms")
	for _, id := range []string{"w2", "w3"} {
		workers[id] = startWorker(t, bin, srv.URL(), q, id)
	}
	seen := make(map[int]bool, testJobs)
	var killedAt, joinedAt, busyAt time.Duration
	// Once per second, look at the queue too: if it stays empty (every job
	// acknowledged) while results are missing, jobs were lost, and the
	// checks below say which, instead of a wait for the deadline.
	queueCheck := time.NewTicker(time.Second)
	defer queueCheck.Stop()
	emptyChecks := 0
	for len(seen) < testJobs && emptyChecks < 3 {
		select {
		case m := <-records:
			id, err := jobIDFromSubject(m.Subject)
			if err != nil {
				t.Fatal(err)
			}
			seen[id] = true
		case <-queueCheck.C:
			emptyChecks++
			if ci, err := cons.Info(ctx); err != nil || ci.NumPending != 0 || ci.NumAckPending != 0 {
				emptyChecks = 0
			}
			continue
		case <-ctx.Done():
			t.Fatalf("only %d of %d jobs have a result after %v", len(seen), testJobs, time.Since(start))
		}
		if len(seen) == killAt && killedAt == 0 {
			workers["w1"].kill(t)
			killedAt = time.Since(start)
		}
		if len(seen) == busyUntil && busyAt == 0 {
			busyAt = time.Since(start)
		}
		if len(seen) == joinAt && joinedAt == 0 {
			workers["w4"] = startWorker(t, bin, srv.URL(), q, "w4")
			joinedAt = time.Since(start)
		}
	}
	allDone := time.Since(start)

	// A job the killed worker recorded but never acknowledged is still
	// pending until AckWait passes, then runs again; wait for the queue to
	// be empty before stopping the survivors. The state lives in the
	// server, which sends no event for it: poll, bounded.
	for {
		ci, err := cons.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ci.NumPending == 0 && ci.NumAckPending == 0 && ci.NumRedelivered == 0 {
			break
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("queue not empty: %d pending, %d unacknowledged", ci.NumPending, ci.NumAckPending)
		}
	}
	queueEmpty := time.Since(start)

	// SIGTERM: each survivor stops fetching, finishes its tasks, drains and
	// checks that no goroutine is left before its closing line.
	exits := map[string]map[string]float64{}
	for _, id := range []string{"w2", "w3", "w4"} {
		exits[id] = workers[id].terminate(t)
	}

	// Read back every result record from JetStream.
	results, err := q.ReadResults(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	byJob := map[int][]Result{}
	byWorker := map[string]int{}
	busyResults := map[string]int{} // results recorded before busyAt
	for _, r := range results {
		byJob[r.Job] = append(byJob[r.Job], r)
		byWorker[r.Worker]++
		if r.At.Before(start.Add(busyAt)) {
			busyResults[r.Worker]++
		}
		if r.MaxRunning > int64(r.Capacity) || r.Capacity != testCapacity {
			t.Errorf("worker %s ran %d tasks at once, capacity %d", r.Worker, r.MaxRunning, r.Capacity)
		}
		if r.MaxHeld > int64(r.Capacity+r.Buffer) {
			t.Errorf("worker %s held %d unacknowledged jobs, pool %d + buffer %d", r.Worker, r.MaxHeld, r.Capacity, r.Buffer)
		}
	}

	// Every job completed at least once; duplicates only from the killed
	// worker, at most what it could hold.
	duplicates := 0
	for id := 1; id <= testJobs; id++ {
		rs := byJob[id]
		if len(rs) == 0 {
			t.Errorf("job %d lost: no result", id)
			continue
		}
		if len(rs) > 1 {
			duplicates += len(rs) - 1
			if !hasWorker(rs, "w1") {
				t.Errorf("job %d ran %d times, none on the killed worker: %+v", id, len(rs), rs)
			}
		}
		if id%testFailEvery == 0 {
			for _, r := range rs {
				if r.Delivered < 2 {
					t.Errorf("job %d, which fails on its first delivery, has a result from delivery %d", id, r.Delivered)
				}
			}
		}
	}
	if len(byJob) != testJobs {
		t.Errorf("results for %d distinct jobs, want %d", len(byJob), testJobs)
	}
	if max := testCapacity + testBuffer; duplicates > max {
		t.Errorf("%d duplicates, more than the killed worker's pool %d + buffer %d", duplicates, testCapacity, testBuffer)
	}

	// Every job acknowledged: the work queue is empty.
	jobsStream, err := js.Stream(ctx, q.JobsStream())
	if err != nil {
		t.Fatal(err)
	}
	if n := jobsStream.CachedInfo().State.Msgs; n != 0 {
		t.Errorf("%d jobs left in the work queue", n)
	}

	// The survivors' closing lines.
	progressAcks := 0.0
	for id, kv := range exits {
		if kv == nil {
			continue
		}
		if kv["max_running"] > testCapacity || kv["max_running"] < 1 {
			t.Errorf("%s: max_running=%v, capacity %d", id, kv["max_running"], testCapacity)
		}
		if kv["max_held"] > testCapacity+testBuffer {
			t.Errorf("%s: max_held=%v, pool %d + buffer %d", id, kv["max_held"], testCapacity, testBuffer)
		}
		progressAcks += kv["in_progress_acks"]
	}
	if progressAcks == 0 {
		t.Errorf("no in-progress ack sent, though %d jobs take %v, more than AckWait %v", testJobs/testLongEvery, testLong, testAckWait)
	}
	for _, id := range []string{"w1", "w4"} {
		if byWorker[id] == 0 {
			t.Errorf("%s recorded no result", id)
		}
	}

	t.Logf("%d jobs (%d failing once, %d of %v), 3 workers of pool %d + buffer %d, AckWait %v",
		testJobs, testJobs/testFailEvery, testJobs/testLongEvery, testLong, testCapacity, testBuffer, testAckWait)
	t.Logf("w1 SIGKILLed at %v (%d results), w4 joined at %v (%d results); all results at %v, queue empty at %v",
		killedAt.Round(time.Millisecond), killAt, joinedAt.Round(time.Millisecond), joinAt,
		allDone.Round(time.Millisecond), queueEmpty.Round(time.Millisecond))
	t.Logf("%d result records, %d distinct jobs, %d duplicates (bound %d)", len(results), len(byJob), duplicates, testCapacity+testBuffer)
	// Throughput while the queue had work for every worker: from the
	// worker's start to busyAt (to the kill for w1), so the slow tail of the
	// last long job does not count.
	for _, id := range []string{"w1", "w2", "w3", "w4"} {
		from, to := time.Duration(0), busyAt
		switch id {
		case "w1":
			to = killedAt
		case "w4":
			from = joinedAt
		}
		line := fmt.Sprintf("%s: %d results, %.0f jobs/s while busy", id, byWorker[id], float64(busyResults[id])/(to-from).Seconds())
		if kv := exits[id]; kv != nil {
			line += fmt.Sprintf("; max running %v, max held %v, %v failed attempts, %v in-progress acks, %v hand-off waits",
				kv["max_running"], kv["max_held"], kv["failed"], kv["in_progress_acks"], kv["handoffs"])
		} else {
			line += " (SIGKILLed)"
		}
		t.Log(line)
	}
}

func hasWorker(rs []Result, id string) bool {
	for _, r := range rs {
		if r.Worker == id {
			return true
		}
	}
	return false
}

// buildCommand builds this command into a temporary directory, with the
// race detector when the test has it, so the workers are checked too.
func buildCommand(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "jetstream-worker")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// workerProc is a worker process and its combined output.
type workerProc struct {
	id   string
	cmd  *exec.Cmd
	out  *lockedBuffer
	done chan error // receives cmd.Wait's result once
}

func startWorker(t *testing.T, bin, url string, q Queue, id string, extra ...string) *workerProc {
	t.Helper()
	args := []string{"worker", "-url", url, "-id", id, "-prefix", q.Prefix,
		"-ackwait", q.AckWait.String(), "-pool", strconv.Itoa(testCapacity), "-buffer", strconv.Itoa(testBuffer),
		"-nak-delay", "100ms", "-fetch-wait", "500ms", "-drain", "30s"}
	cmd := exec.Command(bin, append(args, extra...)...)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &workerProc{id: id, cmd: cmd, out: out, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait() }() // ends when the process does; every path below ends it
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // a no-op once it exited
		<-p.done
		if t.Failed() {
			t.Logf("--- %s output, last lines:\n%s", id, lastLines(out.String(), 40))
		}
	})
	return p
}

func (p *workerProc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := <-p.done
	p.done <- err // for the cleanup
}

var closingLine = regexp.MustCompile(`^worker (\S+) exit clean, no goroutine left: (.*)$`)

// terminate sends SIGTERM, waits for a clean exit, and returns the numbers
// of the worker's closing line, or nil after reporting a failure.
func (p *workerProc) terminate(t *testing.T) map[string]float64 {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-p.done:
		p.done <- err
	case <-time.After(45 * time.Second):
		t.Errorf("%s did not exit within 45s of SIGTERM", p.id)
		return nil
	}
	if err != nil {
		t.Errorf("%s exited with %v", p.id, err)
		return nil
	}
	sc := bufio.NewScanner(strings.NewReader(p.out.String()))
	for sc.Scan() {
		m := closingLine.FindStringSubmatch(sc.Text())
		if m == nil || m[1] != p.id {
			continue
		}
		kv := map[string]float64{}
		for _, f := range strings.Fields(m[2]) {
			k, v, _ := strings.Cut(f, "=")
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Errorf("%s: closing line field %q: %v", p.id, f, err)
			}
			kv[k] = n
		}
		return kv
	}
	t.Errorf("%s exited without its clean closing line", p.id)
	return nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// lockedBuffer is a bytes.Buffer that the process's output copiers and the
// test can use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
