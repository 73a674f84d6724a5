package ants

import (
	"math"
	"slices"
	"testing"
)

// The waitQueue on its own: the order in which units get slots and buffer
// room. The pool-level tests (priority_test.go) check the same through
// Submit.

func newTestQueue(aging int64) *waitQueue[int] {
	q := new(waitQueue[int])
	q.init(false, false, aging)
	return q
}

// blockCaller adds a blocked caller of level lv with task arg at now.
func blockCaller(q *waitQueue[int], lv, arg int, now int64) *waiter[int] {
	w := &waiter[int]{arg: arg, level: lv, arrival: q.arrive(now)}
	q.pushCaller(w)
	return w
}

// slots pops n units for free slots at now and returns their tasks.
func slots(q *waitQueue[int], n int, now int64) []int {
	var got []int
	for i := 0; i < n; i++ {
		arg, _, _ := q.popSlot(now)
		got = append(got, arg)
	}
	return got
}

func TestWaitQueueStrictLevels(t *testing.T) {
	q := newTestQueue(0)
	for i, lv := range []int{0, 5, 1, 5, 3} {
		blockCaller(q, lv, i, 0)
	}
	if got, want := slots(q, 5, 0), []int{1, 3, 4, 2, 0}; !slices.Equal(got, want) {
		t.Fatalf("tasks got slots in order %v, want %v (levels 5, 5, 3, 1, 0)", got, want)
	}
	if q.len() != 0 || len(q.levels) != 1 || q.levels[0] != &q.zero {
		t.Fatalf("after draining: len %d, %d levels", q.len(), len(q.levels))
	}
}

func TestWaitQueueBufferedBeforeBlockedOfALevel(t *testing.T) {
	q := newTestQueue(0)
	q.pushTask(1, "", 1, 10, taskStamp{}, q.arrive(0), nil)
	blockCaller(q, 1, 11, 0)
	q.pushTask(0, "", 1, 20, taskStamp{}, q.arrive(0), nil)
	blockCaller(q, 2, 30, 0)
	if got, want := slots(q, 4, 0), []int{30, 10, 11, 20}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestWaitQueueBufferRoomGoesToBestCaller(t *testing.T) {
	q := newTestQueue(0)
	blockCaller(q, 0, 1, 0)
	blockCaller(q, 3, 2, 0)
	blockCaller(q, 3, 3, 0)
	w := q.nextCaller(0)
	if w == nil || w.arg != 2 {
		t.Fatalf("next caller %+v, want the first of level 3", w)
	}
	q.bufferCaller(w)
	if q.buffered != 1 || q.blocked != 2 {
		t.Fatalf("buffered %d blocked %d, want 1 and 2", q.buffered, q.blocked)
	}
	if got, want := slots(q, 3, 0), []int{2, 3, 1}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestWaitQueueAging(t *testing.T) {
	const d = 100
	q := newTestQueue(d)
	// Level 0 arriving at 0 and level 1 at d/2 tie at d: the earlier wins.
	blockCaller(q, 0, 0, 0)
	blockCaller(q, 1, 1, d/2)
	if got := slots(q, 1, d); got[0] != 0 {
		t.Fatalf("at d the level-1 unit went first; the earlier level-0 one must win the tie")
	}
	// Just before d, strict order still holds.
	q = newTestQueue(d)
	blockCaller(q, 0, 0, 0)
	blockCaller(q, 1, 1, d/2)
	if got := slots(q, 1, d-1); got[0] != 1 {
		t.Fatalf("before d the level-0 unit went first")
	}
	// A level-0 unit goes ahead of every level-2 unit that arrived at least
	// (2-0+1)·d after it, whenever the slot frees; a level-2 unit that
	// arrived less than 2d after it goes first while it still outranks it.
	for _, now := range []int64{3 * d, 3*d + d/2, 7 * d} {
		q = newTestQueue(d)
		blockCaller(q, 0, 0, 0)
		blockCaller(q, 2, 1, 3*d)
		if got := slots(q, 1, now); got[0] != 0 {
			t.Fatalf("at %d the level-2 unit that arrived 3d later went first", now)
		}
	}
	q = newTestQueue(d)
	blockCaller(q, 0, 0, 0)
	blockCaller(q, 2, 1, 2*d-1)
	if got := slots(q, 1, 2*d-1); got[0] != 1 {
		t.Fatalf("a level-2 unit (effective 2) lost to a level-0 one that waited under 2d (effective 1)")
	}
}

func TestWaitQueueAgingPicksCallersForBufferRoom(t *testing.T) {
	const d = 10
	q := newTestQueue(d)
	old := blockCaller(q, -5, 0, 0)
	blockCaller(q, 0, 1, 100)
	if w := q.nextCaller(100); w != old {
		t.Fatalf("a level -5 caller that waited 10d (effective 5) must go before a new level-0 one")
	}
}

func TestAgedLevelSaturates(t *testing.T) {
	for _, c := range []struct {
		lv            int
		waited, aging int64
		want          int
	}{
		{0, 0, 1, 0},
		{3, 99, 10, 12},
		{-4, -1, 10, -4},
		{math.MaxInt, 1 << 40, 1, math.MaxInt},
		{math.MaxInt - 1, 5, 1, math.MaxInt},
		{math.MinInt, math.MaxInt64, 1, math.MinInt + math.MaxInt},
		{0, math.MaxInt64, 1, math.MaxInt},
	} {
		if got := agedLevel(c.lv, c.waited, c.aging); got != c.want {
			t.Errorf("agedLevel(%d, %d, %d) = %d, want %d", c.lv, c.waited, c.aging, got, c.want)
		}
	}
}

func TestWaitQueueLevelsStaySortedAndAreReused(t *testing.T) {
	q := newTestQueue(0)
	ws := []*waiter[int]{
		blockCaller(q, math.MinInt, 0, 0),
		blockCaller(q, 7, 1, 0),
		blockCaller(q, -2, 2, 0),
		blockCaller(q, math.MaxInt, 3, 0),
	}
	for i := 1; i < len(q.levels); i++ {
		if q.levels[i-1].level <= q.levels[i].level {
			t.Fatalf("levels out of order at %d: %d then %d", i, q.levels[i-1].level, q.levels[i].level)
		}
	}
	if len(q.levels) != 5 {
		t.Fatalf("%d levels, want 4 and level 0", len(q.levels))
	}
	for _, w := range ws {
		q.removeCaller(w)
	}
	if len(q.levels) != 1 || q.len() != 0 || len(q.spare) != 4 {
		t.Fatalf("after removing every caller: %d levels, len %d, %d spare", len(q.levels), q.len(), len(q.spare))
	}
	blockCaller(q, 9, 0, 0)
	if len(q.spare) != 3 {
		t.Fatalf("a new level did not reuse a spare one")
	}
}
