package kernel

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// numDebianModules is the number of module BTF files in the Debian 6.1
// fixture.
const numDebianModules = 1121

// sysfsName is the name a module's BTF has in /sys/kernel/btf: the kernel
// spells module names with '_' where their file names may have '-'.
func sysfsName(file string) string { return strings.ReplaceAll(file, "-", "_") }

// fakeSysfs builds DIR/kernel/btf/{vmlinux,MODULE...} in a temporary
// directory from the Debian 6.1 fixtures and returns DIR. keep, if not nil,
// selects the modules written (by sysfs name); edit, if not nil, may change
// a module's bytes before they are written (the fixture is not modified).
func fakeSysfs(tb testing.TB, keep func(string) bool, edit func(name string, b []byte) []byte) string {
	tb.Helper()
	dir := tb.TempDir()
	btfDir := filepath.Join(dir, "kernel", "btf")
	if err := os.MkdirAll(btfDir, 0o755); err != nil {
		tb.Fatal(err)
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(btfDir, name), b, 0o444); err != nil {
			tb.Fatal(err)
		}
	}
	write(Vmlinux, testfixtures.Read(tb, testfixtures.DebianVmlinux))
	for file, b := range testfixtures.Modules(tb) {
		name := sysfsName(file)
		if keep != nil && !keep(name) {
			continue
		}
		if edit != nil {
			b = edit(name, b)
		}
		write(name, b)
	}
	return dir
}

// only returns a keep function for fakeSysfs that keeps the named modules.
func only(names ...string) func(string) bool {
	return func(n string) bool {
		for _, m := range names {
			if m == n {
				return true
			}
		}
		return false
	}
}

// acquire acquires a Handle from c and releases it when the test ends.
func acquire(tb testing.TB, c *Cache) *Handle {
	tb.Helper()
	h, err := c.Acquire()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { h.Release() })
	return h
}
