package main

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// The twelfth hostile campaign of issue 37: mixtures of the shapes the
// eleven before built one at a time (hostile.Variant12: a wide struct at
// the bottom of a deep anonymous chain that a prototype takes, at the
// printers' and walkers' depth limits and one past; prototypes nested
// through pointer parameters; one anonymous wide struct or one wide
// prototype used many times, a small input of large C; members of kinds
// that have no size), standalone, in ELF behind 100,000 sections named
// like .BTF, split on Debian 6.1's vmlinux and on a hostile base (the
// ninth's self-anon-unions, which embeds itself), compressed every way
// a user may (gzip, xz, zstd, zlib, bzip2, lz4) at --max-input exactly;
// DWARF of many units of one type each, DWARF 2 bitfields, VLAs, sizes
// past 32 bits and DW_AT_type of DIEs that are not types; kallsyms of
// names of one long prefix, all-zero addresses, CRLF lines and mixed
// address widths.

// rt12Sizes are the sizes of each Variant12 the campaign runs: around
// the limits of btf/cdump (maxDepth 2,048), btf/layout (jsonLevels
// 1,024, maxLevels 4,096), and large; the first is the quick one.
var rt12Sizes = map[hostile.Variant12][]int{
	// The quick run's 1,025 is past layout --json's limit; bpftool 7.5
	// takes 0.9 s of C at 2,049 levels, 3.3 s at 4,097.
	hostile.WideDeepProto: {1025, 1024, 2048, 2049, 4096, 4097, 100_000},
	hostile.ParamPtrChain: {2049, 2048, 4097, 300_000},
	// 2n x 65,535 lines of C from a 0.8 MB input.
	hostile.SharedAnonWide:  {2, 64},
	hostile.SharedWideProto: {2, 64},
	hostile.KindSoup:        {60, 300_000},
}

// rt12Find is the name each variant's find and min look for.
var rt12Find = map[hostile.Variant12]string{
	hostile.WideDeepProto: "wide", hostile.ParamPtrChain: "outer", hostile.SharedAnonWide: "h0",
	hostile.SharedWideProto: "f0", hostile.KindSoup: "outer",
}

// rt12Exts are the compressions the campaign writes: what kmeta reads
// (gzip, xz, zstd, zlib), and what it must refuse in one line.
var rt12Exts = []string{".gz", ".xz", ".zst", ".zlib", ".bz2", ".lz4"}

