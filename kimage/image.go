package kimage

import (
	"bytes"
	"encoding/binary"
)

// The images below are told by the headers the kernel's own boot code
// writes; headLen bytes always hold them.

// Offsets of the arm64 and riscv64 Image headers
// (Documentation/arch/arm64/booting.rst, Documentation/arch/riscv/boot-image-header.rst):
// both put a magic number at 0x38, after which the PE header offset of the
// EFI stub follows.
const (
	offImageMagic = 0x38
	imageHeadLen  = 0x40
)

// isArm64Image reports whether data starts with an arm64 Image header:
// "ARM\x64" at 0x38. Such an Image is the kernel itself, uncompressed.
func isArm64Image(data []byte) bool {
	return len(data) >= imageHeadLen && string(data[offImageMagic:offImageMagic+4]) == "ARM\x64"
}

// isRiscvImage reports whether data starts with a riscv Image header:
// "RSC\x05" at 0x38 (magic2, since header version 0.2), or the older
// "RISCV\0\0\0" at 0x30.
func isRiscvImage(data []byte) bool {
	return len(data) >= imageHeadLen && (string(data[offImageMagic:offImageMagic+4]) == "RSC\x05" ||
		string(data[0x30:0x38]) == "RISCV\x00\x00\x00")
}

// isELF reports whether data starts as an ELF file (ppc64's vmlinux).
func isELF(data []byte) bool { return bytes.HasPrefix(data, []byte("\x7fELF")) }

// The 32-bit arm zImage (arch/arm/boot/compressed/head.S): its magic
// number at 0x24, then the image's load and end addresses, and, since
// Linux 4.x, an endianness word, a second magic and the offset of a table
// (vmlinux.lds.S) whose third word is the offset of the le32 that ends
// the compressed kernel (__piggy_size_addr).
const (
	offZImageMagic = 0x24
	zImageMagic    = 0x016f2818
	offZImageTable = 0x38
	zImageHeadLen  = 0x3c
	zImageTableTag = 0x5a534c4b // "KLSZ"
)

// zImageOrder returns the byte order of the arm zImage that data starts
// with, or nil if it does not start with one.
func zImageOrder(data []byte) binary.ByteOrder {
	if len(data) < zImageHeadLen {
		return nil
	}
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		if bo.Uint32(data[offZImageMagic:]) == zImageMagic {
			return bo
		}
	}
	return nil
}

// The s390 image starts with the IPL record the kernel's boot code writes
// (arch/s390/boot/ipl_data.c): an IPL PSW and two channel commands, then
// EBCDIC blanks. Its decompressor carries the compressed kernel, which no
// header locates.
var s390IPL = []byte{0x00, 0x08, 0x00, 0x00}

const (
	offS390CCW = 8
	s390CCW    = 0x02000018 // read, 0x18 bytes
	s390Blanks = 0x18       // 0x40 0x40 ... (EBCDIC spaces) up to 0x50
	s390End    = 0x50
)

// isS390 reports whether data starts as an s390 kernel image.
func isS390(data []byte) bool {
	return len(data) >= s390End && bytes.HasPrefix(data, s390IPL) &&
		binary.BigEndian.Uint32(data[offS390CCW:]) == s390CCW &&
		bytes.Count(data[s390Blanks:s390End], []byte{0x40}) == s390End-s390Blanks
}

// The EFI zboot image (drivers/firmware/efi/libstub/zboot-header.S): a
// PE/COFF EFI application whose MS-DOS header holds "zimg", the offset
// and size of the compressed kernel, and the compressor's name.
const (
	offZbootType    = 4
	offZbootPayload = 8
	offZbootSize    = 12
	offZbootComp    = 24
	zbootCompLen    = 32 // up to the PE magic at 0x38
	zbootHeadLen    = offZbootComp + zbootCompLen
)

// isZboot reports whether data starts with an EFI zboot header.
func isZboot(data []byte) bool {
	return len(data) >= zbootHeadLen && string(data[:2]) == "MZ" && string(data[offZbootType:offZbootType+4]) == "zimg"
}

// IsImage reports whether data starts as a kernel image kmeta reads: an
// x86 bzImage, an arm64 or riscv64 Image, an EFI zboot image, an s390
// image or a 32-bit arm zImage. (A ppc64 vmlinux is an ELF file; an
// Image.gz is gzip data.)
func IsImage(data []byte) bool {
	return IsBzImage(data) || isArm64Image(data) || isRiscvImage(data) || isZboot(data) || isS390(data) || zImageOrder(data) != nil
}
