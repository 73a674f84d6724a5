package ants

// waiter is a caller blocked in Submit or Invoke until the pool has room
// (waitUnlock, admission.go). It carries its task, so that the event that
// makes room can take the task directly: one goroutine wake-up (the
// caller's) instead of two. A Subpool's waiters carry, as their task, the
// channel that hands them a slot.
type waiter[T any] struct {
	arg        T
	stamp      taskStamp
	state      waiterState
	prev, next *waiter[T]
}

type waiterState uint8

const (
	waiterPending waiterState = iota // in the list, task not taken
	waiterTaken                      // a worker took the task: Submit returns nil
	waiterClosed                     // the pool was released: ErrPoolClosed
)

// waiterList is a FIFO of waiters, doubly linked so that a caller whose
// context ends can leave from anywhere in it, plus a free list that recycles
// waiters so that blocking allocates nothing in steady state. Every method
// requires the pool's lock to be held.
type waiterList[T any] struct {
	head, tail *waiter[T]
	len        int
	free       *waiter[T] // linked through next
}

// get returns a pending waiter carrying arg, stamped st, reused if possible.
func (l *waiterList[T]) get(arg T, st taskStamp) *waiter[T] {
	w := l.free
	if w != nil {
		l.free = w.next
		w.next = nil
	} else {
		w = new(waiter[T])
	}
	w.arg, w.stamp, w.state = arg, st, waiterPending
	return w
}

// put recycles w, which must not be in the list.
func (l *waiterList[T]) put(w *waiter[T]) {
	var zero T
	w.arg, w.prev, w.next = zero, nil, l.free
	l.free = w
}

// pushBack adds w at the tail.
func (l *waiterList[T]) pushBack(w *waiter[T]) {
	w.prev, w.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = w
	} else {
		l.head = w
	}
	l.tail = w
	l.len++
}

// remove takes w out of the list, wherever it is.
func (l *waiterList[T]) remove(w *waiter[T]) {
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		l.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		l.tail = w.prev
	}
	w.prev, w.next = nil, nil
	l.len--
}

// popFront removes and returns the oldest waiter, or nil if there is none.
func (l *waiterList[T]) popFront() *waiter[T] {
	w := l.head
	if w != nil {
		l.remove(w)
	}
	return w
}
