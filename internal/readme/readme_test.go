// The functions below are never called: they hold the README's blocks for
// the compiler, and the blocks, as written, assign errors they go on to
// show other things with.
//
//lint:file-ignore U1000 the README's blocks, compiled and never run
//lint:file-ignore SA4006 the README's blocks assign errors they do not read

package readme_test

import (
	"context"
	"errors"
	"log"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/e62cffed/ants"
)

// This package holds the README's Go code, each block inside a function
// so that it compiles with the tests; TestReadmeCodeCompiles checks that
// each block of README.md appears, as written, in one of the files that
// compile it. The names the blocks use are declared below.

type (
	User   struct{}
	Page   struct{}
	Record struct{}
)

var (
	urls     []string
	id       int
	tenantID string
	plan     map[string]int
	conn     struct{ ID string }
	msg      string
	upload   func()
	task     func()
	reindex  func()
	w        interface{ Write(any) }
	srv      *http.Server
)

func fetch(context.Context, string) error       { return nil }
func load(context.Context, int) (User, error)   { return User{}, nil }
func get(context.Context, string) (Page, error) { return Page{}, nil }
func work() any                                 { return nil }
func handle()                                   {}
func use(Page)                                  {}

type encoder struct{}

func (encoder) Process(context.Context, Record) ([]byte, error) { return nil, nil }
func (encoder) Close()                                          {}
func newEncoder() encoder                                       { return encoder{} }

type gauge struct{}

func (gauge) Set(float64) {}

var capacityGauge gauge

func readmeWaitForSet(ctx context.Context, p *ants.Pool) error {
	g, ctx := ants.NewGroupContext(ctx, p)
	for _, url := range urls {
		g.Go(func() error { return fetch(ctx, url) }) // on the pool's workers
	}
	if err := g.Wait(); err != nil { // the first error; the rest see ctx cancelled
		return err
	}
	return nil
}

func readmeGetResults(ctx context.Context, p *ants.Pool) {
	f := ants.Go(ctx, p, func() (User, error) { return load(ctx, id) })
	u, err := f.Wait() // or select on f.Done()

	rg := ants.NewResultGroup[Page](p)
	for _, url := range urls {
		rg.Go(func() (Page, error) { return get(ctx, url) })
	}
	pages, err := rg.Wait() // in the order Go was called
	_, _, _ = u, pages, err
}

func readmeShutdown(ctx context.Context, p *ants.Pool) {
	srv.Shutdown(ctx)     // stop accepting; requests in flight finish
	p.ReleaseContext(ctx) // then every task they submitted
}

func readmeShutdownRecipe(ctx context.Context, p *ants.Pool) {
	stop := context.AfterFunc(ctx, p.Release) // released when ctx ends
	defer func() {
		p.Release() // a no-op if ctx released it first
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := p.WaitReleased(shutdown); err != nil {
			log.Printf("tasks still running: %v", err)
		}
	}()
	_ = stop
}

func readmeSubpool(ctx context.Context, p *ants.Pool) {
	uploads := ants.NewSubpool(p, 2)          // at most 2 uploads at once, on p's workers
	err := uploads.SubmitContext(ctx, upload) // waits for a slot, by level then arrival
	_ = err
}

func readmeKeepOrder(p *ants.Pool) {
	st := ants.NewStream(p)
	st.Go(func() func() { r := work(); return func() { w.Write(r) } }) // callbacks in the order of Go
	err := st.Wait()

	k := ants.NewKeyed[string](p)
	k.Submit(conn.ID, func() { deliver(msg) }) // one connection's messages in order
	_ = err
}

func deliver(string) {}

func readmePriorities(ctx context.Context) {
	interactive := ants.ContextWithPriority(ctx, 1) // a request a user waits for
	background := ants.ContextWithPriority(ctx, -1) // a re-index, a report
	p, _ := ants.NewPool(runtime.GOMAXPROCS(0), ants.WithQueueSize(1000),
		ants.WithPriorityAging(time.Second)) // waiting work gains a level a second
	p.SubmitContext(background, reindex)
	p.SubmitContext(interactive, handle) // runs before the buffered re-index jobs
}

