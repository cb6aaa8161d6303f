package kallsyms

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

const (
	hostFixture      = "testdata/host-6.18.44.kallsyms.gz"
	synthFixture     = "testdata/synthetic-modules.kallsyms.gz"
	synthSysfsFixure = "testdata/synthetic-sysfs.tar.gz"
)

// readFixture returns the decompressed text of the kallsyms fixture at
// path, read once per test process (the host fixture is gunzipped by ten
// callers otherwise). Callers share the bytes and must not modify them.
func readFixture(tb testing.TB, path string) []byte {
	tb.Helper()
	fixtures.mu.Lock()
	defer fixtures.mu.Unlock()
	if b, ok := fixtures.text[path]; ok {
		return b
	}
	b := testfixtures.ReadPath(tb, path)
	if fixtures.text == nil {
		fixtures.text = map[string][]byte{}
	}
	fixtures.text[path] = b
	return b
}

// fixtures is what readFixture read.
var fixtures struct {
	mu   sync.Mutex
	text map[string][]byte
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
	if err := extractTar(dir, tarball); err != nil {
		return nil, err
	}
	return ReadModules(filepath.Join(dir, "sys"))
}

// extractTar unpacks the tar archive b into dir.
func extractTar(dir string, b []byte) error {
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean(h.Name)
		if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			return fmt.Errorf("bad tar entry %q", h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				return err
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return err
			}
		}
	}
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
