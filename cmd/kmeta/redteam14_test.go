package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"debug/elf"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// The fourteenth hostile campaign of issue 37: the input paths the
// thirteen before barely fed. Names no compiler writes (invalid UTF-8,
// control characters, quotes, U+2028, 64 KB) through every --json output,
// which must stay valid JSON; every input path read from stdin ("-");
// BTFHub trees of tar archives whose entries are named with "..", with
// absolute paths, as links, twice, behind 20,000 directories, and tar
// bombs under every compressor; the ELF file "kmeta pahole -J" writes
// .BTF into, broken the ways a build or an attacker leaves it (the file
// must be left as it was on failure, and be pahole 1.30's on success);
// and BPF objects whose .BTF.ext is broken field by field, or whose
// access strings run past libbpf's 64 (beside bpftool gen min_core_btf).

// rt14OddKallsyms is a kallsyms text whose module and symbol names carry
// the odd bytes of hostile.OddNames.
func rt14OddKallsyms() []byte {
	var b bytes.Buffer
	for i, n := range hostile.OddNames() {
		n = strings.NewReplacer("\n", "", "\t", "", " ", "").Replace(n)
		fmt.Fprintf(&b, "ffffffffc%07x t sym_%s\t[mod_%s]\n", i*16, n, n)
	}
	return b.Bytes()
}

// rt14JSONCases are the --json commands the campaign runs on the odd
// names BTF path (split on base when base is set), twin another BTF
// (for diff), obj a BPF object and ks an odd kallsyms.
func rt14JSONCases(path, base, twin, obj, ks string) [][]string {
	var b []string
	if base != "" {
		b = []string{"-B", base}
	}
	cs := [][]string{
		append([]string{"btf", "dump", path, "--json"}, b...),
		append([]string{"btf", "layout", path, "--json"}, b...),
		append([]string{"btf", "diff", path, twin, "--json"}, b...),
		append([]string{"btf", "core", obj, "--target", path, "--json"}, b...),
		{"ksym", "modules", "--kallsyms", ks, "--json"},
		{"ksym", "stats", "--kallsyms", ks, "--json"},
		{"ksym", "addr", "0xffffffffc0000010", "--kallsyms", ks, "--json"},
	}
	for i, n := range hostile.OddNames() {
		cs = append(cs, append([]string{"btf", "find", n + "0", path, "--json"}, b...))
		cs = append(cs, []string{"ksym", "addr", fmt.Sprintf("0xffffffffc%07x", i*16), "--kallsyms", ks, "--json"})
	}
	cs = append(cs, append([]string{"btf", "find", hostile.LongOddName(0), path, "--json"}, b...))
	return cs
}

// rt14CheckJSON wants out, the stdout of args, to be one JSON document,
// or JSON Lines for btf dump.
func rt14CheckJSON(t *testing.T, args []string, out []byte) {
	t.Helper()
	if args[0] == "btf" && args[1] == "dump" {
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(nil, 1<<30)
		for n := 1; sc.Scan(); n++ {
			if !json.Valid(sc.Bytes()) {
				t.Errorf("%v: line %d is not JSON: %.200q", args, n, sc.Bytes())
				return
			}
		}
		return
	}
	if len(out) > 0 && !json.Valid(out) {
		t.Errorf("%v: not JSON: %.200q", args, out)
	}
}

// rt14Mutant returns the mutation m of src that mutate makes
// (hostile.MutateELF or MutateCOREExt).
func rt14Mutant(t *testing.T, mutate func([]byte, string) ([]byte, error), src []byte, m string) []byte {
	t.Helper()
	mut, err := mutate(src, m)
	if err != nil {
		t.Fatal(err)
	}
	return mut
}

// rt14OneLine wants err, a kmeta error, to be one line, or nil, or "nothing
// found" (status 1).
func rt14OneLine(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), "\n") {
		t.Errorf("%s: error of more than one line: %q", what, err)
	}
}

// rt14OddInputs writes the odd names BTF (reps copies of each struct),
// its twin (reps+1), a split copy on base and an odd kallsyms into dir.
func rt14OddInputs(t *testing.T, dir string, baseRaw []byte, reps int) (path, twin, split, ks string) {
	raw, err := hostile.BuildOddNames(reps)
	if err != nil {
		t.Fatal(err)
	}
	tw, err := hostile.BuildOddNamesTwin(reps)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := hostile.BuildOddNamesOn(baseRaw, reps)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "odd-names.btf", raw), writeFile(t, dir, "odd-names.twin.btf", tw),
		writeFile(t, dir, "split-odd-names.btf", sp), writeFile(t, dir, "odd.kallsyms", rt14OddKallsyms())
}

