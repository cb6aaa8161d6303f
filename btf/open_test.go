package btf_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/ulikunitz/xz"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TestELFModule reads af_key.ko (Debian's debug build, whose .BTF is the
// shipped module BTF) plain, gzip, xz and zstd compressed, and from a
// reader, and checks each against bpftool's dump of the module.
func TestELFModule(t *testing.T) {
	base := debianSpec(t)
	ko := testfixtures.Read(t, "elf/af_key.ko.gz")
	want := testfixtures.Read(t, "bpftool/modules/af_key.raw.txt.gz")
	dir := t.TempDir()
	files := map[string][]byte{
		"af_key.ko":    ko,
		"af_key.ko.gz": mustRead(t, testfixtures.Path(t, "elf/af_key.ko.gz")),
		"af_key.ko.xz": compressXz(t, ko),
		"af_key.ko.zst": func() []byte {
			e, _ := zstd.NewWriter(nil)
			return e.EncodeAll(ko, nil)
		}(),
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := btf.Open(context.Background(), path, btf.Options{Base: base})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			testfixtures.CompareLines(t, dump(t, s, btf.ScopeOwn), want)
			r, err := btf.Read(context.Background(), bytes.NewReader(data), btf.Options{Base: base})
			if err != nil {
				t.Fatal(err)
			}
			testfixtures.CompareLines(t, dump(t, r, btf.ScopeOwn), want)
		})
	}
}

