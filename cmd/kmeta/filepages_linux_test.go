package main

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFileResident checks that fileResident counts a file's pages as the
// process reads them through a mapping, and not once they are dropped.
func TestFileResident(t *testing.T) {
	const size = 4 << 20
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer unix.Munmap(b)
	before := fileResident()
	if before <= 0 {
		t.Fatalf("fileResident() = %d", before)
	}
	var sum byte
	for i := 0; i < size; i += 4096 {
		sum += b[i]
	}
	read := fileResident()
	if err := unix.Madvise(b, unix.MADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	dropped := fileResident()
	// Other tests run beside this one: only a change of most of the
	// file's 4 MB counts.
	if read-before < size/2 || read-dropped < size/2 {
		t.Errorf("resident file bytes: %d before reading %d bytes, %d after, %d dropped (%d)", before, size, read, dropped, sum)
	}
}
