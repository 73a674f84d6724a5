package ants

import (
	"context"
	"sync"
)

// keyedQueueLimit bounds the tasks queued behind the running one of a key.
// A Submit that would queue more waits for the key's runner to take one.
// Per key rather than in total, so that one hot key cannot make the Submits
// of the others wait; memory is then at most this many tasks times the
// number of busy keys, and a key is busy only after p accepted its runner.
// 4096 tasks (64 KiB of queue per key) absorb bursts without letting a
// stalled key hoard millions of them.
const keyedQueueLimit = 4096

// keyedQueueKeep is the largest queue kept with a keyQueue that is
// recycled: a key that needed more gives it back to the garbage collector.
const keyedQueueKeep = 16

// keyedFreeMax bounds the keyQueues kept for reuse. Keys that are busy at the
// same time are usually no more than the pool's workers; beyond this many a
// burst of keys that go idle leaves its queues to the garbage collector.
const keyedFreeMax = 256

// keyedMapReset: when the last busy key goes idle and the map of keys has
// held more than this many, it is replaced by a new one, since a Go map
// keeps its buckets after its entries are deleted.
const keyedMapReset = 1024

// Keyed runs tasks on a pool so that the tasks of one key (a connection, a
// user, a partition) run one at a time, in the order their Submit calls
// returned, while tasks of different keys run concurrently.
//
// A key with a task queued or running holds at most one of the pool's
// workers: its first task is submitted to the pool, and the worker that runs
// it then runs the key's later tasks in turn, returning to the pool when the
// key's queue is empty. So a key that is busy without pause keeps its worker
// as long as that lasts, and the tasks queued for a key run even if the pool
// is released in the meantime. A key that is idle costs nothing: its state is
// dropped when its last task ends.
//
// The run of a key's tasks on one worker is one task of the pool, in its
// Stats: it counts as panicked if one of the tasks panicked (the Observer
// reports each task on its own). It waits for a worker at the priority
// level of the context of the task that starts it (SubmitContext); a key's
// later tasks join its queue and run in submit order, whatever their
// levels: the order of a key wins.
//
// So too for pace and pause. On a pool with a rate limit (WithRateLimit,
// SetRateLimit) a key's runner takes one token when it starts, not one per
// task: the key's later tasks that it runs in turn take none. A runner
// that is running when the pool is paused goes on with the key's queued
// tasks, those queued during the pause too, and the pool's Pause waits for
// them; a key that is not running starts only after Resume.
//
// # Keys
//
// Keys are compared with ==, as a map compares them, with one difference: a
// key that is not equal to itself (a floating-point NaN, or a struct, array,
// complex number or interface value holding one) would be lost in a map,
// since no lookup finds it again. Here all such keys are one key, the NaN
// key: their tasks run one at a time, in the order of their Submits, and
// the key is forgotten once idle, as any other. A key holding a NaN is the
// NaN key whatever else it holds: {1, NaN} and {2, NaN} are the same key.
// A key whose dynamic type is not comparable (a slice in a Keyed[any])
// makes SubmitContext panic, as a map would, before it takes anything: the
// Keyed goes on as if the call had not been made.
//
// # Panics and runtime.Goexit
//
// A task that panics does not stop its key: Wait reports the first panic as
// a *PanicError, and the key's later tasks run. A task that calls
// runtime.Goexit (t.FailNow does) ends the goroutine it runs on, as Goexit
// does, but first the goroutine runs the rest of the key's queue, in order,
// so that every task accepted runs; Wait reports it as a *PanicError. The
// pool's PanicHandler sees neither; a pool of this package counts the
// key's run as one task that panicked in Stats.Panicked, and its worker
// goes on after a panic and ends after a Goexit.
//
// A Keyed is created by NewKeyed. It is safe for concurrent use by multiple
// goroutines and must not be copied after first use. A task that submits to
// its own key, with the key's queue full, waits for itself.
type Keyed[K comparable] struct {
	pool  Submitter
	obs   Observer // the pool's, if it is one of the package's Submitters
	marks bool     // a runner tells the pool of its tasks' panics (marksPanics)

	// mu guards every field below, and the fields of the keyQueues in keys.
	mu sync.Mutex
	// keys holds the keys with a task waiting for the pool, queued or
	// running; absent means idle. A key that is not equal to itself (a NaN,
	// or a value holding one) is never in it, since a map cannot find such
	// a key again: all of those are one key, whose queue is nan.
	keys map[K]*keyQueue[K]
	nan  *keyQueue[K] // the queue of the NaN key, if it is busy
	// peak is the largest len(keys) since keys was made.
	peak int
	// pending counts the tasks accepted (by Submit, or being submitted to
	// the pool for an idle key) that have not finished.
	pending int
	// idle is signalled (Broadcast) when pending drops to zero; L is &mu.
	idle sync.Cond
	err  error // the first panic of a task
	// free holds keyQueues of keys that went idle, for reuse by the next
	// idle key: with them, and their runner closures, a Submit to an idle
	// key allocates nothing once warmed up.
	free []*keyQueue[K]
}

