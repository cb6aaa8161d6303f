// Package testfixtures gives tests access to the real kernel data committed
// under the repository's testdata/ directory: BTF from a Debian 6.1 kernel
// (vmlinux and 1,121 modules) and from the 6.18 host kernel, and the outputs
// of bpftool for them. See testdata/README.md for where each file came from.
//
// It is a test helper: only _test.go files (and other test helpers)
// import it, as docs/layers.md says and internal/apidoc's TestLayers
// checks.
package testfixtures

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"
)

// Names of the committed BTF fixtures, relative to testdata/.
const (
	HostVmlinux   = "btf/host-6.18.44.btf.gz"
	DebianVmlinux = "btf/debian-6.1.btf.gz"
	DebianModules = "btf/debian-6.1-modules.tar.gz"
)

// DebianGoldenModules are the modules whose bpftool raw dumps are committed
// as testdata/bpftool/modules/NAME.raw.txt.gz.
var DebianGoldenModules = []string{"af_key", "vsock_loopback", "kvm", "xfs", "btrfs", "mlx5_core"}

// Dir returns the absolute path of the repository's testdata directory,
// found by walking up from the working directory to the go.mod of the
// kmeta module.
func Dir(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(b, []byte("module github.com/kmeta-dev/kmeta\n")) {
			return filepath.Join(dir, "testdata")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("testfixtures: cannot find the kmeta module root above the working directory")
		}
		dir = parent
	}
}

// Path returns the absolute path of testdata/rel.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	return filepath.Join(Dir(tb), filepath.FromSlash(rel))
}

// Read returns the contents of testdata/rel, decompressed if rel ends in
// ".gz", ".xz" or ".zst".
func Read(tb testing.TB, rel string) []byte {
	tb.Helper()
	return ReadPath(tb, Path(tb, rel))
}

// ReadPath returns the contents of the file at path, decompressed if path
// ends in ".gz", ".xz" or ".zst"; for fixtures kept beside a package's own
// tests.
// A compressed file is decompressed once per test process and each caller
// gets its own copy: tests read the same few fixtures dozens of times, and
// inflating them again each time was a quarter of some packages' CPU.
func ReadPath(tb testing.TB, path string) []byte {
	tb.Helper()
	b := readShared(tb, path)
	if compressed(path) {
		b = bytes.Clone(b)
	}
	return b
}

// readShared is ReadPath without the copy of a compressed file's bytes:
// the caller must not modify them.
func readShared(tb testing.TB, path string) []byte {
	tb.Helper()
	if !compressed(path) {
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	v, _ := inflated.LoadOrStore(path, sync.OnceValues(func() ([]byte, error) { return inflate(path) }))
	b, err := v.(func() ([]byte, error))()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// inflated maps a compressed fixture's path to a function that returns its
// decompressed bytes, computed once.
var inflated sync.Map

// compressed reports whether path names a compressed fixture.
func compressed(path string) bool {
	for _, ext := range []string{".gz", ".xz", ".zst"} {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}

// inflate reads and decompresses the .gz, .xz or .zst file at path. Large
// fixtures that many tests read are .zst: xz packs them a little smaller,
// but inflates them an order of magnitude slower.
func inflate(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var zr io.Reader
	switch {
	case strings.HasSuffix(path, ".gz"):
		zr, err = gzip.NewReader(f)
	case strings.HasSuffix(path, ".zst"):
		var d *zstd.Decoder
		if d, err = zstd.NewReader(f, zstd.WithDecoderConcurrency(1)); err == nil {
			defer d.Close()
			zr = d
		}
	default:
		zr, err = xz.NewReader(f)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Modules returns the raw split BTF of every Debian 6.1 module, by module
// name (the file name without ".btf"). The map is shared between callers and
// must not be modified.
func Modules(tb testing.TB) map[string][]byte {
	tb.Helper()
	mu.Lock()
	defer mu.Unlock()
	if modCache != nil {
		return modCache
	}
	m, err := readModules(Path(tb, DebianModules))
	if err != nil {
		tb.Fatal(err)
	}
	modCache = m
	return m
}

var (
	mu       sync.Mutex
	modCache map[string][]byte
)

func readModules(file string) (map[string][]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	m := make(map[string][]byte)
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg || !strings.HasSuffix(h.Name, ".btf") {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		m[strings.TrimSuffix(path.Base(h.Name), ".btf")] = b
	}
}

// File decompresses testdata/rel (if it ends in ".gz", ".xz" or ".zst")
// into a file in a temporary directory that the test removes (in memory
// where it can be, see MemTempDir), and returns its path.
func File(tb testing.TB, rel string) string {
	tb.Helper()
	name := filepath.Base(rel)
	if compressed(name) {
		name = strings.TrimSuffix(name, filepath.Ext(name))
	}
	path := filepath.Join(MemTempDir(tb), name)
	if err := os.WriteFile(path, readShared(tb, Path(tb, rel)), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// CompareLines fails the test if got and want differ, reporting the first
// differing line: far more useful than a diff of two texts of megabytes.
func CompareLines(tb testing.TB, got, want []byte) {
	tb.Helper()
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range min(len(gl), len(wl)) {
		if !bytes.Equal(gl[i], wl[i]) {
			tb.Fatalf("line %d differs:\n got: %q\nwant: %q", i+1, gl[i], wl[i])
		}
	}
	tb.Fatalf("output has %d lines, want %d", len(gl), len(wl))
}

// Heavy reports whether KMETA_HEAVY=1 asks for the heavy checks: the
// vmlinux-sized comparisons that repeat, on more inputs, an oracle that
// the plain "go test ./..." already checks on one. .ci/run runs them.
func Heavy() bool { return os.Getenv("KMETA_HEAVY") == "1" }

// SkipUnlessHeavy skips a heavy check, saying what it is, unless
// KMETA_HEAVY=1.
func SkipUnlessHeavy(tb testing.TB, what string) {
	tb.Helper()
	if !Heavy() {
		tb.Skipf("heavy check (%s): set KMETA_HEAVY=1 (.ci/run does)", what)
	}
}
