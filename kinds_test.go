package ants_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// This file holds the one table of the pool kinds (poolKinds) that the
// tests run on, and the one shape every kind takes in them (testPool). A
// test that runs on several kinds picks them with a helper below named for
// the set it covers: forSinglePools, forMultiPools, forSingleAndMultiPools,
// forParents, forParentsWithOwnOptions or forEveryKind.

// poolAPI is what every pool kind has: Pool, the function pools, the
// multi-pools and Subpool.
type poolAPI interface {
	Running() int
	Free() int
	Waiting() int
	Cap() int
	Tune(size int)
	IsClosed() bool
	Release()
	ReleaseTimeout(timeout time.Duration) error
	ReleaseContext(ctx context.Context) error
	Reboot()
	Stats() ants.Stats
}

// byIndex is what the multi-pool kinds add: a member pool's figures.
type byIndex interface {
	RunningByIndex(idx int) (int, error)
	FreeByIndex(idx int) (int, error)
	WaitingByIndex(idx int) (int, error)
}

// parentPool is a pool that futures, streams, keyed queues and sub-pools
// run on: Pool, MultiPool and Subpool.
type parentPool interface {
	ants.TrySubmitter
	poolAPI
}

// testPool gives every pool kind one shape: submit, trySubmit and
// submitContext run a func() on the pool, through Submit for the kinds that
// take tasks and through Invoke for the function pools, whose function runs
// the task it is given.
type testPool struct {
	poolAPI       // the pool itself
	byIndex       // a multi-pool's; nil for the other kinds
	submit        func(task func()) error
	trySubmit     func(task func()) error
	submitContext func(ctx context.Context, task func()) error
	members       int       // a multi-pool's member pools; 1 for the other kinds
	below         []poolAPI // a sub-pool's parent, then its parent's, ...; nil for the other kinds
	// copied returns a testPool over a copy of the pool's handle, made by
	// value (handle_test.go); nil for a sub-pool, which is no handle.
	copied func() *testPool
}

// levels returns the pool and the pools below it, the pool first.
func (p *testPool) levels() []poolAPI {
	return append([]poolAPI{p.poolAPI}, p.below...)
}

// submitter returns the pool itself as an ants.Submitter, or nil for the
// function pools, which are none.
func (p *testPool) submitter() ants.Submitter {
	s, _ := p.poolAPI.(ants.Submitter)
	return s
}

// probe returns the PoolProbe (probe_test.go) of a Pool or a function pool.
func (p *testPool) probe() ants.PoolProbe {
	return p.poolAPI.(interface{ PoolProbe() ants.PoolProbe }).PoolProbe()
}

// checkInvariants returns the first broken invariant on the engine's fields
// (export_test.go's CheckInvariants) of every engine pool under p: p itself
// for Pool and the function pools, each member pool of a multi-pool; nil
// for a sub-pool, which has no engine of its own, and for the pools below.
func (p *testPool) checkInvariants() error {
	if c, ok := p.poolAPI.(interface{ CheckInvariants() error }); ok {
		return c.CheckInvariants()
	}
	if m, ok := p.poolAPI.(interface{ CheckInvariantsByIndex(int) error }); ok {
		for i := 0; i < p.members; i++ {
			if err := m.CheckInvariantsByIndex(i); err != nil {
				return fmt.Errorf("member pool %d: %w", i, err)
			}
		}
	}
	return nil
}

// family sorts the kinds for the helpers that pick a set of them.
type family int

const (
	single family = 1 << iota // Pool and the function pools
	multi                     // the multi-pools
	sub                       // sub-pools
)

// poolKind builds pools of one kind.
type poolKind struct {
	name   string
	family family
	// hosts is set for the kinds that futures, streams, keyed queues and
	// sub-pools run on in the tests: Pool, MultiPool and Subpool.
	hosts bool
	// lbs is the strategy of the multi-pools that new makes.
	lbs ants.LoadBalancingStrategy
	// new returns a pool of the kind made with opts: of size workers (or
	// unlimited, for size <= 0); a multi-pool of multiMembers member pools
	// of size; a sub-pool of size on a pool of one more (belowSize), which
	// gets opts.
	new func(size int, opts ...ants.Option) (*testPool, error)
	// newMulti returns a multi-pool of the kind; nil for the other kinds.
	newMulti func(members, sizePerPool int, lbs ants.LoadBalancingStrategy, opts ...ants.Option) (*testPool, error)
}

