//go:build !linux

package bpftest

import "testing"

// mountBPF skips the test: only Linux has BPF.
func mountBPF(tb testing.TB) string {
	tb.Helper()
	tb.Skip("BPF objects can be loaded on Linux only")
	return ""
}