func readmeTenants(ctx context.Context) {
	p, _ := ants.NewPool(64, ants.WithQueueSize(10_000),
		ants.WithFlowWeights(func(tenant string) int { return plan[tenant] })) // optional: shares
	ctx = ants.ContextWithFlow(ctx, tenantID) // the tenant on whose behalf work is submitted
	p.SubmitContext(ctx, task)                // waits for its flow's turn, not the whole backlog
}

func readmeOverload(w http.ResponseWriter, r *http.Request) {
	handle := func() (int, error) { return 0, nil }
	p, _ := ants.NewPool(64, ants.WithQueueSize(4096),
		ants.WithQueueTarget(5*time.Millisecond, 0), // CoDel: 5 ms target, 100 ms interval
		ants.WithQueueTimeout(time.Second))          // and never wait more than a second
	f := ants.Go(r.Context(), p, handle) // a request's deadline travels with it
	if _, err := f.Wait(); errors.Is(err, ants.ErrQueueTimeout) {
		w.Header().Set("Retry-After", "1") // dropped before it ran: the caller knows
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

func readmePause(ctx context.Context) {
	p, _ := ants.NewPool(64, ants.WithQueueSize(10_000),
		ants.WithRateLimit(100, 10)) // at most 100 starts a second, 10 in a row
	err := p.Pause(ctx)     // nothing starts; returns once no task runs
	p.Submit(task)          // waits in the buffer, as in a full pool
	p.Resume()              // starts the held tasks, in order, at the rate
	p.SetRateLimit(500, 50) // at once; SetRateLimit(0, 0) removes it
	_ = err
}

func readmeWorkers(ctx context.Context, record Record) {
	p, _ := ants.NewWorkerPool(4, func(id int) ants.Worker[Record, []byte] {
		return newEncoder() // Process(ctx, Record) ([]byte, error) and Close()
	}, ants.WithMinWorkers(1)) // keep one encoder through quiet periods
	defer p.ReleaseTimeout(time.Second) // returns once every Close has returned
	line, err := p.Process(ctx, record) // waits for a worker as SubmitContext does
	f := p.Go(ctx, record)              // or a *Future[[]byte]
	_, _, _ = line, err, f
}

func readmeSize() {
	p, _ := ants.NewPool(16, ants.WithAdaptiveCapacity(ants.AdaptiveCapacity{
		Min: 4, Max: 256, // the bounds it never leaves; it starts at 16
		OnChange: func(old, new int) { capacityGauge.Set(float64(new)) },
	}))
	_ = p
}

func readmeAPIInBrief() {
	p, _ := ants.NewPool(100) // size <= 0: unlimited
	defer p.Release()
	err := p.Submit(func() { /* work */ }) // waits while all 100 workers are busy

	pf, _ := ants.NewPoolWithFunc(10, func(x any) { /* work on x */ })
	err = pf.Invoke(42)

	pg, _ := ants.NewPoolWithFuncGeneric(10, func(n int) { /* typed, allocation-free */ })
	err = pg.Invoke(42)

	mp, _ := ants.NewMultiPool(4, 25, ants.RoundRobin) // 4 member pools of 25 workers
	err = mp.Submit(task)
	_ = err
}

// TestReadmeCodeCompiles checks that every Go block of README.md is code
// that compiles: the first, a complete program, is examples/quickstart
// as is; each other appears, as written (spaces aside), in one of the
// files that hold it for the compiler: this one, readme_go123_test.go
// (range over a function) and prometheus/readme_test.go (antsprom).
func TestReadmeCodeCompiles(t *testing.T) {
	readme := read(t, "../../README.md")
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(readme, -1)
	if len(blocks) < 10 {
		t.Fatalf("README.md has %d Go blocks", len(blocks))
	}
	if quick := read(t, "../../examples/quickstart/main.go"); blocks[0][1] != quick {
		t.Errorf("README.md's first Go block is not examples/quickstart/main.go")
	}
	var hosts string
	for _, f := range []string{"readme_test.go", "readme_go123_test.go", "../../prometheus/readme_test.go"} {
		hosts += squash(read(t, f)) + "\n"
	}
	for _, b := range blocks[1:] {
		if !strings.Contains(hosts, squash(b[1])) {
			t.Errorf("README.md's block is in no file that compiles it:\n%s", b[1])
		}
	}
}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// squash trims every line and drops the empty ones, and collapses runs of
// spaces: gofmt aligns comments in the files, not in the README.
func squash(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.Join(strings.Fields(line), " "); line != "" {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
