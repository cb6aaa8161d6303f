package cdump_test

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// fuzzOutputLimit bounds what one fuzz input may print: BTF of a few bytes
// can describe a struct of 4 GiB, which bpftool would pad with half a
// billion lines. Write must stop at the writer's first error.
const fuzzOutputLimit = 1 << 20

var errLimit = errors.New("output limit")

// FuzzDump parses arbitrary bytes with btf.Parse and, when they parse,
// prints them as C (the whole Spec, then a mini header of one named type):
// Write must neither panic nor hang, and errors must come back as errors.
func FuzzDump(f *testing.F) {
	for _, c := range cases {
		f.Add(c.raw())
	}
	if raw := progBTF(f); raw != nil {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := btf.Parse(data, btf.Options{})
		if err != nil {
			return
		}
		defer s.Close()
		for _, opts := range []cdump.Options{{}, {Unsorted: true}, v71} {
			w := &errWriter{n: fuzzOutputLimit, err: errLimit}
			_ = cdump.Write(w, s, opts)
		}
		var name string
		for _, ty := range s.All() {
			if n := ty.Name(); n != "" {
				name = n
			}
		}
		if name != "" {
			w := &errWriter{n: fuzzOutputLimit, err: errLimit}
			_ = cdump.Write(w, s, cdump.Options{Types: []string{name}})
		}
	})
}

// progBTF returns the .BTF section of the committed BPF object, a small
// real BTF made by clang.
func progBTF(tb testing.TB) []byte {
	b, err := os.ReadFile(testfixtures.Path(tb, "elf/prog.bpf.o.gz"))
	if err != nil {
		return nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	obj, err := io.ReadAll(zr)
	if err != nil {
		return nil
	}
	ef, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		return nil
	}
	sec := ef.Section(".BTF")
	if sec == nil {
		return nil
	}
	raw, err := sec.Data()
	if err != nil {
		return nil
	}
	return raw
}

// TestProgBTF checks the BTF that clang made for a BPF program (FUNC,
// VAR, DATASEC, DECL_TAG records, which print nothing) against bpftool.
func TestProgBTF(t *testing.T) {
	raw := progBTF(t)
	if raw == nil {
		t.Skip("no testdata/elf/prog.bpf.o.gz")
	}
	got := dumpC(t, parse(t, raw, nil), v71)
	want, err := bpftoolDump(t, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("differs from bpftool: %s", firstDiff(got, want))
	}
}
