//go:build linux

package bpftest

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// mountBPF mounts a bpf filesystem of the test's own on a new directory,
// and unmounts it when the test ends: the host's /sys/fs/bpf may be
// missing, and is not the test's to fill.
func mountBPF(tb testing.TB) string {
	tb.Helper()
	dir, err := os.MkdirTemp("", "kmeta-bpffs-")
	if err != nil {
		tb.Fatal(err)
	}
	if err := unix.Mount("bpf", dir, "bpf", 0, "mode=0700"); err != nil {
		os.Remove(dir)
		tb.Skipf("cannot mount a bpf filesystem: %v", err)
	}
	tb.Cleanup(func() {
		if err := unix.Unmount(dir, unix.MNT_DETACH); err != nil {
			tb.Errorf("unmount %s: %v", dir, err)
		}
		os.Remove(dir)
	})
	return dir
}
