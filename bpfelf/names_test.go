package bpfelf_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestSharedSectionNames: an object whose section headers all name one
// long string is refused before debug/elf copies the name for each (a
// million of 8 KB, a 64 MB file, asked 8 GB and ended btf core --obj in
// the Go runtime's "fatal error: out of memory").
func TestSharedSectionNames(t *testing.T) {
	hostile.CheckSharedNames(t, func(data []byte) error {
		_, err := bpfelf.Parse(data)
		return err
	})
}
