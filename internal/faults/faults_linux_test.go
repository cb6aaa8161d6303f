package faults

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"testing"
)

// truncatedMapping maps a page of a file and truncates the file: reading
// the page then faults (SIGBUS).
func truncatedMapping(t *testing.T) []byte {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, 4096), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := syscall.Mmap(int(f.Fd()), 0, 4096, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(b) })
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCarrierRaises: a fault on a helper goroutine, whose starter has
// panic-on-fault on, comes back as a panic on the starter's goroutine
// (without the Carrier it would kill the test binary).
func TestCarrierRaises(t *testing.T) {
	b := truncatedMapping(t)
	old := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(old)
	c := New()
	done := make(chan bool)
	var sink byte
	go func() { done <- c.Run(func() { sink = b[100] }) }()
	if ok := <-done; ok {
		t.Fatalf("Run reported no fault (read %d)", sink)
	}
	defer func() {
		r := recover()
		if _, ok := r.(interface{ Addr() uintptr }); !ok {
			t.Fatalf("Raise panicked with %v, want a fault", r)
		}
	}()
	c.Raise()
	t.Fatal("Raise did not panic")
}

// TestCarrierOff: a starter without panic-on-fault gets a Carrier that
// runs fn as it is and raises nothing.
func TestCarrierOff(t *testing.T) {
	c := New()
	ran := false
	if !c.Run(func() { ran = true }) || !ran {
		t.Fatal("Run did not run fn")
	}
	c.Raise()
}
