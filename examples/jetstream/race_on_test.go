//go:build race

package main

// raceEnabled: the test binary has the race detector, so the worker binary
// it builds gets it too.
const raceEnabled = true
