//go:build go1.23

package ants_test

import (
	"context"
	"iter"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// TestMapIsAnIterator: Go 1.23 code passes an iter.Seq such as
// slices.Values, assigns the result to an iter.Seq2 without a conversion,
// and ranges over it.
func TestMapIsAnIterator(t *testing.T) {
	p := newMapPool(t, 4)
	words := []string{"a", "bb", "ccc", "dddd"}
	length := func(_ context.Context, w string) (int, error) { return len(w), nil }

	var ordered iter.Seq2[int, error] = ants.Map(context.Background(), p, 2, slices.Values(words), length)
	var got []int
	for n, err := range ordered {
		require.NoError(t, err)
		got = append(got, n)
	}
	assert.Equal(t, []int{1, 2, 3, 4}, got)

	var in iter.Seq[string] = slices.Values(words)
	var unordered iter.Seq2[int, error] = ants.MapUnordered(context.Background(), p, 2, in, length)
	got = got[:0]
	for n, err := range unordered {
		require.NoError(t, err)
		got = append(got, n)
	}
	slices.Sort(got)
	assert.Equal(t, []int{1, 2, 3, 4}, got)
}

// TestMapRangeBreak is TestMapBreak with a break statement.
func TestMapRangeBreak(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			const window = 4
			p := newMapPool(t, window)
			w := newCancelWatch(window - 1)
			c := &countedSeq{n: -1}
			returned := make(chan struct{})
			go w.holdSlow(t, returned)
			got := 0
			for _, err := range k.m(context.Background(), p, window, c.seq, w.fn) {
				require.NoError(t, err)
				got++
				break
			}
			close(returned)
			assert.Equal(t, 1, got)
			assert.Equal(t, int64(0), w.running.Load(), "calls running after the loop")
			assert.Equal(t, int64(window-1), w.cancelled.Load())
			assert.Equal(t, int64(window), c.taken.Load())
		})
	}
}

// TestMapRangePanic is TestMapPanicInLoopBody with a range statement: the
// panic comes out of the loop once the calls in flight have returned.
func TestMapRangePanic(t *testing.T) {
	for _, k := range mapKinds {
		t.Run(k.name, func(t *testing.T) {
			const window = 4
			p := newMapPool(t, window)
			w := newCancelWatch(window - 1)
			returned := make(chan struct{})
			go w.holdSlow(t, returned)
			r := func() (r any) {
				defer func() { r = recover() }()
				for range k.m(context.Background(), p, window, (&countedSeq{n: -1}).seq, w.fn) {
					panic("body")
				}
				return nil
			}()
			close(returned)
			assert.Equal(t, "body", r)
			assert.Equal(t, int64(0), w.running.Load())
			assert.Equal(t, int64(window-1), w.cancelled.Load())
		})
	}
}
