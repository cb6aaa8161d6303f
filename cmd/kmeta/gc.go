package main

import (
	"os"
	"runtime/debug"
)

// setGC sets the collector's GOGC to percent for one command, unless the
// user set GOGC, and returns the function that restores the previous
// setting. Commands whose heap is all live until they exit collect less
// often (layout, diff); the DWARF encoder, whose peak memory is measured
// against pahole's, collects more often.
func setGC(percent int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(old) }
}
