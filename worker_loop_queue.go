package ants

// workerLoopQueue keeps idle workers FIFO in a ring allocated up front, as
// ants does under PreAlloc: the pool never reallocates its idle list, at the
// price of reusing the coldest worker first.
//
// To keep a huge capacity from costing memory it may never use, the ring is
// allocated for min(capacity, preAllocLimit) workers and doubles, up to
// capacity, if more are ever idle at once.
type workerLoopQueue[T any] struct {
	items  []*goWorker[T]
	head   int // index of the oldest worker
	size   int // number of workers in the ring
	limit  int // the pool's capacity: the ring never holds more
	expiry []*goWorker[T]
}

// preAllocLimit caps the up-front allocation at 8 MiB of pointers.
const preAllocLimit = 1 << 20

func newWorkerLoopQueue[T any](capacity int) *workerLoopQueue[T] {
	return &workerLoopQueue[T]{
		items: make([]*goWorker[T], min(capacity, preAllocLimit)),
		limit: capacity,
	}
}

func (q *workerLoopQueue[T]) len() int { return q.size }

// at returns the i-th oldest worker.
func (q *workerLoopQueue[T]) at(i int) *goWorker[T] {
	return q.items[(q.head+i)%len(q.items)]
}

func (q *workerLoopQueue[T]) insert(w *goWorker[T]) {
	if q.size == len(q.items) {
		q.grow()
	}
	q.items[(q.head+q.size)%len(q.items)] = w
	q.size++
}

// grow doubles the ring, up to limit. The pool never has more idle workers
// than its capacity, so a full ring at limit is a broken invariant.
func (q *workerLoopQueue[T]) grow() {
	n := min(max(2*len(q.items), 1), q.limit)
	if n <= len(q.items) {
		panic("ants: worker ring queue overflow")
	}
	items := make([]*goWorker[T], n)
	for i := 0; i < q.size; i++ {
		items[i] = q.at(i)
	}
	q.items, q.head = items, 0
}

func (q *workerLoopQueue[T]) detach() *goWorker[T] {
	if q.size == 0 {
		return nil
	}
	w := q.items[q.head]
	q.items[q.head] = nil
	q.head = (q.head + 1) % len(q.items)
	q.size--
	return w
}

func (q *workerLoopQueue[T]) refresh(cutoff int64, limit int) []*goWorker[T] {
	n := expiredPrefix(min(q.size, limit), cutoff, q.at)
	q.expiry = q.expiry[:0]
	for i := 0; i < n; i++ {
		q.expiry = append(q.expiry, q.detach())
	}
	return q.expiry
}
