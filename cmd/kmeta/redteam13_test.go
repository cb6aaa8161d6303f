package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// The thirteenth hostile campaign of issue 37: what the twelve before did
// not try. Records whose members move between two versions or repeat one
// name at scale, anonymous members at one offset and unions of thousands
// of members (hostile.Variant13), each diffed against its twin;
// split BTF on a base that is itself split (a module on a module on
// vmlinux) through every command that takes -B; kernel images (bzImage)
// whose payload is each compressor the kernel builds with (gzip, bzip2,
// lzma, xz, lzo, lz4, zstd), truncated and bombed; and other
// architectures' BTF (s390x's, big-endian, and arm64's) in ELF and in
// their images.

// rt13Sizes are the members in all of each Variant13 the campaign runs;
// the first is the quick one.
var rt13Sizes = map[hostile.Variant13][]int{
	hostile.MovedMembers:  {4096, 65_535, 1_000_000},
	hostile.RepeatNames:   {4096, 65_535, 1_000_000},
	hostile.AnonOneOffset: {4096, 65_535, 300_000},
	hostile.WideUnion:     {4096, 65_535, 300_000},
}

// rt13Find is the name each variant's find and min look for.
var rt13Find = map[hostile.Variant13]string{
	hostile.MovedMembers: "s0", hostile.RepeatNames: "r0", hostile.AnonOneOffset: "a0", hostile.WideUnion: "u0",
}

// rt13Compressors are the kernel build's compressors (scripts/Makefile.lib),
// as command lines, with the extension the campaign names them by.
var rt13Compressors = [][]string{
	{"gz", "gzip", "-n", "-1"},
	{"bz2", "bzip2", "-1"},
	{"lzma", "lzma", "-1"},
	{"xz", "xz", "--check=crc32", "--x86", "--lzma2=preset=1"},
	{"lzo", "lzop", "-1", "-c"},
	{"lz4", "lz4", "-l", "-1", "stdin", "stdout"},
	{"zst", "zstd", "-3", "-c"},
}

// rt13Compress runs argv on data, or returns nil when it is not installed.
func rt13Compress(t *testing.T, data []byte, argv []string) []byte {
	return rt13CompressFrom(t, bytes.NewReader(data), argv)
}

// rt13Zeros reads as n zero bytes, without holding them.
type rt13Zeros struct{ n int64 }

func (z *rt13Zeros) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), z.n)]
	clear(p)
	z.n -= int64(len(p))
	return len(p), nil
}