// rt12Compress returns data compressed as ext says, or nil when the
// program it takes (bzip2, lz4) is not installed.
func rt12Compress(t *testing.T, data []byte, ext string) []byte {
	switch ext {
	case ".zlib":
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	case ".bz2", ".lz4":
		prog := map[string][]string{".bz2": {"bzip2", "-c", "-1"}, ".lz4": {"lz4", "-c", "-1"}}[ext]
		if _, err := exec.LookPath(prog[0]); err != nil {
			t.Logf("no %s: no %s input", prog[0], ext)
			return nil
		}
		cmd := exec.Command(prog[0], prog[1:]...)
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	return rt9Compress(t, data, ext)
}

// rt12Inputs writes the campaign's inputs into dir, and the extra cases
// of each by its name.
func rt12Inputs(t *testing.T, dir string, quick bool) ([]rt9Input, map[string][]rt9Case) {
	var ins []rt9Input
	extra := map[string][]rt9Case{}
	vmlinux := testfixtures.File(t, testfixtures.DebianVmlinux)
	// A hostile base: a struct that embeds itself through 200
	// anonymous unions (200: libbpf's dedup takes over 40 s from 2,048
	// levels on).
	hostileRaw, err := hostile.BuildVariant(hostile.SelfAnonUnions, 200)
	if err != nil {
		t.Fatal(err)
	}
	hbase := writeFile(t, dir, "self-base.btf", hostileRaw)
	sections := 100_000
	if quick {
		sections = 1000
	}
	for i, v := range hostile.Variant12s() {
		sizes := rt12Sizes[v]
		if quick {
			sizes = sizes[:1]
		}
		var prev string
		for j, n := range sizes {
			raw, err := hostile.BuildVariant12(v, n)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%v-%d", v, n)
			find := rt12Find[v]
			types := shapeStats(raw)
			strs := rt11Strings(raw)
			path := writeFile(t, dir, name+".btf", raw)
			ins = append(ins, rt9Input{name: name, path: path, size: int64(len(raw)), kind: "btf", full: true, find: find, types: types, strs: strs})
			if prev != "" {
				ps, _ := os.Stat(prev)
				extra[name] = []rt9Case{{"diff other", []string{"btf", "diff", prev, path}, nil, readBound(ps.Size() + int64(len(raw)))}}
			}
			prev = path
			if j > 0 {
				continue
			}
			if !quick || i == 1 {
				elf := hostile.BuildELF12(raw, sections)
				ename := fmt.Sprintf("%s.o-%d", name, sections)
				ins = append(ins, rt9Input{name: ename, path: writeFile(t, dir, ename, elf), size: int64(len(elf)), kind: "btf", full: true, find: find, types: types, strs: strs})
			}
			for _, b := range []struct{ name, path string }{{"split-", vmlinux}, {"self-", hbase}} {
				if quick && (b.path == vmlinux && i%2 == 1 || b.path == hbase && i != 1) {
					continue
				}
				braw, _ := os.ReadFile(b.path)
				split, err := hostile.BuildVariant12On(braw, v, n)
				if err != nil {
					t.Fatal(err)
				}
				sname := b.name + name
				ins = append(ins, rt9Input{name: sname, path: writeFile(t, dir, sname+".btf", split), size: int64(len(split)), base: b.path, kind: "btf", full: true, find: find, types: len(split) / 12, strs: rt11Strings(split) + rt11Strings(braw)})
			}
			// Every compression at --max-input exactly (rt9Cases'
			// "limit S" and "limit S-1"): the quick run two of them,
			// on the first variant, and the lone forms kmeta refuses.
			for k, ext := range rt12Exts {
				if quick && !(i == 0 && (k == 3 || k == 4)) {
					continue
				}
				z := rt12Compress(t, raw, ext)
				if z == nil {
					continue
				}
				zname := name + ext
				ins = append(ins, rt9Input{name: zname, path: writeFile(t, dir, name+".btf"+ext, z), size: int64(len(raw)), kind: "btf", find: find, types: types, strs: strs})
			}
		}
	}
	for _, k := range hostile.DWARF12Shapes() {
		sizes := []int{1000, 100_000}
		if k == hostile.D12OldBitfields {
			sizes[1] = 65_535
		}
		if quick {
			sizes = sizes[:1]
		}
		for _, n := range sizes {
			name := fmt.Sprintf("dwarf-%v-%d", k, n)
			obj := hostile.BuildDWARF12(k, n)
			ins = append(ins, rt9Input{name: name, path: writeFile(t, dir, name+".o", obj), size: int64(len(obj)), kind: "dwarf"})
		}
	}
	for i, k := range hostile.Kallsyms12s() {
		n := 200_000
		if quick {
			n = 1000
		}
		text := hostile.BuildKallsyms12(k, n)
		name := fmt.Sprintf("kallsyms-%v-%d", k, n)
		path := writeFile(t, dir, name, text)
		find := "sym1_"
		if k == hostile.KsCommonPrefix {
			find = strings.Repeat("p", 400) + "sym1_"
		}
		ins = append(ins, rt9Input{name: name, path: path, size: int64(len(text)), kind: "kallsyms", find: find})
		kb := ksymBound(int64(len(text)), 1000)
		extra[name] = []rt9Case{
			{"ksym limit S", []string{"ksym", "stats", "--kallsyms", path, "--max-input", strconv.Itoa(len(text))}, nil, kb},
			{"ksym addr 0", []string{"ksym", "addr", "0", "--kallsyms", path}, nil, kb},
			{"ksym name json", []string{"ksym", "name", find, "--kallsyms", path, "--json"}, nil, kb},
		}
		if !quick {
			ext := rt12Exts[3+i%3]
			if z := rt12Compress(t, text, ext); z != nil {
				ins = append(ins, rt9Input{name: name + ext, path: writeFile(t, dir, name+ext, z), size: int64(len(text)), kind: "kallsyms", find: find})
			}
		}
	}
	return ins, extra
}

// TestRedteam12Campaign runs every command on every input of the
// twelfth campaign under GNU time and judges each as TestRedteam9Campaign
// does (rt9Campaign); btf min --obj and btf core take
// testdata/core/shapes12.bpf.o, whose relocations hit the shapes. It
// writes the table to $KMETA_RT12_REPORT when set. KMETA_RT12_QUICK=1
// runs one size of each shape (about 40 s of test time on an idle machine); KMETA_RT9_ONLY=REGEXP the
// inputs whose names match.
func TestRedteam12Campaign(t *testing.T) {
	quick := os.Getenv("KMETA_RT12_QUICK") == "1"
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("the twelfth campaign, every command on mixed shapes beside its peers: set KMETA_HEAVY=1 (KMETA_RT12_QUICK=1 for 40 s)")
	}
	dir := t.TempDir()
	obj := writeFile(t, dir, "shapes12.bpf.o", testfixtures.Read(t, "core/shapes12.bpf.o.gz"))
	c := newRt9Campaign(t, "KMETA_RT12_REPORT", quick)
	ins, extra := rt12Inputs(t, dir, quick)
	c.runAll(ins, extra, dir, obj, func(in rt9Input, cs []rt9Case) {
		if !rt12Refused(in.name) {
			return
		}
		// kmeta reads no such compression: --max-input S fails in
		// one line as every other command does.
		for i := range cs {
			if cs[i].label == "limit S" {
				cs[i].label = "limit S refused"
			}
		}
	})
}

