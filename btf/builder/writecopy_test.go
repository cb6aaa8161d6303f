package builder_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// writeOptions are the output forms btf copy offers: host order, the
// other order, and each with the layout header.
var writeOptions = []builder.Options{
	{}, {ByteOrder: binary.BigEndian}, {ByteOrder: binary.LittleEndian},
	{Layout: true}, {Layout: true, ByteOrder: binary.BigEndian},
}

// checkWriteCopy checks that WriteCopy and WriteCopyELF write what
// CopyAll into NewSplit(s.Base()) (split) or New and Marshal or
// MarshalELF return.
func checkWriteCopy(t *testing.T, s *btf.Spec, split bool) {
	t.Helper()
	b := copyAll(t, s, split)
	var base *btf.Spec
	if split {
		base = s.Base()
	}
	for _, opts := range writeOptions {
		var raw, obj bytes.Buffer
		if err := builder.WriteCopy(&raw, s, base, opts); err != nil {
			t.Fatal(err)
		}
		if want := marshal(t, b, opts); !bytes.Equal(raw.Bytes(), want) {
			t.Errorf("%+v: WriteCopy wrote %d bytes unlike Marshal's %d", opts, raw.Len(), len(want))
		}
		if err := builder.WriteCopyELF(&obj, s, base, opts); err != nil {
			t.Fatal(err)
		}
		want, err := b.MarshalELF(opts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(obj.Bytes(), want) {
			t.Errorf("%+v: WriteCopyELF wrote %d bytes unlike MarshalELF's %d", opts, obj.Len(), len(want))
		}
		checkWriteCopyFile(t, builder.WriteCopy, s, base, opts, raw.Bytes())
		checkWriteCopyFile(t, builder.WriteCopyELF, s, base, opts, obj.Bytes())
	}
}

// checkWriteCopyFile checks that write (WriteCopy or WriteCopyELF) to a
// file, which it writes in one read (builder.Rewriter), after a few bytes
// already there, writes want after them, and leaves the file's offset at
// its end.
func checkWriteCopyFile(t *testing.T, write func(io.Writer, *btf.Spec, *btf.Spec, builder.Options) error,
	s, base *btf.Spec, opts builder.Options, want []byte) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const before = "before"
	if _, err := f.WriteString(before); err != nil {
		t.Fatal(err)
	}
	if err := write(f, s, base, opts); err != nil {
		t.Fatal(err)
	}
	end, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, append([]byte(before), want...)) || end != int64(len(got)) {
		t.Errorf("%+v: WriteCopy to a file wrote %d bytes (offset %d) unlike to a stream's %d",
			opts, len(got)-len(before), end, len(want))
	}
}

// TestWriteCopy: the streamed copy is the Builder's, byte for byte, for
// whole kernels (in memory, and mapped from a file, whose pages the copy
// evicts as it goes) and for modules, on their base or standalone.
func TestWriteCopy(t *testing.T) {
	t.Run("debian", func(t *testing.T) { checkWriteCopy(t, debianSpec(t), false) })
	t.Run("host", func(t *testing.T) { checkWriteCopy(t, hostSpec(t), false) })
	t.Run("mapped", func(t *testing.T) { checkWriteCopy(t, mappedDebian(t), false) })
	for _, name := range testfixtures.DebianGoldenModules {
		t.Run(name, func(t *testing.T) { checkWriteCopy(t, module(t, name), true) })
	}
	// Without the base, a module is written standalone with its base's
	// types, as with a distilled base that the module file carries.
	t.Run("standalone", func(t *testing.T) {
		checkWriteCopy(t, module(t, testfixtures.DebianGoldenModules[0]), false)
	})
	// On a base that is not its own, a module and its vmlinux are
	// copied after the base's types: the ids change, and the records
	// are remapped (not streamCopy.keepsIDs).
	t.Run("other base", func(t *testing.T) {
		s := module(t, testfixtures.DebianGoldenModules[0])
		other := mustParse(t, namedBTF("\x00a\x00b\x00", 1, 3), nil)
		b, err := builder.NewSplit(other)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.CopyAll(s); err != nil {
			t.Fatal(err)
		}
		for _, opts := range writeOptions {
			var raw bytes.Buffer
			if err := builder.WriteCopy(&raw, s, other, opts); err != nil {
				t.Fatal(err)
			}
			if want := marshal(t, b, opts); !bytes.Equal(raw.Bytes(), want) {
				t.Errorf("%+v: WriteCopy wrote %d bytes unlike Marshal's %d", opts, raw.Len(), len(want))
			}
			checkWriteCopyFile(t, builder.WriteCopy, s, other, opts, raw.Bytes())
		}
	})
}