// rt13CompressFrom runs argv on what r reads, or returns nil when it is
// not installed.
func rt13CompressFrom(t *testing.T, r io.Reader, argv []string) []byte {
	if _, err := exec.LookPath(argv[0]); err != nil {
		t.Logf("no %s: no such image", argv[0])
		return nil
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = r
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return out
}

// rt13ImageCases are the reading commands on a kernel image of S bytes
// of ELF inside (what it inflates to); bomb images are read with
// --max-input 16M and must be refused.
func rt13ImageCases(path string, s int64, find string, bomb bool) []rt9Case {
	read := readBound(s)
	if bomb {
		read = readBound(16 << 20)
		return []rt9Case{
			{"image bomb", []string{"btf", "dump", path, "--max-input", "16M"}, nil, read},
			{"image bomb c", []string{"btf", "find", find, path, "--max-input", "16M"}, nil, read},
		}
	}
	return []rt9Case{
		{"image dump", []string{"btf", "dump", path}, nil, read},
		{"image dump c", []string{"btf", "dump", path, "--format", "c"}, nil, read},
		{"image find", []string{"btf", "find", find, path}, nil, read},
		{"image layout", []string{"btf", "layout", find, path}, nil, read},
		{"image limit S", []string{"btf", "dump", path, "--max-input", strconv.FormatInt(s, 10)}, nil, read},
	}
}

// rt13Inputs writes the campaign's inputs into dir, and the extra cases
// of each by its name.
func rt13Inputs(t *testing.T, dir string, quick bool) ([]rt9Input, map[string][]rt9Case) {
	var ins []rt9Input
	extra := map[string][]rt9Case{}
	vmlinuxRaw := testfixtures.Read(t, testfixtures.DebianVmlinux)
	vmlinux := testfixtures.File(t, testfixtures.DebianVmlinux)
	// The middle of the split-on-split: a module of 1,000 structs on vmlinux.
	mid, err := hostile.SplitOn(vmlinuxRaw, 1000)
	if err != nil {
		t.Fatal(err)
	}
	midPath := writeFile(t, dir, "mid.btf", mid)
	for i, v := range hostile.Variant13s() {
		sizes := rt13Sizes[v]
		if quick {
			sizes = sizes[:1]
		} else {
			sizes = sizes[1:]
		}
		for j, n := range sizes {
			raw, err := hostile.BuildVariant13(v, n)
			if err != nil {
				t.Fatal(err)
			}
			twin, err := hostile.BuildVariant13Twin(v, n)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%v-%d", v, n)
			find := rt13Find[v]
			path := writeFile(t, dir, name+".btf", raw)
			tpath := writeFile(t, dir, name+".twin.btf", twin)
			ins = append(ins, rt9Input{name: name, path: path, size: int64(len(raw)), kind: "btf", full: true, find: find, types: shapeStats(raw), strs: rt11Strings(raw)})
			both := readBound(int64(len(raw) + len(twin)))
			extra[name] = []rt9Case{
				{"diff twin", []string{"btf", "diff", path, tpath}, nil, both},
				{"diff twin back", []string{"btf", "diff", tpath, path}, nil, both},
				{"diff twin types", []string{"btf", "diff", path, tpath, "--types", find}, nil, both},
			}
			if j > 0 || quick && i > 0 {
				continue
			}
			split, err := hostile.BuildVariant13On(vmlinuxRaw, v, n)
			if err != nil {
				t.Fatal(err)
			}
			sname := "split-" + name
			ins = append(ins, rt9Input{name: sname, path: writeFile(t, dir, sname+".btf", split), size: int64(len(split)), base: vmlinux, kind: "btf", full: true, find: find, types: len(split) / 12, strs: rt11Strings(split) + rt11Strings(vmlinuxRaw)})
			// A module on a module: -B names the middle, which is split
			// itself; kmeta reads it or refuses it in one line.
			top, err := hostile.BuildVariant13OnSplit(vmlinuxRaw, mid, v, n)
			if err != nil {
				t.Fatal(err)
			}
			tname := "split2-" + name
			ins = append(ins, rt9Input{name: tname, path: writeFile(t, dir, tname+".btf", top), size: int64(len(top)), base: midPath, kind: "btf", full: true, find: find, types: len(top) / 12, strs: rt11Strings(top) + rt11Strings(mid)})
		}
	}
	// Kernel images of every compressor: vmlinux's BTF in an ELF file.
	elf, err := builder.ELF(vmlinuxRaw)
	if err != nil {
		t.Fatal(err)
	}
	for k, c := range rt13Compressors {
		if quick && k != 0 && k != 6 {
			continue
		}
		z := rt13Compress(t, elf, c[1:])
		if z == nil {
			continue
		}
		// The build appends the size (size_append) to every payload but
		// gzip's, which ends with its own.
		if c[0] != "gz" {
			z = binary.LittleEndian.AppendUint32(z, uint32(len(elf)))
		}
		name := "bzimage-" + c[0]
		img := testfixtures.BzImage(z)
		path := writeFile(t, dir, name, img)
		ins = append(ins, rt9Input{name: name, path: path, size: int64(len(elf)), kind: "image"})
		extra[name] = rt13ImageCases(path, int64(len(elf)), "task_struct", false)
		// Cut in half: one line, status 2.
		cut := testfixtures.BzImage(z[:len(z)/2])
		cname := name + "-cut"
		ins = append(ins, rt9Input{name: cname, path: writeFile(t, dir, cname, cut), size: int64(len(elf)), kind: "image"})
		extra[cname] = rt13ImageCases(ins[len(ins)-1].path, int64(len(elf)), "task_struct", true)
		// A bomb: 256 MB of zeros (1 GB out of the quick run), claimed.
		if quick && k != 0 {
			continue
		}
		zeros := int64(1 << 30)
		if quick {
			zeros = 256 << 20
		}
		bomb := rt13CompressFrom(t, &rt13Zeros{zeros}, c[1:])
		if c[0] != "gz" {
			bomb = binary.LittleEndian.AppendUint32(bomb, uint32(zeros))
		}
		bname := name + "-bomb"
		ins = append(ins, rt9Input{name: bname, path: writeFile(t, dir, bname, testfixtures.BzImage(bomb)), size: 16 << 20, kind: "image"})
		extra[bname] = rt13ImageCases(ins[len(ins)-1].path, 16<<20, "task_struct", true)
	}
	// Other architectures: s390x's BTF (big-endian) and arm64's, raw, in
	// ELF, and in their images.
	for _, a := range []struct{ name, fixture string }{{"s390x", "btf/debian-6.12-s390x.btf.zst"}, {"arm64", "btf/debian-6.12-arm64.btf.zst"}} {
		if quick && a.name == "arm64" {
			continue
		}
		raw := testfixtures.Read(t, a.fixture)
		body := testfixtures.KernelBody(raw)
		aelf, err := builder.ELF(raw)
		if err != nil {
			t.Fatal(err)
		}
		ename := a.name + ".o"
		ins = append(ins, rt9Input{name: ename, path: writeFile(t, dir, ename, aelf), size: int64(len(raw)), kind: "btf", full: true, find: "task_struct", types: shapeStats(raw), strs: rt11Strings(raw)})
		if quick {
			continue
		}
		var img []byte
		if a.name == "arm64" {
			img = testfixtures.Arm64Image(body)
		} else {
			z := rt13Compress(t, body, []string{"gzip", "-n", "-1"})
			if z == nil {
				continue
			}
			img = testfixtures.S390Image(binary.LittleEndian.AppendUint32(z, uint32(len(body))))
		}
		// S is what the image inflates to: the kernel's sections.
		iname := a.name + "-image"
		path := writeFile(t, dir, iname, img)
		s := int64(max(len(img), len(body)))
		ins = append(ins, rt9Input{name: iname, path: path, size: s, kind: "image"})
		extra[iname] = rt13ImageCases(path, s, "task_struct", false)
	}
	return ins, extra
}

// TestRedteam13Campaign runs every command on every input of the
// thirteenth campaign under GNU time and judges each as
// TestRedteam9Campaign does (rt9Campaign); btf min --obj and btf core
// take testdata/core/fields.bpf.o. It writes the table to
// $KMETA_RT13_REPORT when set. KMETA_RT13_QUICK=1 runs the smallest size
// of each shape and a third of the images (at most 30 s of test time on
// an idle machine); KMETA_RT9_ONLY=REGEXP the inputs whose names match.
func TestRedteam13Campaign(t *testing.T) {
	quick := os.Getenv("KMETA_RT13_QUICK") == "1"
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("the thirteenth campaign, moved members, split on split, kernel images of every compressor: set KMETA_HEAVY=1 (KMETA_RT13_QUICK=1 for 30 s)")
	}
	dir := t.TempDir()
	obj := writeFile(t, dir, "fields.bpf.o", testfixtures.Read(t, "core/fields.bpf.o.gz"))
	c := newRt9Campaign(t, "KMETA_RT13_REPORT", quick)
	ins, extra := rt13Inputs(t, dir, quick)
	c.runAll(ins, extra, dir, obj, nil)
}

