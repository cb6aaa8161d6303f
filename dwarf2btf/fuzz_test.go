package dwarf2btf_test

import (
	"context"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzEncode feeds mutated debug modules to the encoder and through the
// final deduplication (Dedup): it must return an error or BTF, never
// panic, hang or allocate without bound. The seeds are the real
// vsock_loopback.ko (gcc's DWARF 5, relocations, per-CPU data), cordic.ko
// of arm64, s390x (big-endian) and mips64el (MIPS64's relocation
// records), each with its architecture's relocations, and clang
// objects of testdata/dwarf: BTF tags, DW_FORM_strx and DW_OP_addrx, arm64
// relocations, several units, big-endian, DWARF 4, sections compressed
// with zlib (ELF and .zdebug forms) and zstd, 32-bit ELF with SHT_REL
// (i386, armhf), riscv64's ADD/SUB pairs and ppc64le's relocations.
func FuzzEncode(f *testing.F) {
	f.Add(testfixtures.Read(f, "elf/vsock_loopback.ko.gz"))
	for _, arch := range []string{"6.12-s390x", "6.12-arm64", "6.1-mips64el"} {
		f.Add(testfixtures.Read(f, "elf/debian-"+arch+"/cordic.ko.zst"))
	}
	for _, name := range []string{"multi-arm64", "tags-arm64be", "percpu-arm64-dwarf4", "tags-x86_64-zlib", "tags-arm64-zdebug", "multi-x86_64-zstd", "tags-armhf", "percpu-i386", "tags-riscv64", "tags-ppc64le"} {
		f.Add(testfixtures.Read(f, "dwarf/"+name+".o.gz"))
	}
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, err := dwarf2btf.Encode(context.Background(), data, dwarf2btf.Options{Jobs: 2}, builder.Options{})
		if err != nil {
			return
		}
		if _, err := btf.Parse(raw, btf.Options{}); err != nil {
			t.Fatalf("deduplicated output does not parse: %v", err)
		}
	})
}
