package ants_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// popAll pops q until it is empty and returns what it popped.
func popAll[T any](q *ants.TaskQueue[T]) []T {
	var got []T
	for v, ok := q.Pop(); ok; v, ok = q.Pop() {
		got = append(got, v)
	}
	return got
}

// span returns from, from+1, ..., to-1.
func span(from, to int) []int {
	s := make([]int, 0, to-from)
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

// assertOnlyQueuedSlotsHoldValues checks that q's storage references no
// value but the queued ones, so that a popped task can be collected.
func assertOnlyQueuedSlotsHoldValues(t *testing.T, q *ants.TaskQueue[*int]) {
	t.Helper()
	held := 0
	for _, v := range q.Slots() {
		if v != nil {
			held++
		}
	}
	assert.Equal(t, q.Len(), held, "slots holding a value")
}

func TestTaskQueue(t *testing.T) {
	t.Run("an empty ring pops nothing", func(t *testing.T) {
		var q ants.TaskQueue[int]
		_, ok := q.Pop()
		assert.False(t, ok)
		assert.Zero(t, q.Len())
	})
	t.Run("pop is FIFO", func(t *testing.T) {
		var q ants.TaskQueue[int]
		for i := range 1000 {
			q.Push(i)
		}
		assert.Equal(t, 1000, q.Len())
		assert.Equal(t, span(0, 1000), popAll(&q))
	})
	t.Run("a full ring wraps around without growing", func(t *testing.T) {
		var q ants.TaskQueue[int]
		q.Push(0)
		n := len(q.Slots())
		for i := 1; i < n; i++ {
			q.Push(i)
		}
		next := n
		for round := 0; round < 3*n; round++ { // the head goes round three times
			v, ok := q.Pop()
			require.True(t, ok)
			assert.Equal(t, next-n, v)
			q.Push(next)
			next++
		}
		assert.Equal(t, n, len(q.Slots()), "a ring with room grew")
		assert.Equal(t, span(next-n, next), popAll(&q))
	})
	t.Run("growth keeps the order of a wrapped ring", func(t *testing.T) {
		var q ants.TaskQueue[int]
		for i := 0; i < 8; i++ {
			q.Push(i)
		}
		initial := len(q.Slots())
		for i := 0; i < 5; i++ {
			v, ok := q.Pop()
			require.True(t, ok)
			assert.Equal(t, i, v)
		}
		for i := 8; i < 8+initial; i++ { // wraps, then grows
			q.Push(i)
		}
		assert.Greater(t, len(q.Slots()), initial)
		assert.Equal(t, span(5, 8+initial), popAll(&q))
	})
	t.Run("a drained ring keeps its storage for the next tasks", func(t *testing.T) {
		var q ants.TaskQueue[int]
		for i := range 100 {
			q.Push(i)
		}
		popAll(&q)
		n := len(q.Slots())
		for i := range 100 {
			q.Push(i)
		}
		assert.Equal(t, n, len(q.Slots()), "refilling a drained ring grew it")
		assert.Equal(t, span(0, 100), popAll(&q))
	})
	t.Run("pop clears the slot it empties", func(t *testing.T) {
		var q ants.TaskQueue[*int]
		one := 1
		q.Push(&one)
		q.Pop()
		assert.Nil(t, q.Slots()[0], "the ring still references a popped task")
	})
	t.Run("any mix of pushes and pops is FIFO and keeps no popped value", func(t *testing.T) {
		var q ants.TaskQueue[*int]
		var model []int
		next := 0
		for step := range 20000 {
			// Phases that fill, drain and hover make the ring grow, wrap
			// and run empty.
			pushBias := [...]int{70, 30, 50}[step/1000%3]
			if rand.IntN(100) < pushBias {
				v := next
				next++
				q.Push(&v)
				model = append(model, v)
			} else {
				v, ok := q.Pop()
				require.Equal(t, len(model) > 0, ok, "step %d: pop of a ring holding %d", step, len(model))
				if ok {
					require.Equal(t, model[0], *v, "step %d", step)
					model = model[1:]
				}
			}
			require.Equal(t, len(model), q.Len(), "step %d", step)
			if step%97 == 0 {
				assertOnlyQueuedSlotsHoldValues(t, &q)
			}
		}
	})
	t.Run("shrink drops a large empty ring only", func(t *testing.T) {
		var q ants.TaskQueue[int]
		for i := 0; i <= ants.ShrinkLimit; i++ {
			q.Push(i)
		}
		q.Shrink()
		assert.Greater(t, len(q.Slots()), ants.ShrinkLimit, "shrink dropped a ring holding tasks")
		popAll(&q)
		q.Shrink()
		assert.Nil(t, q.Slots())
		q.Push(7)
		assert.Equal(t, []int{7}, popAll(&q), "the ring is unusable after shrink")

		for i := 0; i < 8; i++ {
			q.Push(i)
		}
		popAll(&q)
		q.Shrink()
		assert.NotNil(t, q.Slots(), "shrink dropped a small ring")
	})
}