// TestRedteam13Write writes one shape of the thirteenth campaign into
// KMETA_RT9_OUT, for measuring by hand: KMETA_RT13_WRITE=NAME-N (as in
// "moved-members-65535", and its twin beside it; "split-NAME-N" on
// Debian 6.1's vmlinux; "split2-NAME-N" on a module of 1,000 structs on
// it, written as mid.btf).
func TestRedteam13Write(t *testing.T) {
	dir, what, name, n, split := rtWriteTarget(t, "KMETA_RT13_WRITE", "thirteenth")
	vmlinux := testfixtures.Read(t, testfixtures.DebianVmlinux)
	if shape, ok := strings.CutPrefix(name, "split2-"); ok {
		mid, err := hostile.SplitOn(vmlinux, 1000)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, "mid.btf", mid)
		raw, err := hostile.BuildVariant13OnSplit(vmlinux, mid, rtByName(t, shape, hostile.Variant13s()), n)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, what+".btf", raw)
		return
	}
	v := rtByName(t, name, hostile.Variant13s())
	if split {
		raw, err := hostile.BuildVariant13On(vmlinux, v, n)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, what+".btf", raw)
		return
	}
	raw, err := hostile.BuildVariant13(v, n)
	if err != nil {
		t.Fatal(err)
	}
	twin, err := hostile.BuildVariant13Twin(v, n)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, what+".btf", raw)
	writeFile(t, dir, what+".twin.btf", twin)
}

// rt13Targets are the clang targets TestRedteam13Open encodes
// testdata/dwarf/edge.c for, whose BTF pahole 1.24 writes right.
var rt13Targets = []string{"x86_64-linux-gnu", "s390x-linux-gnu", "riscv64-linux-gnu", "powerpc64-linux-gnu", "powerpc-linux-gnu"}

