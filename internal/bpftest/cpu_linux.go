//go:build linux

package bpftest

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// PinToOneCPU runs the calling goroutine on its thread, bound to the first
// CPU it may use, until the test ends: every perf record a test's own
// activity causes then goes to that CPU's ring. It skips the test where
// the affinity cannot be read or set.
func PinToOneCPU(tb testing.TB) {
	tb.Helper()
	runtime.LockOSThread()
	var old, one unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		tb.Skipf("sched_getaffinity: %v", err)
	}
	for c := range 1 << 10 {
		if old.IsSet(c) {
			one.Set(c)
			break
		}
	}
	if err := unix.SchedSetaffinity(0, &one); err != nil {
		runtime.UnlockOSThread()
		tb.Skipf("sched_setaffinity: %v", err)
	}
	tb.Cleanup(func() {
		unix.SchedSetaffinity(0, &old)
		runtime.UnlockOSThread()
	})
}
