package ants

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// idleWorkers returns n workers whose lastUsed are first, first+1, ...
func idleWorkers(first int64, n int) []*goWorker[int] {
	ws := make([]*goWorker[int], n)
	for i := range ws {
		ws[i] = &goWorker[int]{lastUsed: first + int64(i)}
	}
	return ws
}

// drain detaches every worker of q and returns their lastUsed in order.
func drain(q workerQueue[int]) []int64 {
	var got []int64
	for w := q.detach(); w != nil; w = q.detach() {
		got = append(got, w.lastUsed)
	}
	return got
}

func lastUsed(ws []*goWorker[int]) []int64 {
	got := make([]int64, len(ws))
	for i, w := range ws {
		got[i] = w.lastUsed
	}
	return got
}

func TestNewWorkerQueue(t *testing.T) {
	assert.IsType(t, &workerStack[int]{}, newWorkerQueue[int](false, 8))
	ring, ok := newWorkerQueue[int](true, 8).(*workerLoopQueue[int])
	require.True(t, ok, "PreAlloc must use the ring queue")
	assert.Len(t, ring.items, 8)
	assert.Equal(t, 8, ring.limit)
}

func TestWorkerStack(t *testing.T) {
	t.Run("detach returns the most recently inserted worker first", func(t *testing.T) {
		var s workerStack[int]
		assert.Nil(t, s.detach())
		for _, w := range idleWorkers(1, 4) {
			s.insert(w)
		}
		assert.Equal(t, 4, s.len())
		assert.Equal(t, []int64{4, 3, 2, 1}, drain(&s))
		assert.Equal(t, 0, s.len())
		assert.Nil(t, s.detach())
	})
	t.Run("detach clears the slot it empties", func(t *testing.T) {
		var s workerStack[int]
		for _, w := range idleWorkers(1, 2) {
			s.insert(w)
		}
		s.detach()
		assert.Nil(t, s.items[:2][1], "the stack still references a detached worker")
	})
	t.Run("refresh removes the workers used before the cutoff, oldest first", func(t *testing.T) {
		for _, tc := range []struct {
			cutoff      int64
			expired     []int64
			left        []int64 // in detach order
			description string
		}{
			{0, []int64{}, []int64{5, 4, 3, 2, 1}, "none"},
			{1, []int64{}, []int64{5, 4, 3, 2, 1}, "a worker used at the cutoff is kept"},
			{3, []int64{1, 2}, []int64{5, 4, 3}, "some"},
			{6, []int64{1, 2, 3, 4, 5}, nil, "all"},
		} {
			var s workerStack[int]
			for _, w := range idleWorkers(1, 5) {
				s.insert(w)
			}
			assert.Equal(t, tc.expired, lastUsed(s.refresh(tc.cutoff, math.MaxInt)), tc.description)
			assert.Equal(t, len(tc.left), s.len(), tc.description)
			assert.Equal(t, tc.left, drain(&s), tc.description)
		}
	})
	t.Run("refresh finds the cutoff among equal times", func(t *testing.T) {
		var s workerStack[int]
		for _, used := range []int64{1, 1, 1, 2, 2, 3} {
			s.insert(&goWorker[int]{lastUsed: used})
		}
		assert.Equal(t, []int64{1, 1, 1}, lastUsed(s.refresh(2, math.MaxInt)))
		assert.Equal(t, []int64{3, 2, 2}, drain(&s))
	})
	t.Run("refresh of an empty stack removes nothing", func(t *testing.T) {
		var s workerStack[int]
		assert.Empty(t, s.refresh(100, math.MaxInt))
		assert.Equal(t, 0, s.len())
	})
}

