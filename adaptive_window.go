package ants

import (
	"math"
	"slices"
)

// adaptiveKept is how many run times a window keeps for its interquartile
// mean. Sorting 64 of them at a decision takes about a microsecond, under
// the pool's lock, once a Window.
const adaptiveKept = 64

// adaptiveWindow accumulates the samples of one decision window: their
// count and sum and the finish times of the first and last, exactly, and an
// evenly spread subset of their run times. Adding a sample costs a few
// comparisons and at most one store; when the subset is full, every other
// kept sample is dropped and the stride between kept samples doubles, so
// the subset stays spread over the whole window without allocating.
type adaptiveWindow struct {
	start       int64 // when the window began, ns
	n           int   // samples
	sum         int64 // their run times, ns
	first, last int64 // the earliest and the latest finish time, ns

	kept   int // run times in runs
	stride int // one sample in stride is kept
	skip   int // samples to pass before the next kept one
	runs   [adaptiveKept]int64
}

// adaptiveStats is what a decision reads from a window.
type adaptiveStats struct {
	run      int64   // interquartile mean of the run times, ns
	inFlight float64 // mean tasks in flight, by Little's law (see adaptiveHandoff)
}

// reset empties the window and starts it at now.
func (w *adaptiveWindow) reset(now int64) {
	w.start = now
	w.n, w.sum, w.first, w.last = 0, 0, 0, 0
	w.kept, w.stride, w.skip = 0, 1, 0
}

// add records a task that ran for run ns and finished at now. Finish times
// may come slightly out of order (a worker reads the clock before it takes
// the pool's lock), so first and last are the earliest and the latest.
func (w *adaptiveWindow) add(run, now int64) {
	if w.n == 0 {
		w.first, w.last = now, now
	}
	w.first = min(w.first, now)
	w.last = max(w.last, now)
	w.n++
	w.sum += run
	if w.skip > 0 {
		w.skip--
		return
	}
	if w.kept == len(w.runs) {
		for i := 0; i < len(w.runs)/2; i++ {
			w.runs[i] = w.runs[2*i]
		}
		w.kept = len(w.runs) / 2
		w.stride *= 2
	}
	w.runs[w.kept] = run
	w.kept++
	w.skip = w.stride - 1
}

// mean is the mean run time, 0 for an empty window.
func (w *adaptiveWindow) mean() int64 {
	if w.n == 0 {
		return 0
	}
	return w.sum / int64(w.n)
}

// stats summarises a window of at least two samples. It sorts the kept run
// times in place, so the window must be reset after it.
func (w *adaptiveWindow) stats() adaptiveStats {
	runs := w.runs[:w.kept]
	slices.Sort(runs)
	q := len(runs) / 4
	mid := runs[q : len(runs)-q]
	var sum int64
	for _, r := range mid {
		sum += r
	}
	s := adaptiveStats{run: sum / int64(len(mid)), inFlight: math.Inf(1)}
	if span := w.last - w.first; span > 0 {
		// Completions per ns between the first and the last, times the time
		// each task holds its slot. If they all finished at once, the pool
		// counts as full.
		s.inFlight = float64(w.n-1) / float64(span) * (float64(w.mean()) + adaptiveHandoff)
	}
	return s
}
