package main

import (
	"strconv"
	"sync"
)

// ledger checks that every accepted request's work ran exactly once, and
// that no shed request's work ran at all, in memory that stays flat however
// long the soak: it holds only the ids whose work has run and whose answer
// has not been read yet.
//
// The work calls ran(id) as it starts; the reader of results calls
// answered(id, accepted) for each response. An accepted request's work
// starts before its 200 is sent, so when the answer is read the id must be
// there exactly once; it is then forgotten. A shed id must not be there.
// Whatever is left once the service has shut down ran without an answer
// that accepted it, or ran again after one.
//
// A ledger is safe for concurrent use.
type ledger struct {
	mu      sync.Mutex
	pending map[uint64]int // guarded by mu: id -> runs not yet matched by an answer

	// Violations, guarded by mu.
	doubleRuns   int // accepted, and ran more than once by the answer
	missingRuns  int // accepted, and never ran by the answer
	shedRan      int // shed, yet its work ran
	unknownIDs   int // an answer or a run with no parsable id
	unmatched    int // known only at finish: runs never matched by an accepting answer
	lostOutcomes int // requests whose answer never came (a client error): not checked
}

func newLedger() *ledger { return &ledger{pending: map[uint64]int{}} }

// ran records a run of id's work.
func (l *ledger) ran(id string) {
	n, err := strconv.ParseUint(id, 10, 64)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.unknownIDs++
		return
	}
	l.pending[n]++
}

// answered checks id's runs against its answer: accepted (200) or shed
// (503).
func (l *ledger) answered(id uint64, accepted bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	runs := l.pending[id]
	delete(l.pending, id)
	switch {
	case accepted && runs == 0:
		l.missingRuns++
	case accepted && runs > 1:
		l.doubleRuns++
	case !accepted && runs > 0:
		l.shedRan++
	}
}

// lost records a request whose answer never came, so its outcome is
// unknown: its runs, if any, are forgotten rather than counted as
// unmatched.
func (l *ledger) lost(id uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.pending, id)
	l.lostOutcomes++
}

// badAnswer records an answer whose id could not be read.
func (l *ledger) badAnswer() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unknownIDs++
}

// finish moves every unmatched run into the violations and returns them;
// call it once the service has shut down and every answer was read.
func (l *ledger) finish() violations {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id, runs := range l.pending {
		l.unmatched += runs
		delete(l.pending, id)
	}
	return violations{
		DoubleRuns:   l.doubleRuns,
		MissingRuns:  l.missingRuns,
		ShedRan:      l.shedRan,
		UnknownIDs:   l.unknownIDs,
		Unmatched:    l.unmatched,
		LostOutcomes: l.lostOutcomes,
	}
}

// violations is what a ledger found; every field but LostOutcomes is a
// broken promise.
type violations struct {
	DoubleRuns   int `json:"double_runs"`
	MissingRuns  int `json:"missing_runs"`
	ShedRan      int `json:"shed_ran"`
	UnknownIDs   int `json:"unknown_ids"`
	Unmatched    int `json:"unmatched"`
	LostOutcomes int `json:"lost_outcomes"`
}

// broken is the number of broken promises.
func (v violations) broken() int {
	return v.DoubleRuns + v.MissingRuns + v.ShedRan + v.UnknownIDs + v.Unmatched
}