// TestRedteam13Open reproduces what the thirteenth campaign found open
// (KMETA_HEAVY=1 and KMETA_RT13_OPEN=1; the numbers are in
// /work/data/briefs/s30/redteam13-findings.md): btf encode of a 32-bit
// PowerPC object (EM_PPC, R_PPC_ADDR32 relocations in its debug
// sections) names every type by .debug_str's first string, where pahole
// 1.24 applies the relocations. It builds edge.c with clang for each of
// rt13Targets and wants kmeta's BTF to be pahole's, byte for byte.
func TestRedteam13Open(t *testing.T) {
	if os.Getenv("KMETA_HEAVY") != "1" || os.Getenv("KMETA_RT13_OPEN") != "1" {
		t.Skip("the thirteenth campaign's open findings: set KMETA_HEAVY=1 and KMETA_RT13_OPEN=1")
	}
	for _, prog := range []string{"clang", "pahole"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("no %s", prog)
		}
	}
	dir := t.TempDir()
	src := testfixtures.Path(t, "dwarf/edge.c")
	for _, target := range rt13Targets {
		obj := filepath.Join(dir, target+".o")
		if out, err := exec.Command("clang", "--target="+target, "-O2", "-g", "-c", src, "-o", obj).CombinedOutput(); err != nil {
			t.Logf("clang --target=%s: %v: %s", target, err, firstLine(string(out)))
			continue
		}
		want := filepath.Join(dir, target+".pahole.btf")
		if out, err := exec.Command("pahole", "-J", "--btf_gen_floats", "-j1", "--lang_exclude=rust", "--btf_encode_detached="+want, obj).CombinedOutput(); err != nil {
			t.Fatalf("pahole %s: %v: %s", target, err, out)
		}
		got := filepath.Join(dir, target+".kmeta.btf")
		if _, err := kmeta(t, nil, "btf", "encode", obj, "--like", "pahole-1.24", "-o", got); err != nil {
			t.Errorf("btf encode %s: %v", target, err)
			continue
		}
		g, _ := os.ReadFile(got)
		w, _ := os.ReadFile(want)
		if !bytes.Equal(g, w) {
			t.Errorf("btf encode of edge.c for %s: %d bytes unlike pahole 1.24's %d", target, len(g), len(w))
		}
	}
}

// TestRedteam13Small runs every BTF command in process on each Variant13
// of 300 members, standalone, split on a base and split on a split (whose
// -B names the middle, a split itself), and diffs each against its twin
// both ways: each succeeds or fails in one line (a panic fails the test
// binary), and btf dump prints what bpftool 7.1 prints.
func TestRedteam13Small(t *testing.T) {
	t.Parallel()
	dir, obj, baseRaw, base, bpftool := rtSmallSetup(t)
	mid, err := hostile.SplitOn(baseRaw, 3)
	if err != nil {
		t.Fatal(err)
	}
	midPath := writeFile(t, dir, "mid.btf", mid)
	for _, v := range hostile.Variant13s() {
		const n = 300
		raw, err := hostile.BuildVariant13(v, n)
		if err != nil {
			t.Fatal(err)
		}
		twin, err := hostile.BuildVariant13Twin(v, n)
		if err != nil {
			t.Fatal(err)
		}
		split, err := hostile.BuildVariant13On(baseRaw, v, n)
		if err != nil {
			t.Fatal(err)
		}
		top, err := hostile.BuildVariant13OnSplit(baseRaw, mid, v, n)
		if err != nil {
			t.Fatal(err)
		}
		name, find := v.String(), rt13Find[v]
		path, tpath := writeFile(t, dir, name+".btf", raw), writeFile(t, dir, name+".twin.btf", twin)
		rtSmallRun(t, dir, obj, bpftool,
			rt9Input{name: name, path: path, size: int64(len(raw)), kind: "btf", full: true, find: find},
			rt9Input{name: "split-" + name, path: writeFile(t, dir, "split-"+name+".btf", split), size: int64(len(split)), kind: "btf", full: true, find: find, base: base},
			rt9Input{name: "split2-" + name, path: writeFile(t, dir, "split2-"+name+".btf", top), size: int64(len(top)), kind: "btf", full: true, find: find, base: midPath})
		for _, args := range [][]string{{path, tpath}, {tpath, path}, {path, tpath, "--types", find}, {path, tpath, "--json"}} {
			if _, err := kmeta(t, nil, append([]string{"btf", "diff"}, args...)...); err != nil && !strings.Contains(err.Error(), "exit status 1") && strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: btf diff %v: error of more than one line: %q", name, args, err)
			}
		}
	}
}
