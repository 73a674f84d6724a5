package ants_test

import (
	"testing"

	"github.com/e62cffed/ants"
)

// limitNeverReached is a rate limit far above any rate a pool reaches, with
// a burst as large: every task finds a token, so BenchmarkSubmitRateLimited
// measures what taking one costs (a clock read and the bucket's arithmetic
// under the pool's lock), never a wait for one.
var limitNeverReached = ants.WithRateLimit(1e15, 1<<30)

// BenchmarkSubmitRateLimited is BenchmarkSubmit on a pool with a rate limit
// it never reaches; BenchmarkSubmit is its base:
//
//	benchstat -col '.name@(Submit SubmitRateLimited)' new.txt
//
// A pool that was paused and resumed, or whose limit was removed, tests the
// same one flag on the way in as a pool that never had either, so it is
// BenchmarkSubmit.
func BenchmarkSubmitRateLimited(b *testing.B) {
	eachShape(b, newPool(false, limitNeverReached).bound())
}
