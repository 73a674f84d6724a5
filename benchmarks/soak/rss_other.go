//go:build !linux

package main

// rssBytes returns 0: only Linux's /proc tells the current resident set
// size without cgo, and the soak's RSS check is skipped where it is 0.
func rssBytes() uint64 { return 0 }
