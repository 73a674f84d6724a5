//go:build ants_nostats

package ants

// count is a no-op under the ants_nostats tag; see stats_on.go.
func count(*uint64) {}
