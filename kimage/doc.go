// Package kimage reads kernels as distributions ship them: x86 compressed
// kernel images (bzImage, /boot/vmlinuz-*) and Debian kernel packages
// (linux-image-*.deb).
//
// A bzImage's compressed kernel is found through its setup header
// (payload_offset and payload_length, x86 boot protocol 2.08 and later)
// and inflated with the compressor its magic number names: gzip, xz and
// zstd through internal/input, bzip2 with the standard library, lzma with
// ulikunitz/xz/lzma, lz4 (the kernel's legacy frames) with pierrec/lz4,
// and lzo with the small LZO1X decoder of this package, since no
// maintained Go package has one. What comes out is the vmlinux ELF file,
// whose .BTF section btf.Read then reads.
//
// A Debian package is an ar archive whose data.tar (xz, zstd or gzip) holds
// boot/vmlinuz-* and the modules under lib/modules; Walk streams through
// it, Vmlinuz picks the kernel image.
//
// # Concurrency
//
// Functions here keep their state in the call and are safe for concurrent
// use; a reader they return is not.
//
// # Security
//
// Offsets and sizes from the setup header and the ar headers are checked
// against the data before use. A payload that claims an uncompressed size
// over the limit is refused before it is read; decompressor dictionaries
// and LZO blocks are bounded; the LZO decoder checks every read and write.
// Callers bound the decompressed stream (btf.Options.MaxSize).
package kimage
