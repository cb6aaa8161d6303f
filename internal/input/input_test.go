package input

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
	"testing/iotest"

	"github.com/ulikunitz/xz"
)

// zeros is an endless stream of zero bytes after head.
type zeros struct{ head []byte }

func (z *zeros) Read(p []byte) (int, error) {
	n := copy(p, z.head)
	z.head = z.head[n:]
	clear(p[n:])
	return len(p), nil
}

// panicReader fails the test if it is read.
type panicReader struct{ t *testing.T }

func (r panicReader) Read([]byte) (int, error) {
	r.t.Fatal("read despite a claim over the limit")
	return 0, nil
}

func TestReadAllLimit(t *testing.T) {
	for _, tc := range []struct {
		n, limit int64
		ok       bool
	}{{0, 10, true}, {10, 10, true}, {11, 10, false}, {3 << 20, 3 << 20, true}, {3<<20 + 1, 3 << 20, false}} {
		d, err := ReadAll(context.Background(), io.LimitReader(&zeros{}, tc.n), Options{Limit: tc.limit, What: "stdin"})
		if tc.ok != (err == nil) {
			t.Errorf("%d bytes, limit %d: err %v", tc.n, tc.limit, err)
			continue
		}
		if err != nil {
			var tl *TooLargeError
			if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) || tl.Limit != tc.limit || !strings.Contains(err.Error(), "stdin") {
				t.Errorf("err = %#v", err)
			}
			continue
		}
		if int64(len(d.Bytes())) != tc.n {
			t.Errorf("read %d bytes, want %d", len(d.Bytes()), tc.n)
		}
		d.Release()
	}
	if _, err := ReadAll(context.Background(), &zeros{}, Options{Limit: 10 << 20}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("endless stream: %v", err)
	}
}

func TestReadAllClaim(t *testing.T) {
	_, err := ReadAll(context.Background(), panicReader{t}, Options{Limit: 100, Claim: 101})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Claim != 101 {
		t.Fatalf("err = %v", err)
	}
	// A false claim is only a hint.
	d, err := ReadAll(context.Background(), strings.NewReader("abc"), Options{Limit: 100, Claim: 50})
	if err != nil || string(d.Bytes()) != "abc" {
		t.Fatalf("%q, %v", d.Bytes(), err)
	}
}

func TestReadAllCheck(t *testing.T) {
	bad := errors.New("bad magic")
	var heads []string
	check := func(h []byte) error {
		heads = append(heads, string(h))
		if !bytes.HasPrefix(h, []byte("OK")) {
			return bad
		}
		return nil
	}
	if _, err := ReadAll(context.Background(), &zeros{}, Options{Limit: 1 << 40, Check: check, CheckLen: 4}); err != bad {
		t.Errorf("zeros: %v", err)
	}
	if _, err := ReadAll(context.Background(), strings.NewReader("OKAY, go on"), Options{Check: check, CheckLen: 4}); err != nil {
		t.Errorf("OKAY: %v", err)
	}
	if _, err := ReadAll(context.Background(), strings.NewReader("O"), Options{Check: check, CheckLen: 4}); err != bad {
		t.Errorf("O: %v", err)
	}
	if want := []string{"\x00\x00\x00\x00", "OKAY", "O"}; strings.Join(heads, "|") != strings.Join(want, "|") {
		t.Errorf("heads %q, want %q", heads, want)
	}
	// Cut compressed data says so ("gzip: unexpected EOF" did not), in
	// its header or after.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("kmeta "), 10000))
	zw.Close()
	for _, n := range []int{4, gz.Len() / 2} {
		_, err := Inflate(context.Background(), Gzip, gz.Bytes()[:n], Options{})
		if err == nil || err.Error() != "gzip data is truncated or corrupt: unexpected EOF" {
			t.Errorf("gzip cut to %d bytes: %v", n, err)
		}
	}
	// A stream that fails before its head is read fails with its own
	// error, not the check's of what little it gave ("bad magic :").
	broken := io.MultiReader(strings.NewReader("O"), iotest.ErrReader(io.ErrUnexpectedEOF))
	if _, err := ReadAll(context.Background(), broken, Options{Check: check, CheckLen: 4}); err != io.ErrUnexpectedEOF {
		t.Errorf("a stream broken after 1 byte: %v, want its read error", err)
	}
	if _, err := ReadAll(context.Background(), iotest.ErrReader(io.ErrUnexpectedEOF), Options{Check: check, CheckLen: 4}); err != io.ErrUnexpectedEOF {
		t.Errorf("a stream broken at once: %v, want its read error", err)
	}
}

func TestReadAllCancel(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := errors.New("stop")
	cancel(stop)
	if _, err := ReadAll(ctx, &zeros{}, Options{}); err != stop {
		t.Errorf("err = %v, want the context's cause", err)
	}
}

