package ants

import "context"

// Submitter is a pool that groups (Group, ResultGroup), futures (Go),
// streams (Stream), keyed queues (Keyed) and sub-pools (Subpool) can run
// tasks on: *Pool, *MultiPool and *Subpool satisfy it, and so may a type of
// the caller's own. SubmitContext must run every task it accepts (returns
// nil for) exactly once, and refuse the others with an error.
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
// otherwise surface as a nil dereference inside the first Go.
func mustSubmitter(p Submitter) {
	if p == nil {
		panic("ants: nil Submitter")
	}
}