// rt12Refused tells the inputs compressed in a way kmeta does not read
// (zlib streams, bzip2, lz4), as bpftool does not.
func rt12Refused(name string) bool {
	return strings.HasSuffix(name, ".zlib") || strings.HasSuffix(name, ".bz2") || strings.HasSuffix(name, ".lz4")
}

// TestRedteam12Write writes one shape of the twelfth campaign into
// KMETA_RT9_OUT, for measuring by hand: KMETA_RT12_WRITE=NAME-N (as in
// "kind-soup-1000"; "split-NAME-N" on Debian 6.1's vmlinux;
// "dwarf-NAME-N"; "kallsyms-NAME-N"; "elf-NAME-N", the variant of size
// 2,049 behind N sections named like .BTF).
func TestRedteam12Write(t *testing.T) {
	dir, what, name, n, split := rtWriteTarget(t, "KMETA_RT12_WRITE", "twelfth")
	if shape, ok := strings.CutPrefix(name, "dwarf-"); ok {
		writeFile(t, dir, what+".o", hostile.BuildDWARF12(rtByName(t, shape, hostile.DWARF12Shapes()), n))
		return
	}
	if shape, ok := strings.CutPrefix(name, "kallsyms-"); ok {
		writeFile(t, dir, what, hostile.BuildKallsyms12(rtByName(t, shape, hostile.Kallsyms12s()), n))
		return
	}
	var raw []byte
	var err error
	switch shape, elf := strings.CutPrefix(name, "elf-"); {
	case elf:
		raw, err = hostile.BuildVariant12(rtByName(t, shape, hostile.Variant12s()), 2049)
		if err == nil {
			writeFile(t, dir, what+".o", hostile.BuildELF12(raw, n))
		}
	case split:
		raw, err = hostile.BuildVariant12On(testfixtures.Read(t, testfixtures.DebianVmlinux), rtByName(t, name, hostile.Variant12s()), n)
	default:
		raw, err = hostile.BuildVariant12(rtByName(t, name, hostile.Variant12s()), n)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "elf-") {
		writeFile(t, dir, what+".btf", raw)
	}
}

// rt12SmallSizes are the sizes TestRedteam12Small builds each variant
// at: milliseconds a command, past 64 levels where a variant nests.
var rt12SmallSizes = map[hostile.Variant12]int{
	hostile.WideDeepProto: 70, hostile.ParamPtrChain: 70, hostile.SharedAnonWide: 1,
	hostile.SharedWideProto: 1, hostile.KindSoup: 12,
}