// mappedDebian returns the Debian vmlinux opened from a file, mapped, as
// the CLI reads it: the streaming writers evict its pages as they go.
func mappedDebian(t *testing.T) *btf.Spec {
	path := filepath.Join(t.TempDir(), "vmlinux.btf")
	if err := os.WriteFile(path, testfixtures.Read(t, testfixtures.DebianVmlinux), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := btf.Open(context.Background(), path, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// failWriter fails every write after the first n bytes.
type failWriter struct{ n int }

var errWrite = errors.New("write failed")

func (w *failWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, errWrite
	}
	w.n -= len(p)
	return len(p), nil
}

// TestWriteCopyErrors: a closed Spec is refused before anything is
// written, and a failed write is returned as it is, wherever it fails.
func TestWriteCopyErrors(t *testing.T) {
	s := mustParse(t, testfixtures.Read(t, testfixtures.DebianVmlinux), nil)
	s.Close()
	var out bytes.Buffer
	if err := builder.WriteCopy(&out, s, nil, builder.Options{}); !errors.Is(err, btf.ErrClosed) || out.Len() != 0 {
		t.Errorf("closed Spec: %v, %d bytes written", err, out.Len())
	}
	s = debianSpec(t)
	for _, n := range []int{0, 100, 1 << 20, 3 << 20} {
		if err := builder.WriteCopy(&failWriter{n: n}, s, nil, builder.Options{}); !errors.Is(err, errWrite) {
			t.Errorf("write failing after %d bytes: %v", n, err)
		}
		if err := builder.WriteCopyELF(&failWriter{n: n}, s, nil, builder.Options{}); !errors.Is(err, errWrite) {
			t.Errorf("ELF write failing after %d bytes: %v", n, err)
		}
	}
}

// namedBTF returns raw BTF in host order with the string section strs: an
// int named by the first of names and a typedef of it named by each other.
func namedBTF(strs string, names ...uint32) []byte {
	var types []byte
	for i, name := range names {
		if i == 0 {
			types = binary.NativeEndian.AppendUint32(types, name)
			types = binary.NativeEndian.AppendUint32(types, 1<<24) // INT
			types = binary.NativeEndian.AppendUint32(types, 4)
			types = binary.NativeEndian.AppendUint32(types, 32)
			continue
		}
		types = binary.NativeEndian.AppendUint32(types, name)
		types = binary.NativeEndian.AppendUint32(types, 8<<24) // TYPEDEF
		types = binary.NativeEndian.AppendUint32(types, 1)
	}
	h := wire.Header{Version: wire.Version, HdrLen: wire.HeaderLen, TypeLen: uint32(len(types)),
		StrOff: uint32(len(types)), StrLen: uint32(len(strs))}
	raw := wire.AppendHeader(nil, h, binary.NativeEndian)
	return append(append(raw, types...), strs...)
}

// tailsBTF returns namedBTF of one string of n bytes, named from each of
// its bytes, last first: n distinct names in a section of two NULs, more
// than its strings, for which the copy's table grows.
func tailsBTF(n int) []byte {
	names := make([]uint32, n)
	for i := range names {
		names[i] = uint32(n - i)
	}
	return namedBTF("\x00"+strings.Repeat("x", n)+"\x00", names...)
}

// TestWriteCopyInPlace: WriteCopy writes its input's own string section
// where the records name its strings in the order they are laid out and
// none is there twice, and otherwise interns them; both ways it writes
// what CopyAll and Marshal do.
func TestWriteCopyInPlace(t *testing.T) {
	for _, c := range []struct {
		name    string
		raw     []byte
		inPlace bool
	}{
		{"in order", namedBTF("\x00a\x00b\x00c\x00", 1, 3, 5), true},
		{"named again", namedBTF("\x00a\x00b\x00c\x00", 1, 3, 1, 3, 5), true},
		{"unnamed at the end", namedBTF("\x00a\x00b\x00zz\x00", 1, 3), true},
		{"anonymous", namedBTF("\x00a\x00b\x00", 1, 0, 3, 0), true},
		{"out of order", namedBTF("\x00a\x00b\x00c\x00", 3, 1, 5), false},
		{"unnamed in the middle", namedBTF("\x00a\x00b\x00c\x00", 1, 5), false},
		{"twice in the section", namedBTF("\x00a\x00b\x00a\x00", 1, 3, 5), false},
		{"a string's tail", namedBTF("\x00ab\x00c\x00", 1, 2, 4), false},
		{"an empty string", namedBTF("\x00a\x00\x00b\x00", 1, 3, 4), false},
		{"a copy of a vmlinux", marshal(t, copyAll(t, debianSpec(t), false), builder.Options{}), true},
		{"pahole's vmlinux", testfixtures.Read(t, testfixtures.DebianVmlinux), false},
		{"every tail of a string", tailsBTF(300), false},
		// Out of order after names in place, one of them twice in the
		// section: the read goes on by reference (leaveInPlace).
		{"twice, then out of order", namedBTF("\x00a\x00b\x00a\x00c\x00d\x00", 1, 3, 5, 9, 7, 5), false},
		{"in place, then a tail", namedBTF("\x00a\x00bc\x00", 1, 3, 4, 1), false},
		// By reference: a name longer than an entry of the output's
		// order holds (refStrings.orderEntry), runs of strings laid out
		// as in the output and not, and a string there twice.
		{"a long name", namedBTF("\x00a\x00"+strings.Repeat("l", 300)+"\x00b\x00", 3, 1, 304, 3), false},
		{"runs", namedBTF("\x00a\x00b\x00c\x00d\x00e\x00", 5, 7, 1, 3, 9, 5), false},
		{"twice, by reference", namedBTF("\x00a\x00b\x00a\x00b\x00", 3, 1, 5, 7, 3), false},
		// A record longer than the buffer a whole copy renames at once.
		{"a record over the buffer", taggedWide(t, 6000), false},
	} {
		s := mustParse(t, c.raw, nil)
		if got, err := builder.CopiesInPlace(s); err != nil || got != c.inPlace {
			t.Errorf("%s: in place %v (%v), want %v", c.name, got, err, c.inPlace)
		}
		checkWriteCopy(t, s, false)
	}
}

// taggedWide returns hostile.TaggedWide of n members: kmeta's own BTF
// (a struct's member names laid out before its name, so not in place)
// with a struct record of 12 bytes a member.
func taggedWide(t *testing.T, n int) []byte {
	raw, err := hostile.BuildVariant(hostile.TaggedWide, n)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// unwritableBTF returns raw BTF in host order that the Builder cannot
// copy: n typedefs of type 1 named by n distinct strings, the last laid
// out first (so not in place), then a record of kind 20, which its layout
// section describes. Standalone (split false) its type 1 is an INT; split,
// it lies on a base of one type and strStart bytes of strings.
func unwritableBTF(n int, split bool, strStart uint32) []byte {
	var types, strs []byte
	if !split {
		strs = []byte{0}
		types = binary.NativeEndian.AppendUint32(types, 0)
		types = binary.NativeEndian.AppendUint32(types, 1<<24) // INT
		types = binary.NativeEndian.AppendUint32(types, 4)
		types = binary.NativeEndian.AppendUint32(types, 32)
	}
	offs := make([]uint32, n)
	for i := range offs {
		offs[i] = strStart + uint32(len(strs))
		strs = append(append(strs, fmt.Sprintf("t%d", i)...), 0)
	}
	for i := range offs {
		types = binary.NativeEndian.AppendUint32(types, offs[n-1-i])
		types = binary.NativeEndian.AppendUint32(types, 8<<24) // TYPEDEF
		types = binary.NativeEndian.AppendUint32(types, 1)
	}
	const unknown = 20
	types = binary.NativeEndian.AppendUint32(types, 0)
	types = binary.NativeEndian.AppendUint32(types, unknown<<24)
	types = binary.NativeEndian.AppendUint32(types, 0)
	layout := wire.AppendLayouts(nil, binary.NativeEndian)
	for len(layout) < (unknown+1)*wire.LayoutEntrySize {
		layout = append(layout, 0, 0, 0, 0)
	}
	h := wire.Header{Version: wire.Version, HdrLen: 32, TypeLen: uint32(len(types)),
		LayoutOff: uint32(len(types)), LayoutLen: uint32(len(layout)),
		StrOff: uint32(len(types) + len(layout)), StrLen: uint32(len(strs))}
	raw := wire.AppendHeader(nil, h, binary.NativeEndian)
	return append(append(append(raw, types...), layout...), strs...)
}

// TestWriteCopyFreesOnError: a copy that fails in its first read (a kind
// it cannot write, met after the string table is made) gives back the
// table's mappings, whichever table it made: references to the input's
// strings (one input), or the strings themselves (a base, or an input on
// its base copied whole).
func TestWriteCopyFreesOnError(t *testing.T) {
	const n = 20000 // tables large enough for mappings of their own
	base := mustParse(t, namedBTF("\x00int\x00", 1), nil)
	standalone := mustParse(t, unwritableBTF(n, false, 0), nil)
	split := mustParse(t, unwritableBTF(n, true, uint32(base.StringsLen())), base)
	for _, c := range []struct {
		name    string
		s, base *btf.Spec
	}{{"one input", standalone, nil}, {"split on its base", split, base}, {"split copied whole", split, nil}} {
		before := mmap.Live()
		err := builder.WriteCopy(io.Discard, c.s, c.base, builder.Options{})
		if err == nil || !strings.Contains(err.Error(), "cannot write kind 20") {
			t.Errorf("%s: %v, want a refusal of kind 20", c.name, err)
		}
		if live := mmap.Live(); live != before {
			t.Errorf("%s: %d mappings live after the failed copy, %d before", c.name, live, before)
		}
	}
}

// TestCopyLazyRefused: a lazily opened Spec whose last record names a
// string past its section is refused by CopyAll and WriteCopy, as the
// eager open refuses it, instead of copied up to that record.
func TestCopyLazyRefused(t *testing.T) {
	raw := namedBTF("\x00"+strings.Repeat("a\x00", 3), 1, 3, 1000)
	if _, err := btf.Parse(raw, btf.Options{}); err == nil {
		t.Fatal("the eager open accepts a name past the string section")
	}
	s, err := btf.Parse(raw, btf.Options{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := builder.New().CopyAll(s); err == nil || !strings.Contains(err.Error(), "name offset 1000") {
		t.Errorf("CopyAll: %v, want the bad name's error", err)
	}
	var out bytes.Buffer
	if err := builder.WriteCopy(&out, s, nil, builder.Options{}); err == nil || out.Len() != 0 {
		t.Errorf("WriteCopy: %v, %d bytes written, want the bad name's error and nothing", err, out.Len())
	}
}

// TestWriteCopyWork guards WriteCopy's CPU by its work, not its time
// (issue 37: btf copy took 3-15x libbpf's CPU): the first read of the
// Debian 6.1 vmlinux (pahole's strings, held by reference) interns
// without encoding a record, and a name met before is found without
// reading, hashing and looking up its string: the two reads looked up
// 343,142 strings (3.6 for each of 95,805), then 224,677 (2.3) with a
// cache of recent names, now 95,805 (one each: names by place).
// TestWriteCopyReads: WriteCopy and WriteCopyELF read the records once where they can go
// back to the header (a file), twice where it cannot (a stream), and a
// file whose strings looked in place until their end (one there twice)
// costs the one read and then what a stream costs (three: the first read
// in place fails there too).
func TestWriteCopyReads(t *testing.T) {
	for _, c := range []struct {
		name        string
		s           *btf.Spec
		file, other int
	}{
		{"pahole's vmlinux", debianSpec(t), 1, 2},
		{"twice in the section", mustParse(t, namedBTF("\x00a\x00b\x00a\x00", 1, 3, 5), nil), 4, 3},
	} {
		for _, asELF := range []bool{false, true} {
			f, err := os.Create(filepath.Join(t.TempDir(), "out"))
			if err != nil {
				t.Fatal(err)
			}
			file, err := builder.CopyReads(f, c.s, nil, builder.Options{}, asELF)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			other, err := builder.CopyReads(io.Discard, c.s, nil, builder.Options{}, asELF)
			if err != nil {
				t.Fatal(err)
			}
			if file != c.file || other != c.other {
				t.Errorf("%s (ELF %v): %d reads to a file, %d to a stream; want %d, %d",
					c.name, asELF, file, other, c.file, c.other)
			}
		}
	}
}

func TestWriteCopyWork(t *testing.T) {
	encoded, finds, strs, err := builder.CopyWork(debianSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	if encoded != 0 {
		t.Errorf("the first read encoded %d bytes of records", encoded)
	}
	// Each string is looked up in the index once, when it is first
	// named, in either read: a name met again is answered from its
	// place (refStrings.outs).
	if strs <= 0 || finds != strs {
		t.Errorf("%d lookups for %d strings, want one a string", finds, strs)
	}
	t.Logf("%d lookups for %d strings", finds, strs)
}
