package dwarf2btf_test

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// clangObjects are the ELF objects under testdata/dwarf, compiled
// by clang 14 from the sources there (testdata/dwarf/make.sh), with pahole
// 1.24 -j1's output for each under testdata/pahole/dwarf. They hold what
// the gcc-built Debian modules do not: btf_decl_tag and btf_type_tag
// (DW_TAG_LLVM_annotation), DWARF 5 as clang writes it (DW_FORM_strx,
// DW_OP_addrx), DWARF 4 and DWARF64, arm64 relocations (R_AARCH64_ABS32
// and ABS64), big-endian arm64, debug sections compressed with zlib (ELF
// and GNU .zdebug forms) and zstd, several units in one object (ld -r) and executables whose per-CPU data
// lies at address 0, as in a vmlinux, 32-bit ELF with SHT_REL
// relocations (armhf's R_ARM_ABS32, i386's R_386_32), and riscv64's
// (R_RISCV_ADD32 and SUB32 pairs), ppc64le's and 32-bit big-endian
// PowerPC's relocations.
var clangObjects = []string{
	"tags-x86_64", "tags-x86_64-dwarf4", "tags-x86_64-dwarf64", "tags-x86_64-zlib",
	"tags-arm64", "tags-arm64-dwarf4", "tags-arm64-zlib", "tags-arm64be",
	"percpu-x86_64", "percpu-arm64", "percpu-arm64-dwarf4",
	"kinds-x86_64", "kinds-arm64", "edge-x86_64", "edge-arm64", "quirks-x86_64", "quirks-arm64",
	"multi-x86_64", "multi-arm64", "multi-arm64-dwarf4", "multi-arm64be",
	"exec-x86_64", "exec-arm64",
	"multi-x86_64-zdebug", "tags-arm64-zdebug", "multi-x86_64-zstd",
	"tags-armhf", "percpu-i386", "tags-riscv64", "tags-ppc64le", "tags-ppc32",
}

// clangGolden names the pahole output an object must equal: its own, but
// pahole 1.24 (elfutils 0.188) cannot read zstd-compressed sections, so the
// zstd object, objcopy'd from multi-x86_64.o, must equal that one's.
func clangGolden(name string) string {
	if g, ok := strings.CutSuffix(name, "-zstd"); ok {
		return g
	}
	return name
}

// TestClangIdenticalToPahole encodes the clang objects with 1, 2 and 8
// workers through the final deduplication and compares the result with
// pahole 1.24 -j1's, byte for byte. The -j1 run reads the .o.gz file
// itself (EncodeFile).
func TestClangIdenticalToPahole(t *testing.T) {
	for _, name := range clangObjects {
		t.Run(name, func(t *testing.T) {
			want := testfixtures.Read(t, "pahole/dwarf/"+clangGolden(name)+".btf.gz")
			for _, jobs := range []int{1, 2, 8} {
				got := clangDedup(t, name, jobs)
				if !bytes.Equal(got, want) {
					t.Errorf("-j%d: %d bytes, pahole wrote %d; first difference at byte %d\n%s",
						jobs, len(got), len(want), firstDiff(got, want), explainDiff(got, want, nil))
				}
			}
		})
	}
}

// TestClangSplitIdenticalToPahole encodes multi-x86_64.o as a module,
// split on the Debian 6.1 vmlinux BTF and on the 6.18 host's (which has
// DECL_TAG and TYPE_TAG types of its own), with 1, 2 and 8 workers, and
// compares with pahole 1.24 --btf_base's output byte for byte.
func TestClangSplitIdenticalToPahole(t *testing.T) {
	obj := testfixtures.Read(t, "dwarf/multi-x86_64.o.gz")
	for base, file := range map[string]string{"debian-6.1": testfixtures.DebianVmlinux, "host-6.18.44": testfixtures.HostVmlinux} {
		t.Run(base, func(t *testing.T) {
			s := testfixtures.Spec(t, testfixtures.Read(t, file), nil)
			dbase, err := dwarf2btf.NewBase(s, dwarf2btf.Options{Jobs: 1})
			if err != nil {
				t.Fatal(err)
			}
			want := testfixtures.Read(t, "pahole/dwarf/multi-x86_64.on-"+base+".btf.gz")
			samePahole(t, obj, dwarf2btf.Options{Base: s, DedupBase: dbase, Compat: dwarf2btf.CompatPahole124}, want)
		})
	}
}