// rt14JSON runs every --json command on the odd names in process: each
// writes valid JSON, and fails, if it does, in one line.
func rt14JSON(t *testing.T, dir, obj, base string, baseRaw []byte, reps int) {
	path, twin, split, ks := rt14OddInputs(t, dir, baseRaw, reps)
	for _, in := range [][2]string{{path, ""}, {split, base}} {
		for _, args := range rt14JSONCases(in[0], in[1], twin, obj, ks) {
			if in[1] != "" && args[1] == "diff" {
				continue // the twin is standalone
			}
			out, err := kmetaBytes(t, nil, args...)
			rt14OneLine(t, fmt.Sprint(args), err)
			rt14CheckJSON(t, args, out)
		}
	}
}

// rt14Stdin runs each command that reads a file once on the path and once
// on "-" with the file on stdin: the outputs are the same.
func rt14Stdin(t *testing.T, dir, path, obj string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	objData, err := os.ReadFile(obj)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{
		{"btf", "dump", "F"}, {"btf", "dump", "F", "--json"}, {"btf", "dump", "F", "--format", "c"},
		{"btf", "layout", "F", "--json"}, {"btf", "find", "int", "F", "--json"},
		{"btf", "min", "F", "--types", "int", "-o", "-"}, {"btf", "copy", "F", "-o", "-"},
		{"btf", "dedup", "F", "-o", "-"}, {"btf", "core", "O", "--target", "F", "--json"},
		{"btf", "min", "F", "--obj", "O", "-o", "-"},
	} {
		for _, which := range []string{"F", "O"} {
			if !slices.Contains(c, which) {
				continue
			}
			named := slices.Clone(c)
			piped := slices.Clone(c)
			stdin := data
			if which == "O" {
				stdin = objData
			}
			for i, a := range c {
				switch a {
				case "F":
					named[i], piped[i] = path, path
				case "O":
					named[i], piped[i] = obj, obj
				}
				if a == which {
					piped[i] = "-"
				}
			}
			want, werr := kmetaBytes(t, nil, named...)
			// btf find names the file each match is in: "-" for stdin.
			want = bytes.ReplaceAll(want, []byte(`"file": "`+path+`"`), []byte(`"file": "-"`))
			got, gerr := kmetaBytes(t, stdin, piped...)
			rt14OneLine(t, fmt.Sprint(piped), gerr)
			if (werr == nil) != (gerr == nil) || !bytes.Equal(want, got) {
				t.Errorf("%v: from stdin %d bytes (%v), from the file %d (%v)", piped, len(got), gerr, len(want), werr)
			}
		}
	}
	_ = dir
}

// rt14Dir lists dir's entries, names only, sorted.
func rt14Dir(t *testing.T, dir string) []string {
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// rt14ELF runs kmeta pahole -J on each ELF mutation of the module ko in
// process, each in a directory of its own: a refusal is one line and
// leaves the file as it was and nothing beside it; a success writes an
// ELF file whose .BTF parses. It returns the mutated files that kmeta
// wrote, by mutation, for the campaign to compare with pahole 1.30's.
func rt14ELF(t *testing.T, dir string, ko []byte) map[string]string {
	wrote := map[string]string{}
	for _, m := range hostile.ELFMutations() {
		mut := rt14Mutant(t, hostile.MutateELF, ko, m)
		d := filepath.Join(dir, "elf-"+m)
		path := writeFile(t, d, "m.ko", mut)
		_, err := kmeta(t, nil, "pahole", "-J", "--btf_features=default", path)
		rt14OneLine(t, "pahole -J "+m, err)
		if names := rt14Dir(t, d); len(names) != 1 {
			t.Errorf("pahole -J %s: left %v beside the file", m, names)
		}
		got, _ := os.ReadFile(path)
		if err != nil {
			if !bytes.Equal(got, mut) {
				t.Errorf("pahole -J %s: failed (%v) and changed the file", m, err)
			}
			continue
		}
		f, ferr := elf.NewFile(bytes.NewReader(got))
		if ferr != nil || f.Section(".BTF") == nil {
			t.Errorf("pahole -J %s: wrote a file debug/elf does not read or without .BTF: %v", m, ferr)
			continue
		}
		wrote[m] = path
	}
	return wrote
}

// rt14ExtRefusals are the .BTF.ext mutations refused for a record's
// field, and what the refusal says.
var rt14ExtRefusals = map[string]string{
	"access-past":   "bad string offset 16777215",
	"line-str-past": "line_info record 0: bad string offset",
	"type-huge":     "type id 268435455 beyond the last type",
}

// rt14Ext runs btf core and btf min --obj on each .BTF.ext mutation of
// obj against target: each succeeds, finds nothing (status 1) or fails in
// one line. It returns the mutated objects' paths.
func rt14Ext(t *testing.T, dir string, obj []byte, target string) map[string]string {
	paths := map[string]string{}
	for _, m := range hostile.ExtMutations() {
		mut := rt14Mutant(t, hostile.MutateCOREExt, obj, m)
		p := writeFile(t, dir, "ext-"+m+".bpf.o", mut)
		paths[m] = p
		_, err := kmeta(t, nil, "btf", "core", p, "--target", target)
		rt14OneLine(t, "btf core "+m, err)
		if want := rt14ExtRefusals[m]; want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("btf core %s: %v, want %q", m, err, want)
		}
		if m == "line-str-last" && err != nil && !strings.Contains(err.Error(), "exit status 1") && strings.Contains(err.Error(), "string offset") {
			t.Errorf("btf core %s: %v: the last string (the section's last NUL, \"\") is a string", m, err)
		}
		_, err = kmeta(t, nil, "btf", "min", target, "--obj", p, "-o", filepath.Join(dir, "ext.out"))
		rt14OneLine(t, "btf min --obj "+m, err)
	}
	return paths
}

