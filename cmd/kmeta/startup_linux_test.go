package main

import (
	"bytes"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

func TestReadOnlyMapping(t *testing.T) {
	const exe = "/usr/bin/kmeta"
	for _, tc := range []struct {
		line   string
		lo, hi uintptr
		ok     bool
	}{
		{"00400000-0081d000 r-xp 00000000 fe:00 10512361    /usr/bin/kmeta\n", 0x400000, 0x81d000, true},
		{"0081d000-00ccd000 r--p 0041d000 fe:00 10512361    /usr/bin/kmeta", 0x81d000, 0xccd000, true},
		{"00ccd000-00d07000 rw-p 008cd000 fe:00 10512361    /usr/bin/kmeta", 0, 0, false},
		{"7f47aea00000-7f47aedec000 r--p 00000000 fe:00 10519021   /tmp/v.btf", 0, 0, false},
		{"00d07000-02d55000 rw-p 00000000 00:00 0 ", 0, 0, false},
		{"00400000-0081d000 r-xp 00000000 fe:00 1   /usr/bin/kmeta (deleted)", 0, 0, false},
		{"0081d000-0040000 r--p 0 fe:00 1 /usr/bin/kmeta", 0, 0, false},
		{"zz-0081d000 r--p 0 fe:00 1 /usr/bin/kmeta", 0, 0, false},
	} {
		lo, hi, ok := readOnlyMapping([]byte(tc.line), exe)
		if lo != tc.lo || hi != tc.hi || ok != tc.ok {
			t.Errorf("%q: got %#x-%#x %v, want %#x-%#x %v", tc.line, lo, hi, ok, tc.lo, tc.hi, tc.ok)
		}
	}
}

// TestReleaseStartupPages runs the real binary's writers, which release
// its read-only pages once their flags are parsed (a static build: the
// release is not made in a dynamically linked one), and checks that they
// write what the same commands write in process, without the release.
// It builds the binary, so only with KMETA_HEAVY=1 (.ci/run sets it),
// as the other tests of the real binary.
func TestReleaseStartupPages(t *testing.T) {
	t.Parallel()
	bin := staticRealKmeta(t, "the real binary's writers after releasing its pages")
	vm := testfixtures.File(t, testfixtures.DebianVmlinux)
	dir := t.TempDir()
	for _, cmd := range [][]string{{"btf", "copy"}, {"btf", "dedup"}} {
		out, want := filepath.Join(dir, "out.btf"), filepath.Join(dir, "want.btf")
		if b, err := exec.Command(bin, append(cmd, vm, "-o", out)...).CombinedOutput(); err != nil {
			t.Fatalf("kmeta %v: %v: %s", cmd, err, b)
		}
		var errOut bytes.Buffer
		if err := run(t.Context(), append(cmd, vm, "-o", want), nil, io.Discard, &errOut); err != nil {
			t.Fatalf("%v in process: %v: %s", cmd, err, errOut.String())
		}
		if !bytes.Equal(readFile(t, out), readFile(t, want)) {
			t.Errorf("kmeta %v: the real binary's output differs from the output in process", cmd)
		}
	}
}

// staticRealKmeta returns the real binary, built as the README installs
// it, for a test of its pages. It builds it, so only with KMETA_HEAVY=1
// (.ci/run sets it), as the other tests of the real binary; it skips a
// dynamically linked build, which releases nothing (unrelocated).
func staticRealKmeta(t *testing.T, what string) string {
	t.Helper()
	if os.Getenv("KMETA_HEAVY") != "1" {
		t.Skip(what + ": set KMETA_HEAVY=1")
	}
	bin := buildRealKmeta(t)
	if !unrelocated(bin) {
		t.Skipf("%s is dynamically linked: it releases nothing", bin)
	}
	return bin
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestStartupFloor bounds, in pages, the peak resident set of the real
// binary's smallest runs: `kmeta version` (the start-up floor of every
// command) and `btf dedup` of a BPF object's BTF (a writer, which releases
// its start-up pages once its flags are parsed, so that its peak is the
// start-up's or its small work's). The bound, 5.8 MB, is 0.35 MB over
// what both peaked at once the version template was gone (5.1-5.4 MB on
// a loaded machine; 5.8-5.9 MB before, 6.7-6.9 MB before kmeta's libraries lost their init
// functions: cmd/kmeta/BENCH.md): a new init function in a package of
// kmeta's or of a dependency, a table built eagerly, or code that makes
// the linker keep every method, faults in 64 KB windows of the binary and
// shows here. It also checks that the binary links no method lookup by
// name (reflect's Method and MethodByName: text/template's executor
// calls them), no memory profile (runtime.MemProfile, runtime/pprof), that
// internal/stackstart initializes before internal/godebug, whose
// initialization would otherwise grow the stack, and that no package of
// kmeta's but startupInits and main runs initialization code.
// It builds the binary, so only with KMETA_HEAVY=1.
func TestStartupFloor(t *testing.T) {
	t.Parallel()
	bin := staticRealKmeta(t, "the real binary's start-up pages")
	raw, _, err := btf.Extract(t.Context(), testfixtures.Read(t, "elf/prog.bpf.o.gz"), btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "prog.btf")
	if err := os.WriteFile(in, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	timeBin := gnuTime(t)
	for _, tc := range []struct {
		args     []string
		maxPages int64 // of 4 KB
	}{
		{[]string{"version"}, 1480},
		{[]string{"btf", "dedup", in, "-o", filepath.Join(dir, "out.btf")}, 1480},
	} {
		peak, code, stderr := peakRSS(t, timeBin, bin, tc.args...)
		if code != 0 {
			t.Fatalf("kmeta %s: exit status %d: %s", strings.Join(tc.args, " "), code, stderr)
		}
		pages := peak / 4096
		t.Logf("kmeta %s: peak RSS %d KB, %d pages of 4 KB", strings.Join(tc.args, " "), peak>>10, pages)
		if pages > tc.maxPages {
			t.Errorf("kmeta %s: peak RSS %d pages of 4 KB, over the bound of %d: what does start-up fault in now?", strings.Join(tc.args, " "), pages, tc.maxPages)
		}
	}

	if names := linkedFuncs(t, bin, methodLookup); len(names) > 0 {
		t.Errorf("the binary links %v: the linker then keeps every exported method of every type (1.6 MB of code and tables, 0.7 MB more at start-up); which package calls it?", names)
	}
	if names := linkedFuncs(t, bin, memoryProfile); len(names) > 0 {
		t.Errorf("the binary links %v: the runtime then samples allocations for the whole run, and the profiler's table, which untouchedReserve leaves out of the soft memory limit, fills", names)
	}

	cmd := exec.Command(bin, "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kmeta version: %v: %s", err, out)
	}
	stackstart := bytes.Index(out, []byte("init github.com/kmeta-dev/kmeta/internal/stackstart "))
	godebug := bytes.Index(out, []byte("init internal/godebug "))
	if stackstart < 0 || godebug >= 0 && godebug < stackstart {
		t.Errorf("internal/stackstart does not initialize before internal/godebug:\n%s", out)
	}
	if extra := kmetaInits(out); len(extra) > 0 {
		t.Errorf("kmeta's packages %v run initialization code at start-up: each faults in a 64 KB window of the binary for every command; make its variables at first use (cmd/kmeta/BENCH.md, \"No init functions in kmeta's libraries but btf's\")", extra)
	}
}

// startupInits are kmeta's packages that initialize at start-up, and why:
// stackstart grows the stack (its whole job), btf registers its functions
// with internal/input and internal/btfmem, wire and mmap share their
// windows with hash/crc32's and x/sys/unix's initialization.
var startupInits = []string{"internal/stackstart", "internal/wire", "internal/mmap", "btf"}

// kmetaInits returns the packages of kmeta other than startupInits and
// main that GODEBUG=inittrace=1's output out says were initialized.
func kmetaInits(out []byte) []string {
	const prefix = "init github.com/kmeta-dev/kmeta/"
	var extra []string
	for _, line := range strings.Split(string(out), "\n") {
		pkg, ok := strings.CutPrefix(line, prefix)
		if !ok {
			continue
		}
		pkg, _, _ = strings.Cut(pkg, " ")
		if !slices.Contains(startupInits, pkg) {
			extra = append(extra, pkg)
		}
	}
	return extra
}

// methodLookup matches the functions of reflect that look a method up by
// its index or name (Value.Method, Value.MethodByName, and Type's): where
// one is reachable, Go's linker cannot drop any exported method of a type
// that is converted to an interface, since a name computed at run time
// may call it.
func methodLookup(name string) bool {
	return strings.HasPrefix(name, "reflect.") && (strings.HasSuffix(name, ".Method") || strings.HasSuffix(name, ".MethodByName"))
}

// memoryProfile matches runtime.MemProfile and runtime/pprof: where none
// is linked, the linker sets runtime.disableMemoryProfiling, and the
// runtime stops sampling allocations when main starts.
func memoryProfile(name string) bool {
	return name == "runtime.MemProfile" || strings.HasPrefix(name, "runtime/pprof.")
}

// linkedFuncs returns the symbols of the executable at path that match.
func linkedFuncs(t *testing.T, path string, match func(string) bool) []string {
	t.Helper()
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var names []string
	for _, s := range syms {
		if match(s.Name) {
			names = append(names, s.Name)
		}
	}
	return names
}

// TestKmetaInits checks kmetaInits on inittrace's lines.
func TestKmetaInits(t *testing.T) {
	out := []byte("init internal/godebug @0.1 ms, 0.7 ms clock, 312 bytes, 7 allocs\n" +
		"init github.com/kmeta-dev/kmeta/internal/stackstart @0 ms, 0.01 ms clock, 0 bytes, 0 allocs\n" +
		"init github.com/kmeta-dev/kmeta/btf @1 ms, 0.01 ms clock, 96 bytes, 2 allocs\n" +
		"init github.com/kmeta-dev/kmeta/kallsyms @1 ms, 0.01 ms clock, 96 bytes, 2 allocs\n" +
		"init main @2 ms, 0.009 ms clock, 640 bytes, 6 allocs\n")
	if got := kmetaInits(out); !slices.Equal(got, []string{"kallsyms"}) {
		t.Errorf("kmetaInits = %v, want [kallsyms]", got)
	}
}
