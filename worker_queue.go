package ants

// workerQueue holds a pool's idle workers. Every method requires the pool's
// lock to be held.
//
// Workers are inserted with lastUsed set to the pool's current tick, so the
// queue is ordered by lastUsed from oldest to newest; refresh relies on that
// to find the expired ones by binary search.
type workerQueue[T any] interface {
	// len reports the number of idle workers.
	len() int
	// insert adds w as the newest idle worker.
	insert(w *goWorker[T])
	// detach removes and returns the worker to run the next task, or nil if
	// there is none: the newest for the stack, the oldest for the ring.
	detach() *goWorker[T]
	// refresh removes the workers whose lastUsed is before cutoff, oldest
	// first and at most limit of them, and returns them. The returned slice
	// is reused by the next call.
	refresh(cutoff int64, limit int) []*goWorker[T]
}

// newWorkerQueue returns the ring queue for PreAlloc pools (capacity must be
// positive) and the stack otherwise.
func newWorkerQueue[T any](preAlloc bool, capacity int) workerQueue[T] {
	if preAlloc {
		return newWorkerLoopQueue[T](capacity)
	}
	return new(workerStack[T])
}

// expiredPrefix returns how many of the first n workers, ordered by
// lastUsed, have lastUsed < cutoff; at(i) returns the i-th oldest.
func expiredPrefix[T any](n int, cutoff int64, at func(int) *goWorker[T]) int {
	if n <= 0 {
		return 0
	}
	lo, hi := 0, n
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if at(mid).lastUsed < cutoff {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}