// rt14Tree writes a BTFHub tree of the hostile tars around raw under
// dir/tree, each archive also alone in dir/one-NAME, and checks btf min
// -d on each: nothing is written outside the output directory, the
// archives that hold one file give one output, the others fail in one
// line and leave the output directory empty.
func rt14Tree(t *testing.T, dir string, raw []byte, obj string) {
	tars, err := hostile.HostileBTFHubTars(raw)
	if err != nil {
		t.Fatal(err)
	}
	arch := filepath.Join(dir, "tree", "ubuntu", "20.04", "x86_64")
	for name, data := range tars {
		writeFile(t, arch, name+".btf.tar", data)
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestSpeed)
		zw.Write(data)
		zw.Close()
		one := filepath.Join(dir, "one-"+name, "u", "1", "x86_64")
		writeFile(t, one, name+".btf.tar.gz", z.Bytes())
		out := filepath.Join(dir, "out-"+name)
		os.MkdirAll(out, 0o755)
		_, err := kmeta(t, nil, "btf", "min", "-d", out, "--obj", obj, filepath.Join(dir, "one-"+name))
		rt14OneLine(t, "btf min -d "+name, err)
		want := name != "dup" && name != "hardlink"
		got, _ := filepath.Glob(filepath.Join(out, "u", "1", "x86_64", "*"))
		switch {
		case want && (err != nil || len(got) != 1 || filepath.Base(got[0]) != name+".btf"):
			t.Errorf("btf min -d on %s: %v, wrote %v", name, err, got)
		case !want && (err == nil || len(rt14Dir(t, out)) != 0):
			t.Errorf("btf min -d on %s: %v, left %v", name, err, rt14Dir(t, out))
		}
	}
	// The whole tree: the kernels whose archives fail are named, the
	// others written (the batch modes' rule); --all-or-nothing leaves none.
	var good []string
	for name := range tars {
		if name != "dup" && name != "hardlink" {
			good = append(good, name+".btf")
		}
	}
	slices.Sort(good)
	out := filepath.Join(dir, "out-tree")
	os.MkdirAll(out, 0o755)
	_, err = kmeta(t, nil, "btf", "min", "-d", out, "--obj", obj, filepath.Join(dir, "tree"))
	got, _ := filepath.Glob(filepath.Join(out, "ubuntu", "20.04", "x86_64", "*"))
	for i := range got {
		got[i] = filepath.Base(got[i])
	}
	if err == nil || !slices.Equal(got, good) {
		t.Errorf("btf min -d on the whole tree (dup.btf.tar holds two files): %v, wrote %v, want %v", err, got, good)
	}
	out = filepath.Join(dir, "out-tree-all")
	os.MkdirAll(out, 0o755)
	_, err = kmeta(t, nil, "btf", "min", "-d", out, "--all-or-nothing", "--obj", obj, filepath.Join(dir, "tree"))
	if err == nil || len(rt14Dir(t, out)) != 0 {
		t.Errorf("btf min -d --all-or-nothing on the whole tree: %v, left %v", err, rt14Dir(t, out))
	}
	for _, p := range []string{"/etc/kmeta-rt14", "/tmp/kmeta-rt14-abs", filepath.Join(dir, "etc")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("an archive's entry was written outside the output: %s", p)
		}
	}
}