func TestBPFObject(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prog.bpf.o")
	if err := os.WriteFile(path, testfixtures.Read(t, "elf/prog.bpf.o.gz"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := btf.Open(context.Background(), path, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testfixtures.CompareLines(t, dump(t, s, btf.ScopeAll), testfixtures.Read(t, "bpftool/prog.bpf.o.raw.txt"))
}

func TestELFWithoutBTF(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	if _, err := btf.Open(context.Background(), exe, btf.Options{}); !errors.Is(err, btf.ErrNoBTF) {
		t.Fatalf("Open(test binary) = %v, want ErrNoBTF", err)
	}
}

// TestOpenRawFile covers the mmap path with a regular file.
func TestOpenRawFile(t *testing.T) {
	raw := testfixtures.Read(t, testfixtures.DebianVmlinux)
	path := filepath.Join(t.TempDir(), "vmlinux")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := btf.Open(context.Background(), path, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	testfixtures.CompareLines(t, dump(t, s, btf.ScopeAll), testfixtures.Read(t, "bpftool/debian-6.1.raw.txt.gz"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// hostBigEndian returns the host BTF fixture swapped to big endian.
func hostBigEndian(t *testing.T) []byte {
	raw := testfixtures.Read(t, testfixtures.HostVmlinux)
	h, err := wire.ParseHeader(raw, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	return wire.Swap(raw, h)
}

// TestBigEndian converts the host BTF to big endian and back.
func TestBigEndian(t *testing.T) {
	be := hostBigEndian(t)
	s := mustParse(t, be, nil)
	if s.ByteOrder() != binary.BigEndian {
		t.Fatalf("ByteOrder = %v", s.ByteOrder())
	}
	testfixtures.CompareLines(t, dump(t, s, btf.ScopeAll), testfixtures.Read(t, "bpftool/host-6.18.44.raw.txt.gz"))
}

// withLayout rewrites raw BTF with the 32-byte header and a layout section
// placed between the types and the strings, as libbpf 1.8 writes it, plus
// extra layout entries for kinds after ENUM64.
func withLayout(tb testing.TB, raw []byte, extra []wire.Layout, moreTypes []byte) []byte {
	tb.Helper()
	h, err := wire.ParseHeader(raw, binary.NativeEndian)
	if err != nil {
		tb.Fatal(err)
	}
	types := append(append([]byte{}, raw[h.HdrLen+h.TypeOff:][:h.TypeLen]...), moreTypes...)
	strs := raw[h.HdrLen+h.StrOff:][:h.StrLen]
	layout := wire.AppendLayouts(nil, binary.NativeEndian)
	for _, l := range extra {
		layout = append(layout, l.InfoSize, l.ElemSize, 0, 0)
	}
	nh := wire.Header{Version: 1, HdrLen: 32, TypeLen: uint32(len(types)),
		LayoutOff: uint32(len(types)), LayoutLen: uint32(len(layout)),
		StrOff: uint32(len(types) + len(layout)), StrLen: uint32(len(strs))}
	out := wire.AppendHeader(nil, nh, binary.NativeEndian)
	return append(append(append(out, types...), layout...), strs...)
}

func TestLayoutHeader(t *testing.T) {
	raw := testfixtures.Read(t, testfixtures.DebianVmlinux)
	s := mustParse(t, withLayout(t, raw, nil, nil), nil)
	if s.HeaderLen() != 32 {
		t.Fatalf("HeaderLen = %d", s.HeaderLen())
	}
	testfixtures.CompareLines(t, dump(t, s, btf.ScopeAll), testfixtures.Read(t, "bpftool/debian-6.1.raw.txt.gz"))

	// A kind from the future (number 20, 4 info bytes, 8 per element) is
	// skipped thanks to its layout entry, and the types after it still read.
	var future []byte
	for _, w := range []uint32{0, wire.Info(20, 2, false), 0, 7, 1, 2, 3, 4} {
		future = wire.AppendWord(future, w)
	}
	for _, w := range []uint32{0, wire.Info(wire.KindPointer, 0, false), 1} {
		future = wire.AppendWord(future, w)
	}
	s = mustParse(t, withLayout(t, raw, []wire.Layout{{InfoSize: 4, ElemSize: 8}}, future), nil)
	unknown, err := s.TypeByID(94976)
	if err != nil || unknown.Kind() != 20 {
		t.Fatalf("future kind: %v %v", unknown, err)
	}
	if ptr, err := s.TypeByID(94977); err != nil || ptr.Kind() != btf.KindPointer || ptr.Ref() != 1 {
		t.Fatalf("type after the future kind: %v %v", ptr, err)
	}
	// Without the layout entry, the same data is rejected with a clear error.
	_, err = btf.Parse(withLayout(t, raw, nil, future), btf.Options{})
	var fe *btf.FormatError
	if !errors.As(err, &fe) || fe.TypeID != 94976 {
		t.Fatalf("unknown kind without layout: %v", err)
	}
}

func TestSplitOnSplit(t *testing.T) {
	base := newRaw(0)
	base.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
	bs := mustParse(t, base.bytes(), nil)

	mid := newRaw(uint32(bs.StringsLen()))
	mid.typ("s", btf.KindStruct, 1, false, 4, mid.str("a"), 1, 0)
	mid.typ("", btf.KindPointer, 0, false, 2)
	ms := mustParse(t, mid.bytes(), bs)

	top := newRaw(uint32(bs.StringsLen() + ms.StringsLen()))
	top.typ("t", btf.KindTypedef, 0, false, 3)
	top.typ("int", btf.KindTypedef, 0, false, 1)
	ts := mustParse(t, top.bytes(), ms)

	if ms.FirstID() != 2 || ts.FirstID() != 4 || ts.LastID() != 5 {
		t.Fatalf("ids: mid from %d, top %d..%d", ms.FirstID(), ts.FirstID(), ts.LastID())
	}
	typ, err := ts.TypeByID(2)
	if err != nil || typ.Name() != "s" || typ.Member(0).Name() != "a" || typ.Spec() != ms {
		t.Fatalf("base type through top: %v %v", typ, err)
	}
	for _, tc := range []struct {
		scope btf.Scope
		want  []string
	}{
		{btf.ScopeAll, []string{"INT 'int' [1]", "TYPEDEF 'int' [5]"}},
		{btf.ScopeOwn, []string{"TYPEDEF 'int' [5]"}},
		{btf.ScopeBases, []string{"INT 'int' [1]"}},
	} {
		got, err := ts.Find("int", btf.FindOptions{Scope: tc.scope})
		if err != nil {
			t.Fatal(err)
		}
		if g := names(got); len(g) != len(tc.want) || g[0] != tc.want[0] {
			t.Errorf("scope %d: got %v, want %v", tc.scope, g, tc.want)
		}
	}
	r, err := ts.Resolve(4)
	if err != nil || r.ID() != 3 {
		t.Fatalf("Resolve(t) = %v %v", r, err)
	}
	if size, err := ts.SizeOf(2); err != nil || size != 4 {
		t.Fatalf("SizeOf(s) = %d %v", size, err)
	}
}

func TestMalformed(t *testing.T) {
	good := func() *rawBuilder {
		b := newRaw(0)
		b.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
		return b
	}
	hdr := func(mut func([]byte)) []byte {
		b := good().bytes()
		mut(b)
		return b
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		typeID btf.TypeID
	}{
		{"empty", nil, 0},
		{"bad magic", []byte("hello, world, this is not btf data"), 0},
		{"short header", good().bytes()[:20], 0},
		{"version", hdr(func(b []byte) { b[2] = 2 }), 0},
		{"type section past end", hdr(func(b []byte) { binary.NativeEndian.PutUint32(b[12:], 1<<31) }), 0},
		{"string section past end", hdr(func(b []byte) { binary.NativeEndian.PutUint32(b[20:], 0xffffffff) }), 0},
		{"truncated", good().bytes()[:30], 0},
		{"unterminated strings", func() []byte { b := good().bytes(); b[len(b)-1] = 'x'; return b }(), 0},
		{"bad name offset", func() []byte {
			b := good()
			b.typ("", btf.KindPointer, 0, false, 1)
			out := b.bytes()
			binary.NativeEndian.PutUint32(out[24+16:], 9999)
			return out
		}(), 2},
		{"bad type id", func() []byte { b := good(); b.typ("", btf.KindPointer, 0, false, 7); return b.bytes() }(), 2},
		{"bad member type", func() []byte { b := good(); b.typ("s", btf.KindStruct, 1, false, 4, 0, 9, 0); return b.bytes() }(), 2},
		{"vlen past end", func() []byte { b := good(); b.typ("s", btf.KindStruct, 3, false, 4, 0, 1, 0); return b.bytes() }(), 2},
		{"unknown kind", func() []byte { b := good(); b.typ("", 25, 0, false, 0); return b.bytes() }(), 2},
		{"huge vlen", func() []byte { b := good(); b.typ("e", btf.KindEnum, 0xffff, false, 4); return b.bytes() }(), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := btf.Parse(tc.data, btf.Options{})
			var fe *btf.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse = %v, want a *FormatError", err)
			}
			if fe.TypeID != tc.typeID {
				t.Fatalf("error %q names type %d, want %d", err, fe.TypeID, tc.typeID)
			}
		})
	}
}

func mustRead(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func compressXz(tb testing.TB, data []byte) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := xz.NewWriter(&buf)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// TestHugeLengthsDoNotAllocate: headers whose lengths claim 4 GiB give an
// error, and parsing them allocates next to nothing.
func TestHugeLengthsDoNotAllocate(t *testing.T) {
	b := newRaw(0)
	b.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
	raw := b.bytes()
	for _, field := range []int{12, 20} { // type_len, str_len
		data := append([]byte{}, raw...)
		binary.NativeEndian.PutUint32(data[field:], 0xffffffff)
		allocated := bytesAllocated(func() {
			if _, err := btf.Parse(data, btf.Options{}); err == nil {
				t.Fatalf("header field at %d claiming 4 GiB was accepted", field)
			}
		})
		if allocated > 64<<10 {
			t.Errorf("header field at %d claiming 4 GiB: %d bytes allocated", field, allocated)
		}
	}

	// An ELF whose .BTF section header claims 4 GiB of data.
	elfData := testfixtures.Read(t, "elf/prog.bpf.o.gz")
	f, err := elf.NewFile(bytes.NewReader(elfData))
	if err != nil {
		t.Fatal(err)
	}
	sec := f.Section(".BTF")
	shoff := binary.LittleEndian.Uint64(elfData[0x28:])
	shentsize := uint64(binary.LittleEndian.Uint16(elfData[0x3a:]))
	idx := -1
	for i, s := range f.Sections {
		if s == sec {
			idx = i
		}
	}
	// Elf64_Shdr.sh_size is at offset 32.
	binary.LittleEndian.PutUint64(elfData[shoff+uint64(idx)*shentsize+32:], 0xffffffff)
	allocated := bytesAllocated(func() {
		if _, err := btf.Read(context.Background(), bytes.NewReader(elfData), btf.Options{}); err == nil {
			t.Fatal("ELF with a 4 GiB .BTF section was accepted")
		}
	})
	// Read copies the input (650 KB) once; nothing near 4 GiB.
	if allocated > 16<<20 {
		t.Errorf("ELF claiming a 4 GiB .BTF: %d bytes allocated", allocated)
	}
}

func bytesAllocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestOpenUnmappable reads BTF from a FIFO, which cannot be mapped: Open
// falls back to reading it, as for sysfs on kernels before 6.16.
func TestOpenUnmappable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	raw := testfixtures.Read(t, testfixtures.DebianVmlinux)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(raw)
		f.Close()
	}()
	s, err := btf.Open(context.Background(), path, btf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.NumTypes() != 94975 {
		t.Fatalf("NumTypes = %d", s.NumTypes())
	}
}

// TestOpenBigEndian opens the host BTF swapped to big endian from a
// file (mapped, swapped in its own writable mapping), from a reader and
// gzip-compressed (swapped in place): each reads as bpftool's dump, keeps
// its byte order after its pages are evicted, and Close frees the
// swapped data (mmap.Live).
func TestOpenBigEndian(t *testing.T) {
	be := hostBigEndian(t)
	want := testfixtures.Read(t, "bpftool/host-6.18.44.raw.txt.gz")
	dir := t.TempDir()
	plain, packed := filepath.Join(dir, "be.btf"), filepath.Join(dir, "be.btf.gz")
	if err := os.WriteFile(plain, be, 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	w, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	w.Write(be)
	w.Close()
	if err := os.WriteFile(packed, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	open := map[string]func() (*btf.Spec, error){
		"file": func() (*btf.Spec, error) { return btf.Open(context.Background(), plain, btf.Options{}) },
		"gzip": func() (*btf.Spec, error) { return btf.Open(context.Background(), packed, btf.Options{}) },
		"reader": func() (*btf.Spec, error) {
			return btf.Read(context.Background(), bytes.NewReader(be), btf.Options{})
		},
	}
	for name, f := range open {
		t.Run(name, func(t *testing.T) {
			live := mmap.Live()
			s, err := f()
			if err != nil {
				t.Fatal(err)
			}
			if s.ByteOrder() != binary.BigEndian {
				t.Errorf("ByteOrder = %v", s.ByteOrder())
			}
			// The file's strings leave; the swapped records must stay.
			btfmem.Evict(s)
			btfmem.EvictTypes(s, 0, len(s.TypeSection()))
			btfmem.EvictStrings(s)
			testfixtures.CompareLines(t, dump(t, s, btf.ScopeAll), want)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if n := mmap.Live(); n != live {
				t.Errorf("%d regions live after Close, want %d", n, live)
			}
		})
	}
}
