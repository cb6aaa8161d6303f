package kernel

import (
	"os"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// numDebianModules is the number of module BTF files in the Debian 6.1
// fixture.
const numDebianModules = 1121

// fakeSysfs builds the Debian 6.1 fake sysfs (see testfixtures.FakeSysfs).
// The whole, unedited tree is built once per test process and shared (its
// files are read-only): writing 1,122 files took seconds of system time
// per test.
func fakeSysfs(tb testing.TB, keep func(string) bool, edit func(name string, b []byte) []byte) string {
	tb.Helper()
	if keep != nil || edit != nil {
		return testfixtures.FakeSysfs(tb, keep, edit)
	}
	return testfixtures.SharedFakeSysfs(tb)
}

func TestMain(m *testing.M) {
	code := m.Run()
	testfixtures.RemoveShared()
	os.Exit(code)
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
