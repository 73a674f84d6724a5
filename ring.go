package ants

// ring is the package's one FIFO ring buffer. It holds a pool's accepted
// tasks and their stamps (poolCore.tasks, poolCore.stamps), the idle workers
// of a PreAlloc pool (workerLoopQueue) and a Keyed key's queued tasks.
//
// The zero value is an empty ring with no storage. push doubles the storage
// when the ring is full, so a large or unbounded bound costs memory only for
// what is actually queued; the owner bounds the size (admitLocked,
// workerLoopQueue's limit, keyedQueueLimit), and may drop a large empty ring
// with shrink. A slot that holds no value holds T's zero value, so that a
// popped task or worker can be collected.
//
// It is not safe for concurrent use: every method requires its owner's lock
// held (the pool's lock, a Keyed's mu).
type ring[T any] struct {
	items []T // the storage
	head  int // index of the oldest value
	size  int // number of values held
}

// len returns the number of values held.
func (r *ring[T]) len() int { return r.size }

// at returns the i-th oldest value, for 0 <= i < size.
func (r *ring[T]) at(i int) T {
	i += r.head
	if i >= len(r.items) {
		i -= len(r.items)
	}
	return r.items[i]
}

// push appends v, doubling the storage first if the ring is full.
func (r *ring[T]) push(v T) {
	if r.size == len(r.items) {
		r.resize(max(2*len(r.items), 8))
	}
	i := r.head + r.size
	if i >= len(r.items) {
		i -= len(r.items)
	}
	r.items[i] = v
	r.size++
}

// pop removes and returns the oldest value, if any.
func (r *ring[T]) pop() (v T, ok bool) {
	if r.size == 0 {
		return v, false
	}
	var zero T
	v, r.items[r.head] = r.items[r.head], zero
	r.head++
	if r.head == len(r.items) {
		r.head = 0
	}
	r.size--
	return v, true
}

// popBack removes and returns the newest value, if any.
func (r *ring[T]) popBack() (v T, ok bool) {
	if r.size == 0 {
		return v, false
	}
	i := r.head + r.size - 1
	if i >= len(r.items) {
		i -= len(r.items)
	}
	var zero T
	v, r.items[i] = r.items[i], zero
	r.size--
	return v, true
}

// resize moves the values, oldest first, to new storage of n slots; n must
// be at least size.
func (r *ring[T]) resize(n int) {
	items := make([]T, n)
	k := copy(items, r.items[r.head:min(r.head+r.size, len(r.items))])
	copy(items[k:r.size], r.items[:r.size-k])
	r.items, r.head = items, 0
}

// shrinkLimit is the ring length above which an empty ring is dropped at a
// purge pass, so that a burst that queued many tasks does not pin their
// ring for the life of the pool.
const shrinkLimit = 1024

// shrink drops the storage if the ring is empty and larger than
// shrinkLimit.
func (r *ring[T]) shrink() {
	if r.size == 0 && len(r.items) > shrinkLimit {
		r.items, r.head = nil, 0
	}
}