// TestRedteam14Small runs the fourteenth campaign's behaviour checks in
// process, on small inputs (about a second): --json on odd names (valid
// JSON, errors in one line), stdin against files, ELF mutations through
// pahole -J (atomic), .BTF.ext mutations through core and min, and the
// hostile BTFHub tree through min -d.
func TestRedteam14Small(t *testing.T) {
	t.Parallel()
	dir, obj, baseRaw, base, _ := rtSmallSetup(t)
	rt14JSON(t, dir, obj, base, baseRaw, 2)
	rt14Stdin(t, dir, filepath.Join(dir, "odd-names.btf"), obj)
	rt14ELF(t, dir, testfixtures.Read(t, "elf/vsock_loopback.ko.gz"))
	rt14Ext(t, dir, testfixtures.Read(t, "core/fields.bpf.o.gz"), filepath.Join(dir, "odd-names.btf"))
	rt14Tree(t, dir, baseRaw, obj)
	// A tar bomb: a file of 80 MB of zeros behind a tar header, in
	// kilobytes of zstd, read with --max-input 16M: refused in one line.
	bomb, err := hostile.TarBombZstd(80 << 20)
	if err != nil {
		t.Fatal(err)
	}
	p := writeFile(t, dir, "bomb.btf.tar.zst", bomb)
	for _, args := range [][]string{{"btf", "dump", p, "--max-input", "16M"}, {"btf", "dump", "-", "--max-input", "16M"}} {
		stdin := []byte(nil)
		if args[2] == "-" {
			stdin = bomb
		}
		_, err := kmeta(t, stdin, args...)
		if err == nil || !strings.Contains(err.Error(), "limit") {
			t.Errorf("%v: %v, want the limit's refusal", args, err)
		}
		rt14OneLine(t, fmt.Sprint(args), err)
	}
}

// TestRedteam14JSONReplacement (finding F1 of the fourteenth campaign,
// the lead's decision): --json writes each byte of a name that is not
// UTF-8 as U+FFFD, lossy by design (docs/json.md): the output is valid
// JSON, the odd bytes are gone, and the names' other bytes are all there.
func TestRedteam14JSONReplacement(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	raw, err := hostile.BuildOddNames(1)
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, dir, "odd.btf", raw)
	out, err := kmetaBytes(t, nil, "btf", "layout", path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	if err := json.Unmarshal(out, &recs); err != nil {
		t.Fatalf("btf layout --json: not JSON: %v", err)
	}
	names := map[string]bool{}
	for _, r := range recs {
		n, _ := r["name"].(string)
		names[n] = true
	}
	for _, want := range []string{"bad\ufffdutf80", "cut\ufffd\ufffd0", "ctl\x01\x1f\x7fdel0", "quote\"back\\slash0", "ls\u2028ps\u20290"} {
		if !names[want] {
			t.Errorf("btf layout --json: no struct named %q", want)
		}
	}
}

// TestRedteam14Write writes the fourteenth campaign's inputs into
// KMETA_RT9_OUT, for measuring by hand: KMETA_RT14_WRITE=odd-names-N (N
// copies of each struct, its twin and a split copy on Debian 6.1's
// vmlinux, and odd.kallsyms), elf-N (every ELF mutation of
// vsock_loopback.ko), ext-N (every .BTF.ext mutation of fields.bpf.o),
// tree-N (the hostile BTFHub tree around vmlinux) or bomb-N (a tar bomb
// of N MB, zstd).
func TestRedteam14Write(t *testing.T) {
	dir, what, name, n, _ := rtWriteTarget(t, "KMETA_RT14_WRITE", "fourteenth")
	switch name {
	case "odd-names":
		rt14OddInputs(t, dir, testfixtures.Read(t, testfixtures.DebianVmlinux), n)
	case "elf":
		ko := testfixtures.Read(t, "elf/vsock_loopback.ko.gz")
		for _, m := range hostile.ELFMutations() {
			mut := rt14Mutant(t, hostile.MutateELF, ko, m)
			writeFile(t, dir, "elf-"+m+".ko", mut)
		}
	case "ext":
		obj := testfixtures.Read(t, "core/fields.bpf.o.gz")
		for _, m := range hostile.ExtMutations() {
			mut := rt14Mutant(t, hostile.MutateCOREExt, obj, m)
			writeFile(t, dir, "ext-"+m+".bpf.o", mut)
		}
	case "tree":
		tars, err := hostile.HostileBTFHubTars(testfixtures.Read(t, testfixtures.DebianVmlinux))
		if err != nil {
			t.Fatal(err)
		}
		for k, data := range tars {
			writeFile(t, filepath.Join(dir, "tree", "ubuntu", "20.04", "x86_64"), k+".btf.tar", data)
		}
	case "bomb":
		bomb, err := hostile.TarBombZstd(int64(n) << 20)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dir, what+".btf.tar.zst", bomb)
	default:
		t.Fatalf("KMETA_RT14_WRITE=%s: want odd-names-N, elf-N, ext-N, tree-N or bomb-N", what)
	}
}

