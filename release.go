package ants

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Every pool kind (Pool and the function pools, the multi-pools, Subpool)
// is released and waited for the same way: ReleaseContext is a close
// followed by a wait on a channel closed when a count reaches zero, and
// ReleaseTimeout is ReleaseContext with a deadline. The helpers below are
// that one implementation; each kind supplies its close and its count.

// releaseAndWait is ReleaseContext: closePool closes the pool and reports
// whether this call did (false: it was closed already), and wait waits
// until the pool's work is over or ctx is done. It returns ErrPoolClosed if
// the pool was already closed, nil at once for a nil ctx, and otherwise
// what wait returns.
func releaseAndWait(ctx context.Context, closePool func() bool,
	wait func(context.Context) error) error {
	if !closePool() {
		return ErrPoolClosed
	}
	if ctx == nil {
		return nil
	}
	return wait(ctx)
}

// releaseWithin is ReleaseTimeout: it calls releaseContext with a context
// that ends after timeout, whose end waitZero reports as ErrTimeout.
func releaseWithin(timeout time.Duration, releaseContext func(context.Context) error) error {
	ctx, cancel := context.WithTimeoutCause(context.Background(), timeout, errReleaseTimeout)
	defer cancel()
	return releaseContext(ctx)
}

// errReleaseTimeout is the cause of releaseWithin's context, by which
// waitZero tells it from a context of the caller's, whose end it reports as
// ctx.Err(). It is never returned.
var errReleaseTimeout = errors.New("ants: release timeout")

// waitReleased is WaitReleased: it waits until closed reports true, on
// *released (made under mu, closed by the release, see closeZero), then
// for the drain with waitDrained, and looks again if the pool was
// rebooted meanwhile. A context's end is ctx.Err().
func waitReleased(ctx context.Context, mu sync.Locker, closed func() bool, released *chan struct{},
	waitDrained func(context.Context) error) error {
	for {
		mu.Lock()
		if !closed() {
			if *released == nil {
				*released = make(chan struct{})
			}
			ch := *released
			mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		mu.Unlock()
		if err := waitDrained(ctx); err != nil {
			return err
		}
		if closed() {
			return nil
		}
	}
}

// waitZero waits until drained reports true or ctx is done. mu guards
// what drained reads and *done; whoever makes drained true closes *done if
// it is not nil, and sets it to nil (see closeZero). waitZero makes the
// channel only when it has to wait, and calls drained with mu held.
//
// It returns nil once drained is true. If ctx ends first it returns
// ErrTimeout for releaseWithin's context and ctx.Err() for any other: the
// one place where a release's deadline becomes ErrTimeout.
func waitZero(ctx context.Context, mu sync.Locker, drained func() bool, done *chan struct{}) error {
	mu.Lock()
	if drained() {
		mu.Unlock()
		return nil
	}
	if *done == nil {
		*done = make(chan struct{})
	}
	ch := *done
	mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		if context.Cause(ctx) == errReleaseTimeout {
			return ErrTimeout
		}
		return ctx.Err()
	}
}

// closeZero wakes the waitZero calls waiting on *done, for a state that
// has just become drained. It requires the lock that guards *done held.
func closeZero(done *chan struct{}) {
	if *done != nil {
		close(*done)
		*done = nil
	}
}
