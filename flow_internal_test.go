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

// FuzzWaitQueueFlows drives a waitQueue with a sequence of operations
// decoded from the input (tasks and blocked callers of four flows at two
// strict levels with weights 1 to 3, callers leaving, callers let into
// the buffer, grants, a release of every caller) and checks, after each:
// the queue's invariants (check); that a grant goes to the highest level
// with work, and to the first unit of its flow (buffered tasks first, each
// FIFO); and the turns' bound: a flow that starts to wait while other
// flows have work at its level gets its first grant before those flows
// get more than the sum of their weights in grants at that level.
func FuzzWaitQueueFlows(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte{0x10, 0x21, 0x32, 0x43, 0x14, 0x25, 0x80, 0x81, 0x90, 0xa0, 0x11, 0x80, 0x80, 0x80})
	f.Add([]byte{0x04, 0x05, 0x06, 0x07, 0x44, 0x45, 0x46, 0x47, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var q waitQueue[int]
		q.init(false, false, 0)
		flows := [4]string{"", "a", "b", "c"}
		type key struct {
			level int
			flow  string
		}
		// The model: per level and flow, the ids of buffered tasks and of
		// blocked callers, in order; the weight each flow started with;
		// and for each flow waiting for its first grant since it started
		// to wait, what other flows may still be granted before it.
		tasks := map[key][]int{}
		callers := map[key][]*waiter[int]{}
		weight := map[key]int{}
		budget := map[key]int{}
		has := func(k key) bool { return len(tasks[k])+len(callers[k]) > 0 }
		startWaiting := func(k key, w int) {
			if has(k) {
				return
			}
			weight[k] = w
			sum := 0
			for _, g := range flows {
				o := key{k.level, g}
				if o != k && has(o) {
					sum += weight[o]
				}
			}
			budget[k] = sum
		}
		id := 0
		for _, op := range ops {
			lv := int(op>>2) & 1
			fl := flows[op&3]
			w := 1 + int(op>>3)%3
			k := key{lv, fl}
			switch op >> 6 {
			case 0: // a task buffered
				startWaiting(k, w)
				id++
				q.pushTask(lv, fl, w, id, taskStamp{}, arrival{}, nil)
				tasks[k] = append(tasks[k], id)
			case 1: // a caller blocks
				startWaiting(k, w)
				id++
				c := &waiter[int]{arg: id, level: lv, flow: fl, weight: w}
				q.pushCaller(c)
				callers[k] = append(callers[k], c)
			case 2: // a grant, or a caller leaves, or one is let in
				switch {
				case op&0x30 == 0x30 && len(callers[k]) > 0:
					c := callers[k][0]
					q.removeCaller(c)
					callers[k] = callers[k][1:]
					if !has(k) {
						delete(budget, k)
					}
				case op&0x30 == 0x20 && q.blocked > 0:
					c := q.nextCaller(0)
					ck := key{c.level, c.flow}
					require.Same(t, callers[ck][0], c, "the caller let in is the first of its flow")
					arg := c.arg
					q.bufferCaller(c)
					callers[ck] = callers[ck][1:]
					tasks[ck] = append(tasks[ck], arg)
				case q.len() > 0:
					top := -1
					for _, l := range q.levels {
						if !l.empty() {
							top = l.level
							break
						}
					}
					arg, _, c := q.popSlot(0)
					var gk key
					found := false
					for _, g := range flows {
						for _, lvl := range []int{0, 1} {
							k := key{lvl, g}
							if c == nil && len(tasks[k]) > 0 && tasks[k][0] == arg {
								gk, found = k, true
								tasks[k] = tasks[k][1:]
							} else if c != nil && len(tasks[k]) == 0 && len(callers[k]) > 0 && callers[k][0] == c {
								gk, found = k, true
								callers[k] = callers[k][1:]
							}
						}
					}
					require.True(t, found, "grant of %d (caller %v) is the first unit of no flow", arg, c != nil)
					require.Equal(t, top, gk.level, "a grant below the highest level with work")
					delete(budget, gk)
					for o, b := range budget {
						if o.level == gk.level {
							require.Greater(t, b, 0, "flow %q waited through more than its turns' bound", o.flow)
							budget[o] = b - 1
						}
					}
					if !has(gk) {
						delete(budget, gk)
					}
				}
			case 3: // a release: every caller leaves
				q.popCallers()
				for k := range callers {
					callers[k] = nil
					if !has(k) {
						delete(budget, k)
					}
				}
			}
			require.NoError(t, q.check())
		}
	})
}
