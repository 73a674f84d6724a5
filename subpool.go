package ants

import (
	"context"
	"sync"
	"sync/atomic"
)

// Subpool limits how many of its tasks run at once on a parent pool that it
// shares with other work, as errgroup's SetLimit or pond's NewSubpool do.
// Its tasks run on the parent's workers; it starts no goroutine, and an idle
// one holds nothing.
//
// A task holds a slot from the moment its submit is admitted until it
// returns or panics. A submit that finds no free slot waits in a queue by
// priority level (highest first, without aging), then arrival. A finishing
// task, or one the parent refuses, hands its slot straight to the head of
// the queue, which then submits to the parent with its own context. The
// parent must run every task it accepts exactly once, as Pool and MultiPool
// do: a task it lost would keep its slot forever.
//
// A Subpool is safe for concurrent use by multiple goroutines. It must be
// created with NewSubpool and must not be copied after first use.
type Subpool struct {
	parent Submitter
	try    TrySubmitter // the parent, if it has TrySubmit; nil if not
	obs    Observer     // the parent's observer, if it is one of the package's Submitters
	marks  bool         // the parent is one of the package's pools (marksPanics)

	// mu guards the fields below up to the atomics.
	mu sync.Mutex

	// held counts the slots taken: by tasks the parent accepted that have
	// not finished, and by callers that took one and are handing their task
	// to the parent. held <= capacity unless a shrinking Tune left more.
	held int

	// waitq holds the callers waiting for a slot, by priority level, FIFO
	// within a level; a Subpool's levels do not age. Each caller's ready
	// channel is closed when it leaves the queue for good (state
	// waiterTaken: it now holds a slot; waiterClosed: Release). The queue is
	// non-empty only while no slot is free (held >= capacity).
	waitq waitQueue[struct{}]

	// drained, when non-nil, is closed when the sub-pool drains
	// (drainedLocked): what ReleaseContext and Pause wait on (waitZero,
	// closeZero).
	drained chan struct{}

	// released, when non-nil, is closed when the sub-pool is released:
	// what WaitReleased waits on while it is open.
	released chan struct{}

	// Counters for Stats. submitted counts a task when its slot is taken and
	// takes it back if the parent refuses it, so that completed + panicked
	// never exceed it, even for a moment.
	submitted, completed, panicked, dropped uint64

	// The gate (pace.go): while paused, or with no token, no caller takes a
	// slot, and callers wait as in a full sub-pool. paceArmed is set while a
	// timer is set to hand out slots when the next token is there, and
	// paceStop stops it; paceGen changes when the timer is disowned
	// (disownPaceLocked). timers counts the timers whose function will
	// still run: the one armed, and those disowned too late to stop.
	paused    bool
	bucket    tokenBucket
	paceArmed bool
	paceGen   uint64
	paceStop  func() bool
	timers    int

	// These are written only with mu held and may be read without it.
	capacity   atomic.Int64 // -1 means no limit of its own
	closed     atomic.Bool
	pausedFlag atomic.Bool // paused, for Paused()

	running  atomic.Int32  // tasks started and not finished; written without mu
	rejected atomic.Uint64 // written without mu
}

// NewSubpool returns a sub-pool that runs at most size of its tasks at once
// on parent, any Submitter (a Subpool too); size <= 0 means no limit of its
// own. It panics if parent is nil.
func NewSubpool(parent Submitter, size int) *Subpool {
	mustSubmitter(parent)
	s := &Subpool{parent: parent}
	s.waitq.init(false, false, 0)
	s.try, _ = parent.(TrySubmitter)
	s.obs = observerOf(parent)
	s.marks = marksPanics(parent)
	if size <= 0 {
		size = -1
	}
	s.capacity.Store(int64(size))
	return s
}

// Submit runs task on the parent once the sub-pool has a free slot, waiting
// for one as long as it takes, then for the parent as its SubmitContext
// does. It returns ErrPoolClosed after Release, the parent's error if it
// refuses the task, and ErrNilTask for a nil task; when it returns nil, task
// runs exactly once.
func (s *Subpool) Submit(task func()) error {
	return s.submit(context.Background(), task, false, false, nil)
}

// SubmitContext is Submit giving up with ctx.Err() when ctx is done, whether
// it waits for a slot or for the parent.
func (s *Subpool) SubmitContext(ctx context.Context, task func()) error {
	return s.submit(orBackground(ctx), task, false, false, nil)
}

