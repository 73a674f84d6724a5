package ants

// taskQueue is the package's one FIFO ring of tasks. It starts empty and
// doubles as needed, so a large or unbounded bound costs memory only for
// the tasks actually queued; its owner bounds its size, and shrink drops a
// large empty ring. It holds:
//
//   - a pool's accepted tasks that no worker has taken yet: those on their
//     way to a worker and the buffered ones (Options.QueueSize), bounded by
//     admitLocked; the purge calls shrink;
//   - a Keyed key's tasks queued behind its running one, bounded by
//     keyedQueueLimit; a recycled key state drops a ring larger than
//     keyedQueueKeep.
//
// It is not safe for concurrent use: every method requires its owner's lock
// held (the pool's lock, the Keyed's mu).
type taskQueue[T any] struct {
	items []T
	head  int
	size  int
}

// push appends arg.
func (q *taskQueue[T]) push(arg T) {
	if q.size == len(q.items) {
		q.grow()
	}
	i := q.head + q.size
	if i >= len(q.items) {
		i -= len(q.items)
	}
	q.items[i] = arg
	q.size++
}

func (q *taskQueue[T]) grow() {
	items := make([]T, max(2*len(q.items), 8))
	n := copy(items, q.items[q.head:])
	copy(items[n:], q.items[:q.head])
	q.items, q.head = items, 0
}

// pop removes and returns the oldest task, if any.
func (q *taskQueue[T]) pop() (arg T, ok bool) {
	if q.size == 0 {
		return arg, false
	}
	var zero T
	arg, q.items[q.head] = q.items[q.head], zero
	q.head++
	if q.head == len(q.items) {
		q.head = 0
	}
	q.size--
	return arg, true
}

// shrinkLimit is the ring length above which an empty ring is dropped at a
// purge pass, so that a burst that queued many tasks does not pin their
// ring for the life of the pool.
const shrinkLimit = 1024

// shrink drops the ring's storage if it is empty and large.
func (q *taskQueue[T]) shrink() {
	if q.size == 0 && len(q.items) > shrinkLimit {
		q.items, q.head = nil, 0
	}
}