// rt14Zeros reads as a tar header of one file x.btf of n bytes, then the
// n zero bytes, without holding them: a tar bomb's body.
func rt14TarZeros(n int64) io.Reader {
	var h bytes.Buffer
	tw := tar.NewWriter(&h)
	tw.WriteHeader(&tar.Header{Name: "x.btf", Typeflag: tar.TypeReg, Size: n, Mode: 0o644, Format: tar.FormatGNU})
	tw.Flush()
	return io.MultiReader(&h, &rt13Zeros{n})
}

// rt14Inputs writes the campaign's inputs into dir, and the extra cases
// of each by its name.
func rt14Inputs(t *testing.T, dir, obj string, peers rt9Peers, quick bool) ([]rt9Input, map[string][]rt9Case) {
	var ins []rt9Input
	extra := map[string][]rt9Case{}
	vmlinuxRaw := testfixtures.Read(t, testfixtures.DebianVmlinux)
	vmlinux := testfixtures.File(t, testfixtures.DebianVmlinux)
	vs := int64(len(vmlinuxRaw))
	out := filepath.Join(dir, "out.btf")
	// Odd names, standalone and split on vmlinux.
	reps := 20_000
	if quick {
		reps = 200
	}
	path, _, split, _ := rt14OddInputs(t, dir, vmlinuxRaw, reps)
	for _, p := range []struct{ name, path, base string }{{"odd-names", path, ""}, {"split-odd-names", split, vmlinux}} {
		raw, _ := os.ReadFile(p.path)
		in := rt9Input{name: fmt.Sprintf("%s-%d", p.name, reps), path: p.path, size: int64(len(raw)), base: p.base, kind: "btf", full: true, find: "bad\xffutf80", types: shapeStats(raw), strs: rt11Strings(raw)}
		if p.base != "" {
			in.types = len(raw) / 12
			in.strs += rt11Strings(vmlinuxRaw)
		}
		ins = append(ins, in)
	}
	// .BTF.ext mutations of fields.bpf.o against vmlinux, beside bpftool
	// gen min_core_btf 7.1 and 7.5.
	objRaw := testfixtures.Read(t, "core/fields.bpf.o.gz")
	read := readBound(vs)
	for i, m := range hostile.ExtMutations() {
		if quick && i%3 != 0 {
			continue
		}
		mut := rt14Mutant(t, hostile.MutateCOREExt, objRaw, m)
		p := writeFile(t, dir, "ext-"+m+".bpf.o", mut)
		name := "ext-" + m
		ins = append(ins, rt9Input{name: name, path: p, size: vs, kind: "image"})
		extra[name] = []rt9Case{
			{"core", []string{"btf", "core", p, "--target", vmlinux}, nil, read},
			{"core json", []string{"btf", "core", p, "--target", vmlinux, "--json"}, nil, read},
			{"min obj", []string{"btf", "min", vmlinux, "--obj", p, "-o", out}, [][]string{{"bpftool", "gen", "min_core_btf", vmlinux, out + ".p", p}, {peers.bpftool75, "gen", "min_core_btf", vmlinux, out + ".p", p}}, read},
		}
	}
	// Millions of line_info records: fields.bpf.o's repeated to 63 MB
	// (3 MB in the quick run), beside bpftool gen min_core_btf.
	k := 80_000
	if quick {
		k = 4_000
	}
	lines, err := hostile.RepeatLineInfos(objRaw, k)
	if err != nil {
		t.Fatal(err)
	}
	lp := writeFile(t, dir, "lines.bpf.o", lines)
	lname := fmt.Sprintf("ext-lines-%d", k)
	lread := readBound(vs + int64(len(lines)))
	ins = append(ins, rt9Input{name: lname, path: lp, size: vs + int64(len(lines)), kind: "image"})
	extra[lname] = []rt9Case{
		{"core", []string{"btf", "core", lp, "--target", vmlinux}, nil, lread},
		{"min obj", []string{"btf", "min", vmlinux, "--obj", lp, "-o", out}, [][]string{{"bpftool", "gen", "min_core_btf", vmlinux, out + ".p", lp}, {peers.bpftool75, "gen", "min_core_btf", vmlinux, out + ".p", lp}}, lread},
	}
	// ELF mutations of vsock_loopback.ko, encoded beside pahole.
	ko := testfixtures.Read(t, "elf/vsock_loopback.ko.gz")
	for i, m := range hostile.ELFMutations() {
		if quick && i%3 != 0 {
			continue
		}
		mut := rt14Mutant(t, hostile.MutateELF, ko, m)
		name := "elf-" + m
		ins = append(ins, rt9Input{name: name, path: writeFile(t, dir, name+".ko", mut), size: int64(len(mut)), kind: "dwarf"})
	}
	// Tar bombs of every compressor BTFHub's readers meet, claimed or not.
	zeros := int64(1 << 30)
	if quick {
		zeros = 256 << 20
	}
	bombs := map[string][]byte{}
	if z, err := hostile.TarBombZstd(zeros); err == nil {
		bombs["zst"] = z
	} else {
		t.Fatal(err)
	}
	if !quick {
		bombs["gz"] = rt13CompressFrom(t, rt14TarZeros(zeros), []string{"gzip", "-1", "-c"})
		bombs["xz"] = rt13CompressFrom(t, rt14TarZeros(zeros), []string{"xz", "-0", "-T1", "-c"})
	}
	lim := readBound(64 << 20)
	for ext, z := range bombs {
		if z == nil {
			continue
		}
		name := "tar-bomb-" + ext
		p := writeFile(t, dir, "bomb.btf.tar."+ext, z)
		bd := filepath.Join(dir, "bomb-out-"+ext)
		os.MkdirAll(bd, 0o755)
		ins = append(ins, rt9Input{name: name, path: p, size: 64 << 20, kind: "image"})
		extra[name] = []rt9Case{
			{"bomb dump", []string{"btf", "dump", p, "--max-input", "64M"}, nil, lim},
			{"bomb min -d", []string{"btf", "min", "-d", bd, "--obj", obj, p, "--max-input", "64M"}, nil, lim},
		}
	}
	// The hostile BTFHub tree around vmlinux, without the archives that
	// must fail (dup, hardlink), through min -d, one kernel at a time.
	tars, err := hostile.HostileBTFHubTars(vmlinuxRaw)
	if err != nil {
		t.Fatal(err)
	}
	tree := filepath.Join(dir, "tree")
	arch := filepath.Join(tree, "ubuntu", "20.04", "x86_64")
	n := 0
	for _, k := range slices.Sorted(maps.Keys(tars)) {
		if k == "dup" || k == "hardlink" || quick && k != "dirs" {
			continue
		}
		z := rt13CompressFrom(t, bytes.NewReader(tars[k]), []string{"xz", "-0", "-T1", "-c"})
		if z == nil {
			continue
		}
		writeFile(t, arch, k+".btf.tar.xz", z)
		n++
	}
	if n > 0 {
		td := filepath.Join(dir, "tree-out")
		os.MkdirAll(td, 0o755)
		ins = append(ins, rt9Input{name: fmt.Sprintf("btfhub-tree-%d", n), path: tree, size: vs + 14<<20, kind: "image"})
		extra[ins[len(ins)-1].name] = []rt9Case{
			{"min -d tree", []string{"btf", "min", "-d", td, "--obj", obj, "-j", "1", tree}, nil, readBound(vs+14<<20) + int64(n)*minBatchKernelCost},
		}
	}
	return ins, extra
}

