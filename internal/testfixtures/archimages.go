package testfixtures

import (
	"bytes"
	"encoding/binary"
)

// The kernel images of architectures other than x86, in the layouts their
// boot code writes, around a small BTF: what kimage's tests and the CLI's
// fuzz campaign feed it. Debian's real images are checked by
// bench/arch-images.sh.

// KernelBody is a stand-in for a kernel's loaded sections laid end to end
// ("objcopy -O binary"): code and data that hold BTF's magic number where
// no BTF starts, as real kernels do (Debian's riscv64 kernel has three),
// then raw, then more data. ImageBTFOffset is where raw starts.
func KernelBody(raw []byte) []byte {
	b := make([]byte, ImageBTFOffset)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	// A magic whose header is too short (hdr_len 18).
	copy(b[0x100:], []byte{0x9f, 0xeb, 1, 0, 18, 0, 0, 0})
	// A header whose sections run past the image.
	copy(b[0x200:], []byte{0x9f, 0xeb, 1, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0x10, 0, 0, 0, 0x10})
	// A big-endian header whose strings fit but do not end with NUL.
	copy(b[0x300:], []byte{0xeb, 0x9f, 1, 0, 0, 0, 0, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g'})
	b = append(b, raw...)
	return append(b, bytes.Repeat([]byte{0xa5}, 300)...)
}

// ImageBTFOffset is where KernelBody puts the BTF.
const ImageBTFOffset = 0x1000

// KernelTextBase is the address System.map gives the first byte of a
// KernelBody, in SystemMap.
const KernelTextBase = 0xffff800080000000

// SystemMap is a System.map of a KernelBody whose BTF is size bytes.
func SystemMap(size int) []byte {
	var b bytes.Buffer
	line := func(addr uint64, typ, name string) { b.WriteString(hex16(addr) + " " + typ + " " + name + "\n") }
	line(KernelTextBase, "T", "_text")
	line(KernelTextBase+0x80, "t", "primary_entry")
	line(KernelTextBase+ImageBTFOffset, "R", "__start_BTF")
	line(KernelTextBase+ImageBTFOffset+uint64(size), "R", "__stop_BTF")
	return b.Bytes()
}

func hex16(v uint64) string {
	const digits = "0123456789abcdef"
	var s [16]byte
	for i := 15; i >= 0; i-- {
		s[i], v = digits[v&15], v>>4
	}
	return string(s[:])
}

// Arm64Image is an arm64 Image (Documentation/arch/arm64/booting.rst)
// whose body is body: its 64-byte header ("MZ" for the EFI stub, the
// image size, "ARM\x64" at 0x38) replaces the body's first bytes.
func Arm64Image(body []byte) []byte {
	img := bytes.Clone(body)
	copy(img, "MZ")
	binary.LittleEndian.PutUint64(img[16:], uint64(len(body)))
	copy(img[0x38:], "ARM\x64")
	binary.LittleEndian.PutUint32(img[0x3c:], 0x40)
	return img
}

// RiscvImage is a riscv64 Image (Documentation/arch/riscv/boot-image-header.rst):
// "RISCV\0\0\0" at 0x30 and "RSC\x05" at 0x38.
func RiscvImage(body []byte) []byte {
	img := bytes.Clone(body)
	copy(img, "MZ")
	binary.LittleEndian.PutUint64(img[16:], uint64(len(body)))
	copy(img[0x30:], "RISCV\x00\x00\x00RSC\x05")
	binary.LittleEndian.PutUint32(img[0x3c:], 0x40)
	return img
}

// Zboot is an EFI zboot image (drivers/firmware/efi/libstub/zboot-header.S)
// around payload, compressed with comp ("gzip", "zstd22"): the payload's
// size leaves out the le32 that the build appends to all but gzip
// (Makefile.zboot), which payload must then end with.
func Zboot(payload []byte, comp string) []byte {
	const off = 0x200
	img := make([]byte, off)
	copy(img, "MZ")
	copy(img[4:], "zimg")
	size := len(payload)
	if comp != "gzip" {
		size -= 4
	}
	binary.LittleEndian.PutUint32(img[8:], off)
	binary.LittleEndian.PutUint32(img[12:], uint32(size))
	copy(img[24:], comp)
	binary.LittleEndian.PutUint32(img[0x38:], 0x818223cd) // LINUX_PE_MAGIC
	binary.LittleEndian.PutUint32(img[0x3c:], 0x40)
	copy(img[0x40:], "PE\x00\x00")
	binary.LittleEndian.PutUint16(img[0x44:], 0xaa64)
	img = append(img, payload...)
	return append(img, make([]byte, 64)...) // the stub's data after it
}

// S390Image is an s390 image (arch/s390/boot): the IPL record, the
// decompressor (here filler holding a false zstd magic), then payload (a
// compressed kernel followed by the le32 of its size), then the rest of
// the decompressor.
func S390Image(payload []byte) []byte {
	img := make([]byte, 0x1000)
	binary.BigEndian.PutUint32(img[0:], 0x00080000)
	binary.BigEndian.PutUint32(img[4:], 0x80000200)
	binary.BigEndian.PutUint32(img[8:], 0x02000018)
	binary.BigEndian.PutUint32(img[12:], 0x60000050)
	copy(img[0x18:0x50], bytes.Repeat([]byte{0x40}, 0x50-0x18))
	copy(img[0x800:], []byte{0x28, 0xb5, 0x2f, 0xfd, 0xff, 0xff}) // not a frame
	img = append(img, payload...)
	return append(img, make([]byte, 256)...)
}

// ZImage is a 32-bit arm zImage (arch/arm/boot/compressed): its magic at
// 0x24, the table whose third word is the offset of the le32 that ends
// payload (the compressed kernel, whose size that le32 is), and a false
// xz magic in the decompressor's strings before the payload.
func ZImage(payload []byte) []byte {
	img := make([]byte, 0x400)
	copy(img, "MZ")
	le := binary.LittleEndian
	le.PutUint32(img[0x24:], 0x016f2818)
	le.PutUint32(img[0x30:], 0x04030201)
	le.PutUint32(img[0x34:], 0x45454545)
	le.PutUint32(img[0x38:], 0x100) // the table
	copy(img[0x200:], "\xfd7zXZ\x00XZ decompressor ran out of memory")
	end := len(img) + len(payload)
	for i, w := range []uint32{6, 0x5a534c4b, uint32(end - 4), 0x1000, 0x8000, 0x10000, 0} {
		le.PutUint32(img[0x100+4*i:], w)
	}
	le.PutUint32(img[0x2c:], uint32(end))
	return append(img, payload...)
}
