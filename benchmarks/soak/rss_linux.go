package main

import (
	"bytes"
	"os"
	"strconv"
)

// rssBytes returns the process's resident set size now, from
// /proc/self/statm (its second field, in pages), or 0 if it cannot be read.
func rssBytes() uint64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0
	}
	pages, err := strconv.ParseUint(string(f[1]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * uint64(os.Getpagesize())
}