// multiMembers is the number of member pools of the multi-pools that new
// makes.
const multiMembers = 2

// poolKinds are every kind the tests run on, each once.
var poolKinds = []poolKind{
	{name: "Pool", family: single, hosts: true, new: newPlainPool},
	{name: "PoolWithFunc", family: single, new: newFuncPool},
	{name: "PoolWithFuncGeneric", family: single, new: newGenericPool},
	multiKind("MultiPool", ants.RoundRobin, true, newPlainMulti),
	multiKind("MultiPoolWithFunc", ants.LeastTasks, false, newFuncMulti),
	multiKind("MultiPoolWithFuncGeneric", ants.RoundRobin, false, newGenericMulti),
	{name: "Subpool", family: sub, hosts: true, new: newSubpoolOnPool},
	{name: "Subpool nested on MultiPool", family: sub, new: newSubpoolNestedOnMultiPool},
}

// multiKind returns the kind of multi-pools made by newMulti, whose new
// uses lbs.
func multiKind(name string, lbs ants.LoadBalancingStrategy, hosts bool,
	newMulti func(members, sizePerPool int, lbs ants.LoadBalancingStrategy, opts ...ants.Option) (*testPool, error),
) poolKind {
	return poolKind{
		name: name, family: multi, hosts: hosts, lbs: lbs, newMulti: newMulti,
		new: func(size int, opts ...ants.Option) (*testPool, error) {
			return newMulti(multiMembers, size, lbs, opts...)
		},
	}
}

// tasker is a pool kind that takes tasks: Pool, MultiPool and Subpool.
type tasker interface {
	poolAPI
	Submit(task func()) error
	TrySubmit(task func()) error
	SubmitContext(ctx context.Context, task func()) error
}

// invoker is a function pool kind of argument type T.
type invoker[T any] interface {
	poolAPI
	Invoke(arg T) error
	TryInvoke(arg T) error
	InvokeContext(ctx context.Context, arg T) error
}

// taskShape is the testPool of p.
func taskShape(p tasker) *testPool {
	return &testPool{poolAPI: p, submit: p.Submit, trySubmit: p.TrySubmit, submitContext: p.SubmitContext, members: 1}
}

// funcShape is the testPool of a function pool whose function runs the
// task that arg made its argument.
func funcShape[T any](p invoker[T], arg func(task func()) T) *testPool {
	return &testPool{
		poolAPI:       p,
		submit:        func(task func()) error { return p.Invoke(arg(task)) },
		trySubmit:     func(task func()) error { return p.TryInvoke(arg(task)) },
		submitContext: func(ctx context.Context, task func()) error { return p.InvokeContext(ctx, arg(task)) },
		members:       1,
	}
}

// multiShape adds a multi-pool's figures to its testPool.
func multiShape(p *testPool, mp byIndex, members int) *testPool {
	p.byIndex, p.members = mp, members
	return p
}

// runArg is the function of the pools of any: it runs its argument.
func runArg(arg any) { arg.(func())() }

// taskArg makes a task the argument of a pool of any.
func taskArg(task func()) any { return task }

func newPlainPool(size int, opts ...ants.Option) (*testPool, error) {
	p, err := ants.NewPool(size, opts...)
	if err != nil {
		return nil, err
	}
	tp := taskShape(p)
	tp.copied = func() *testPool { c := *p; return taskShape(&c) }
	return tp, nil
}

func newFuncPool(size int, opts ...ants.Option) (*testPool, error) {
	p, err := ants.NewPoolWithFunc(size, runArg, opts...)
	if err != nil {
		return nil, err
	}
	tp := funcShape[any](p, taskArg)
	tp.copied = func() *testPool { c := *p; return funcShape[any](&c, taskArg) }
	return tp, nil
}

// newGenericPool makes a PoolWithFuncGeneric[int], whose arguments are
// tickets (ticketTable).
func newGenericPool(size int, opts ...ants.Option) (*testPool, error) {
	tickets := new(ticketTable)
	p, err := ants.NewPoolWithFuncGeneric(size, tickets.redeem, opts...)
	if err != nil {
		return nil, err
	}
	tp := funcShape[int](p, tickets.issue)
	tp.copied = func() *testPool { c := *p; return funcShape[int](&c, tickets.issue) }
	return tp, nil
}

