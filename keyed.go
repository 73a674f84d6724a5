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
// A busy key holds at most one of the pool's workers: its first task is
// submitted to the pool, and the worker that runs it runs the key's later
// tasks in turn, returning to the pool when the queue is empty; so queued
// tasks run even if the pool is released meanwhile, and an idle key costs
// nothing. That run is one task of the pool: it waits at the priority level
// of the task that starts it, takes one token of a rate limit, goes on
// through a Pause (which waits for it), and counts in Stats as one task,
// panicked if one of its tasks panicked; the Observer reports each task on
// its own.
//
// Keys are compared as a map compares them, except that all keys not equal
// to themselves (holding a NaN) are one key. A key whose dynamic type is not
// comparable makes SubmitContext panic before it takes anything.
//
// A task that panics does not stop its key: Wait reports the first panic as
// a *PanicError, and the PanicHandler does not see it. A task that calls
// runtime.Goexit ends its goroutine after running the rest of the key's
// queue, and is reported so too.
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

// NewKeyed returns a Keyed that runs its tasks on p; a nil p panics.
func NewKeyed[K comparable](p Submitter) *Keyed[K] {
	mustSubmitter(p)
	k := &Keyed[K]{pool: p, obs: observerOf(p), marks: marksPanics(p), keys: make(map[K]*keyQueue[K])}
	k.idle.L = &k.mu
	return k
}

// Submit is SubmitContext without a context: it waits as long as it must.
func (k *Keyed[K]) Submit(key K, task func()) error {
	return k.SubmitContext(context.Background(), key, task)
}

// SubmitContext runs task after the tasks of key submitted before it. For an
// idle key it submits to the pool as the pool's SubmitContext does,
// returning the pool's error if refused (other Submits for the key wait for
// the answer); for a busy key it queues task and returns nil at once, unless
// 4096 tasks are queued for the key: it then waits for room, or gives up
// with ctx.Err(). When it returns nil, task runs exactly once, unless the
// pool drops the key's runner (see Wait). A nil task returns ErrNilTask; a
// nil ctx is context.Background().
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
// first panic of a task, as a *PanicError, or the first drop's error, or
// nil; it keeps reporting it. A key's runner that the pool drops before it
// runs takes the key's queued tasks with it. A task submitted while Wait
// waits may or may not be waited for.
func (k *Keyed[K]) Wait() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	for k.pending > 0 {
		k.idle.Wait()
	}
	return k.err
}

// Keys returns the number of keys with a task queued, running or submitting.
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
