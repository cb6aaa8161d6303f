package elfscan_test

import (
	"bytes"
	"debug/elf"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/elfscan"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestMain bounds the fuzzing engine's minimization (internal/fuzztest).
func TestMain(m *testing.M) { fuzztest.Run(m) }

// realELF are ELF files of every class and byte order kmeta reads: a
// clang BPF object, Debian modules of x86-64 (with DWARF), arm64, s390x
// (big endian) and mips64el.
var realELF = []string{
	"elf/prog.bpf.o.gz",
	"elf/af_key.ko.gz",
	"elf/debian-6.12-arm64/cordic.ko.zst",
	"elf/debian-6.12-s390x/cordic.ko.zst",
	"elf/debian-6.1-mips64el/cordic.ko.zst",
}

// sameAsDebugELF fails t unless f holds what debug/elf's ef holds: every
// section's header (debug/elf keeps 32 bits of sh_flags), and for each of
// its names, the first section of that name.
func sameAsDebugELF(t *testing.T, f *elfscan.File, ef *elf.File) {
	t.Helper()
	if f.NumSections() != len(ef.Sections) {
		t.Fatalf("%d sections, debug/elf %d", f.NumSections(), len(ef.Sections))
	}
	for i, es := range ef.Sections {
		s := f.Section(i)
		if s.Type != uint32(es.Type) || uint32(s.Flags) != uint32(es.Flags) || s.Offset != es.Offset || s.Size != es.FileSize || s.Link != es.Link {
			t.Fatalf("section %d: %+v, debug/elf %+v", i, s, es.SectionHeader)
		}
		if !f.Named(s, es.Name) {
			t.Fatalf("section %d is not named %q", i, es.Name)
		}
		got, ok := f.Lookup(es.Name)
		if want := ef.Section(es.Name); !ok || ef.Sections[got.Index] != want {
			t.Fatalf("Lookup(%q) = %d, %v", es.Name, got.Index, ok)
		}
	}
}

// TestRealFiles: real files parse as debug/elf parses them, and pass Check.
func TestRealFiles(t *testing.T) {
	for _, name := range realELF {
		data := testfixtures.Read(t, name)
		f, err := elfscan.Parse(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ef, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		sameAsDebugELF(t, f, ef)
		if err := elfscan.Check(data); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, ok := f.Lookup(".no such section"); ok {
			t.Errorf("%s: found a section that is not there", name)
		}
	}
}

// TestSharedNamesAllocateNothing: finding .BTF among 20,000 sections that
// share one 4 KB name allocates nothing per section (debug/elf copies the
// name for each: 80 MB for a 1.3 MB file), and Check refuses the file.
func TestSharedNamesAllocateNothing(t *testing.T) {
	data, err := hostile.SharedSectionNames(20_000, 4096)
	if err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(3, func() {
		f, err := elfscan.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		if s, ok := f.Lookup(".BTF"); !ok || s.Index != 20_001 {
			t.Fatalf("Lookup(.BTF) = %d, %v", s.Index, ok)
		}
	})
	if allocs > 2 {
		t.Errorf("%v allocations to find .BTF among 20,000 sections", allocs)
	}
	if err := elfscan.Check(data); !errors.Is(err, elfscan.ErrNames) {
		t.Errorf("Check = %v, want ErrNames", err)
	}
}

// TestBadTables: broken headers give an error, never a panic.
func TestBadTables(t *testing.T) {
	obj := testfixtures.Read(t, "elf/prog.bpf.o.gz")
	for _, tc := range []struct {
		name string
		off  int
		val  []byte
	}{
		{"magic", 0, []byte{0}},
		{"class", 4, []byte{9}},
		{"encoding", 5, []byte{9}},
		{"version", 6, []byte{2}},
		{"shoff past the end", 40, []byte{0xff, 0xff, 0xff, 0x7f}},
		{"shentsize", 58, []byte{8, 0}},
		{"shnum", 60, []byte{0xff, 0xfe}},
		{"shstrndx", 62, []byte{0xfe, 0xff}},
	} {
		data := bytes.Clone(obj)
		copy(data[tc.off:], tc.val)
		if _, err := elfscan.Parse(data); err == nil {
			t.Errorf("%s: accepted", tc.name)
		}
		if _, err := elf.NewFile(bytes.NewReader(data)); err == nil {
			t.Errorf("%s: debug/elf accepts it: the test is wrong", tc.name)
		}
	}
	for n := range 64 {
		if _, err := elfscan.Parse(obj[:n]); err == nil {
			t.Errorf("%d bytes accepted", n)
		}
	}
}

// FuzzParse: Parse never panics, and on what both accept it agrees with
// debug/elf; Check never panics, and debug/elf's section names cost no
// more than the file when it passes.
func FuzzParse(f *testing.F) {
	for _, name := range realELF[:1] {
		f.Add(testfixtures.Read(f, name))
	}
	for _, data := range elfSeeds(f) {
		if len(data) < 1<<20 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sf, err := elfscan.Parse(data)
		ef, eerr := elf.NewFile(bytes.NewReader(data))
		if err == nil && eerr == nil {
			sameAsDebugELF(t, sf, ef)
		}
		if elfscan.Check(data) != nil || eerr != nil {
			return
		}
		n := 0
		for _, s := range ef.Sections {
			n += len(s.Name)
		}
		if n > len(data) {
			t.Errorf("section names of %d bytes passed for a file of %d", n, len(data))
		}
	})
}
