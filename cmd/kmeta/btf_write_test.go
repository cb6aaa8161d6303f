package main

import (
	"bytes"
	"cmp"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// loadKernel loads raw BTF with bpf(BPF_BTF_LOAD); it skips unless root
// and the syscall works.
func loadKernel(tb testing.TB, raw []byte) {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("kernel acceptance needs root for bpf(BPF_BTF_LOAD)")
	}
	if err := bpfsys.Available(); err != nil {
		tb.Skipf("bpf(BPF_BTF_LOAD) does not work here: %v", err)
	}
	f, err := bpfsys.LoadBTF(raw)
	if err != nil {
		tb.Fatalf("kernel rejected the output: %.3000s", err)
	}
	f.Close()
}

func rawDump(tb testing.TB, s *btf.Spec, scope btf.Scope) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := rawdump.Write(&buf, s, rawdump.Options{Scope: scope}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func readOut(tb testing.TB, path string, base *btf.Spec) (*btf.Spec, []byte) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := btf.Read(context.Background(), bytes.NewReader(data), btf.Options{Base: base})
	if err != nil {
		tb.Fatal(err)
	}
	return s, data
}

// TestBTFMin: "btf min" keeps the named types (with --fwd-pointees, as
// struct definitions while mm_struct becomes a FWD), its output parses and
// the kernel loads it.
func TestBTFMin(t *testing.T) {
	t.Parallel()
	vmlinux := testfixtures.File(t, testfixtures.HostVmlinux)
	dir := t.TempDir()
	sizes := map[bool]int{}
	for _, fwd := range []bool{false, true} {
		out := filepath.Join(dir, "min.btf")
		args := []string{"btf", "min", vmlinux, "--types", "task_struct,struct:sk_buff", "-o", out}
		if fwd {
			args = append(args, "--fwd-pointees")
		}
		if _, err := kmeta(t, nil, args...); err != nil {
			t.Fatal(err)
		}
		s, raw := readOut(t, out, nil)
		sizes[fwd] = len(raw)
		for _, name := range []string{"task_struct", "sk_buff"} {
			if _, err := s.FindOne(name, btf.FindOptions{Kind: btf.KindStruct}); err != nil {
				t.Fatalf("fwd=%v: %v", fwd, err)
			}
		}
		mm, err := s.FindOne("mm_struct", btf.FindOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if (mm.Kind() == btf.KindForward) != fwd {
			t.Errorf("fwd=%v: mm_struct is %v", fwd, mm)
		}
		loadKernel(t, raw)
	}
	if sizes[true]*4 > sizes[false] {
		t.Errorf("--fwd-pointees output %d bytes, whole %d", sizes[true], sizes[false])
	}
}

// TestBTFMinSplit: a module's types with -B give standalone BTF.
func TestBTFMinSplit(t *testing.T) {
	t.Parallel()
	base := testfixtures.File(t, testfixtures.DebianVmlinux)
	mod := filepath.Join(t.TempDir(), "xfs.btf")
	if err := os.WriteFile(mod, testfixtures.Modules(t)["xfs"], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "xfs-min.o")
	if _, err := kmeta(t, nil, "btf", "min", mod, "-B", base, "--types", "xfs_inode", "-o", out); err != nil {
		t.Fatal(err)
	}
	if _, err := elf.Open(out); err != nil {
		t.Fatalf("OUT.o is not an ELF object: %v", err)
	}
	s, _ := readOut(t, out, nil)
	if s.FirstID() != 1 {
		t.Fatalf("first id %d, want standalone output", s.FirstID())
	}
	if _, err := s.FindOne("xfs_inode", btf.FindOptions{Kind: btf.KindStruct}); err != nil {
		t.Fatal(err)
	}
}

// TestBTFCopy: "btf copy" is a full round trip, in both byte orders, as raw
// BTF and as ELF, plain and split; the dump equals bpftool's.
func TestBTFCopy(t *testing.T) {
	t.Parallel()
	vmlinux := testfixtures.File(t, testfixtures.DebianVmlinux)
	golden := testfixtures.Read(t, "bpftool/debian-6.1.raw.txt.gz")
	for _, tc := range []struct {
		out, endian string
		order       binary.ByteOrder
	}{
		{"copy.btf", "big", binary.BigEndian},
		{"copy.btf", "little", binary.LittleEndian},
		{"copy.o", "", binary.NativeEndian},
	} {
		out := filepath.Join(t.TempDir(), tc.out)
		args := []string{"btf", "copy", vmlinux, "-o", out}
		if tc.endian != "" {
			args = append(args, "--endian", tc.endian)
		}
		if _, err := kmeta(t, nil, args...); err != nil {
			t.Fatal(err)
		}
		s, _ := readOut(t, out, nil)
		if s.ByteOrder().Uint16([]byte{1, 0}) != tc.order.Uint16([]byte{1, 0}) {
			t.Errorf("%s: byte order %v, want %v", tc.endian, s.ByteOrder(), tc.order)
		}
		if !bytes.Equal(rawDump(t, s, btf.ScopeAll), golden) {
			t.Fatalf("%s %s: dump differs from bpftool's", tc.out, tc.endian)
		}
	}

	mod := filepath.Join(t.TempDir(), "kvm.btf")
	if err := os.WriteFile(mod, testfixtures.Modules(t)["kvm"], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "kvm-copy.btf")
	if _, err := kmeta(t, nil, "btf", "copy", mod, "-B", vmlinux, "-o", out); err != nil {
		t.Fatal(err)
	}
	base, err := btf.Open(context.Background(), vmlinux, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	s, _ := readOut(t, out, base)
	if !bytes.Equal(rawDump(t, s, btf.ScopeOwn), testfixtures.Read(t, "bpftool/modules/kvm.raw.txt.gz")) {
		t.Fatal("split copy: dump differs from bpftool's")
	}
}

// TestBTFCopyKeepsOrder: "btf copy" without --endian writes FILE's byte
// order, as libbpf's btf__raw_data writes back BTF it parsed: a
// big-endian copy copied again is the same bytes, and libbpfcopy's
// (bench/testdata/libbpfcopy.c) where the peer runs.
func TestBTFCopyKeepsOrder(t *testing.T) {
	t.Parallel()
	vmlinux := testfixtures.File(t, testfixtures.DebianVmlinux)
	dir := t.TempDir()
	big, out := filepath.Join(dir, "big.btf"), filepath.Join(dir, "out.btf")
	if _, err := kmeta(t, nil, "btf", "copy", vmlinux, "--endian", "big", "-o", big); err != nil {
		t.Fatal(err)
	}
	if _, err := kmeta(t, nil, "btf", "copy", big, "-o", out); err != nil {
		t.Fatal(err)
	}
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want, got := read(big), read(out)
	if !bytes.Equal(got, want) {
		t.Fatalf("copy of big-endian BTF (%d bytes) differs from its input (%d bytes)", len(got), len(want))
	}
	peer := cmp.Or(os.Getenv("KMETA_LIBBPFCOPY"), "/work/data/peers/libbpfcopy18")
	if _, err := exec.LookPath(peer); err != nil {
		t.Skipf("no libbpfcopy at %s (bench/testdata/libbpfcopy.c): set KMETA_LIBBPFCOPY", peer)
	}
	ref := filepath.Join(dir, "ref.btf")
	if msg, err := exec.Command(peer, big, ref).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", peer, err, msg)
	}
	if !bytes.Equal(got, read(ref)) {
		t.Fatal("copy of big-endian BTF differs from libbpf's")
	}
}

// TestBTFDedupBaseOrder: "btf dedup -B" without --endian writes BASE's
// byte order, as libbpf's split BTF takes its base's (the peer appends
// the inputs to btf__new_empty_split): a module on a big-endian vmlinux
// comes out big-endian, libbpfdedup's types and strings where the peer
// runs.
func TestBTFDedupBaseOrder(t *testing.T) {
	t.Parallel()
	vmlinux := testfixtures.File(t, testfixtures.DebianVmlinux)
	dir := t.TempDir()
	mod := filepath.Join(dir, "kvm.btf")
	if err := os.WriteFile(mod, testfixtures.Modules(t)["kvm"], 0o644); err != nil {
		t.Fatal(err)
	}
	base, split, out := filepath.Join(dir, "base.btf"), filepath.Join(dir, "split.btf"), filepath.Join(dir, "out.btf")
	for _, args := range [][]string{
		{"btf", "copy", vmlinux, "--endian", "big", "-o", base},
		{"btf", "copy", mod, "-B", vmlinux, "--endian", "big", "-o", split},
		{"btf", "dedup", split, "-B", base, "-o", out},
	} {
		if _, err := kmeta(t, nil, args...); err != nil {
			t.Fatal(err)
		}
	}
	baseSpec, _ := readOut(t, base, nil)
	got, _ := readOut(t, out, baseSpec)
	if got.ByteOrder() != binary.BigEndian {
		t.Fatalf("dedup on a big-endian base wrote %v", got.ByteOrder())
	}
	peer := cmp.Or(os.Getenv("KMETA_LIBBPFDEDUP"), "/work/data/peers/libbpfdedup18")
	if _, err := exec.LookPath(peer); err != nil {
		t.Skipf("no libbpfdedup at %s (internal/dedup/testdata/libbpf): set KMETA_LIBBPFDEDUP", peer)
	}
	ref := filepath.Join(dir, "ref.btf")
	if msg, err := exec.Command(peer, "-B", base, "-o", ref, split).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", peer, err, msg)
	}
	want, _ := readOut(t, ref, baseSpec)
	gs, _ := got.StringSection()
	ws, _ := want.StringSection()
	if want.ByteOrder() != binary.BigEndian || !bytes.Equal(got.TypeSection(), want.TypeSection()) || !bytes.Equal(gs, ws) {
		t.Fatalf("dedup on a big-endian base differs from libbpf's (%v)", want.ByteOrder())
	}
}

