package dwarf2btf_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzKernelRelease (issue 37, redteam7c): KernelRelease and ByteOrder,
// which read ELF files and had no fuzz target, never panic or hang, and
// agree: an ELF file whose release KernelRelease reads has a byte order.
// Seeds: objects of both byte orders, compressed debug sections, a
// module.
func FuzzKernelRelease(f *testing.F) {
	for _, p := range []string{"dwarf/tags-x86_64.o.gz", "dwarf/tags-arm64be.o.gz", "dwarf/tags-x86_64-zlib.o.gz",
		"dwarf/percpu-i386.o.gz", "elf/vsock_loopback.ko.gz"} {
		f.Add(testfixtures.Read(f, p))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rel, relErr := dwarf2btf.KernelRelease(data)
		_, boErr := dwarf2btf.ByteOrder(data)
		if relErr == nil && rel != "" && boErr != nil {
			t.Fatalf("release %q but no byte order: %v", rel, boErr)
		}
	})
}