func TestWorkerLoopQueue(t *testing.T) {
	t.Run("detach returns the least recently inserted worker first", func(t *testing.T) {
		q := newWorkerLoopQueue[int](4)
		assert.Nil(t, q.detach())
		for _, w := range idleWorkers(1, 4) {
			q.insert(w)
		}
		assert.Equal(t, 4, q.len())
		assert.Equal(t, []int64{1, 2, 3, 4}, drain(q))
		assert.Equal(t, 0, q.len())
		assert.Nil(t, q.detach())
	})
	t.Run("it keeps FIFO order across the end of the ring", func(t *testing.T) {
		q := newWorkerLoopQueue[int](4)
		ws := idleWorkers(1, 7)
		for _, w := range ws[:4] {
			q.insert(w)
		}
		assert.Equal(t, int64(1), q.detach().lastUsed)
		assert.Equal(t, int64(2), q.detach().lastUsed)
		assert.Equal(t, int64(3), q.detach().lastUsed)
		for _, w := range ws[4:] {
			q.insert(w)
		}
		assert.Equal(t, 4, q.len())
		assert.Len(t, q.items, 4, "the ring grew although it had room")
		assert.Equal(t, []int64{4, 5, 6, 7}, drain(q))
	})
	t.Run("refresh removes the workers used before the cutoff", func(t *testing.T) {
		for _, wrapped := range []bool{false, true} {
			q := newWorkerLoopQueue[int](6)
			if wrapped {
				// Move head near the end of the ring, so that the five
				// workers below wrap around it.
				for _, w := range idleWorkers(-4, 4) {
					q.insert(w)
				}
				for i := 0; i < 4; i++ {
					q.detach()
				}
			}
			for _, w := range idleWorkers(1, 5) {
				q.insert(w)
			}
			assert.Empty(t, q.refresh(1, math.MaxInt), "wrapped: %v", wrapped)
			assert.Equal(t, []int64{1, 2, 3}, lastUsed(q.refresh(4, math.MaxInt)), "wrapped: %v", wrapped)
			assert.Equal(t, 2, q.len(), "wrapped: %v", wrapped)
			assert.Equal(t, []int64{4, 5}, drain(q), "wrapped: %v", wrapped)
		}
	})
	t.Run("refresh can empty a wrapped ring", func(t *testing.T) {
		q := newWorkerLoopQueue[int](3)
		for _, w := range idleWorkers(1, 3) {
			q.insert(w)
		}
		q.detach()
		q.detach()
		for _, w := range idleWorkers(4, 2) {
			q.insert(w) // 3, 4, 5 with head at index 2
		}
		assert.Equal(t, []int64{3, 4, 5}, lastUsed(q.refresh(10, math.MaxInt)))
		assert.Equal(t, 0, q.len())
		assert.Nil(t, q.detach())
	})
	t.Run("the ring grows up to its limit, keeping the order", func(t *testing.T) {
		// A ring smaller than its limit, as newWorkerLoopQueue makes for a
		// capacity above preAllocLimit.
		q := &workerLoopQueue[int]{limit: 5}
		q.resize(2)
		ws := idleWorkers(1, 7)
		q.insert(ws[0])
		q.insert(ws[1])
		assert.Equal(t, int64(1), q.detach().lastUsed) // head moves off index 0
		q.insert(ws[2])                                // wraps to index 0
		q.insert(ws[3])                                // full: grows to 4
		assert.Len(t, q.items, 4)
		q.insert(ws[4])
		q.insert(ws[5]) // full again: grows to the limit, 5
		assert.Len(t, q.items, 5)
		assert.Equal(t, 5, q.len())
		assert.PanicsWithValue(t, "ants: worker ring queue overflow", func() { q.insert(ws[6]) })
		assert.Equal(t, []int64{2, 3, 4, 5, 6}, drain(q))
	})
	t.Run("a huge capacity is not allocated up front", func(t *testing.T) {
		q := newWorkerLoopQueue[int](preAllocLimit + 1)
		assert.Len(t, q.items, preAllocLimit)
		assert.Equal(t, preAllocLimit+1, q.limit)
	})
}