// rt14PaholeSame runs kmeta pahole -J and pahole 1.30 -J on copies of
// each ELF mutation: where both write, the files must be the same bytes;
// kmeta must not write where pahole 1.30 refuses.
func rt14PaholeSame(t *testing.T, c *rt9Campaign, dir string, quick bool) {
	p130 := c.peers.pahole130
	if _, err := exec.LookPath(p130); p130 == "" || err != nil {
		t.Log("no pahole 1.30: the ELF mutations are not compared")
		return
	}
	ko := testfixtures.Read(t, "elf/vsock_loopback.ko.gz")
	for i, m := range hostile.ELFMutations() {
		if quick && i%3 != 0 {
			continue
		}
		mut := rt14Mutant(t, hostile.MutateELF, ko, m)
		d := filepath.Join(dir, "pj-"+m)
		kp, pp := writeFile(t, d, "k.ko", mut), writeFile(t, d, "p.ko", mut)
		k := rt9Exec(t, c.timeBin, 60*time.Second, 0, c.bin, "pahole", "-J", "--btf_features=default", kp)
		p := rt9Exec(t, c.timeBin, 60*time.Second, 0, p130, "-J", "--btf_features=default", pp)
		c.runs++
		kb, _ := os.ReadFile(kp)
		pb, _ := os.ReadFile(pp)
		fmt.Fprintf(c.report, "# pahole -J %s: kmeta %d, pahole 1.30 %d, same bytes %v\n", m, k.code, p.code, bytes.Equal(kb, pb))
		switch {
		case k.code == 0 && p.code == 0 && !bytes.Equal(kb, pb):
			c.fail("pahole -J %s: kmeta's file (%d bytes) is not pahole 1.30's (%d bytes)", m, len(kb), len(pb))
		case k.code == 0 && p.code != 0:
			c.fail("pahole -J %s: kmeta wrote the file where pahole 1.30 refuses it (status %d)", m, p.code)
		case k.code != 0 && !bytes.Equal(kb, mut):
			c.fail("pahole -J %s: kmeta failed (%s) and changed the file", m, firstLine(k.stderr))
		}
	}
}

