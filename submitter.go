package ants

import "context"

// Submitter is a pool that groups (Group, ResultGroup), futures (Go),
// streams (Stream), keyed queues (Keyed) and sub-pools (Subpool) can run
// tasks on: *Pool, *MultiPool and *Subpool satisfy it, and so may a type of
// the caller's own. SubmitContext must run every task it accepts (returns
// nil for) exactly once, and refuse the others with an error.
//
// Where a Submitter is given (Go, NewGroup, NewStream, NewKeyed,
// NewSubpool...), a nil one panics with "ants: nil Submitter", and so does
// a nil *Pool, *MultiPool or *Subpool, or one that its constructor did not
// make. A SubmitContext of the caller's own that panics or calls
// runtime.Goexit instead of answering is let go on to the caller of Go,
// Group.Go, Stream.Go or Keyed.Submit; the wrapper takes the task as
// refused, so that its Wait does not wait for it.
type Submitter interface {
	SubmitContext(ctx context.Context, task func()) error
}

// TrySubmitter is a Submitter that can also take a task only if it has room
// for it right now: TrySubmit never waits, and returns ErrPoolOverload when
// there is no room, or another error if the task is refused for another
// reason. Group.TryGo, ResultGroup.TryGo and Subpool.TrySubmit call it on a
// Submitter that has it; on one that does not they take no task. *Pool,
// *MultiPool and *Subpool satisfy it.
type TrySubmitter interface {
	Submitter
	TrySubmit(task func()) error
}

// mustSubmitter panics on a nil Submitter, a programming error that would
// otherwise surface as a nil dereference inside the first Go. A nil *Pool,
// *MultiPool or *Subpool is nil too, and so is one that its constructor did
// not make (a zero Pool, MultiPool or Subpool): none can take a task. A nil
// pointer of a type of the user's own is not: its methods may work on a nil
// receiver.
func mustSubmitter(p Submitter) {
	if p == nil || unusable(p) {
		panic("ants: nil Submitter")
	}
}

// unusable reports whether p is one of the package's Submitters that no
// constructor made: a typed nil, or a zero value.
func unusable(p Submitter) bool {
	switch p := p.(type) {
	case *Pool:
		return p == nil || p.poolCore == nil
	case *MultiPool:
		return p == nil || p.multiCore == nil
	case *Subpool:
		return p == nil || p.parent == nil
	}
	return false
}
