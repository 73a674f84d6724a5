package ants

import (
	"fmt"
	"runtime/debug"
)

// PanicError is the error that a task's panic becomes wherever this package
// reports a task's outcome instead of leaving the panic to the pool: Wait of
// a Group or ResultGroup, a Future's Wait, and Wait of a Stream (a task's
// or a callback's panic) or of a Keyed. It carries the value passed to panic
// and the stack of the panicking goroutine. A pool's own tasks never yield
// one: their panics go to the PanicHandler.
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

// recoverPanic is the one place where a task's panic is caught. Deferred
// directly by a function with a named error result, as in
//
//	defer recoverPanic(&err)
//
// it stops a panic of that function, which then returns normally with *err
// set to a *PanicError, and its other results as they were when the panic
// began (zero, if it panicked in the call whose values it returns). It must
// be the deferred call itself: recover stops a panic only when called
// directly by the deferred function. It runs before the panicking frames
// are unwound, so the stack it records is the panicking goroutine's.
func recoverPanic(err *error) {
	if r := recover(); r != nil {
		*err = newPanicError(r)
	}
}

// newPanicError returns the *PanicError of a panic with value r, with the
// stack of the calling goroutine: called while the panic unwinds, that is
// the panicking stack.
func newPanicError(r any) *PanicError {
	return &PanicError{Value: r, Stack: debug.Stack()}
}

// callFunc calls fn and returns a *PanicError if it panics.
func callFunc(fn func()) (err error) {
	defer recoverPanic(&err)
	fn()
	return nil
}
