package ants

import (
	"context"
	"sync"
)

// Future is the handle of one task started by Go: it is done when the task
// has returned, panicked, been skipped, or been refused, and then holds its
// value and error. Wait and Done may be called any number of times, from any
// goroutine. A Future must not be copied after first use.
type Future[T any] struct {
	// finished counts one until the future is done; Wait waits on it, which
	// needs no channel.
	finished sync.WaitGroup

	// val and err are written once, before the future is marked done, and
	// read only after: by Wait after finished.Wait, or after Done's channel
	// is closed.
	val T
	err error

	// mu guards done and ch. The channel of Done is made on its first call
	// only, so that a future whose caller only calls Wait costs no channel.
	mu   sync.Mutex
	done bool          // the future is done
	ch   chan struct{} // Done's channel; nil until Done is called
}

// closedCh is the channel Done returns when it is first called on a future
// that is already done: one shared, closed channel instead of a new one.
var closedCh = func() chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}()

// Go runs fn on s and returns a Future for its result, as pond's Task does.
// It waits for capacity as SubmitContext does; if ctx is done first, or the
// pool refuses the task, the future is done at once with that error, and if
// ctx is done after the pool accepted the task but before fn starts, fn is
// skipped with ctx.Err(); a ctx done while fn runs is fn's to notice. A
// dropped task is done with the drop's error, and a panic or runtime.Goexit
// in fn with a *PanicError (see PanicError). A nil fn gives ErrNilTask; a
// nil ctx is context.Background(); a nil s panics.
func Go[T any](ctx context.Context, s Submitter, fn func() (T, error)) *Future[T] {
	mustSubmitter(s)
	f := newFuture[T]()
	if fn == nil {
		f.finish(*new(T), ErrNilTask)
		return f
	}
	ctx, err := liveContext(ctx)
	if err != nil { // skipped before the pool is asked: not its rejection
		f.finish(*new(T), err)
		return f
	}
	run := runOn(s)
	run.dropped(func(err error) { f.finish(*new(T), err) })
	if err := run.submitContext(s, ctx, func() {
		if err := ctx.Err(); err != nil {
			f.finish(*new(T), err)
			return
		}
		runWrapped(run, fn, f.finish)
	}); err != nil {
		f.finish(*new(T), err)
	}
	return f
}

// newFuture returns a future that is not done yet; finish makes it done.
func newFuture[T any]() *Future[T] {
	f := new(Future[T])
	f.finished.Add(1)
	return f
}

// Wait blocks until the future is done and returns the task's value and
// error, both as the task returned them; the value is zero if the task was
// refused, skipped or panicked.
func (f *Future[T]) Wait() (T, error) {
	f.finished.Wait()
	return f.val, f.err
}

// Done returns a channel closed when the future is done, for a select.
func (f *Future[T]) Done() <-chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ch == nil {
		if f.done {
			return closedCh
		}
		f.ch = make(chan struct{})
	}
	return f.ch
}

// finish stores the result and marks the future done. It is called exactly
// once.
func (f *Future[T]) finish(v T, err error) {
	f.val, f.err = v, err
	f.mu.Lock()
	f.done = true
	ch := f.ch
	f.mu.Unlock()
	if ch != nil {
		close(ch)
	}
	f.finished.Done()
}
