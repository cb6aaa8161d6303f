package elfwrite

import (
	"bytes"
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// goldens are the objects of testdata/dwarf that pahole 1.30 wrote .BTF
// into (testdata/pahole/elf/make.sh): little- and big-endian, 64-bit,
// with zstd-compressed debug sections.
var goldens = []string{"tags-x86_64", "tags-arm64be", "multi-x86_64-zstd", "percpu-x86_64", "multi-arm64"}

// btfOf returns the .BTF section of the ELF file data.
func btfOf(t *testing.T, data []byte) []byte {
	t.Helper()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".BTF")
	if s == nil {
		t.Fatal("no .BTF")
	}
	b, err := s.Data()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReplaceMatchesPahole: replacing .BTF of a file that has one gives
// pahole 1.30's in-place write, byte for byte.
func TestReplaceMatchesPahole(t *testing.T) {
	for _, name := range goldens {
		t.Run(name, func(t *testing.T) {
			src := testfixtures.File(t, "pahole/elf/"+name+".add.o.gz")
			want := testfixtures.Read(t, "pahole/elf/"+name+".inplace.o.gz")
			dst := filepath.Join(t.TempDir(), "out.o")
			ok, err := replace(src, dst, Section{Name: ".BTF", Data: btfOf(t, want)})
			if err != nil || !ok {
				t.Fatalf("replace: %v, %v", ok, err)
			}
			got, err := os.ReadFile(dst)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%d bytes, pahole's %d: they differ", len(got), len(want))
			}
		})
	}
}

// TestReplaceNoSection: a file without the section is left to objcopy.
func TestReplaceNoSection(t *testing.T) {
	src := testfixtures.File(t, "dwarf/tags-x86_64.o.gz")
	dst := filepath.Join(t.TempDir(), "out.o")
	ok, err := replace(src, dst, Section{Name: ".BTF", Data: []byte{1}})
	if ok || err != nil {
		t.Fatalf("replace: %v, %v; want false, nil", ok, err)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Errorf("%s written", dst)
	}
}

func requireObjcopy(t *testing.T) {
	if _, err := exec.LookPath("objcopy"); err != nil {
		t.Skip("objcopy (binutils) not installed")
	}
}

// TestWriteSectionsMatchesPahole: both ways, through Write, the
// file becomes pahole's.
func TestWriteSectionsMatchesPahole(t *testing.T) {
	requireObjcopy(t)
	for _, name := range goldens {
		t.Run(name, func(t *testing.T) {
			for _, step := range []struct{ in, want string }{
				{"dwarf/" + name + ".o.gz", "pahole/elf/" + name + ".add.o.gz"},
				{"pahole/elf/" + name + ".add.o.gz", "pahole/elf/" + name + ".inplace.o.gz"},
			} {
				path := testfixtures.File(t, step.in)
				want := testfixtures.Read(t, step.want)
				err := Write(context.Background(), path, path, []Section{{".BTF", btfOf(t, want)}}, Options{Objcopy: "objcopy"})
				if err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
					t.Errorf("%s: %d bytes, pahole's %d: they differ", step.in, len(got), len(want))
				}
			}
		})
	}
}

// TestWriteSectionsFailure: when a step fails, the file is as it was and
// no temporary file is left.
func TestWriteSectionsFailure(t *testing.T) {
	requireObjcopy(t)
	for _, tc := range []struct {
		name    string
		objcopy string
		secs    []Section
	}{
		{"objcopy fails", "false", []Section{{".BTF", []byte("x")}}},
		{"no objcopy", "/nonexistent/objcopy", []Section{{".BTF", []byte("x")}}},
		{"second section fails", `sh -c 'case "$2" in .BTF.base=*) exit 1;; esac; exec objcopy "$@"' sh`,
			[]Section{{".BTF", []byte("x")}, {".BTF.base", []byte("y")}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := testfixtures.File(t, "dwarf/tags-x86_64.o.gz")
			before, _ := os.ReadFile(path)
			if err := Write(context.Background(), path, path, tc.secs, Options{Objcopy: tc.objcopy}); err == nil {
				t.Fatal("no error")
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("the file changed")
			}
			if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
				t.Errorf("%d files beside it, want none", len(ents)-1)
			}
		})
	}
}

// TestReplaceBadInput: damaged headers are errors, not panics.
func TestReplaceBadInput(t *testing.T) {
	good := testfixtures.Read(t, "pahole/elf/tags-x86_64.add.o.gz")
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"empty":        nil,
		"not ELF":      []byte("hello world, this is not an ELF file at all........................"),
		"truncated":    good[:100],
		"no shdrs":     append(append([]byte{}, good[:40]...), make([]byte, 24)...),
		"header only":  good[:64],
		"shoff at end": func() []byte { b := bytes.Clone(good); b[40], b[41], b[42] = 0xff, 0xff, 0xff; return b }(),
	} {
		src := filepath.Join(dir, "in")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if ok, err := replace(src, filepath.Join(dir, "out"), Section{Name: ".BTF"}); err == nil || ok {
			t.Errorf("%s: %v, %v; want an error", name, ok, err)
		}
	}
}

func FuzzReplace(f *testing.F) {
	for _, name := range goldens {
		f.Add(testfixtures.Read(f, "pahole/elf/"+name+".add.o.gz"))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		src := filepath.Join(dir, "in")
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, "out")
		ok, err := replace(src, dst, Section{Name: ".BTF", Data: []byte("new data")})
		if ok && err == nil {
			if fi, err := os.Stat(dst); err != nil || fi.Size() > int64(len(data))+1<<20 {
				t.Errorf("output %v, %v", fi, err)
			}
		}
	})
}

// TestReplaceWholeEntries (redteam14): data that is not a whole number of
// the section's entries is refused, as libelf's elf_update refuses it
// ("invalid section entry size") and pahole 1.30 with it: a .BTF whose
// sh_entsize is 7 or 24, or a relocation section named .BTF first (its
// entry size is 24 whatever sh_entsize says). It was written: a RELA
// section holding BTF.
func TestReplaceWholeEntries(t *testing.T) {
	good := testfixtures.Read(t, "pahole/elf/tags-x86_64.add.o.gz")
	h, err := readHeader(good)
	if err != nil {
		t.Fatal(err)
	}
	idx := h.find(".BTF")
	_, shoffAt, _ := h.ehdrField()
	shoff := int(h.word(good, shoffAt))
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		typ     elf.SectionType
		entsize uint64
		n       int
		ok      bool
	}{
		{"entsize 7", elf.SHT_PROGBITS, 7, 100, false},
		{"entsize 7, 7 entries", elf.SHT_PROGBITS, 7, 49, true},
		{"entsize 1", elf.SHT_PROGBITS, 1, 101, true},
		{"RELA named .BTF", elf.SHT_RELA, 0, 100, false},
		{"RELA named .BTF, whole", elf.SHT_RELA, 0, 96, true},
	} {
		s := h.sections[idx]
		s.typ, s.entsize = tc.typ, tc.entsize
		b := bytes.Clone(good)
		h.putSection(b[shoff+idx*h.shdrSize():], s)
		src := filepath.Join(dir, "in")
		if err := os.WriteFile(src, b, 0o644); err != nil {
			t.Fatal(err)
		}
		ok, err := replace(src, filepath.Join(dir, "out"), Section{Name: ".BTF", Data: make([]byte, tc.n)})
		if ok != tc.ok || (err == nil) != tc.ok {
			t.Errorf("%s: %v, %v; want %v", tc.name, ok, err, tc.ok)
		}
	}
}
