package ants

// taskQueue is the pool's FIFO ring of accepted tasks that no worker has
// taken yet: those on their way to a worker and the buffered ones
// (Options.QueueSize). It starts empty and doubles as needed, so a large or
// unbounded QueueSize costs memory only for tasks actually queued; the pool
// bounds its size (admitLocked), and the purge drops a large empty ring
// (shrink). Every method requires the pool's lock to be held.
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
