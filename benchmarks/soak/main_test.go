package main

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run if any test leaves a goroutine behind. The
// goroutines already running are ignored: importing ants v2 starts its
// default pool's purge and clock goroutines at init.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}