func newPlainMulti(members, sizePerPool int, lbs ants.LoadBalancingStrategy, opts ...ants.Option) (*testPool, error) {
	mp, err := ants.NewMultiPool(members, sizePerPool, lbs, opts...)
	if err != nil {
		return nil, err
	}
	tp := multiShape(taskShape(mp), mp, members)
	tp.copied = func() *testPool { c := *mp; return multiShape(taskShape(&c), &c, members) }
	return tp, nil
}

func newFuncMulti(members, sizePerPool int, lbs ants.LoadBalancingStrategy, opts ...ants.Option) (*testPool, error) {
	mp, err := ants.NewMultiPoolWithFunc(members, sizePerPool, runArg, lbs, opts...)
	if err != nil {
		return nil, err
	}
	tp := multiShape(funcShape[any](mp, taskArg), mp, members)
	tp.copied = func() *testPool { c := *mp; return multiShape(funcShape[any](&c, taskArg), &c, members) }
	return tp, nil
}

func newGenericMulti(members, sizePerPool int, lbs ants.LoadBalancingStrategy, opts ...ants.Option) (*testPool, error) {
	tickets := new(ticketTable)
	mp, err := ants.NewMultiPoolWithFuncGeneric(members, sizePerPool, tickets.redeem, lbs, opts...)
	if err != nil {
		return nil, err
	}
	tp := multiShape(funcShape[int](mp, tickets.issue), mp, members)
	tp.copied = func() *testPool { c := *mp; return multiShape(funcShape[int](&c, tickets.issue), &c, members) }
	return tp, nil
}

// belowSize is the size of the pool under a sub-pool of size: one more, so
// that the sub-pool's limit binds until a Tune raises it to the parent's;
// no limit under a sub-pool without one.
func belowSize(size int) int {
	if size <= 0 {
		return 0
	}
	return size + 1
}

func newSubpoolOnPool(size int, opts ...ants.Option) (*testPool, error) {
	p, err := ants.NewPool(belowSize(size), opts...)
	if err != nil {
		return nil, err
	}
	return subShape(size, p), nil
}

func newSubpoolNestedOnMultiPool(size int, opts ...ants.Option) (*testPool, error) {
	mp, err := ants.NewMultiPool(multiMembers, size, ants.LeastTasks, opts...)
	if err != nil {
		return nil, err
	}
	return subShape(size, ants.NewSubpool(mp, belowSize(size)), mp), nil
}

// subShape is the testPool of a sub-pool of size on below[0], whose own
// parent is below[1], and so on.
func subShape(size int, below ...parentPool) *testPool {
	p := taskShape(ants.NewSubpool(below[0], size))
	for _, b := range below {
		p.below = append(p.below, b)
	}
	return p
}

// ticketTable lets a pool of int arguments run arbitrary tasks: each task is
// stored under a fresh int, and the pool function runs the task of the int it
// is given. Entries are never removed, so a task run twice runs twice.
type ticketTable struct {
	mu    sync.Mutex
	tasks []func()
}

func (tt *ticketTable) issue(task func()) int {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	tt.tasks = append(tt.tasks, task)
	return len(tt.tasks) - 1
}

func (tt *ticketTable) redeem(id int) {
	tt.mu.Lock()
	task := tt.tasks[id]
	tt.mu.Unlock()
	task()
}

// mustNew returns a pool of the kind (see poolKind.new) that is released,
// and whose goroutines have all exited, when the test ends; so are the
// pools below a sub-pool. Create gates after the pool, so that their
// cleanup, which lets blocked tasks finish, runs before the pool's.
func (k poolKind) mustNew(t *testing.T, size int, opts ...ants.Option) *testPool {
	t.Helper()
	p, err := k.new(size, opts...)
	require.NoError(t, err)
	releaseAtEnd(t, p)
	return p
}

// mustNewFull is mustNew for a pool whose every worker runs a task held
// by the gate it returns.
func (k poolKind) mustNewFull(t *testing.T, size int, opts ...ants.Option) (*testPool, *gate) {
	t.Helper()
	p := k.mustNew(t, size, opts...)
	g := newGate(t)
	occupy(t, p, g, p.Cap())
	return p, g
}

// mustNewMulti is mustNew for a multi-pool of members member pools.
func (k poolKind) mustNewMulti(t *testing.T, members, sizePerPool int, lbs ants.LoadBalancingStrategy, opts ...ants.Option) *testPool {
	t.Helper()
	p, err := k.newMulti(members, sizePerPool, lbs, opts...)
	require.NoError(t, err)
	releaseAtEnd(t, p)
	return p
}

