package kallsyms

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/kmeta-dev/kmeta/internal/input"
)

// compressAll returns text compressed with gzip, xz and zstd.
func compressAll(t *testing.T, text []byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var g bytes.Buffer
	gw := gzip.NewWriter(&g)
	gw.Write(text)
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	out["gz"] = g.Bytes()
	var x bytes.Buffer
	xw, err := xz.NewWriter(&x)
	if err != nil {
		t.Fatal(err)
	}
	xw.Write(text)
	if err := xw.Close(); err != nil {
		t.Fatal(err)
	}
	out["xz"] = x.Bytes()
	zw, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	out["zst"] = zw.EncodeAll(text, nil)
	return out
}

// symbols lists a snapshot's symbols as strings, to compare two.
func symbols(s *Snapshot) []string {
	var out []string
	for sym := range s.All() {
		out = append(out, fmt.Sprint(sym))
	}
	return out
}

// A saved kallsyms compressed with gzip, xz or zstd reads as its text,
// from a file and from a stream, and what it inflates to is held to
// MaxSize as the text is.
func TestCompressedText(t *testing.T) {
	// The first 20,000 lines (800 KB): Go's xz writer is slow.
	text := readFixture(t, hostFixture)
	if i := nthLine(text, 20000); i > 0 {
		text = text[:i]
	}
	want, err := Parse(bytes.NewReader(text), Options{Data: true})
	if err != nil {
		t.Fatal(err)
	}
	wantSyms := symbols(want)
	dir := t.TempDir()
	for ext, z := range compressAll(t, text) {
		path := filepath.Join(dir, "kallsyms."+ext)
		if err := os.WriteFile(path, z, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			opts := Options{Data: true, Workers: workers}
			got, err := ReadFile(path, opts)
			if err != nil {
				t.Fatalf("ReadFile %s: %v", ext, err)
			}
			if !slices.Equal(symbols(got), wantSyms) {
				t.Errorf("ReadFile %s: symbols differ from the text's", ext)
			}
			got, err = Parse(bytes.NewReader(z), opts)
			if err != nil {
				t.Fatalf("Parse %s: %v", ext, err)
			}
			if !slices.Equal(symbols(got), wantSyms) {
				t.Errorf("Parse %s: symbols differ from the text's", ext)
			}
		}
		// The text is larger than its compressed form: a limit between
		// the two refuses it, naming the file.
		limit := int64(len(z)) + 1
		_, err := ReadFile(path, Options{MaxSize: limit})
		if !errors.Is(err, input.ErrTooLarge) || !strings.Contains(err.Error(), path) {
			t.Errorf("ReadFile %s under %d bytes: %v, want a too-large error naming the file", ext, limit, err)
		}
		_, err = Parse(bytes.NewReader(z), Options{MaxSize: limit})
		if !errors.Is(err, input.ErrTooLarge) {
			t.Errorf("Parse %s under %d bytes: %v, want a too-large error", ext, limit, err)
		}
	}
}

// Data that starts as a compressed stream and is not one fails in one
// error naming the format, and a file shorter than any magic is text.
func TestCompressedBroken(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"gzip": {0x1f, 0x8b, 0, 0, 0, 0, 0, 0},
		"xz":   {0xfd, '7', 'z', 'X', 'Z', 0, 1, 2, 3},
		"zstd": {0x28, 0xb5, 0x2f, 0xfd, 0xff},
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, data, 0o644)
		_, err := ReadFile(path, Options{})
		if err == nil || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming %s", name, err, name)
		}
	}
	s, err := Parse(strings.NewReader("0 T"), Options{})
	if err == nil {
		t.Errorf("a 3-byte line: %v, want a parse error", s)
	}
	if _, err := Parse(strings.NewReader(""), Options{}); err != nil {
		t.Errorf("empty input: %v", err)
	}
}

// nthLine returns the offset just past text's nth line, or 0 if it has
// fewer.
func nthLine(text []byte, n int) int {
	off := 0
	for range n {
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			return 0
		}
		off += i + 1
	}
	return off
}
