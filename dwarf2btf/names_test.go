package dwarf2btf_test

import (
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestSharedSectionNames: an ELF file whose section headers all name one
// long string is refused before debug/elf copies the name for each.
func TestSharedSectionNames(t *testing.T) {
	hostile.CheckSharedNames(t, func(data []byte) error {
		_, err := dwarf2btf.Encode(context.Background(), data, dwarf2btf.Options{}, builder.Options{})
		return err
	})
}
