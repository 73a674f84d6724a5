package ants

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMillionFlowsLeaveNothing sends a million distinct flows through a
// waitQueue, a few waiting at a time: the queue's memory stays that of the
// few, and nothing of the others is left.
func TestMillionFlowsLeaveNothing(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	var q waitQueue[int]
	q.init(false, false, 0)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := 0; i < n; i += 4 {
		for j := 0; j < 4; j++ {
			q.pushTask(0, fmt.Sprint(i+j), 1, i+j, taskStamp{}, arrival{}, nil)
		}
		for j := 0; j < 4; j++ {
			q.popSlot(0)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	require.NoError(t, q.check())
	assert.Zero(t, q.flowing)
	assert.Empty(t, q.zero.flows)
	assert.LessOrEqual(t, len(q.flows), flowSpare)
	assert.Less(t, int64(after.HeapAlloc)-int64(before.HeapAlloc), int64(1<<20), "heap growth")
}

// TestManyFlowsAtOnceDropTheirMap queues many flows at once, then drains
// them: the level's map, which a Go map would keep at its peak, is dropped.
func TestManyFlowsAtOnceDropTheirMap(t *testing.T) {
	var q waitQueue[int]
	q.init(false, false, 0)
	for i := 0; i < 10_000; i++ {
		q.pushTask(0, fmt.Sprint(i), 1, i, taskStamp{}, arrival{}, nil)
	}
	for i := 0; i < 10_000; i++ {
		_, _, w := q.popSlot(0)
		require.Nil(t, w)
	}
	require.NoError(t, q.check())
	assert.Nil(t, q.zero.flows, "the map of a peak above flowMapReset")
}

func TestFlowWeightClamp(t *testing.T) {
	for _, c := range []struct{ in, want int }{{-5, 1}, {0, 1}, {1, 1}, {7, 7}, {1 << 40, MaxFlowWeight}} {
		p, err := NewPool(1, WithFlowWeights(func(string) int { return c.in }))
		require.NoError(t, err)
		assert.Equal(t, c.want, p.flowWeight("x"), "weight %d", c.in)
		p.Release()
	}
}