// keyQueue is the state of a busy key. Its fields are guarded by the Keyed's
// mu.
type keyQueue[K comparable] struct {
	key   K
	first keyedTask       // the task the runner starts with
	tasks ring[keyedTask] // queued after the running task
	// starting is set while the key's first task waits for the pool: later
	// Submits for the key wait too, since if the pool refuses it there is
	// no runner to run what they would queue.
	starting bool
	// gen changes each time the key goes idle (and the keyQueue is dropped
	// or recycled), so that the Submit that started the key can tell
	// whether the queue it holds is still that key's.
	gen uint64
	// wake, when not nil, is closed to wake the Submits waiting for this key
	// to start or for room in its queue; they then look the key up afresh.
	wake chan struct{}
	run  func() // runs the key's tasks on a worker; made once per keyQueue
}

// keyedTask is one task given to Submit.
type keyedTask struct {
	fn func()
	at int64 // nanotime of its Submit, if the pool has an observer
}

// NewKeyed returns a Keyed that runs its tasks on p. It panics if p is nil
// (see Submitter).
func NewKeyed[K comparable](p Submitter) *Keyed[K] {
	mustSubmitter(p)
	k := &Keyed[K]{pool: p, obs: observerOf(p), marks: marksPanics(p), keys: make(map[K]*keyQueue[K])}
	k.idle.L = &k.mu
	return k
}

// Submit runs task after the tasks of key submitted before it, one at a
// time; see SubmitContext. It waits as long as it must.
func (k *Keyed[K]) Submit(key K, task func()) error {
	return k.SubmitContext(context.Background(), key, task)
}

// SubmitContext runs task after the tasks of key submitted before it.
//
// For a key with nothing queued or running it submits to the pool, waiting
// for capacity as the pool's SubmitContext does; if the pool refuses, it
// returns the pool's error and task never runs. Other Submits for the key
// wait until the pool has answered. For a busy key it queues task and
// returns nil at once, unless 4096 tasks are already queued for the key: it
// then waits for room, and gives up with ctx.Err() when ctx is done.
//
// When it returns nil, task runs exactly once, even if the pool is released
// in the meantime; a panic in task, or runtime.Goexit, is reported by Wait
// and does not stop the key's later tasks. A ctx already done returns
// ctx.Err() at once, as the pool's SubmitContext does; a nil task returns
// ErrNilTask, and a nil ctx is taken as context.Background(). A key whose
// dynamic type is not comparable panics, and a NaN key is the one NaN key
// (see Keyed).
//
// Cost: beside the pool's own, no allocation once warmed up, except to grow
// a key's queue or the map of keys.
func (k *Keyed[K]) SubmitContext(ctx context.Context, key K, task func()) error {
	if task == nil {
		return ErrNilTask
	}
	ctx, err := liveContext(ctx)
	if err != nil {
		return err
	}
	// Each task is timed on its own, from this call: its time in the key's
	// queue is in its wait; the key's runner is not reported as a task.
	t := keyedTask{fn: task}
	if k.obs != nil {
		t.at = nanotime()
	}
	// A key is compared with itself before anything is locked or counted:
	// a NaN key is not equal to itself, and a key whose dynamic type is not
	// comparable panics here, as a map would, leaving the Keyed as it was.
	nan := key != key
	k.mu.Lock()
	for {
		q := k.keys[key]
		if nan {
			q = k.nan
		}
		if q == nil {
			return k.startUnlock(ctx, key, nan, t)
		}
		if !q.starting && q.tasks.size < keyedQueueLimit {
			q.tasks.push(t)
			k.pending++
			k.mu.Unlock()
			return nil
		}
		if q.wake == nil {
			q.wake = make(chan struct{})
		}
		wake := q.wake
		k.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
		k.mu.Lock()
	}
}

// startUnlock makes key busy with task as its first task, unlocks k.mu and
// submits the key's runner to the pool; nan tells that key is the NaN key.
// It requires k.mu held and returns with it unlocked.
func (k *Keyed[K]) startUnlock(ctx context.Context, key K, nan bool, task keyedTask) error {
	q := k.newQueue()
	q.key, q.first, q.starting = key, task, true
	gen := q.gen
	if nan {
		k.nan = q
	} else {
		k.keys[key] = q
		k.peak = max(k.peak, len(k.keys))
	}
	k.pending++
	k.mu.Unlock()

	run := wrapperRun{obs: k.obs, drops: dropsOf(k.pool)}
	run.dropped(func(err error) { k.dropped(q, err) })
	err := submitGuarded(func() error {
		return run.submitContext(k.pool, ctx, q.run)
	}, func(err error) { k.refused(q, gen) })

	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil {
		// Nothing was queued behind task: Submits for a starting key wait.
		k.drop(q)
		k.done()
		return err
	}
	if q.gen == gen {
		// Still this key's: let the waiting Submits queue behind task. (If
		// the runner already ran task and found nothing queued, the key went
		// idle and q was recycled; its waiters were woken then.)
		q.starting = false
		q.notify()
	}
	return nil
}

