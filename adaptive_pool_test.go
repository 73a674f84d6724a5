package ants_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/e62cffed/ants"
	"github.com/e62cffed/ants/internal/loadtest"
)

// TestAdaptivePoolAppliesItsControllersDecisions checks the pool's side of
// the adaptive capacity, which the controller's tests on the simulated
// downstream (adaptive_test.go) do not reach: that a pool times its tasks
// and feeds them to its controller, applies each decision within [Min, Max],
// and reports every change to OnChange in order, one call at a time. It is
// scenario 4 of the acceptance test (adaptive_acceptance_test.go) made
// short: a pool started at Max in front of a downstream of few slots, with
// a Window of 5 ms, run until its first two decisions, a tenth of a second
// or so. What the capacity settles at is measured on the simulation, and in
// real time by the acceptance test. Nothing here depends on timing: the
// first decision is always a probe down from the start, after which the
// next decision takes the capacity either further down or back up.
func TestAdaptivePoolAppliesItsControllersDecisions(t *testing.T) {
	const (
		start, slots, callers = 64, 4, 32
		work                  = time.Millisecond
	)
	changes := &changeLog{}
	a := ants.AdaptiveCapacity{Min: 1, Max: start, Window: 5 * time.Millisecond, OnChange: changes.onChange}
	p, err := ants.NewPool(start, ants.WithAdaptiveCapacity(a))
	require.NoError(t, err)
	load := loadtest.StartLoad(callers, p.Submit, loadtest.NewDownstream(slots, work).Call)
	waitUntil(t, "the pool's first two changes of capacity", func() bool {
		calls, _ := changes.made()
		return len(calls) >= 2
	})
	load.Stop()
	require.NoError(t, p.ReleaseTimeout(long))
	// OnChange runs outside the pool's lock: the call for the last change
	// may still be under way when ReleaseTimeout returns.
	waitUntil(t, "the last OnChange call to return", func() bool {
		calls, inside := changes.made()
		return !inside && calls[len(calls)-1][1] == p.Cap()
	})

	calls, _ := changes.made()
	t.Logf("changes: %v", calls)
	assert.False(t, changes.overlapped, "two OnChange calls overlapped")
	assert.Equal(t, start, calls[0][0], "the first change is from the starting capacity")
	assert.Less(t, calls[0][1], start, "the first decision, a probe, lowers the capacity")
	for i, c := range calls {
		assert.NotEqual(t, c[0], c[1], "change %d changes nothing", i)
		assert.True(t, c[1] >= a.Min && c[1] <= a.Max, "change %d: to %d, outside [%d, %d]", i, c[1], a.Min, a.Max)
		if i > 0 {
			assert.Equal(t, calls[i-1][1], c[0], "change %d starts where change %d ended", i, i-1)
		}
	}
	assert.Zero(t, load.Failed(), "refused submissions")
	s := p.Stats()
	assert.Equal(t, s.Submitted, s.Completed, "a released pool has finished every task it accepted")
	assert.Zero(t, s.Panicked+s.Rejected)
}

// made returns the changes OnChange has been told of so far, and whether a
// call is under way.
func (c *changeLog) made() (calls [][2]int, inside bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.calls), c.inside
}
