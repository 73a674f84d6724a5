package ants

import (
	"fmt"
	"runtime/debug"
)

// PanicError is the error a task's panic, or runtime.Goexit, becomes where a
// wrapper reports the task's outcome (Go, the groups, Stream, Keyed, Map,
// WorkerPool.Process), with the value passed to panic and the panicking
// goroutine's stack. The pool's PanicHandler does not see it, but a pool of
// this package counts the task in Stats.Panicked; the worker goes on after a
// panic and ends after a Goexit. A plain task's panic goes to the
// PanicHandler instead.
type PanicError struct {
	Value any
	Stack []byte
}

// Error returns the panic value and the stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("ants: task panicked: %v\n\n%s", e.Value, e.Stack)
}

// Unwrap returns the panic value if it is an error, for errors.Is and
// errors.As.
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
