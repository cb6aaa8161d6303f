package layout_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestLayoutsOfOneName compares structs that share a name, some with the
// same layout and some not, embedded or not, printed once per layout, with
// goldens from pahole 1.24 (`pahole -F btf FILE`) in testdata/names:
// every layout printed under a name is compared with each struct of that
// name, and loaded again for it if it was let go (printed.go).
func TestLayoutsOfOneName(t *testing.T) {
	matchGoldens(t, "names", []golden{
		{"fwd-storm-70", func() ([]byte, error) { return hostile.BuildVariant10(hostile.FwdStorm, 70) }},
		{"one-name", buildOneName},
		{"one-bucket", buildOneBucket},
		// Session 28's divergence: 12 structs "s" { int; int; } of
		// member names a, b, c or none, of which pahole prints 5, and
		// "any printed struct of the name matches" printed 3.
		{"divergence-seed4", func() ([]byte, error) {
			return testfixtures.ReadPath(t, filepath.Join("testdata", "names", "divergence-seed4.btf.xz")), nil
		}},
	})
}

// buildOneName builds structs "s" of four layouts, each repeated, two of
// them embedded in a struct "outer" between the repeats, and one whose
// anonymous member matches any name.
func buildOneName() ([]byte, error) {
	b, i32, i64, err := intAndLong()
	if err != nil {
		return nil, err
	}
	add := func(name string, size uint32, ms ...builder.Member) (btf.TypeID, error) {
		return b.AddStruct(name, size, ms)
	}
	a := builder.Member{Name: "a", Type: i32}
	var ids []btf.TypeID
	for _, ms := range [][]builder.Member{
		{a},                      // A
		{{Name: "a", Type: i64}}, // B
		{a},                      // A again
		{{Name: "b", Type: i32}}, // C: A's offsets, another name
		{{Name: "a", Type: i64}}, // B again
		{a, {Name: "c", Type: i32, BitOffset: 32}}, // D
	} {
		size := uint32(0)
		for _, m := range ms {
			size = max(size, m.BitOffset/8+4)
		}
		if ms[0].Type == i64 {
			size = 8
		}
		id, err := add("s", size, ms...)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	if _, err := add("outer", 12, builder.Member{Name: "x", Type: ids[0]}, builder.Member{Name: "y", Type: ids[1], BitOffset: 32}); err != nil {
		return nil, err
	}
	for _, ms := range [][]builder.Member{
		{a},                      // A after outer
		{{Type: i32}},            // anonymous: the same as A and C
		{{Name: "a", Type: i64}}, // B after outer
		{a, {Name: "c", Type: i32, BitOffset: 32}}, // D again
	} {
		size := uint32(4)
		if ms[0].Type == i64 || len(ms) > 1 {
			size = 8
		}
		if _, err := add("s", size, ms...); err != nil {
			return nil, err
		}
	}
	return b.Marshal(builder.Options{})
}

// intAndLong returns a builder holding an int and a long, and their ids.
func intAndLong() (b *builder.Builder, i32, i64 btf.TypeID, err error) {
	b = builder.New()
	if i32, err = b.AddInt("int", 4, btf.IntInfo{Bits: 32, Encoding: btf.IntSigned}); err != nil {
		return nil, 0, 0, err
	}
	i64, err = b.AddInt("long", 8, btf.IntInfo{Bits: 64, Encoding: btf.IntSigned})
	return b, i32, i64, err
}

// buildOneBucket builds structs "s" of one layout, two ints, some with an
// anonymous member: named ones of different member names (one struct of
// the table's bucket and the others chained to it), anonymous ones that
// match a chained one, another anonymous one or none, and named ones that
// match an anonymous one printed before, a chained one or none.
func buildOneBucket() ([]byte, error) {
	b, i32, _, err := intAndLong()
	if err != nil {
		return nil, err
	}
	for _, names := range [][2]string{
		{"a", "b"}, {"c", "d"}, {"e", "f"}, // printed
		{"c", ""}, {"", "f"}, // match c d and e f
		{"x", ""},  // printed
		{"x", "y"}, // matches x _
		{"c", "d"}, // matches c d
		{"", ""},   // matches a b
		{"g", "h"}, // printed
		{"", "z"},  // matches x _
		{"g", "z"}, // printed
	} {
		ms := []builder.Member{{Name: names[0], Type: i32}, {Name: names[1], Type: i32, BitOffset: 32}}
		if _, err := b.AddStruct("s", 8, ms); err != nil {
			return nil, err
		}
	}
	return b.Marshal(builder.Options{})
}

// TestPointerSizeUnknown compares layouts of BTF that has no INT named as
// a spelling of long, whose pointer size libbpf's btf__pointer_size cannot
// tell: pahole (1.24 and 1.30) prints pointers 0 bytes wide there, with
// the holes and alignment that follow, where the host's 8 bytes made
// others (list-chain from the tenth red team). Goldens from pahole 1.24 in
// testdata/ptr.
func TestPointerSizeUnknown(t *testing.T) {
	matchGoldens(t, "ptr", []golden{
		{"list-chain-100", func() ([]byte, error) { return hostile.BuildVariant10(hostile.ListChain, 100) }},
	})
}

// TestPointerSizeOfELF: read from an ELF file, the same BTF has the
// pointer size of the file's class, as libbpf's btf_parse_elf sets it,
// and pahole prints its pointers 8 bytes wide (golden from pahole 1.24 on
// the ELF64 file).
func TestPointerSizeOfELF(t *testing.T) {
	raw, err := hostile.BuildVariant10(hostile.ListChain, 100)
	if err != nil {
		t.Fatal(err)
	}
	elf := hostile.BuildELF(raw, hostile.ELFShape{})
	if dir := os.Getenv("KMETA_LAYOUT_GOLDEN"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "list-chain-100-elf.o"), elf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := btf.Read(context.Background(), bytes.NewReader(elf), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n := s.KnownPointerSize(); n != 8 {
		t.Errorf("pointer size of an ELF64 file's BTF: %d, want 8", n)
	}
	var got bytes.Buffer
	if err := layout.Write(context.Background(), &got, s, layout.Options{}); err != nil {
		t.Fatal(err)
	}
	compareLines(t, testfixtures.ReadPath(t, filepath.Join("testdata", "ptr", "list-chain-100-elf.pahole-1.24.txt.xz")), got.Bytes())
}