func xzData(t testing.TB, data []byte, dictCap int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := xz.WriterConfig{DictCap: dictCap}.NewWriter(&buf)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestInflateXz(t *testing.T) {
	small := xzData(t, []byte("hello, xz"), 1<<20)
	two := append(append([]byte{}, small...), 0, 0, 0, 0)
	two = append(two, xzData(t, []byte(" again"), 1<<20)...)
	d, err := Inflate(context.Background(), Xz, two, Options{})
	if err != nil || string(d.Bytes()) != "hello, xz again" {
		t.Fatalf("two streams: %q, %v", d.Bytes(), err)
	}
	var tl *TooLargeError
	if _, err := Inflate(context.Background(), Xz, xzData(t, make([]byte, 2<<20), 1<<20), Options{Limit: 1 << 20}); !errors.As(err, &tl) || tl.Claim != 2<<20 {
		t.Errorf("2 MiB claimed, 1 MiB limit: %v", err)
	}
	// A 16 MiB dictionary is more than a 16 MiB limit allows (8 MiB).
	if _, err := Inflate(context.Background(), Xz, xzData(t, []byte("x"), 16<<20), Options{Limit: 16 << 20}); err == nil || !strings.Contains(err.Error(), "dictionary") {
		t.Errorf("16 MiB dictionary: %v", err)
	}
	for i := range len(small) {
		if _, err := Inflate(context.Background(), Xz, small[:i], Options{}); err == nil {
			t.Errorf("truncated to %d bytes: no error", i)
		}
	}
}

func TestInflateGzip(t *testing.T) {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(make([]byte, 2<<20))
	w.Close()
	if _, err := Inflate(context.Background(), Gzip, buf.Bytes(), Options{Limit: 1 << 20}); !errors.Is(err, ErrTooLarge) {
		t.Errorf("2 MiB, 1 MiB limit: %v", err)
	}
}

func TestSize(t *testing.T) {
	for s, want := range map[string]int64{"1G": 1 << 30, "512m": 512 << 20, "2GiB": 2 << 30, "4096": 4096, "3 KB": 3 << 10} {
		if got, err := ParseSize(s); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "G", "-1", "0", "1X", "99999999999T"} {
		if _, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q): no error", s)
		}
	}
	if got := FormatSize(1 << 30); got != "1 GiB" {
		t.Errorf("FormatSize = %q", got)
	}
}

// TestMemoryError: memory running out below the limit names the input,
// how far it got and the limit, and still matches ENOMEM.
func TestMemoryError(t *testing.T) {
	err := error(&MemoryError{What: "standard input", Size: 256 << 20, Limit: 1 << 30, Err: syscall.ENOMEM})
	want := "standard input: out of memory holding 256 MiB of it (the input limit is 1 GiB): cannot allocate memory"
	if err.Error() != want || !errors.Is(err, syscall.ENOMEM) {
		t.Errorf("%q, want %q wrapping ENOMEM", err.Error(), want)
	}
}

// TestSection: a section of data read into memory of its own stays where
// it is while the pages wholly outside it go back to the system (they
// read as zeros); a section of heap or borrowed data is a copy.
func TestSection(t *testing.T) {
	const page = 4096
	src := bytes.Repeat([]byte{0xab}, 8*page)
	d, err := ReadAll(context.Background(), bytes.NewReader(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !d.Owned() {
		t.Fatal("data read into a Region is not Owned")
	}
	all := d.Bytes()
	s := Section(d, all[3*page+10:5*page])
	if &s.Bytes()[0] != &all[3*page+10] || !bytes.Equal(s.Bytes(), src[3*page+10:5*page]) {
		t.Error("the section moved or changed")
	}
	if d.Bytes() != nil {
		t.Error("d still holds data after Section")
	}
	zero := make([]byte, 3*page)
	if !bytes.Equal(all[:3*page], zero) || !bytes.Equal(all[5*page:], zero) {
		t.Error("the pages outside the section are still there")
	}
	s.Release()
	for _, d := range []*Data{Copy(src), Borrow(src)} {
		if d.Owned() {
			t.Error("heap or borrowed data is Owned")
		}
		s := Section(d, d.Bytes()[page:2*page])
		if &s.Bytes()[0] == &src[page] || !bytes.Equal(s.Bytes(), src[page:2*page]) || !bytes.Equal(src, bytes.Repeat([]byte{0xab}, 8*page)) {
			t.Error("a section of heap or borrowed data is not a copy, or the data changed")
		}
	}
}

// TestOwn checks that Own copies borrowed data into memory of its own,
// returns data already Owned as it is, and makes a file's mapping
// writable without changing the file.
func TestOwn(t *testing.T) {
	b := bytes.Repeat([]byte("0123456789abcdef"), chunk/8+3)
	d, err := Borrow(b).Own()
	if err != nil {
		t.Fatal(err)
	}
	if !d.Owned() || !bytes.Equal(d.Bytes(), b) || &d.Bytes()[0] == &b[0] {
		t.Fatalf("Own of borrowed data: owned %v, equal %v", d.Owned(), bytes.Equal(d.Bytes(), b))
	}
	if again, err := d.Own(); err != nil || again != d {
		t.Fatalf("Own of owned data: %p %v, want %p", again, err, d)
	}
	d.Release()

	path := t.TempDir() + "/f"
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := File(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d, err = m.Own(); err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	if d != m || !bytes.Equal(d.Bytes(), b) {
		t.Fatalf("Own of a mapped file: same %v, equal %v", d == m, bytes.Equal(d.Bytes(), b))
	}
	d.Bytes()[0] = 'x'
	if f, err := os.ReadFile(path); err != nil || !bytes.Equal(f, b) {
		t.Fatalf("the file changed under its writable mapping (%v)", err)
	}
}
