package ants_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
)

// submitOnly is a Submitter without TrySubmit.
type submitOnly struct{ p *ants.Pool }

func (s submitOnly) SubmitContext(ctx context.Context, task func()) error {
	return s.p.SubmitContext(ctx, task)
}

// ownTrySubmitter is a TrySubmitter of a user's own, in front of a Pool: it
// counts the calls of each method, and its TrySubmit returns refuse instead
// of submitting while refuse is set.
type ownTrySubmitter struct {
	p              *ants.Pool
	submits, tries atomic.Int32
	refuse         error
}

func (s *ownTrySubmitter) SubmitContext(ctx context.Context, task func()) error {
	s.submits.Add(1)
	return s.p.SubmitContext(ctx, task)
}

func (s *ownTrySubmitter) TrySubmit(task func()) error {
	s.tries.Add(1)
	if s.refuse != nil {
		return s.refuse
	}
	return s.p.TrySubmit(task)
}

var _ ants.TrySubmitter = (*ownTrySubmitter)(nil)

func TestTrySubmitterOfTheUsersOwn(t *testing.T) {
	t.Run("Group.TryGo calls its TrySubmit", func(t *testing.T) {
		s := &ownTrySubmitter{p: newGroupPool(t, 2)}
		g := ants.NewGroup(s)
		ran := make(chan struct{}, 1)
		assert.True(t, g.TryGo(func() error { ran <- struct{}{}; return nil }))
		recv(t, ran, "the task of TryGo")
		require.NoError(t, recv(t, waitFor(g), "Wait"))
		assert.Equal(t, int32(1), s.tries.Load())
		assert.Zero(t, s.submits.Load(), "TryGo went through SubmitContext")
	})
	t.Run("Group.TryGo takes its ErrPoolOverload as a full pool and reports other errors", func(t *testing.T) {
		s := &ownTrySubmitter{p: newGroupPool(t, 2), refuse: ants.ErrPoolOverload}
		g := ants.NewGroup(s)
		assert.False(t, g.TryGo(func() error { t.Error("a refused task ran"); return nil }))
		assert.NoError(t, recv(t, waitFor(g), "Wait after an overload"))

		errRefused := errors.New("refused")
		s.refuse = errRefused
		g = ants.NewGroup(s)
		assert.False(t, g.TryGo(func() error { t.Error("a refused task ran"); return nil }))
		assert.ErrorIs(t, recv(t, waitFor(g), "Wait after a refusal"), errRefused)
		assert.Equal(t, int32(2), s.tries.Load())
	})
	t.Run("ResultGroup.TryGo calls its TrySubmit", func(t *testing.T) {
		s := &ownTrySubmitter{p: newGroupPool(t, 2)}
		r := ants.NewResultGroup[int](s)
		assert.True(t, r.TryGo(func() (int, error) { return 7, nil }))
		got, err := r.Wait()
		require.NoError(t, err)
		assert.Equal(t, []int{7}, got)
		assert.Equal(t, int32(1), s.tries.Load())
		assert.Zero(t, s.submits.Load())
	})
	t.Run("Subpool.TrySubmit calls its TrySubmit and gives the slot back when it refuses", func(t *testing.T) {
		s := &ownTrySubmitter{p: newGroupPool(t, 2)}
		sp := newSubpool(t, s, 1)
		ran := make(chan struct{}, 1)
		require.NoError(t, sp.TrySubmit(signal(ran)))
		recv(t, ran, "the task of TrySubmit")
		assert.Equal(t, int32(1), s.tries.Load())
		assert.Zero(t, s.submits.Load(), "Subpool.TrySubmit went through SubmitContext")

		waitRunning(t, sp, 0)
		s.refuse = ants.ErrPoolOverload
		assert.ErrorIs(t, sp.TrySubmit(func() { t.Error("a refused task ran") }), ants.ErrPoolOverload)
		assert.Equal(t, int32(2), s.tries.Load())
		assert.Equal(t, 1, sp.Free(), "the refused task kept its slot")
	})
}