// clangDedup encodes testdata/dwarf/NAME.o.gz with jobs workers.
func clangDedup(tb testing.TB, name string, jobs int) []byte {
	tb.Helper()
	rel := "dwarf/" + name + ".o.gz"
	opts := dwarf2btf.Options{Jobs: jobs, Compat: dwarf2btf.CompatPahole124}
	data := testfixtures.Read(tb, rel)
	order, err := dwarf2btf.ByteOrder(data) // pahole writes the input's
	if err != nil {
		tb.Fatal(err)
	}
	var got []byte
	if jobs == 1 {
		got, err = dwarf2btf.EncodeFile(context.Background(), testfixtures.Path(tb, rel), opts, builder.Options{ByteOrder: order})
	} else {
		got, err = dwarf2btf.Encode(context.Background(), data, opts, builder.Options{ByteOrder: order})
	}
	if err != nil {
		tb.Fatalf("%s -j%d: %v", name, jobs, err)
	}
	return got
}

// explainDiff tells how two raw BTF, split on base if it is not nil,
// differ: the first type whose bpftool raw dump differs, both ways, else
// where the headers or the string sections part.
func explainDiff(got, want []byte, base *btf.Spec) string {
	gs, err := btf.Parse(got, btf.Options{Base: base})
	if err != nil {
		return fmt.Sprintf("ours does not parse: %v", err)
	}
	ws, err := btf.Parse(want, btf.Options{Base: base})
	if err != nil {
		return fmt.Sprintf("pahole's does not parse: %v", err)
	}
	var w strings.Builder
	fmt.Fprintf(&w, "types: ours %d, pahole's %d\n", gs.NumTypes(), ws.NumTypes())
	for id := gs.FirstID(); id < gs.FirstID()+btf.TypeID(max(gs.NumTypes(), ws.NumTypes())); id++ {
		g, w2 := dumpType(gs, id), dumpType(ws, id)
		if g != w2 {
			fmt.Fprintf(&w, "first differing type:\nours:\n%spahole:\n%s", g, w2)
			return w.String()
		}
	}
	if gs.ByteOrder() != ws.ByteOrder() {
		fmt.Fprintf(&w, "byte order: ours %v, pahole's %v\n", gs.ByteOrder(), ws.ByteOrder())
	}
	gstr, _ := gs.StringSection()
	wstr, _ := ws.StringSection()
	if i := firstDiff(gstr, wstr); i < max(len(gstr), len(wstr)) {
		fmt.Fprintf(&w, "same types; string sections (%d and %d bytes) part at offset %d:\nours:   %q\npahole: %q\n",
			len(gstr), len(wstr), i, around(gstr, i), around(wstr, i))
	}
	return w.String()
}

// dumpType is type id's bpftool raw dump, or "(none)".
func dumpType(s *btf.Spec, id btf.TypeID) string {
	t, err := s.TypeByID(id)
	if err != nil {
		return "(none)\n"
	}
	var b bytes.Buffer
	if err := rawdump.WriteType(&b, t); err != nil {
		return err.Error() + "\n"
	}
	return b.String()
}

// around is the bytes of b near offset i.
func around(b []byte, i int) []byte {
	return b[min(max(0, i-16), len(b)):min(len(b), i+32)]
}

