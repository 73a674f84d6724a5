package ants_test

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// Tests of what the wrappers share (wrapper.go): how the pools they run on
// count their tasks, whichever wrapper it is.

// wrapperKind is one wrapper that runs tasks on a Submitter.
type wrapperKind struct {
	name string
	// run gives task to a new wrapper on s, waits for the wrapper and
	// returns the error it reports.
	run func(s ants.Submitter, task func()) error
}

var wrapperKinds = []wrapperKind{
	{name: "Go", run: func(s ants.Submitter, task func()) error {
		_, err := ants.Go(context.Background(), s, func() (int, error) { task(); return 1, nil }).Wait()
		return err
	}},
	{name: "Group", run: func(s ants.Submitter, task func()) error {
		g := ants.NewGroup(s)
		g.Go(func() error { task(); return nil })
		return g.Wait()
	}},
	{name: "ResultGroup", run: func(s ants.Submitter, task func()) error {
		g, _ := ants.NewResultGroupContext[int](context.Background(), s)
		g.Go(func() (int, error) { task(); return 1, nil })
		_, err := g.Wait()
		return err
	}},
	{name: "Stream", run: func(s ants.Submitter, task func()) error {
		st := ants.NewStream(s)
		st.Go(func() func() { task(); return func() {} })
		return st.Wait()
	}},
	{name: "Keyed", run: func(s ants.Submitter, task func()) error {
		k := ants.NewKeyed[string](s)
		if err := k.Submit("key", task); err != nil {
			return err
		}
		return k.Wait()
	}},
}

// takesTasks reports whether the kind is a Submitter that wrappers run on:
// Pool, MultiPool and the sub-pools.
func takesTasks(k poolKind) bool { return k.hosts || k.family == sub }

// waitAtRest waits until every task that l accepted has finished, as
// counted in its Stats, and returns those Stats.
func waitAtRest(t *testing.T, l poolAPI) ants.Stats {
	t.Helper()
	waitUntil(t, "the pool to be at rest", func() bool {
		s := l.Stats()
		return s.Submitted == s.Completed+s.Panicked && s.Waiting == 0 && s.Queued == 0
	})
	return l.Stats()
}

func TestWrapperPanicsCountInThePoolsStats(t *testing.T) {
	for _, w := range wrapperKinds {
		t.Run(w.name, func(t *testing.T) {
			forKinds(t, takesTasks, func(t *testing.T, k poolKind) {
				var handled atomic.Int32
				p := k.mustNew(t, 2, ants.WithDisablePurge(true),
					ants.WithPanicHandler(func(any) { handled.Add(1) }))

				err := recv(t, async(func() error { return w.run(p.submitter(), func() { panic("boom") }) }),
					"the wrapper's report of the panicking task")
				var pe *ants.PanicError
				require.ErrorAs(t, err, &pe, "the wrapper still returns the panic")
				assert.Equal(t, "boom", pe.Value)
				bottom := p.levels()[len(p.levels())-1]
				waitAtRest(t, bottom)
				assert.Equal(t, 1, bottom.Running(), "the worker whose task panicked goes on")
				require.NoError(t, recv(t, async(func() error { return w.run(p.submitter(), func() {}) }),
					"the wrapper's report of a task after the panic"))

				for i, l := range p.levels() {
					s := waitAtRest(t, l)
					counters := [4]uint64{s.Submitted, s.Completed, s.Panicked, s.Rejected}
					assert.Equal(t, [4]uint64{2, 1, 1, 0}, counters,
						"level %d below the wrapper: Submitted, Completed, Panicked, Rejected", i)
				}
				assert.Zero(t, handled.Load(), "the PanicHandler saw a panic that the wrapper returned")
			})
		})
	}
}

func TestWrapperPanicsOnASubmitterOfTheUsersOwnAreTheWrappersAlone(t *testing.T) {
	for _, w := range wrapperKinds {
		t.Run(w.name, func(t *testing.T) {
			var handled atomic.Int32
			p := newGroupPool(t, 2, ants.WithPanicHandler(func(any) { handled.Add(1) }))
			own := struct{ ants.Submitter }{p} // hides every method but SubmitContext

			err := recv(t, async(func() error { return w.run(own, func() { panic("boom") }) }),
				"the wrapper's report of the panicking task")
			var pe *ants.PanicError
			require.ErrorAs(t, err, &pe)
			s := waitAtRest(t, p)
			assert.Equal(t, uint64(1), s.Completed, "the pool ran a task that returned")
			assert.Zero(t, s.Panicked)
			assert.Zero(t, handled.Load())
		})
	}
}

func TestWrapperTaskCallingGoexitIsAPanicError(t *testing.T) {
	for _, w := range wrapperKinds {
		t.Run(w.name, func(t *testing.T) {
			forKinds(t, takesTasks, func(t *testing.T, k poolKind) {
				p := k.mustNew(t, 2)
				err := recv(t, async(func() error { return w.run(p.submitter(), runtime.Goexit) }),
					"the wrapper's report of the task that called runtime.Goexit")
				var pe *ants.PanicError
				require.ErrorAs(t, err, &pe)
				assert.Contains(t, pe.Error(), "runtime.Goexit")
				for i, l := range p.levels() {
					s := waitAtRest(t, l)
					assert.Equal(t, uint64(1), s.Panicked, "level %d below the wrapper", i)
				}
			})
		})
	}
}
