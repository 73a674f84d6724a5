package ants_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/e62cffed/ants"
)

// ExamplePool_Pause holds a pool's writes through a maintenance window of
// the database they write to. Pause waits for the write under way; the
// writes submitted during the window wait in the buffer, holding no
// worker; Resume starts them in the order they were submitted (one writer
// here, so they also end in that order).
func ExamplePool_Pause() {
	pool, _ := ants.NewPool(1, ants.WithQueueSize(100))
	defer pool.Release()

	var (
		mu   sync.Mutex
		rows []string
		wg   sync.WaitGroup
	)
	write := func(row string, work time.Duration) {
		wg.Add(1)
		_ = pool.Submit(func() {
			defer wg.Done()
			time.Sleep(work) // the write
			mu.Lock()
			rows = append(rows, row)
			mu.Unlock()
		})
	}
	show := func(when string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Printf("%s: %v, %d waiting\n", when, rows, pool.Stats().Queued)
	}

	write("a", 10*time.Millisecond)

	// The window opens: no write starts until Resume, and Pause returns once
	// the write under way has ended (or after a minute, with an error).
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := pool.Pause(ctx); err != nil {
		fmt.Println("a write is still running:", err)
		return
	}
	for _, row := range []string{"b", "c", "d"} {
		write(row, 0)
	}
	show("during the window")

	pool.Resume()
	wg.Wait()
	show("after it")
	// Output:
	// during the window: [a], 3 waiting
	// after it: [a b c d], 0 waiting
}

// rateLimitedAPI stands for a service that allows rate calls a second and
// burst in a row, and refuses the calls over that.
type rateLimitedAPI struct {
	mu           sync.Mutex
	rate, tokens float64
	burst        float64
	last         time.Time
}

var errTooManyRequests = errors.New("429 Too Many Requests")

func newRateLimitedAPI(rate float64, burst int) *rateLimitedAPI {
	return &rateLimitedAPI{rate: rate, tokens: float64(burst), burst: float64(burst), last: time.Now()}
}

func (a *rateLimitedAPI) call() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	a.tokens = min(a.burst, a.tokens+now.Sub(a.last).Seconds()*a.rate)
	a.last = now
	if a.tokens < 1 {
		return errTooManyRequests
	}
	a.tokens--
	return nil
}

// ExampleWithRateLimit calls an API that allows 200 calls a second and 10
// in a row, and refuses the calls over that, from a pool limited to 100 a
// second and 2 in a row: the pool starts its tasks no faster than the API
// takes them, with room to spare for the calls' own delays on their way,
// so that none is refused; a task waiting for its turn holds no worker.
// Without the limit, the pool's 8 workers would call at once, again and
// again, and the API would refuse some.
func ExampleWithRateLimit() {
	api := newRateLimitedAPI(200, 10)
	pool, _ := ants.NewPool(8, ants.WithQueueSize(100), ants.WithRateLimit(100, 2))
	defer pool.Release()

	var wg sync.WaitGroup
	var refused atomic.Int32
	for i := 0; i < 16; i++ {
		wg.Add(1)
		_ = pool.Submit(func() {
			defer wg.Done()
			if err := api.call(); errors.Is(err, errTooManyRequests) {
				refused.Add(1) // a real client would back off and retry
			}
		})
	}
	wg.Wait()
	fmt.Println("calls refused by the API:", refused.Load())
	// Output: calls refused by the API: 0
}
