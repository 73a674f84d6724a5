//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSKiB returns the peak resident set size of an exited child, in KiB,
// from its rusage (ru_maxrss: KiB on Linux and the BSDs, bytes on macOS).
func maxRSSKiB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024
	}
	return int64(ru.Maxrss)
}
