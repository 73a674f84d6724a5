package ants

// workerStack keeps idle workers LIFO: the most recently used worker, whose
// stack and cache lines are warmest, runs the next task, and the ones at the
// bottom are the ones that expire.
type workerStack[T any] struct {
	items  []*goWorker[T] // oldest first
	expiry []*goWorker[T] // scratch for refresh
}

func (s *workerStack[T]) len() int { return len(s.items) }

func (s *workerStack[T]) insert(w *goWorker[T]) {
	s.items = append(s.items, w)
}

func (s *workerStack[T]) detach() *goWorker[T] {
	n := len(s.items)
	if n == 0 {
		return nil
	}
	w := s.items[n-1]
	s.items[n-1] = nil // let the worker be collected once it exits
	s.items = s.items[:n-1]
	return w
}

func (s *workerStack[T]) refresh(cutoff int64, limit int) []*goWorker[T] {
	at := func(i int) *goWorker[T] { return s.items[i] }
	n := expiredPrefix(min(len(s.items), limit), cutoff, at)
	s.expiry = append(s.expiry[:0], s.items[:n]...)
	m := copy(s.items, s.items[n:])
	clear(s.items[m:])
	s.items = s.items[:m]
	return s.expiry
}
