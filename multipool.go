package ants

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// LoadBalancingStrategy chooses the member pool of a MultiPool for each
// task.
type LoadBalancingStrategy int

const (
	// RoundRobin hands tasks to the member pools in turn, starting at the
	// first. A task refused with ErrPoolOverload is tried once more on the
	// member pool LeastTasks would choose.
	RoundRobin LoadBalancingStrategy = 1 << (iota + 1)
	// LeastTasks hands each task to the member pool with the fewest tasks in
	// flight: busy workers, buffered tasks and waiting callers.
	LeastTasks
)

// maxMultiPoolSize is the most member pools a MultiPool may have: the
// constructors return ErrInvalidMultiPoolSize for more, as for fewer than
// one, instead of failing to allocate them. Member pools spread lock
// contention, which is gone long before there are as many of them as the
// machine has cores; 65536 is far above that, each member pool costs
// memory (about 1 KiB) even while idle, and the bound, a power of two,
// keeps RoundRobin's turn even when its 32-bit counter wraps.
const maxMultiPoolSize = 1 << 16

// multiCore is the engine behind the three MultiPool kinds: a fixed set of
// member pools, each with its own lock, so that submitters contend less
// than on one large pool.
type multiCore[T any] struct {
	pools    []*poolCore[T]
	lbs      LoadBalancingStrategy
	index    atomic.Uint32 // RoundRobin cursor; the next pool is index+1
	rejected atomic.Uint64 // submit calls that returned an error

	// stateMu serialises close and Reboot, so that a Reboot cannot run
	// between closing the multi-pool and closing its member pools; closed is
	// written only with it held and read without it.
	stateMu sync.Mutex
	closed  atomic.Bool

	// rate and burst are the rate limit as set, guarded by stateMu; each
	// member pool has its share (memberRateLimit).
	rate  float64
	burst int
}

// init creates size member pools of sizePerPool workers that apply fn,
// made with options; if one is refused, it releases those made before.
func (m *multiCore[T]) init(size, sizePerPool int, fn func(*goWorker[T], T),
	lbs LoadBalancingStrategy, options []Option) error {
	if size <= 0 || size > maxMultiPoolSize {
		return ErrInvalidMultiPoolSize
	}
	if lbs != RoundRobin && lbs != LeastTasks {
		return ErrInvalidLoadBalancingStrategy
	}
	if fn == nil {
		return ErrLackPoolFunc
	}
	m.pools = make([]*poolCore[T], size)
	for i := range m.pools {
		p := new(poolCore[T])
		if err := p.init(sizePerPool, fn, options); err != nil {
			for _, q := range m.pools[:i] {
				q.Release()
			}
			return err
		}
		m.pools[i] = p
	}
	o := loadOptions(options...)
	_ = m.SetRateLimit(o.RateLimit, o.RateBurst) // valid: the member pools took it
	// Each member pool adapts its capacity on its own, but they share one
	// OnChange, which is never called concurrently.
	for _, p := range m.pools[1:] {
		p.changes = m.pools[0].changes
	}
	m.lbs = lbs
	m.index.Store(math.MaxUint32)
	return nil
}

func (m *multiCore[T]) next(lbs LoadBalancingStrategy) *poolCore[T] {
	if lbs == RoundRobin {
		return m.pools[m.index.Add(1)%uint32(len(m.pools))]
	}
	best, least := m.pools[0], math.MaxInt
	for _, p := range m.pools {
		if n := p.inFlight(); n < least {
			best, least = p, n
		}
	}
	return best
}

// submit is the way in of the multi-pool kinds' Submit and Invoke: it
// stamps the task with the time of the call, before the strategy chooses a
// member pool (the member pools share their options), and hands it on
// (submitStamped).
func (m *multiCore[T]) submit(ctx context.Context, arg T, try bool) error {
	return m.submitStamped(ctx, arg, try, m.pools[0].stampNow(), nil)
}

