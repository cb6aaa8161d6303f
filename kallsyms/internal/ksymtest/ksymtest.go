// Package ksymtest holds the test helpers that the tests of package
// kallsyms and of package kallsyms/live share: their fixtures and a fake
// sysfs tree. It is for tests only.
//
// It is a test helper: only _test.go files (and other test helpers)
// import it, as docs/layers.md says and internal/apidoc's TestLayers
// checks.
package ksymtest

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

// ReadFixture returns the decompressed text of the kallsyms fixture at
// path, read once per test process (the host fixture is gunzipped by ten
// callers otherwise). Callers share the bytes and must not modify them.
func ReadFixture(tb testing.TB, path string) []byte {
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

// fixtures is what ReadFixture read.
var fixtures struct {
	mu   sync.Mutex
	text map[string][]byte
}

// WriteAtomic replaces path's content in one rename.
func WriteAtomic(tb testing.TB, path string, data []byte) {
	tb.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		tb.Fatal(err)
	}
}

// ExtractTar unpacks the tar archive b into dir: all of it, or with a
// non-empty under, only the entries of that directory (a path in the
// archive, such as "sys/module/synmod050"), which spares writing a whole
// tree for one module.
func ExtractTar(dir string, b []byte, under string) error {
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
		if under != "" && name != under && !strings.HasPrefix(name, under+"/") {
			continue
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
