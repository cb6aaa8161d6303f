package testfixtures

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"testing"
)

// ZstdZeros writes a zstd frame by hand: a header that claims claim bytes
// of content (none if claim < 0), a raw block holding head, then RLE
// blocks of zeros up to n bytes in all. It makes decompression bombs of
// gigabytes from a few kilobytes, with a chosen magic number in front.
func ZstdZeros(claim int64, head []byte, n int64) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd}
	if claim >= 0 {
		b = append(b, 0xc0, 0x58) // 8-byte content size, 2 MiB window
		b = binary.LittleEndian.AppendUint64(b, uint64(claim))
	} else {
		b = append(b, 0x00, 0x58)
	}
	block := func(typ, size int, last bool) {
		h := size<<3 | typ<<1
		if last {
			h |= 1
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16))
	}
	block(0, len(head), n == int64(len(head)))
	b = append(b, head...)
	for left := n - int64(len(head)); left > 0; {
		m := min(left, 128<<10)
		left -= m
		block(1, int(m), left == 0)
		b = append(b, 0)
	}
	return b
}

// BTFMagic is the first bytes of little-endian BTF: the magic number and
// version 1.
var BTFMagic = []byte{0x9f, 0xeb, 1, 0}

// CompressedBTF returns the 64-bit little-endian ELF file obj with its
// .BTF section replaced by payload (appended at the end of the file) and
// flagged SHF_COMPRESSED: payload must start with an Elf64_Chdr (see
// Chdr64).
func CompressedBTF(tb testing.TB, obj, payload []byte) []byte {
	tb.Helper()
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		tb.Fatal(err)
	}
	idx := -1
	for i, s := range f.Sections {
		if s.Name == ".BTF" {
			idx = i
		}
	}
	if idx < 0 || f.Class != elf.ELFCLASS64 || f.ByteOrder != binary.LittleEndian {
		tb.Fatal("CompressedBTF: need a 64-bit little-endian ELF file with .BTF")
	}
	out := append(bytes.Clone(obj), make([]byte, -len(obj)&7)...)
	off := len(out)
	out = append(out, payload...)
	le := binary.LittleEndian
	sh := out[le.Uint64(out[0x28:])+uint64(idx)*uint64(le.Uint16(out[0x3a:])):]
	le.PutUint64(sh[8:], le.Uint64(sh[8:])|uint64(elf.SHF_COMPRESSED)) // sh_flags
	le.PutUint64(sh[24:], uint64(off))                                 // sh_offset
	le.PutUint64(sh[32:], uint64(len(payload)))                        // sh_size
	return out
}

// Chdr64 is an Elf64_Chdr (little endian): compression type typ (1 zlib,
// 2 zstd) and the size the data claims to inflate to.
func Chdr64(typ uint32, size uint64) []byte {
	b := binary.LittleEndian.AppendUint32(nil, typ)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, size)
	return binary.LittleEndian.AppendUint64(b, 1)
}