// submitStamped hands arg, stamped st, to the member pool the strategy
// chooses, as poolCore.submitStamped does; under RoundRobin, a task refused
// with ErrPoolOverload is tried once more on the member pool LeastTasks
// would choose. Every error counts in the multi-pool's rejected.
func (m *multiCore[T]) submitStamped(ctx context.Context, arg T, try bool, st taskStamp, x *taskExtra) error {
	var err error
	if m.closed.Load() {
		err = ErrPoolClosed
	} else if ctx, err = liveContext(ctx); err == nil {
		err = m.next(m.lbs).submitStamped(ctx, arg, try, st, x)
		if err == ErrPoolOverload && m.lbs == RoundRobin {
			err = m.next(LeastTasks).submitStamped(ctx, arg, try, st, x)
		}
	}
	if err != nil {
		m.rejected.Add(1)
	}
	return err
}

// sum adds up get over the member pools.
func (m *multiCore[T]) sum(get func(*poolCore[T]) int) (n int) {
	for _, p := range m.pools {
		n += get(p)
	}
	return n
}

// at returns get of member pool idx, or (-1, ErrInvalidPoolIndex) if there is
// no such member pool.
func (m *multiCore[T]) at(idx int, get func(*poolCore[T]) int) (int, error) {
	if idx < 0 || idx >= len(m.pools) {
		return -1, ErrInvalidPoolIndex
	}
	return get(m.pools[idx]), nil
}

// Running returns the number of workers across all member pools.
func (m *multiCore[T]) Running() int { return m.sum((*poolCore[T]).Running) }

// RunningByIndex is Running of member pool idx, or (-1,
// ErrInvalidPoolIndex).
func (m *multiCore[T]) RunningByIndex(idx int) (int, error) {
	return m.at(idx, (*poolCore[T]).Running)
}

// Free returns the sum of the member pools' Free.
func (m *multiCore[T]) Free() int { return m.sum((*poolCore[T]).Free) }

// FreeByIndex is Free of member pool idx, or (-1, ErrInvalidPoolIndex).
func (m *multiCore[T]) FreeByIndex(idx int) (int, error) {
	return m.at(idx, (*poolCore[T]).Free)
}

// Waiting returns the number of callers blocked across all member pools.
func (m *multiCore[T]) Waiting() int { return m.sum((*poolCore[T]).Waiting) }

// WaitingByIndex is Waiting of member pool idx, or (-1,
// ErrInvalidPoolIndex).
func (m *multiCore[T]) WaitingByIndex(idx int) (int, error) {
	return m.at(idx, (*poolCore[T]).Waiting)
}

// Cap returns the sum of the member pools' capacities.
func (m *multiCore[T]) Cap() int { return m.sum((*poolCore[T]).Cap) }

// Tune sets the capacity of every member pool to size, as Pool.Tune.
func (m *multiCore[T]) Tune(size int) {
	for _, p := range m.pools {
		p.Tune(size)
	}
}

// IsClosed reports whether the multi-pool is released and not rebooted.
func (m *multiCore[T]) IsClosed() bool {
	return m.closed.Load()
}

// Stats sums the member pools' snapshots; Rejected counts its failed
// submits.
func (m *multiCore[T]) Stats() Stats {
	var s Stats
	for _, p := range m.pools {
		s.add(p.Stats())
	}
	s.Rejected = m.rejected.Load()
	return s
}

// Release closes the multi-pool and every member pool (ants' has no
// Release).
func (m *multiCore[T]) Release() {
	m.close()
}

// ReleaseTimeout is Pool.ReleaseTimeout on every member pool; see MultiPool.
func (m *multiCore[T]) ReleaseTimeout(timeout time.Duration) error {
	return releaseWithin(timeout, m.ReleaseContext)
}

// ReleaseContext is Pool.ReleaseContext on every member pool; see MultiPool.
func (m *multiCore[T]) ReleaseContext(ctx context.Context) error {
	return releaseAndWait(ctx, m.close, m.waitDrained)
}

// WaitReleased is Pool.WaitReleased for the multi-pool and its member pools.
func (m *multiCore[T]) WaitReleased(ctx context.Context) error {
	ctx = orBackground(ctx)
	for _, p := range m.pools {
		if err := p.WaitReleased(ctx); err != nil {
			return err
		}
	}
	return nil
}

// close is Release, reporting whether this call closed the multi-pool.
func (m *multiCore[T]) close() bool {
	m.stateMu.Lock()
	defer m.stateMu.Unlock()
	if m.closed.Load() {
		return false
	}
	m.closed.Store(true)
	// Close every member pool before waiting for any, so that none keeps
	// accepting tasks while ReleaseContext waits for another.
	for _, p := range m.pools {
		p.close()
	}
	return true
}