// releaseAtEnd releases p and the pools below it, in that order, when the
// test ends, and checks that their goroutines exit.
func releaseAtEnd(t *testing.T, p *testPool) {
	t.Cleanup(func() {
		for _, l := range p.levels() {
			l.Reboot()
			assert.NoError(t, l.ReleaseTimeout(long), "releasing the pool at the end of the test")
		}
	})
}

// parent is mustNew for a parent kind, as the pool itself: one that runs at
// least size tasks at once (its Cap), more for a multi-pool, whose member
// pools are each of size so that a task held in one leaves room in it
// (RoundRobin waits for the member pool it picked).
func (k poolKind) parent(t *testing.T, size int, opts ...ants.Option) parentPool {
	t.Helper()
	return k.mustNew(t, size, opts...).poolAPI.(parentPool)
}

// exactParent is parent for a pool that runs exactly size tasks at once
// (size <= 0: no limit): a multi-pool of size member pools of one worker
// each (of two unlimited ones for size <= 0).
func (k poolKind) exactParent(t *testing.T, size int, opts ...ants.Option) parentPool {
	t.Helper()
	if k.family != multi {
		return k.parent(t, size, opts...)
	}
	members, per := size, 1
	if size <= 0 {
		members, per = multiMembers, 0
	}
	return k.mustNewMulti(t, members, per, k.lbs, opts...).poolAPI.(parentPool)
}

// ownOptions reports whether the options given to new shape how the pool
// itself takes tasks: WithQueueSize gives it a buffer that accepts tasks
// while every worker is busy, WithNonblocking makes it refuse them. A
// sub-pool passes them to the pool below it, under a limit of its own.
func (k poolKind) ownOptions() bool { return k.family != sub }

// The sets of kinds the tests run on.
func isSingle(k poolKind) bool        { return k.family == single } // Pool and the function pools
func isMulti(k poolKind) bool         { return k.family == multi }  // the multi-pools
func isPool(k poolKind) bool          { return k.family != sub }    // all but the sub-pools
func isParent(k poolKind) bool        { return k.hosts }
func isParentOwnOpts(k poolKind) bool { return k.hosts && k.ownOptions() }
func isAny(poolKind) bool             { return true }

// kindsWhere returns the kinds that keep accepts, in the table's order.
func kindsWhere(keep func(poolKind) bool) []poolKind {
	var kinds []poolKind
	for _, k := range poolKinds {
		if keep(k) {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// forKinds runs test once per kind that keep accepts, as a subtest named
// for the kind.
func forKinds(t *testing.T, keep func(poolKind) bool, test func(t *testing.T, k poolKind)) {
	t.Helper()
	for _, k := range kindsWhere(keep) {
		t.Run(k.name, func(t *testing.T) { test(t, k) })
	}
}

// forSinglePools runs test on Pool and the function pools.
func forSinglePools(t *testing.T, test func(t *testing.T, k poolKind)) { forKinds(t, isSingle, test) }

// forMultiPools runs test on the multi-pools.
func forMultiPools(t *testing.T, test func(t *testing.T, k poolKind)) { forKinds(t, isMulti, test) }

// forSingleAndMultiPools runs test on Pool, the function pools and the multi-pools.
func forSingleAndMultiPools(t *testing.T, test func(t *testing.T, k poolKind)) {
	forKinds(t, isPool, test)
}

// forParents runs test on the parent kinds, which futures, streams, keyed
// queues and sub-pools run on: Pool, MultiPool and Subpool.
func forParents(t *testing.T, test func(t *testing.T, k poolKind)) { forKinds(t, isParent, test) }

// forParentsWithOwnOptions is forParents for the kinds with ownOptions:
// Pool and MultiPool.
func forParentsWithOwnOptions(t *testing.T, test func(t *testing.T, k poolKind)) {
	forKinds(t, isParentOwnOpts, test)
}

// forEveryKind runs test on every kind of the table, the sub-pools
// included.
func forEveryKind(t *testing.T, test func(t *testing.T, k poolKind)) { forKinds(t, isAny, test) }

// newGroupPool returns a Pool that is released, and whose goroutines have
// all exited, when the test ends.
func newGroupPool(t *testing.T, size int, opts ...ants.Option) *ants.Pool {
	t.Helper()
	return poolKinds[0].parent(t, size, opts...).(*ants.Pool)
}
