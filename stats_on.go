//go:build !ants_nostats

package ants

// count increments one of the Stats counters; it requires the pool's lock
// held. Building with the tag ants_nostats compiles the counters out, which
// exists only to measure what they cost (see BENCHMARKS.md).
func count(c *uint64) { *c++ }
