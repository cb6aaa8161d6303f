package kallsyms

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

const (
	hostFixture      = "testdata/host-6.18.44.kallsyms.gz"
	synthFixture     = "testdata/synthetic-modules.kallsyms.gz"
	synthSysfsFixure = "testdata/synthetic-sysfs.tar.gz"
)

// extractSysfs unpacks the synthetic sysfs tree into a temporary directory
// and returns the sysfs root (the directory holding module/).
func extractSysfs(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	tr := tar.NewReader(bytes.NewReader(testfixtures.ReadPath(tb, synthSysfsFixure)))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatal(err)
		}
		name := filepath.Clean(h.Name)
		if strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			tb.Fatalf("bad tar entry %q", h.Name)
		}
		p := filepath.Join(dir, name)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				tb.Fatal(err)
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				tb.Fatal(err)
			}
			b, err := io.ReadAll(tr)
			if err != nil {
				tb.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return filepath.Join(dir, "sys")
}

// mustParse parses kallsyms text or fails the test.
func mustParse(tb testing.TB, text []byte, opts *Options) *Snapshot {
	tb.Helper()
	s, err := Parse(bytes.NewReader(text), opts)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}
