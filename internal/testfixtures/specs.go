package testfixtures

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
)

// Spec parses data (split on base, if not nil) and closes the Spec when the
// test ends.
func Spec(tb testing.TB, data []byte, base *btf.Spec) *btf.Spec {
	tb.Helper()
	s, err := btf.Parse(data, btf.Options{Base: base})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// BreakMembers returns a copy of host-order BTF data in which every
// member of the struct called name refers to a type past the last: data
// that opening in full rejects, and a lazy open (btf.Options.Lazy)
// only once the struct is read.
func BreakMembers(tb testing.TB, data []byte, name string) []byte {
	tb.Helper()
	return breakStruct(tb, data, name, func(s *btf.Spec, t btf.Type) bool {
		rec := t.Record()
		for i := 16; i+4 <= len(rec); i += 12 {
			copy(rec[i:], []byte{0xff, 0xff, 0xff, 0x0f}) // the member's type
		}
		return true
	})
}

// BreakPointer returns a copy of host-order BTF data in which the pointer
// that member of the struct called name has for type refers to a type
// past the last: a record that only what reads that member reaches.
func BreakPointer(tb testing.TB, data []byte, name, member string) []byte {
	tb.Helper()
	return breakStruct(tb, data, name, func(s *btf.Spec, t btf.Type) bool {
		for _, m := range t.Members() {
			if p, _ := s.TypeByID(m.Type); m.Name() == member && p.Kind() == btf.KindPointer {
				copy(p.Record()[8:], []byte{0xff, 0xff, 0xff, 0x0f}) // the pointee
				return true
			}
		}
		return false
	})
}

// breakStruct returns a copy of host-order BTF data after edit has
// changed its records in place, given the struct called name; edit
// returns false if it found nothing to change.
func breakStruct(tb testing.TB, data []byte, name string, edit func(*btf.Spec, btf.Type) bool) []byte {
	tb.Helper()
	data = bytes.Clone(data)
	s, err := btf.Parse(data, btf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	t, err := s.FindOne(name, btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		tb.Fatal(err)
	}
	// Parse reads host-order BTF in place: the records are in data.
	if !edit(s, t) {
		tb.Fatalf("struct %s: nothing to break", name)
	}
	return data
}

// HostSpec parses the 6.18 host vmlinux BTF.
func HostSpec(tb testing.TB) *btf.Spec {
	tb.Helper()
	return Spec(tb, Read(tb, HostVmlinux), nil)
}

// DebianSpec parses the Debian 6.1 vmlinux BTF.
func DebianSpec(tb testing.TB) *btf.Spec {
	tb.Helper()
	return Spec(tb, Read(tb, DebianVmlinux), nil)
}

// RawDump prints s in bpftool's raw format, the types of scope.
func RawDump(tb testing.TB, s *btf.Spec, scope btf.Scope) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := rawdump.Write(&buf, s, rawdump.Options{Scope: scope}); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// SysfsName is the name a module's BTF has in /sys/kernel/btf: the kernel
// spells module names with '_' where their files may have '-'.
func SysfsName(file string) string { return strings.ReplaceAll(file, "-", "_") }

// FakeSysfs builds a sysfs tree in a temporary directory from the Debian
// 6.1 fixtures, DIR/kernel/btf/vmlinux and DIR/kernel/btf/MODULE for every
// module that keep accepts (all if keep is nil), and returns DIR. edit, if
// not nil, may replace a module's bytes; nil bytes give an empty file.
//
// A tree of every module (keep nil) hard-links the modules that edit leaves
// unchanged to SharedFakeSysfs's tree instead of writing them again (a link
// costs a small fraction of a create): such callers call RemoveShared from
// TestMain.
func FakeSysfs(tb testing.TB, keep func(name string) bool, edit func(name string, b []byte) []byte) string {
	tb.Helper()
	dir := MemTempDir(tb)
	if keep == nil {
		linkFakeSysfs(tb, dir, SharedFakeSysfs(tb), edit)
		return dir
	}
	FillFakeSysfs(tb, dir, keep, edit)
	return dir
}

// linkFakeSysfs fills dir as FillFakeSysfs with every module, linking each
// file that edit leaves unchanged to its copy under shared.
func linkFakeSysfs(tb testing.TB, dir, shared string, edit func(name string, b []byte) []byte) {
	tb.Helper()
	btfDir := filepath.Join(dir, "kernel", "btf")
	if err := os.MkdirAll(btfDir, 0o755); err != nil {
		tb.Fatal(err)
	}
	put := func(name string, b, nb []byte) {
		dst := filepath.Join(btfDir, name)
		if bytes.Equal(b, nb) && (b == nil) == (nb == nil) {
			if os.Link(filepath.Join(shared, "kernel", "btf", name), dst) == nil {
				return
			}
		}
		if err := os.WriteFile(dst, nb, 0o444); err != nil {
			tb.Fatal(err)
		}
	}
	vmlinux := readShared(tb, Path(tb, DebianVmlinux))
	put("vmlinux", vmlinux, vmlinux)
	for file, b := range Modules(tb) {
		nb := b
		if edit != nil {
			nb = edit(SysfsName(file), b)
		}
		put(SysfsName(file), b, nb)
	}
}

// FillFakeSysfs is FakeSysfs into the directory dir, which the caller
// removes: for a tree shared by the tests of one process.
func FillFakeSysfs(tb testing.TB, dir string, keep func(name string) bool, edit func(name string, b []byte) []byte) {
	tb.Helper()
	btfDir := filepath.Join(dir, "kernel", "btf")
	if err := os.MkdirAll(btfDir, 0o755); err != nil {
		tb.Fatal(err)
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(btfDir, name), b, 0o444); err != nil {
			tb.Fatal(err)
		}
	}
	write("vmlinux", readShared(tb, Path(tb, DebianVmlinux)))
	for file, b := range Modules(tb) {
		name := SysfsName(file)
		if keep != nil && !keep(name) {
			continue
		}
		if edit != nil {
			b = edit(name, b)
		}
		write(name, b)
	}
}

// SharedFakeSysfs is FakeSysfs with every module and no edits, built once
// per test process into a directory that RemoveShared removes (call it
// from TestMain): writing the 1,122 files took seconds of system time per
// test. Tests must not change the tree.
func SharedFakeSysfs(tb testing.TB) string {
	tb.Helper()
	shared.once.Do(func() {
		dir, err := MkdirTemp("kmeta-fake-sysfs")
		if err != nil {
			tb.Fatal(err)
		}
		shared.dir = dir
		FillFakeSysfs(tb, dir, nil, nil)
		shared.ok = true
	})
	if !shared.ok {
		tb.Fatal("the shared fake sysfs could not be built")
	}
	return shared.dir
}

// RemoveShared removes what SharedFakeSysfs built, if anything.
func RemoveShared() {
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

// shared is the tree of SharedFakeSysfs.
var shared struct {
	once sync.Once
	dir  string
	ok   bool
}

// MemTempDir is testing.TB.TempDir, placed in /dev/shm when that is a
// writable memory file system (see MkdirTemp). The test removes it.
func MemTempDir(tb testing.TB) string {
	tb.Helper()
	dir, err := MkdirTemp("kmeta-test")
	if err != nil {
		return tb.TempDir()
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// MkdirTemp is os.MkdirTemp in /dev/shm when a directory can be made
// there, and in the default temporary directory if not: for trees of many
// small files, such as a fake sysfs of 1,122 BTF files, which take 0.9 s
// of system time to create on this project's ext4 disks and 25 ms in
// memory. The caller removes the directory.
func MkdirTemp(pattern string) (string, error) {
	if dir, err := os.MkdirTemp("/dev/shm", pattern); err == nil {
		return dir, nil
	}
	return os.MkdirTemp("", pattern)
}

// RunningKernelBTF is where the running kernel exposes its BTF.
const RunningKernelBTF = "/sys/kernel/btf/vmlinux"

// SkipIfHostFixture skips a test that compares kmeta with a tool on the
// running kernel's BTF when that BTF is the committed host fixture, whose
// tool outputs are committed and checked by the golden tests: running the
// tool again would check nothing new. On any other kernel the test runs.
func SkipIfHostFixture(tb testing.TB) {
	tb.Helper()
	live, err := os.ReadFile(RunningKernelBTF)
	if err != nil {
		tb.Skipf("no kernel BTF here: %v", err)
	}
	if bytes.Equal(live, readShared(tb, Path(tb, HostVmlinux))) {
		tb.Skipf("%s is testdata's %s, whose bpftool outputs the golden tests compare", RunningKernelBTF, HostVmlinux)
	}
}

// RunningKernelIsHostFixture reports whether the running kernel's BTF is
// the committed host fixture (see SkipIfHostFixture), for a test that
// leaves out only part of its work there.
func RunningKernelIsHostFixture(tb testing.TB) bool {
	tb.Helper()
	live, err := os.ReadFile(RunningKernelBTF)
	return err == nil && bytes.Equal(live, readShared(tb, Path(tb, HostVmlinux)))
}
