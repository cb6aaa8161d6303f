package main

import (
	"bytes"
	"os"
	"strconv"
)

// fileResident returns the bytes of files' pages the process holds
// resident (RssFile and RssShmem: /proc/self/statm's third field), or 0
// if it cannot tell.
func fileResident() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0
	}
	n, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil {
		return 0
	}
	return n * int64(os.Getpagesize())
}
