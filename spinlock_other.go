//go:build !linux

package ants

import "runtime"

// osYield yields the processor; where the pool has no system call for a
// thread's yield, it goes through the Go scheduler (see spinLock.lockSlow).
func osYield() { runtime.Gosched() }
