package ants

// taskQueue is the pool's FIFO task buffer (Options.QueueSize). It is a ring
// that starts empty and doubles as needed, so a large or unbounded QueueSize
// costs memory only for tasks actually buffered. Every method requires the
// pool's lock to be held.
type taskQueue[T any] struct {
	items []T
	head  int
	size  int
	limit int // maximum size; negative means unbounded, 0 disables the buffer
}

// push appends arg and reports whether there was room for it.
func (q *taskQueue[T]) push(arg T) bool {
	if q.limit >= 0 && q.size >= q.limit {
		return false
	}
	if q.size == len(q.items) {
		n := max(2*len(q.items), 8)
		if q.limit > 0 {
			n = min(n, q.limit)
		}
		items := make([]T, n)
		for i := 0; i < q.size; i++ {
			items[i] = q.items[(q.head+i)%len(q.items)]
		}
		q.items, q.head = items, 0
	}
	q.items[(q.head+q.size)%len(q.items)] = arg
	q.size++
	return true
}

// pop removes and returns the oldest task, if any.
func (q *taskQueue[T]) pop() (arg T, ok bool) {
	if q.size == 0 {
		return arg, false
	}
	var zero T
	arg, q.items[q.head] = q.items[q.head], zero
	q.head = (q.head + 1) % len(q.items)
	q.size--
	return arg, true
}
