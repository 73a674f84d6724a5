package ants

import "context"

// Submitter is what Go, the groups, Stream, Map, Keyed and Subpool run tasks
// on: *Pool, *MultiPool, *Subpool, or a type of the program's own, whose
// SubmitContext must run every task it accepts exactly once and refuse the
// others with an error. A nil Submitter given to them (a nil *Pool too, or
// one its constructor did not make) panics with "ants: nil Submitter". A
// SubmitContext that panics or calls runtime.Goexit instead of answering
// passes it on to the wrapper's caller, the task taken as refused.
type Submitter interface {
	SubmitContext(ctx context.Context, task func()) error
}

// TrySubmitter is a Submitter that can take a task only if it has room right
// now: TrySubmit never waits, and returns ErrPoolOverload for want of room.
// Group.TryGo, ResultGroup.TryGo and Subpool.TrySubmit use it, and take no
// task on a Submitter without it. *Pool, *MultiPool and *Subpool satisfy it.
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