// runKey runs the tasks of q's key, first to last, on the worker it was
// submitted to, and makes the key idle when none is left. A task's panic
// does not stop the later ones: the runner tells the pool of it once, as it
// ends (a pool counts the runner as one task that panicked).
func (k *Keyed[K]) runKey(q *keyQueue[K]) {
	// q.first was set before q.run was submitted, and is cleared only
	// after the key goes idle.
	if k.runFrom(q, q.first) && k.marks {
		markPanicked()
	}
}

// runFrom runs task, then the tasks queued behind it, until the key's queue
// is empty and the key idle, and reports whether one of them panicked.
//
// A task that calls runtime.Goexit (or an observer that panics) ends the
// goroutine, and runFrom does not return; the key's later tasks then run on
// the way out (runUnwinding's unwinding), in order, on the same goroutine,
// so that none is stranded. The pool then counts the runner as a task that
// called runtime.Goexit (or panicked).
func (k *Keyed[K]) runFrom(q *keyQueue[K], task keyedTask) (panicked bool) {
	for more := true; more; {
		fn := task.fn
		run := wrapperRun{obs: k.obs, submitted: task.at}
		if runUnwinding(run, func() (struct{}, error) { fn(); return struct{}{}, nil },
			func(_ struct{}, err error) { task, more = k.next(q, err) },
			func() {
				if more {
					k.runFrom(q, task)
				}
			}) {
			panicked = true
		}
	}
	return panicked
}

// next counts a task of q's key as finished, with err its outcome, and
// returns the key's next task; if there is none (more is false), the key
// is idle.
func (k *Keyed[K]) next(q *keyQueue[K], err error) (task keyedTask, more bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if err != nil && k.err == nil {
		k.err = err
	}
	k.done()
	if q.tasks.size == 0 {
		k.drop(q)
		return keyedTask{}, false
	}
	if q.tasks.size == keyedQueueLimit {
		q.notify() // room for the Submits waiting on a full queue
	}
	task, _ = q.tasks.pop()
	return task, true
}

// dropped ends the tasks of q's key, whose runner the pool dropped before
// it ran (overload control): none of them runs, each counts as finished,
// and Wait reports err if it is the first error.
func (k *Keyed[K]) dropped(q *keyQueue[K], err error) {
	for more := true; more; {
		_, more = k.next(q, err)
	}
}

// refused undoes the start of q's key, generation gen, whose runner the
// pool's SubmitContext panicked on instead of answering (submitGuarded):
// unless the runner ran, the key is idle again and its task forgotten.
func (k *Keyed[K]) refused(q *keyQueue[K], gen uint64) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if q.gen == gen {
		k.drop(q)
		k.done()
	}
}

// Wait waits until every task submitted so far has run, and returns the
// first panic of a task, as a *PanicError, or the first drop, or nil. A
// key's runner that the pool drops before it runs (WithQueueTimeout,
// WithQueueTarget) takes the key's queued tasks with it: none of them runs,
// and the drop's error (ErrQueueTimeout, or the context's) is Wait's if it
// is the first. It does not stop new
// Submits; a task submitted while Wait waits may or may not be waited for.
// Wait keeps reporting the first panic.
func (k *Keyed[K]) Wait() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	for k.pending > 0 {
		k.idle.Wait()
	}
	return k.err
}

// Keys returns the number of keys with a task queued or running (or waiting
// for the pool's capacity).
func (k *Keyed[K]) Keys() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.nan != nil {
		return len(k.keys) + 1
	}
	return len(k.keys)
}

// done counts a task as finished. It requires k.mu held.
func (k *Keyed[K]) done() {
	k.pending--
	if k.pending == 0 {
		k.idle.Broadcast()
	}
}

// newQueue returns an empty keyQueue, recycled if one is free. It requires
// k.mu held.
func (k *Keyed[K]) newQueue() *keyQueue[K] {
	if n := len(k.free); n > 0 {
		q := k.free[n-1]
		k.free[n-1] = nil
		k.free = k.free[:n-1]
		return q
	}
	q := new(keyQueue[K])
	q.run = func() { k.runKey(q) }
	return q
}

// drop makes q's key idle: it removes the key, wakes the Submits waiting on
// q, which then find the key idle, and keeps q for reuse. It requires k.mu
// held and q's queue empty.
func (k *Keyed[K]) drop(q *keyQueue[K]) {
	if q == k.nan {
		k.nan = nil
	} else {
		delete(k.keys, q.key)
	}
	if len(k.keys) == 0 && k.peak > keyedMapReset {
		k.keys, k.peak = make(map[K]*keyQueue[K]), 0
	}
	q.notify()
	q.gen++
	if len(k.free) == keyedFreeMax {
		return
	}
	var zero K
	q.key, q.first, q.starting = zero, keyedTask{}, false
	if len(q.tasks.items) > keyedQueueKeep {
		q.tasks = ring[keyedTask]{}
	}
	k.free = append(k.free, q)
}

// notify wakes every Submit waiting on q. It requires the Keyed's mu held.
func (q *keyQueue[K]) notify() {
	if q.wake != nil {
		close(q.wake)
		q.wake = nil
	}
}
