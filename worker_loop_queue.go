package ants

// workerLoopQueue keeps idle workers FIFO in a ring allocated up front, as
// ants does under PreAlloc: the pool never reallocates its idle list, at the
// price of reusing the coldest worker first.
//
// To keep a huge capacity from costing memory it may never use, the ring is
// allocated for min(capacity, preAllocLimit) workers and doubles, up to
// capacity, if more are ever idle at once.
type workerLoopQueue[T any] struct {
	ring[*goWorker[T]]                // the idle workers, oldest first
	limit              int            // the pool's capacity: the ring never holds more
	expiry             []*goWorker[T] // scratch for refresh
}

// preAllocLimit caps the up-front allocation at 8 MiB of pointers.
const preAllocLimit = 1 << 20

func newWorkerLoopQueue[T any](capacity int) *workerLoopQueue[T] {
	q := &workerLoopQueue[T]{limit: capacity}
	q.resize(min(capacity, preAllocLimit))
	return q
}

func (q *workerLoopQueue[T]) insert(w *goWorker[T]) {
	if q.size == len(q.items) {
		q.grow()
	}
	q.push(w)
}

// grow doubles the ring, up to limit. The pool never has more idle workers
// than its capacity, so a full ring at limit is a broken invariant.
func (q *workerLoopQueue[T]) grow() {
	n := min(max(2*len(q.items), 1), q.limit)
	if n <= len(q.items) {
		panic("ants: worker ring queue overflow")
	}
	q.resize(n)
}

func (q *workerLoopQueue[T]) detach() *goWorker[T] {
	w, _ := q.pop()
	return w
}

func (q *workerLoopQueue[T]) refresh(cutoff int64, limit int) []*goWorker[T] {
	n := expiredPrefix(min(q.size, limit), cutoff, q.at)
	q.expiry = q.expiry[:0]
	for range n {
		q.expiry = append(q.expiry, q.detach())
	}
	return q.expiry
}