// TestBTFCopyKernel: the running kernel's BTF copied and loaded back.
func TestBTFCopyKernel(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(defaultVmlinux); err != nil {
		t.Skip("no kernel BTF")
	}
	out := filepath.Join(t.TempDir(), "vmlinux.btf")
	if _, err := kmeta(t, nil, "btf", "copy", defaultVmlinux, "-o", out); err != nil {
		t.Fatal(err)
	}
	_, raw := readOut(t, out, nil)
	loadKernel(t, raw)
}

func TestBTFWriteErrors(t *testing.T) {
	t.Parallel()
	vmlinux := testfixtures.File(t, testfixtures.HostVmlinux)
	out := filepath.Join(t.TempDir(), "x.btf")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"btf", "min", vmlinux, "-o", out}, "--types"},
		{[]string{"btf", "min", vmlinux, "--types", "task_struct"}, "-o"},
		{[]string{"btf", "min", vmlinux, "--types", "no_such_type_xyz", "-o", out}, "not found"},
		{[]string{"btf", "min", vmlinux, "--types", "nokind:x", "-o", out}, "unknown kind"},
		{[]string{"btf", "copy", vmlinux, "-o", out, "--endian", "middle"}, "--endian"},
		{[]string{"btf", "copy", vmlinux}, "-o"},
	} {
		_, err := kmeta(t, nil, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one mentioning %q", tc.args, err, tc.want)
		}
	}
	_, err := kmeta(t, nil, "btf", "min", vmlinux, "--types", "no_such_type_xyz", "-o", out)
	if !errors.Is(err, btf.ErrNotFound) {
		t.Errorf("unknown type: %v does not wrap ErrNotFound", err)
	}
}

// TestBTFMinStdout: "-o -" writes the BTF to stdout.
func TestBTFMinStdout(t *testing.T) {
	t.Parallel()
	vmlinux := testfixtures.File(t, testfixtures.HostVmlinux)
	stdout, err := kmeta(t, nil, "btf", "min", vmlinux, "--types", "list_head", "-o", "-")
	if err != nil {
		t.Fatal(err)
	}
	s, err := btf.Parse([]byte(stdout), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.NumTypes() < 2 {
		t.Fatalf("%d types", s.NumTypes())
	}
}
