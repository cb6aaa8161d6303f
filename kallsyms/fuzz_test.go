package kallsyms

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/input"
)

// FuzzParse checks that Parse never panics or hangs, and that whatever it
// accepts is self-consistent: every listed symbol resolves by address and
// by name, and LookupAppend agrees with Lookup. The seed corpus in
// testdata/fuzz/FuzzParse holds slices of the real fixtures.
func FuzzParse(f *testing.F) {
	seed := []byte("ffffffff81000000 T _stext\nffffffff81000010 t __pfx_f\nffffffff81000020 t f\t[m]\n")
	f.Add(seed)
	// The same text compressed (Parse inflates gzip, xz and zstd).
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(seed)
	w.Close()
	f.Add(gz.Bytes())
	zw, _ := zstd.NewWriter(nil)
	f.Add(zw.EncodeAll(seed, nil))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, data := range []bool{false, true} {
			s, err := Parse(bytes.NewReader(in), Options{Data: data})
			fuzztest.CheckError(t, "kallsyms", err)
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) && !errors.Is(err, ErrRestricted) && !compressionError(err) {
					t.Fatalf("unexpected error type: %v", err)
				}
				continue
			}
			checkConsistent(t, s)
		}
	})
}

func checkConsistent(t *testing.T, s *Snapshot) {
	n := 0
	for sym := range s.All() {
		if n++; n > 2000 {
			break
		}
		got, err := s.Lookup(sym.Addr)
		if errors.Is(err, ErrNotText) && isEndOfText(s, sym) {
			continue
		}
		if err != nil || got.Addr != sym.Addr {
			t.Fatalf("Lookup(%#x) = %+v, %v; listed %+v", sym.Addr, got, err, sym)
		}
		var app Symbol
		name, err := s.LookupAppend(nil, &app, sym.Addr)
		if err != nil || string(name) != got.Name || app.Addr != got.Addr || app.Module != got.Module {
			t.Fatalf("LookupAppend(%#x) = %+v %q, %v; Lookup %+v", sym.Addr, app, name, err, got)
		}
		found := false
		syms, err := s.LookupName(sym.Name, sym.Module)
		for _, c := range syms {
			found = found || c.Addr == sym.Addr
		}
		if !found {
			t.Fatalf("LookupName(%q, %q) = %v, %v; missing %#x", sym.Name, sym.Module, syms, err, sym.Addr)
		}
		for first := range s.LookupNameSeq(sym.Name, sym.Module) { // stops when the loop does
			if first != syms[0] {
				t.Fatalf("LookupNameSeq(%q, %q) first %+v; LookupName %+v", sym.Name, sym.Module, first, syms[0])
			}
			break
		}
	}
	if st := s.Stats(); st.Symbols < 0 || st.Bytes <= 0 {
		t.Fatalf("stats %+v", st)
	}
}

// isEndOfText reports whether sym's address is that of an end of text
// that is listed: vmlinux's _etext or _einittext, without Options.Data.
func isEndOfText(s *Snapshot, sym Symbol) bool {
	if s.data || sym.Module != Vmlinux {
		return false
	}
	for _, name := range []string{"_etext", "_einittext"} {
		ends, _ := s.LookupName(name, Vmlinux)
		for _, e := range ends {
			if e.Addr == sym.Addr {
				return true
			}
		}
	}
	return false
}

// FuzzBuildIDNote checks that parseBuildIDNote never panics or reads out
// of bounds, and that a build ID it finds is bytes of its input. The seed
// corpus in testdata/fuzz/FuzzBuildIDNote holds a real note section
// (/sys/kernel/notes of Linux 6.18: the build ID, then Xen and Linux
// notes).
func FuzzBuildIDNote(f *testing.F) {
	f.Add([]byte{4, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 1, 2, 3, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		id := parseBuildIDNote(in)
		if id != nil && (len(id) == 0 || !bytes.Contains(in, id)) {
			t.Fatalf("build ID %x is not in the input", id)
		}
	})
}

// compressionError tells an error of data that looked compressed and was
// not (one of input.Uncompressed's), or that inflated past the limit.
func compressionError(err error) bool {
	for _, f := range []string{"gzip: ", "xz: ", "zstd: "} {
		if strings.HasPrefix(err.Error(), "kallsyms: "+f) {
			return true
		}
	}
	return errors.Is(err, input.ErrTooLarge)
}