// TestClangKernelAccepts loads each clang object's encoding into the
// running kernel (BPF_BTF_LOAD), as root where bpf() works; output of the
// other byte order than the host's is not loaded, and the quirks objects'
// must be refused, as pahole's: a member of _Atomic type has type 0.
func TestClangKernelAccepts(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: BPF_BTF_LOAD needs CAP_BPF or CAP_SYS_ADMIN")
	}
	if err := bpfsys.Available(); err != nil {
		t.Skipf("bpf(BPF_BTF_LOAD) does not work here: %v", err)
	}
	for _, name := range clangObjects {
		raw := clangDedup(t, name, 2)
		s, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.ByteOrder().Uint16([]byte{1, 0}) != binary.NativeEndian.Uint16([]byte{1, 0}) {
			t.Logf("%s: %v BTF, not the host's byte order: not loaded", name, s.ByteOrder())
			continue
		}
		if f, err := elf.NewFile(bytes.NewReader(testfixtures.Read(t, "dwarf/"+name+".o.gz"))); err == nil && f.Class == elf.ELFCLASS32 {
			// The kernel checks members against its own pointer size.
			t.Logf("%s: 32-bit BTF (4-byte pointers): not loaded", name)
			continue
		}
		f, err := bpfsys.LoadBTF(raw)
		if strings.HasPrefix(name, "quirks-") {
			if err == nil {
				f.Close()
				t.Errorf("%s: the kernel accepted a struct member of type void", name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: the kernel rejected the BTF: %.2000s", name, err)
			continue
		}
		f.Close()
	}
}

// TestClangByteOrder: asked for either byte order, Dedup writes pahole's
// types and strings, the string section in libbpf's order included.
func TestClangByteOrder(t *testing.T) {
	const name = "multi-x86_64" // four units: the strings of dropped types come early
	obj := testfixtures.Read(t, "dwarf/"+name+".o.gz")
	want, err := btf.Parse(testfixtures.Read(t, "pahole/dwarf/"+name+".btf.gz"), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantStrs, _ := want.StringSection()
	for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		raw, err := dwarf2btf.Encode(context.Background(), obj, dwarf2btf.Options{Jobs: 2, Compat: dwarf2btf.CompatPahole124}, builder.Options{ByteOrder: order})
		if err != nil {
			t.Fatal(err)
		}
		got, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			t.Fatalf("%v: %v", order, err)
		}
		gotStrs, _ := got.StringSection()
		if got.ByteOrder() != order || !bytes.Equal(got.TypeSection(), want.TypeSection()) || !bytes.Equal(gotStrs, wantStrs) {
			t.Errorf("%v: %v BTF differing from pahole's:\n%s", order, got.ByteOrder(), explainDiff(raw, testfixtures.Read(t, "pahole/dwarf/"+name+".btf.gz"), nil))
		}
	}
}

// TestZdebugBroken: a .zdebug section without its "ZLIB" header, or that
// claims to inflate to far more than it can, is an error, not a panic or
// a huge allocation.
func TestZdebugBroken(t *testing.T) {
	obj := testfixtures.Read(t, "dwarf/tags-arm64-zdebug.o.gz")
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Section(".zdebug_info")
	if s == nil {
		t.Fatal("no .zdebug_info")
	}
	for what, edit := range map[string]func(b []byte){
		"no ZLIB header": func(b []byte) { copy(b, "ZLIX") },
		"size claim":     func(b []byte) { binary.BigEndian.PutUint64(b[4:], 1<<40) },
		"short claim":    func(b []byte) { binary.BigEndian.PutUint64(b[4:], 16) },
		"cut stream":     func(b []byte) { clear(b[12+len(b)/2:]) },
	} {
		bad := bytes.Clone(obj)
		edit(bad[s.Offset : s.Offset+s.Size])
		if _, err := dwarf2btf.Encode(context.Background(), bad, dwarf2btf.Options{Jobs: 2}, builder.Options{}); err == nil {
			t.Errorf("%s: no error", what)
		} else if !strings.Contains(err.Error(), ".zdebug_info") {
			t.Errorf("%s: %v, not about .zdebug_info", what, err)
		}
	}
}