// TestRedteam12Small runs every BTF command in process on each Variant12
// at a small size, standalone, behind 70 sections named like .BTF and
// split on a base, each DWARF12 shape through btf encode and each
// Kallsyms12 through ksym: each succeeds or fails in one line (a panic
// fails the test binary), and btf dump prints what bpftool 7.1 prints
// where it dumps the variant.
func TestRedteam12Small(t *testing.T) {
	t.Parallel()
	dir, _, baseRaw, base, bpftool := rtSmallSetup(t)
	obj := writeFile(t, dir, "shapes12.bpf.o", testfixtures.Read(t, "core/shapes12.bpf.o.gz"))
	for _, v := range hostile.Variant12s() {
		raw, err := hostile.BuildVariant12(v, rt12SmallSizes[v])
		if err != nil {
			t.Fatal(err)
		}
		split, err := hostile.BuildVariant12On(baseRaw, v, rt12SmallSizes[v])
		if err != nil {
			t.Fatal(err)
		}
		elf := hostile.BuildELF12(raw, 70)
		rtSmallRun(t, dir, obj, bpftool,
			rt9Input{name: v.String(), path: writeFile(t, dir, v.String()+".btf", raw), size: int64(len(raw)), kind: "btf", full: true, find: rt12Find[v]},
			rt9Input{name: v.String() + ".o", path: writeFile(t, dir, v.String()+".o", elf), size: int64(len(elf)), kind: "btf", full: true, find: rt12Find[v]},
			rt9Input{name: "split-" + v.String(), path: writeFile(t, dir, "split-"+v.String()+".btf", split), size: int64(len(split)), kind: "btf", full: true, find: rt12Find[v], base: base})
	}
	for _, k := range hostile.DWARF12Shapes() {
		rtSmallEncode(t, dir, k.String(), hostile.BuildDWARF12(k, 70))
	}
	for _, k := range hostile.Kallsyms12s() {
		rtSmallKsym(t, dir, k.String(), hostile.BuildKallsyms12(k, 70),
			[][]string{{"stats"}, {"modules", "--json"}, {"name", "sym1_"}, {"addr", "0"}, {"addr", "0xffffffffc0000010"}})
	}
}

// TestRedteam12Open reproduces what the twelfth campaign found open
// (KMETA_HEAVY=1 and KMETA_RT12_OPEN=1; the numbers are in
// /work/data/briefs/s30/redteam12-findings.md):
//
//   - btf diff of a 1 MB input against itself grows with the FUNCs that
//     share one prototype of 65,535 parameters, and with the structs
//     that hold one anonymous struct of 65,535 members, not with the
//     input: 15.6 and 8.9 s at 1,024 of them. Judged as a doubling: from
//     64 to 1,024 users the input grows by 3 to 4%, and the CPU may
//     not grow past twice (less 0.1 s).
//   - btf layout --json refuses those structs with a negative member
//     budget in its message.
func TestRedteam12Open(t *testing.T) {
	if os.Getenv("KMETA_HEAVY") != "1" || os.Getenv("KMETA_RT12_OPEN") != "1" {
		t.Skip("the twelfth campaign's open findings: set KMETA_HEAVY=1 and KMETA_RT12_OPEN=1")
	}
	timeBin, bin, dir := gnuTime(t), buildRealKmeta(t), t.TempDir()
	for _, v := range []hostile.Variant12{hostile.SharedWideProto, hostile.SharedAnonWide} {
		var cpu [2]float64
		for i, n := range []int{64, 1024} {
			in := writeHostile(t, dir, fmt.Sprintf("%v-%d.btf", v, n), func() ([]byte, error) { return hostile.BuildVariant12(v, n) })
			r := rt9Exec(t, timeBin, 120*time.Second, 0, bin, "btf", "diff", in, in)
			if r.code != 0 {
				t.Fatalf("btf diff %v-%d: status %d: %s", v, n, r.code, firstLine(r.stderr))
			}
			cpu[i] = r.cpu
		}
		if cpu[1] > 2*cpu[0]+0.1 {
			t.Errorf("btf diff %v: %.2f s at 1,024 users against %.2f s at 64, on inputs 4%% apart", v, cpu[1], cpu[0])
		}
	}
	in := filepath.Join(dir, "shared-anon-wide-64.btf")
	if _, err := kmeta(t, nil, "btf", "layout", in, "--json"); err != nil && strings.Contains(err.Error(), "more than -") {
		t.Errorf("btf layout --json shared-anon-wide-64: %v: a negative budget", err)
	}
}