// waitDrained waits for the goroutines of every member pool to exit, or
// until ctx is done; each member pool that is not done by then contributes
// "pool i: " and its waitDrained error.
func (m *multiCore[T]) waitDrained(ctx context.Context) error {
	var errs []error
	for i, p := range m.pools {
		if err := p.waitDrained(ctx); err != nil {
			errs = append(errs, fmt.Errorf("pool %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// Reboot reopens every member pool; RoundRobin starts again at the first.
func (m *multiCore[T]) Reboot() {
	m.stateMu.Lock()
	defer m.stateMu.Unlock()
	if !m.closed.Load() {
		return
	}
	m.index.Store(math.MaxUint32)
	for _, p := range m.pools {
		p.Reboot()
	}
	m.closed.Store(false)
}

// MultiPool spreads tasks over several Pools, its member pools, by a
// LoadBalancingStrategy, so that many submitters do not all contend for one
// lock. Each member pool is a whole Pool with its own workers and capacity;
// priority levels, flows and Pause act within each, not across them.
//
// Its methods are Pool's, applied to every member pool: counts are sums, and
// the ...ByIndex methods give one member pool's. SetRateLimit gives each of
// n member pools perSecond/n with a burst of ⌈burst/n⌉, for its own tasks;
// RateLimit returns the limit as set. Release closes every member pool
// before waiting for any; a member pool that does not drain in time makes
// ReleaseTimeout and ReleaseContext return "pool i: " and its error
// (wrapping ErrTimeout, or ctx.Err()), joined by errors.Join.
//
// A MultiPool is safe for concurrent use by multiple goroutines and must be
// created with NewMultiPool. It is a handle, as in ants: a copy submits to
// the same member pools.
type MultiPool struct {
	*multiCore[func()]
}

// NewMultiPool returns a MultiPool of size member pools, size in [1, 65536]
// (else ErrInvalidMultiPoolSize), of sizePerPool workers each (<= 0:
// unlimited), all with the same options.
func NewMultiPool(size, sizePerPool int, lbs LoadBalancingStrategy, options ...Option) (*MultiPool, error) {
	core := new(multiCore[func()])
	if err := core.init(size, sizePerPool, runTask, lbs, options); err != nil {
		return nil, err
	}
	return &MultiPool{core}, nil
}

// Submit submits task to the member pool the strategy picks, as Pool.Submit.
func (mp *MultiPool) Submit(task func()) error {
	if task == nil {
		return rejectNil(&mp.rejected, &mp.closed)
	}
	return mp.submit(context.Background(), task, false)
}

// SubmitContext is Submit for a caller that gives up when ctx is done.
func (mp *MultiPool) SubmitContext(ctx context.Context, task func()) error {
	if task == nil {
		return rejectNil(&mp.rejected, &mp.closed)
	}
	return mp.submit(ctx, task, false)
}

// TrySubmit is Submit for a caller that never waits; see Pool.TrySubmit.
func (mp *MultiPool) TrySubmit(task func()) error {
	if task == nil {
		return rejectNil(&mp.rejected, &mp.closed)
	}
	return mp.submit(context.Background(), task, true)
}

// MultiPoolWithFuncGeneric spreads calls of one function over several
// PoolWithFuncGeneric[T], as MultiPool spreads tasks, with MultiPool's
// methods but the Invoke family. It must be created with
// NewMultiPoolWithFuncGeneric, and is safe for concurrent use and a handle,
// as MultiPool is.
type MultiPoolWithFuncGeneric[T any] struct {
	*multiCore[T]
}

// MultiPoolWithFunc is ants' non-generic multi-pool: a
// MultiPoolWithFuncGeneric[any] under a name of its own, with the same
// methods.
type MultiPoolWithFunc struct {
	MultiPoolWithFuncGeneric[any]
}

// NewMultiPoolWithFunc is NewMultiPool for member pools that call fn.
func NewMultiPoolWithFunc(size, sizePerPool int, fn func(any), lbs LoadBalancingStrategy, options ...Option) (*MultiPoolWithFunc, error) {
	mp, err := NewMultiPoolWithFuncGeneric(size, sizePerPool, fn, lbs, options...)
	if err != nil {
		return nil, err
	}
	return &MultiPoolWithFunc{*mp}, nil
}

// NewMultiPoolWithFuncGeneric is NewMultiPoolWithFunc for a func(T).
func NewMultiPoolWithFuncGeneric[T any](size, sizePerPool int, fn func(T), lbs LoadBalancingStrategy, options ...Option) (*MultiPoolWithFuncGeneric[T], error) {
	core := new(multiCore[T])
	if err := core.init(size, sizePerPool, applyEach(fn), lbs, options); err != nil {
		return nil, err
	}
	return &MultiPoolWithFuncGeneric[T]{core}, nil
}

// Invoke is PoolWithFuncGeneric.Invoke on the member pool the strategy
// picks.
func (mp *MultiPoolWithFuncGeneric[T]) Invoke(arg T) error {
	return mp.submit(context.Background(), arg, false)
}

// InvokeContext is Invoke for a caller that gives up when ctx is done.
func (mp *MultiPoolWithFuncGeneric[T]) InvokeContext(ctx context.Context, arg T) error {
	return mp.submit(ctx, arg, false)
}

// TryInvoke is Invoke for a caller that never waits.
func (mp *MultiPoolWithFuncGeneric[T]) TryInvoke(arg T) error {
	return mp.submit(context.Background(), arg, true)
}

// The methods of MultiPoolWithFuncGeneric[any] that MultiPoolWithFunc
// declares again, as PoolWithFunc does those of PoolWithFuncGeneric[any].

// Invoke is MultiPoolWithFuncGeneric.Invoke.
func (mp *MultiPoolWithFunc) Invoke(arg any) error { return mp.MultiPoolWithFuncGeneric.Invoke(arg) }

// InvokeContext is MultiPoolWithFuncGeneric.InvokeContext.
func (mp *MultiPoolWithFunc) InvokeContext(ctx context.Context, arg any) error {
	return mp.MultiPoolWithFuncGeneric.InvokeContext(ctx, arg)
}

// TryInvoke is MultiPoolWithFuncGeneric.TryInvoke.
func (mp *MultiPoolWithFunc) TryInvoke(arg any) error {
	return mp.MultiPoolWithFuncGeneric.TryInvoke(arg)
}

// Pause pauses every member pool, then waits until none runs a task.
func (m *multiCore[T]) Pause(ctx context.Context) error {
	ctx = orBackground(ctx)
	if m.closed.Load() {
		return nil
	}
	// Pause them all before waiting for any, so that none starts tasks
	// while Pause waits for another.
	for _, p := range m.pools {
		p.lock.Lock()
		if !p.closed.Load() {
			p.paused = true
			p.setGateLocked()
		}
		p.lock.Unlock()
	}
	for _, p := range m.pools {
		if err := p.Pause(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Resume resumes every member pool, as Pool.Resume.
func (m *multiCore[T]) Resume() {
	for _, p := range m.pools {
		p.Resume()
	}
}

// Paused reports whether the member pools are paused.
func (m *multiCore[T]) Paused() bool { return m.pools[0].Paused() }

// SetRateLimit splits a rate limit among the member pools (see MultiPool).
func (m *multiCore[T]) SetRateLimit(perSecond float64, burst int) error {
	if err := checkRateLimit(perSecond, burst); err != nil {
		return err
	}
	m.stateMu.Lock()
	defer m.stateMu.Unlock()
	m.rate, m.burst = perSecond, burst
	r, b := memberRateLimit(perSecond, burst, len(m.pools))
	for _, p := range m.pools {
		_ = p.SetRateLimit(r, b) // valid: checked above
	}
	return nil
}

// RateLimit returns the multi-pool's rate limit as last set, not the shares.
func (m *multiCore[T]) RateLimit() (perSecond float64, burst int) {
	m.stateMu.Lock()
	defer m.stateMu.Unlock()
	return m.rate, m.burst
}

// memberRateLimit is the share of each of n member pools of a limit of
// perSecond with burst.
func memberRateLimit(perSecond float64, burst, n int) (float64, int) {
	if !limits(perSecond) {
		return perSecond, burst
	}
	return perSecond / float64(n), (burst + n - 1) / n
}
