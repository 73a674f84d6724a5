package loadtest

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestDownstreamQueuesBeyondItsSlots(t *testing.T) {
	const work = 2 * time.Millisecond
	for _, tc := range []struct {
		name    string
		slots   int
		atLeast time.Duration
	}{
		{"6 calls on 2 slots: the last waits for two rounds", 2, 3 * work},
		{"6 calls without a limit: none waits", 0, work},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t0 := time.Now()
			d := NewDownstream(tc.slots, work)
			r := NewRecorder(t0)
			task := r.Task(d)
			var wg sync.WaitGroup
			for i := 0; i < 6; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					task()
				}()
			}
			wg.Wait()
			done := r.Between(0, time.Since(t0)+time.Nanosecond)
			require.Len(t, done, 6)
			var longest time.Duration
			for _, x := range done {
				assert.GreaterOrEqual(t, x.Run, work)
				longest = max(longest, x.Run)
			}
			assert.GreaterOrEqual(t, longest, tc.atLeast)
		})
	}
	t.Run("fewer slots bind at once, also for the calls already waiting", func(t *testing.T) {
		d := NewDownstream(4, time.Hour)
		d.mu.Lock()
		d.inUse = 4 // four calls in their slots
		waiting := []chan struct{}{make(chan struct{}), make(chan struct{}), make(chan struct{})}
		d.waiting = append(d.waiting, waiting...)
		d.mu.Unlock()

		d.SetSlots(2)
		release := func() { // a call in a slot finishes
			d.mu.Lock()
			d.inUse--
			d.admitLocked()
			d.mu.Unlock()
		}
		release()
		release()
		assertWaiting(t, d, 3, "2 of 4 slots in use still fill 2 slots")
		release()
		assertWaiting(t, d, 2, "the oldest waiting call takes the freed slot")
		select {
		case <-waiting[0]:
		default:
			t.Fatal("the oldest call was not let in")
		}
		d.SetSlots(0)
		assertWaiting(t, d, 0, "no limit lets every call in")
	})
	t.Run("a call takes its slot back when done", func(t *testing.T) {
		d := NewDownstream(3, 0)
		d.Call()
		assertWaiting(t, d, 0, "")
		d.mu.Lock()
		defer d.mu.Unlock()
		assert.Zero(t, d.inUse)
	})
}

func assertWaiting(t *testing.T, d *Downstream, n int, msg string) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	assert.Len(t, d.waiting, n, msg)
}

func TestRecorderFigures(t *testing.T) {
	r := NewRecorder(time.Now())
	for i := 1; i <= 100; i++ {
		r.done = append(r.done, Done{At: time.Duration(i) * time.Millisecond, Run: time.Duration(i) * time.Microsecond})
	}
	assert.Len(t, r.Between(10*time.Millisecond, 20*time.Millisecond), 10)
	assert.InDelta(t, 1000, r.Throughput(time.Millisecond, 101*time.Millisecond), 1e-9)
	assert.Equal(t, 100*time.Microsecond, r.Quantile(0.99, 0, time.Second))
	assert.Equal(t, 51*time.Microsecond, r.Quantile(0.5, 0, time.Second))
	assert.Zero(t, r.Quantile(0.99, time.Hour, 2*time.Hour))
}

func TestLoadAndSampler(t *testing.T) {
	t.Run("callers submit until Stop, and failed submits are counted", func(t *testing.T) {
		var mu sync.Mutex
		n := 0
		submit := func(task func()) error {
			mu.Lock()
			defer mu.Unlock()
			if n++; n%2 == 0 {
				return assert.AnError
			}
			task()
			return nil
		}
		ran := make(chan struct{}, 1)
		l := StartLoad(4, submit, func() {
			select {
			case ran <- struct{}{}:
			default:
			}
		})
		<-ran
		l.Stop()
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, int64(n/2), l.Failed())
	})
	t.Run("a sampler samples until Stop", func(t *testing.T) {
		calls := 0 // the sampler's goroutine's only
		third := make(chan struct{})
		s := StartSampler(time.Now(), time.Microsecond, func() int {
			if calls++; calls == 3 {
				close(third)
			}
			return calls
		})
		<-third
		points := s.Stop()
		require.GreaterOrEqual(t, len(points), 3)
		for i, p := range points {
			assert.Equal(t, i+1, p.Value)
			if i > 0 {
				assert.GreaterOrEqual(t, p.At, points[i-1].At)
			}
		}
	})
	t.Run("Median and First", func(t *testing.T) {
		points := []Point{{0, 5}, {time.Second, 1}, {2 * time.Second, 9}, {3 * time.Second, 7}}
		assert.Equal(t, 7, Median(points, 0, 4*time.Second))
		assert.Equal(t, 5, Median(points, 0, 2*time.Second))
		assert.Zero(t, Median(points, time.Hour, 2*time.Hour))
		at, ok := First(points, 7, 0, 4*time.Second)
		assert.True(t, ok)
		assert.Equal(t, 2*time.Second, at)
		_, ok = First(points, 10, 0, 4*time.Second)
		assert.False(t, ok)
	})
}
