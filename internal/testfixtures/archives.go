package testfixtures

import (
	"archive/tar"
	"bytes"
	"testing"

	"github.com/ulikunitz/xz"
)

// TarEntry is one entry of a tar archive that Tar writes: a regular
// file, or a directory when Dir is set.
type TarEntry struct {
	Name string
	Data []byte
	Dir  bool
}

// Tar returns a tar archive (POSIX format) of the entries, in order.
func Tar(tb testing.TB, entries ...TarEntry) []byte {
	tb.Helper()
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, e := range entries {
		h := &tar.Header{Name: e.Name, Mode: 0o644, Size: int64(len(e.Data)), Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if e.Dir {
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		}
		if err := w.WriteHeader(h); err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write(e.Data); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// BTFHubArchive returns what BTFHub ships for a kernel, RELEASE.btf.tar.xz:
// an xz-compressed tar of one file, RELEASE.btf, holding raw.
func BTFHubArchive(tb testing.TB, release string, raw []byte) []byte {
	tb.Helper()
	var b bytes.Buffer
	w, err := xz.NewWriter(&b)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := w.Write(Tar(tb, TarEntry{Name: release + ".btf", Data: raw})); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}
