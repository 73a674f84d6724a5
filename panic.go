package ants

import (
	"fmt"
	"runtime/debug"
)

// PanicError is the error that a task's panic becomes wherever this package
// reports a task's outcome instead of leaving the panic to the pool: Wait of
// a Group or ResultGroup, a Future's Wait, Wait of a Stream (a task's or a
// callback's panic) or of a Keyed, and a WorkerPool's Process. It carries
// the value passed to panic and the stack of the panicking goroutine. A
// pool's own tasks never yield one: their panics go to the PanicHandler.
// Either way, a pool of this package that ran the task counts it in
// Stats.Panicked.
type PanicError struct {
	Value any
	Stack []byte
}

// Error returns the panic value and the stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("ants: task panicked: %v\n\n%s", e.Value, e.Stack)
}

// Unwrap returns the panic value if it is an error, so that errors.Is and
// errors.As see through a panic(err).
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// A task's panic is caught in two places only: by the worker that runs it
// (goWorker.run, worker.go), for the pools' own tasks, and by runWrapped
// (wrapper.go), for the tasks whose panic becomes a PanicError.

// newPanicError returns the *PanicError of a panic with value r, with the
// stack of the calling goroutine: called while the panic unwinds, that is
// the panicking stack.
func newPanicError(r any) *PanicError {
	return &PanicError{Value: r, Stack: debug.Stack()}
}
