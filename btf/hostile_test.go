package btf_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TestHeaderLenShortOfLayout: a header whose hdr_len lies between the
// 24-byte header and the 32-byte one must be rejected or read, never crash,
// in either byte order, whatever follows it.
func TestHeaderLenShortOfLayout(t *testing.T) {
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for hdrLen := uint32(25); hdrLen < 32; hdrLen++ {
			for extra := 0; extra < 8; extra++ {
				b := make([]byte, hdrLen+uint32(extra))
				bo.PutUint16(b, 0xeb9f)
				b[2] = 1
				bo.PutUint32(b[4:], hdrLen)
				if _, err := btf.Parse(b, btf.Options{}); err == nil {
					t.Errorf("%v hdr_len %d +%d: no error", bo, hdrLen, extra)
				}
			}
		}
	}
}

// withHeader re-encodes a small native-order BTF blob in byte order bo with
// a header of hdrLen bytes whose bytes past the 24 known ones are tail.
func withHeader(t *testing.T, native []byte, bo binary.ByteOrder, hdrLen uint32, tail byte) []byte {
	t.Helper()
	h, err := wire.ParseHeader(native, binary.NativeEndian)
	if err != nil {
		t.Fatal(err)
	}
	body := native[h.HdrLen:]
	types := make([]byte, 0, h.TypeLen)
	for i := uint32(0); i < h.TypeLen; i += 4 {
		types = bo.(binary.AppendByteOrder).AppendUint32(types, binary.NativeEndian.Uint32(body[h.TypeOff+i:]))
	}
	h.HdrLen = 24
	out := wire.AppendHeader(nil, h, bo.(binary.AppendByteOrder))
	bo.PutUint32(out[4:], hdrLen)
	for len(out) < int(hdrLen) {
		out = append(out, tail)
	}
	out = append(out, types...)
	return append(out, body[h.StrOff:h.StrOff+h.StrLen]...)
}

func TestHeaderLenTail(t *testing.T) {
	b := newRaw(0)
	b.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
	native := b.bytes()
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for hdrLen := uint32(24); hdrLen < 32; hdrLen++ {
			s, err := btf.Parse(withHeader(t, native, bo, hdrLen, 0), btf.Options{})
			if err != nil {
				t.Errorf("%v hdr_len %d, zero tail: %v", bo, hdrLen, err)
				continue
			}
			if got := s.HeaderLen(); got != int(hdrLen) {
				t.Errorf("%v: HeaderLen %d, want %d", bo, got, hdrLen)
			}
			if typ, err := s.TypeByID(1); err != nil || typ.Name() != "int" {
				t.Errorf("%v hdr_len %d: type 1 = %v, %v", bo, hdrLen, typ, err)
			}
			if hdrLen > 24 {
				if _, err := btf.Parse(withHeader(t, native, bo, hdrLen, 1), btf.Options{}); err == nil {
					t.Errorf("%v hdr_len %d, non-zero tail: no error", bo, hdrLen)
				}
			}
		}
	}
}

// TestKindZeroRejected: libbpf and the kernel reject a record of kind 0
// (BTF_KIND_UNKN); so must Parse, whether the section is walked in one
// piece or in two halves.
func TestKindZeroRejected(t *testing.T) {
	b := newRaw(0)
	b.typ("int", btf.KindInt, 0, false, 4, 0x01000020)
	b.typ("", 0, 0, false, 0)
	for _, split := range []bool{false, true} {
		_, err := btf.Parse(b.bytes(), btf.Options{})
		if split {
			_, _, err = btf.ParseSplitWalk(b.bytes(), nil, 0)
		}
		if err == nil || !strings.Contains(err.Error(), "kind 0") {
			t.Errorf("split %v: err = %v, want an error about kind 0", split, err)
		}
	}
}

// TestCompressedSectionBomb: an ELF file whose compressed .BTF section
// inflates to gigabytes is refused within the limit: by its claim, by the
// magic number of its first bytes, or when its data runs over.
func TestCompressedSectionBomb(t *testing.T) {
	obj := testfixtures.Read(t, "elf/prog.bpf.o.gz")
	for _, tc := range []struct {
		name    string
		claim   uint64
		payload []byte
	}{
		{"claims 10 GiB", 10 << 30, testfixtures.ZstdZeros(-1, testfixtures.BTFMagic, 64<<20)},
		{"zeros, no magic", 64 << 20, testfixtures.ZstdZeros(-1, nil, 64<<20)},
		{"BTF magic, then zeros over the limit", 8 << 20, testfixtures.ZstdZeros(-1, testfixtures.BTFMagic, 64<<20)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			elfData := testfixtures.CompressedBTF(t, obj, append(testfixtures.Chdr64(2, tc.claim), tc.payload...))
			allocated := bytesAllocated(func() {
				_, err := btf.Read(context.Background(), bytes.NewReader(elfData), btf.Options{MaxSize: 4 << 20})
				if err == nil {
					t.Fatal("no error")
				}
			})
			if allocated > 8<<20 {
				t.Errorf("%d bytes allocated", allocated)
			}
		})
	}
}

// TestMagicBeforeInflating: compressed data that does not inflate to BTF or
// ELF is refused at its first bytes, before the rest is inflated (it would
// run over the limit).
func TestMagicBeforeInflating(t *testing.T) {
	bomb := testfixtures.ZstdZeros(-1, []byte("junk"), 64<<20)
	_, err := btf.Read(context.Background(), bytes.NewReader(bomb), btf.Options{MaxSize: 16 << 20})
	if err == nil || errors.Is(err, btf.ErrTooLarge) || !strings.Contains(err.Error(), "not BTF") {
		t.Fatalf("err = %v, want one about the magic number", err)
	}
	_, err = btf.Read(context.Background(), bytes.NewReader(testfixtures.ZstdZeros(2<<30, testfixtures.BTFMagic, 4)), btf.Options{})
	if !errors.Is(err, btf.ErrTooLarge) || !strings.Contains(err.Error(), "claims 2 GiB") {
		t.Fatalf("2 GiB claim: %v", err)
	}
}

// TestWrongBase: split BTF parsed on a base other than its own is
// refused with a hint, as libbpf asks "did you forget to provide base
// BTF?", rather than read with garbage names.
func TestWrongBase(t *testing.T) {
	mod := testfixtures.Modules(t)["af_key"]
	if _, err := btf.Parse(mod, btf.Options{Base: hostSpec(t)}); err == nil || !strings.Contains(err.Error(), "wrong base?") {
		t.Fatalf("af_key on the 6.18 base: err = %v, want a wrong-base hint", err)
	}
	if _, err := btf.Parse(mod, btf.Options{Base: debianSpec(t)}); err != nil {
		t.Fatalf("af_key on its own base: %v", err)
	}
}

// TestELFSharedSectionNames: .BTF after 20,000 empty sections whose names
// all point at one 4 KB string (1.3 MB) is found without a copy of the
// name for each section (debug/elf's NewFile allocated 80 MB for it).
func TestELFSharedSectionNames(t *testing.T) {
	data, err := hostile.SharedSectionNames(20_000, 4096)
	if err != nil {
		t.Fatal(err)
	}
	allocated := bytesAllocated(func() {
		s, err := btf.Read(context.Background(), bytes.NewReader(data), btf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
	})
	// Read copies the input once, and the .BTF section once.
	if limit := 3*uint64(len(data)) + 1<<20; allocated > limit {
		t.Errorf("%d bytes allocated for a file of %d, want at most %d", allocated, len(data), limit)
	}
}