// TrySubmit is Submit for a caller that waits neither for a slot nor for the
// parent: it returns ErrPoolOverload if no slot is free (or callers wait for
// one), if the parent's TrySubmit finds no room, or if the parent is not a
// TrySubmitter.
func (s *Subpool) TrySubmit(task func()) error {
	return s.submit(context.Background(), task, true, false, nil)
}

// submit admits task if a slot is free and nobody waits, and hands it to
// the parent; otherwise it fails (try) or waits (waitUnlock). A self task
// reports its own times to the observer (ownSubmitter); the others
// are timed from here, if the parent has an observer. x, if not nil, is
// what a wrapper does if the parent drops the task (ownSubmitter).
func (s *Subpool) submit(ctx context.Context, task func(), try, self bool, x *taskExtra) error {
	if task == nil {
		return rejectNil(&s.rejected, &s.closed)
	}
	run := wrapperRun{onPanic: panicPassed} // times task, unless it times itself
	if s.obs != nil && !self {
		run.obs, run.submitted = s.obs, nanotime()
	}
	if err := ctx.Err(); err != nil {
		s.rejected.Add(1)
		return err
	}
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		s.rejected.Add(1)
		return ErrPoolClosed
	}
	if s.waitq.blocked == 0 && s.slotFreeLocked() && (!try || s.try != nil) && s.gateOpenLocked() {
		s.held++
		s.submitted++
		s.mu.Unlock()
		return s.hand(ctx, task, try, run, x)
	}
	if try {
		s.mu.Unlock()
		s.rejected.Add(1)
		return ErrPoolOverload
	}
	return s.waitUnlock(ctx, task, run, x)
}

// waitUnlock queues the caller, unlocks s.mu, and waits until a slot is
// handed to it, Release, or ctx is done. It requires s.mu held and returns
// with it unlocked.
//
// Who owns the slot is decided under mu alone: a finishing task hands it
// over by moving the waiter out of the list (state waiterTaken), and a
// caller whose ctx is done leaves only if it is still in the list. So a slot
// handed over just as ctx ends is neither lost nor used twice: the caller
// finds it taken and gives it back (refused), which hands it to the next
// waiter.
func (s *Subpool) waitUnlock(ctx context.Context, task func(), run wrapperRun, x *taskExtra) error {
	// The level is read only on the way to waiting, and without s.mu: a
	// Context's Value is the user's code. The sub-pool may have changed
	// meanwhile, so the caller looks again.
	s.mu.Unlock()
	level, flow := levelOf(ctx), flowOf(ctx)
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		s.rejected.Add(1)
		return ErrPoolClosed
	}
	if s.waitq.blocked == 0 && s.slotFreeLocked() && s.gateOpenLocked() {
		s.held++
		s.submitted++
		s.mu.Unlock()
		return s.hand(ctx, task, false, run, x)
	}
	// A fresh channel per wait: the caller is about to park, which costs
	// far more than the allocation, and a closed channel needs no draining.
	w := &waiter[struct{}]{ready: make(chan struct{}), level: level, flow: flow}
	s.waitq.pushCaller(w)
	s.paceWaitingLocked() // with a free slot, it waits for a token
	s.mu.Unlock()

	select {
	case <-w.ready:
		// w.state was written before the close, and is not written again.
	case <-ctx.Done():
		s.mu.Lock()
		if w.state == waiterPending {
			s.waitq.removeCaller(w)
			s.mu.Unlock()
			s.rejected.Add(1)
			return ctx.Err()
		}
		s.mu.Unlock()
	}
	if w.state == waiterClosed {
		s.rejected.Add(1)
		return ErrPoolClosed
	}
	// The caller holds a slot now.
	if err := ctx.Err(); err != nil {
		s.refused()
		return err
	}
	return s.hand(ctx, task, false, run, x)
}

// hand submits task to the parent; the caller holds a slot, which the task
// gives back when it ends, or hand gives back at once if the parent refuses.
// run times the task (untimed if it times itself, see submit); with an
// observer it goes to the parent self-timed either way.
func (s *Subpool) hand(ctx context.Context, task func(), try bool, run wrapperRun, x *taskExtra) error {
	t := newSubTask(s, task)
	t.how = run
	via := wrapperRun{obs: s.obs}
	if s.drops() {
		via.x = s.dropWay(task, x)
	}
	var err error
	if try {
		err = via.trySubmit(s.try, ctx, t.run)
	} else {
		err = via.submitContext(s.parent, ctx, t.run)
	}
	if err != nil {
		t.s, t.task, t.how = nil, nil, wrapperRun{}
		subTasks.Put(t)
		s.refused()
	}
	return err
}

