package kallsyms

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/kallsyms/internal/ksymtest"
)

const (
	hostFixture      = "testdata/host-6.18.44.kallsyms.gz"
	synthFixture     = "testdata/synthetic-modules.kallsyms.gz"
	synthSysfsFixure = "testdata/synthetic-sysfs.tar.gz"
)

// readFixture is ksymtest.ReadFixture.
func readFixture(tb testing.TB, path string) []byte {
	tb.Helper()
	return ksymtest.ReadFixture(tb, path)
}

// sysfsInfos returns ReadModules of the synthetic sysfs tree. The tree
// (a thousand small files: most of a second of system time) is extracted
// and read once per test process; callers share the result and must not
// modify it.
func sysfsInfos(tb testing.TB) []ModuleInfo {
	tb.Helper()
	tarball := testfixtures.ReadPath(tb, synthSysfsFixure)
	sharedSysfs.once.Do(func() {
		sharedSysfs.infos, sharedSysfs.err = readTarSysfs(tarball)
	})
	if sharedSysfs.err != nil {
		tb.Fatal(sharedSysfs.err)
	}
	return sharedSysfs.infos
}

// sharedSysfs is what sysfsInfos read.
var sharedSysfs struct {
	once  sync.Once
	infos []ModuleInfo
	err   error
}

// readTarSysfs extracts the sysfs tree in tarball into a temporary
// directory, reads it with ReadModules and removes it.
func readTarSysfs(tarball []byte) ([]ModuleInfo, error) {
	dir, err := testfixtures.MkdirTemp("kallsyms-sysfs")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := ksymtest.ExtractTar(dir, tarball, ""); err != nil {
		return nil, err
	}
	return ReadModules(filepath.Join(dir, "sys"))
}

// mustParse parses kallsyms text or fails the test.
func mustParse(tb testing.TB, text []byte, opts *Options) *Snapshot {
	tb.Helper()
	if opts == nil {
		opts = &Options{}
	}
	s, err := Parse(bytes.NewReader(text), *opts)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