// rt14DeepCORE builds, with clang, BPF objects reading a field at the
// bottom of nested structs of each depth, with every relocation kind
// clang 14 writes, and adds each as an input whose target is itself
// (its own BTF), beside bpftool gen min_core_btf 7.1 and 7.5: libbpf
// refuses access strings of more than 64 parts, and so must kmeta.
func rt14DeepCORE(t *testing.T, dir string, peers rt9Peers, quick bool) ([]rt9Input, map[string][]rt9Case) {
	if _, err := exec.LookPath("clang"); err != nil {
		t.Log("no clang: no deep CO-RE objects")
		return nil, nil
	}
	depths := []int{10, 61, 62, 1000}
	if quick {
		depths = []int{61, 62}
	}
	var ins []rt9Input
	extra := map[string][]rt9Case{}
	out := filepath.Join(dir, "out.btf")
	for _, d := range depths {
		src := writeFile(t, dir, fmt.Sprintf("deep%d.c", d), []byte(hostile.DeepCORESource(d)))
		obj := filepath.Join(dir, fmt.Sprintf("deep%d.bpf.o", d))
		if o, err := exec.Command("clang", "-target", "bpf", "-g", "-O2", "-c", src, "-o", obj).CombinedOutput(); err != nil {
			t.Logf("clang deep%d: %v: %s", d, err, firstLine(string(o)))
			continue
		}
		// bpftool 7.1 writes, or refuses, as kmeta does: byte for byte.
		if bt, err := exec.LookPath("bpftool"); err == nil {
			pout := filepath.Join(dir, fmt.Sprintf("deep%d.bpftool.btf", d))
			perr := exec.Command(bt, "gen", "min_core_btf", obj, pout, obj).Run()
			got, kerr := kmetaBytes(t, nil, "btf", "min", obj, "--obj", obj, "-o", "-")
			want, _ := os.ReadFile(pout)
			if (perr == nil) != (kerr == nil) || perr == nil && !bytes.Equal(got, want) {
				t.Errorf("btf min --obj deep%d.bpf.o on itself: %v (%d bytes); bpftool 7.1: %v (%d bytes)", d, kerr, len(got), perr, len(want))
			}
		}
		fi, _ := os.Stat(obj)
		name := fmt.Sprintf("deep-core-%d", d)
		ins = append(ins, rt9Input{name: name, path: obj, size: fi.Size(), kind: "image"})
		read := readBound(2 * fi.Size())
		extra[name] = []rt9Case{
			{"core", []string{"btf", "core", obj, "--target", obj}, nil, read},
			{"min obj", []string{"btf", "min", obj, "--obj", obj, "-o", out}, [][]string{{"bpftool", "gen", "min_core_btf", obj, out + ".p", obj}, {peers.bpftool75, "gen", "min_core_btf", obj, out + ".p", obj}}, read},
		}
	}
	return ins, extra
}