// dropWay returns what becomes of a task of the sub-pool that its parent
// drops before it runs: the sub-pool counts it in Dropped and gives its
// slot back, then x, the wrapper's way, if any, is followed; a plain task
// of the sub-pool goes to the parent's DropHandler as the user's task.
func (s *Subpool) dropWay(task func(), x *taskExtra) *taskExtra {
	way := &taskExtra{plain: task}
	if x != nil {
		way.plain = x.plain
	}
	way.onDrop = func(err error) {
		s.mu.Lock()
		s.dropped++
		s.putSlotLocked()
		s.mu.Unlock()
		if x != nil && x.onDrop != nil {
			x.onDrop(err)
		}
	}
	return way
}

func (s *Subpool) drops() bool { return dropsOf(s.parent) }

// refused gives back the slot of a task that will not run.
func (s *Subpool) refused() {
	s.rejected.Add(1)
	s.mu.Lock()
	s.submitted--
	s.bucket.refund()
	s.putSlotLocked()
	s.mu.Unlock()
}

// finished gives back the slot of a task that returned (ok) or panicked.
func (s *Subpool) finished(ok bool) {
	// Leave Running before giving the slot away, so that Running never
	// exceeds the slots taken.
	s.running.Add(-1)
	s.mu.Lock()
	if ok {
		s.completed++
	} else {
		s.panicked++
	}
	s.putSlotLocked()
	s.mu.Unlock()
}

// putSlotLocked gives back one slot: to the longest-waiting caller if the
// capacity allows (held is then unchanged), or else to the sub-pool. It
// requires s.mu held.
func (s *Subpool) putSlotLocked() {
	s.held--
	s.admitLocked()
	s.noteDrainedLocked()
}

// drainedLocked reports whether the sub-pool is drained, the state
// ReleaseContext and Pause wait for: no task holds a slot, and no timer of
// the sub-pool is set or firing. It requires s.mu held.
func (s *Subpool) drainedLocked() bool { return s.held == 0 && s.timers == 0 }

// noteDrainedLocked wakes the calls waiting for the sub-pool to drain, if
// it is drained. It requires s.mu held.
func (s *Subpool) noteDrainedLocked() {
	if s.drained != nil && s.drainedLocked() {
		closeZero(&s.drained)
	}
}

// grantLocked hands a slot, already counted in held, to the first caller
// of the highest level waiting, of the flow whose turn it is. It requires
// s.mu held and a caller waiting.
func (s *Subpool) grantLocked() {
	_, _, w := s.waitq.popSlot(0)
	w.state = waiterTaken
	s.submitted++
	close(w.ready)
}

// subTask is the parent's task for one sub-pool task. It is recycled
// through subTasks, with run bound once to its exec method, so that handing
// a task to the parent allocates nothing in steady state; sync.Pool rather
// than a list on the sub-pool, so that an idle sub-pool keeps nothing.
type subTask struct {
	s    *Subpool
	task func()
	how  wrapperRun // times task for the observer, if it is not self-timed
	run  func()     // the exec method value
}

var subTasks sync.Pool

// newSubTask returns a subTask for task of s, recycled if possible.
func newSubTask(s *Subpool, task func()) *subTask {
	t, _ := subTasks.Get().(*subTask)
	if t == nil {
		t = new(subTask)
		t.run = t.exec
	}
	t.s, t.task = s, task
	return t
}

// exec runs on a worker of the parent. runWrapped gives the slot back
// (finished) when task returns, and when it panics, before the panic goes
// on to the parent (panicPassed), whose PanicHandler sees it as usual; a
// wrapper's panicMark goes on the same way. A task that calls
// runtime.Goexit frees its slot the same way and counts as panicked, as in
// a pool.
func (t *subTask) exec() {
	s, task, run := t.s, t.task, t.how
	t.s, t.task, t.how = nil, nil, wrapperRun{}
	subTasks.Put(t) // the parent runs its task once: t is free again
	s.running.Add(1)
	runWrapped(run, func() (struct{}, error) { task(); return struct{}{}, nil },
		func(_ struct{}, err error) { s.finished(err == nil) })
}
