//go:build !unix

package main

import "os"

// maxRSSKiB returns 0: this system's rusage has no peak resident set size.
func maxRSSKiB(*os.ProcessState) int64 { return 0 }
