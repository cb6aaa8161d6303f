package builder_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// asIsCases are the inputs of the WriteAsIs tests, each on its own base:
// pahole's vmlinux (strings not in first-use order), read and mapped, a
// module on it, the host's, and hand-made BTF whose strings WriteCopy
// does not keep (one there twice, names inside a string).
func asIsCases(t *testing.T) []struct {
	name string
	s    *btf.Spec
} {
	return []struct {
		name string
		s    *btf.Spec
	}{
		{"debian", debianSpec(t)},
		{"mapped", mappedDebian(t)},
		{"module", module(t, testfixtures.DebianGoldenModules[0])},
		{"host", hostSpec(t)},
		{"twice", mustParse(t, namedBTF("\x00a\x00b\x00a\x00", 1, 3, 5), nil)},
		{"tails", mustParse(t, tailsBTF(100), nil)},
	}
}

// TestWriteAsIs: WriteAsIs writes the input's records and string section
// unchanged after a header that lays them out in order, in either byte
// order, with or without a layout section; the result reads back as the
// input's records. WriteAsIsELF writes the object that ELF makes of it,
// and a file gets the bytes a stream gets.
func TestWriteAsIs(t *testing.T) {
	for _, c := range asIsCases(t) {
		s, base := c.s, c.s.Base()
		strs, _ := s.StringSection()
		for _, opts := range []builder.Options{{}, {ByteOrder: binary.BigEndian}, {Layout: true}, {ByteOrder: binary.BigEndian, Layout: true}} {
			var raw bytes.Buffer
			if err := builder.WriteAsIs(&raw, s, base, opts); err != nil {
				t.Fatalf("%s %+v: %v", c.name, opts, err)
			}
			got, err := btf.Parse(raw.Bytes(), btf.Options{Base: base})
			if err != nil {
				t.Fatalf("%s %+v: the output does not read back: %v", c.name, opts, err)
			}
			sameRecords(t, s, got)
			if own, _ := got.StringSection(); !bytes.Equal(own, strs) {
				t.Errorf("%s %+v: the string section changed", c.name, opts)
			}
			if opts.ByteOrder == nil && !opts.Layout && !bytes.Equal(raw.Bytes()[wire.HeaderLen:], append(append([]byte(nil), s.TypeSection()...), strs...)) {
				t.Errorf("%s: the sections are not the input's", c.name)
			}
			var obj bytes.Buffer
			if err := builder.WriteAsIsELF(&obj, s, base, opts); err != nil {
				t.Fatalf("%s %+v: ELF: %v", c.name, opts, err)
			}
			if want, err := builder.ELF(raw.Bytes()); err != nil || !bytes.Equal(obj.Bytes(), want) {
				t.Errorf("%s %+v: WriteAsIsELF differs from ELF of WriteAsIs (%v)", c.name, opts, err)
			}
			checkWriteCopyFile(t, builder.WriteAsIs, s, base, opts, raw.Bytes())
		}
	}
}

// TestWriteAsIsLibbpf: WriteAsIs writes what libbpf 1.8 writes back for
// BTF it parsed (btf__parse or btf__parse_split, then btf__raw_data:
// bench/testdata/libbpfcopy.c), byte for byte, for pahole's vmlinux and a
// module on it. The peer is KMETA_LIBBPFCOPY, or the ninth campaign's
// default (cmd/kmeta's rt9PeerVars), or libbpfcopy on PATH.
func TestWriteAsIsLibbpf(t *testing.T) {
	peer := os.Getenv("KMETA_LIBBPFCOPY")
	for _, p := range []string{"/work/data/peers/libbpfcopy18", "libbpfcopy"} {
		if peer == "" {
			peer, _ = exec.LookPath(p)
		}
	}
	if peer == "" {
		t.Skip("no libbpfcopy (bench/testdata/libbpfcopy.c): set KMETA_LIBBPFCOPY")
	}
	dir := t.TempDir()
	vmlinux := filepath.Join(dir, "vmlinux.btf")
	mod := filepath.Join(dir, "mod.btf")
	name := testfixtures.DebianGoldenModules[0]
	if err := os.WriteFile(vmlinux, testfixtures.Read(t, testfixtures.DebianVmlinux), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mod, testfixtures.Modules(t)[name], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    *btf.Spec
		args []string
	}{
		{debianSpec(t), []string{vmlinux}},
		{module(t, name), []string{"-B", vmlinux, mod}},
	} {
		out := filepath.Join(dir, "out")
		if msg, err := exec.Command(peer, append(c.args, out)...).CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v: %s", peer, c.args, err, msg)
		}
		want, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := builder.WriteAsIs(&got, c.s, c.s.Base(), builder.Options{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%v: WriteAsIs wrote %d bytes unlike libbpf's %d", c.args, got.Len(), len(want))
		}
	}
}

// TestWriteAsIsErrors: a closed Spec, a Spec not on the base given, a
// kind that a layout section described and a lazy Spec that the eager
// open refuses are refused before anything is written; a failed write
// is returned.
func TestWriteAsIsErrors(t *testing.T) {
	closed := mustParse(t, namedBTF("\x00a\x00", 1), nil)
	closed.Close()
	base := mustParse(t, namedBTF("\x00int\x00", 1), nil)
	lazy, err := btf.Parse(namedBTF("\x00"+strings.Repeat("a\x00", 3), 1, 3, 1000), btf.Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		s, base *btf.Spec
		want    string
	}{
		{"closed", closed, nil, btf.ErrClosed.Error()},
		{"not on base", debianSpec(t), base, "not split on the base given"},
		{"split on no base", module(t, testfixtures.DebianGoldenModules[0]), nil, "not split on the base given"},
		{"unwritable kind", mustParse(t, unwritableBTF(10, false, 0), nil), nil, "cannot write kind 20"},
		{"lazy past the strings", lazy, nil, "name offset 1000"},
	} {
		for _, write := range []func(io.Writer, *btf.Spec, *btf.Spec, builder.Options) error{builder.WriteAsIs, builder.WriteAsIsELF} {
			var out bytes.Buffer
			if err := write(&out, c.s, c.base, builder.Options{}); err == nil || !strings.Contains(err.Error(), c.want) || out.Len() != 0 {
				t.Errorf("%s: %v, %d bytes written; want %q and nothing", c.name, err, out.Len(), c.want)
			}
		}
	}
	if builder.AsIs(debianSpec(t), base) || !builder.AsIs(debianSpec(t), nil) {
		t.Error("AsIs does not tell a Spec on its base")
	}
	s := debianSpec(t)
	for _, n := range []int{0, 100, 1 << 20, 3 << 20} {
		if err := builder.WriteAsIs(&failWriter{n: n}, s, nil, builder.Options{}); !errors.Is(err, errWrite) {
			t.Errorf("a write failing after %d bytes: %v", n, err)
		}
		if err := builder.WriteAsIsELF(&failWriter{n: n}, s, nil, builder.Options{Layout: true}); !errors.Is(err, errWrite) {
			t.Errorf("ELF, a write failing after %d bytes: %v", n, err)
		}
	}
}