// TestRedteam14Campaign runs the fourteenth campaign's inputs under GNU
// time, judged as TestRedteam9Campaign judges (rt9Campaign): odd names
// standalone and split on vmlinux through every command; .BTF.ext
// mutations through core and min --obj (beside bpftool); ELF mutations
// through btf encode and pahole -J (beside pahole, and byte for byte
// pahole 1.30's where both write); tar bombs of 1 GB (zstd, gzip, xz)
// under --max-input 64M; the hostile BTFHub tree through min -d; deep
// CO-RE objects (clang). Then every --json command on the odd names, in
// process, must write valid JSON. KMETA_RT14_QUICK=1 runs a third of the
// mutations, 200 copies of the odd names and one bomb (about 30 s of
// CPU); KMETA_RT9_ONLY=REGEXP the inputs whose names match; the table
// goes to $KMETA_RT14_REPORT when set.
func TestRedteam14Campaign(t *testing.T) {
	quick := os.Getenv("KMETA_RT14_QUICK") == "1"
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip("the fourteenth campaign, odd names, .BTF.ext and ELF mutations, tar bombs, BTFHub trees: set KMETA_HEAVY=1 (KMETA_RT14_QUICK=1 for 30 s)")
	}
	dir := t.TempDir()
	obj := writeFile(t, dir, "fields.bpf.o", testfixtures.Read(t, "core/fields.bpf.o.gz"))
	c := newRt9Campaign(t, "KMETA_RT14_REPORT", quick)
	ins, extra := rt14Inputs(t, dir, obj, c.peers, quick)
	dins, dextra := rt14DeepCORE(t, dir, c.peers, quick)
	ins = append(ins, dins...)
	maps.Copy(extra, dextra)
	rt14PaholeSame(t, c, dir, quick)
	c.runAll(ins, extra, dir, obj, nil)
	reps := 2000
	if quick {
		reps = 20
	}
	jd := filepath.Join(dir, "json")
	rt14JSON(t, jd, obj, testfixtures.File(t, testfixtures.DebianVmlinux), testfixtures.Read(t, testfixtures.DebianVmlinux), reps)
}

// TestRedteam14ExtSectionName (finding F4 of the fourteenth campaign,
// the lead's decision): a .BTF.ext whose CO-RE section names no string
// (sec_name_off past .BTF's strings) is refused by btf min --obj in one
// line, where bpftool gen min_core_btf ignores the field: libbpf could
// not load the object (bpf_object__relocate_core). btf min's help says so.
func TestRedteam14ExtSectionName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mut := rt14Mutant(t, hostile.MutateCOREExt, testfixtures.Read(t, "core/fields.bpf.o.gz"), "secname-past")
	raw, err := hostile.BuildOddNames(1)
	if err != nil {
		t.Fatal(err)
	}
	target := writeFile(t, dir, "odd.btf", raw)
	bad := writeFile(t, dir, "bad.bpf.o", mut)
	_, err = kmetaBytes(t, nil, "btf", "min", target, "--obj", bad, "-o", "-")
	if err == nil || !strings.Contains(err.Error(), "bad section name offset 16777215") || strings.Contains(err.Error(), "\n") {
		t.Errorf("btf min --obj with a CO-RE section name past the strings: %v, want a one-line refusal", err)
	}
}

// TestRedteam14ModuleNamesEscaped (redteam14 F6): btf modules and btf
// find --kernel print sysfs module names as ksym prints kallsyms' module
// names (escapeName): a module file named with a newline or a control
// character printed them raw, splitting the table's rows.
func TestRedteam14ModuleNamesEscaped(t *testing.T) {
	t.Parallel()
	_, _, baseRaw, _, _ := rtSmallSetup(t)
	mod, err := hostile.BuildOddNamesOn(baseRaw, 1)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	dir := filepath.Join(root, "kernel", "btf")
	writeFile(t, dir, "vmlinux", baseRaw)
	names := []string{"nl\nmod", "ctl\x01mod", "bad\xffmod"}
	for _, n := range names {
		writeFile(t, dir, n, mod)
	}
	for _, args := range [][]string{{"btf", "modules", "--sysfs", root}, {"btf", "find", "--kernel", "--sysfs", root, "html<&>0"}} {
		out, err := kmeta(t, nil, args...)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		// Type and member names are printed as bpftool prints them
		// (raw); the module names are escaped.
		if strings.Contains(out, "ctl\x01mod") || strings.Contains(out, "bad\xffmod") || strings.Contains(out, "nl\nmod") || !strings.Contains(out, `nl\x0amod`) {
			t.Errorf("%q: a module name printed raw:\n%q", args, out)
		}
	}
}
