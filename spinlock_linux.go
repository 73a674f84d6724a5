package ants

import "syscall"

// osYield gives the thread's CPU to another thread, without going through
// the Go scheduler (see spinLock.lockSlow).
func osYield() { syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
