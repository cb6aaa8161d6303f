// Package kimage reads kernels as distributions ship them: x86 compressed
// kernel images (bzImage, /boot/vmlinuz-*), the other architectures'
// images (arm64 and riscv64 Image, Image.gz, EFI zboot, s390, arm zImage,
// ppc64 vmlinux), Debian kernel packages (linux-image-*.deb) and RPM ones
// (kernel-core-*.rpm).
//
// OpenBTF and ReadBTF read BTF from any input kmeta reads: what btf.Open
// reads, and the kernel's BTF in a vmlinuz or a package. OpenPackage reads
// a package's BTF, its kernel's and every module's, once; as
// kernel.Options.Package it stands for that kernel, to find types across
// its modules as on a running system. Identify tells, from an input's
// first bytes, which of the inputs kmeta reads it is (raw BTF, ELF,
// compressed data, a kernel image, a package, a tar archive).
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
// The other architectures' images are read by their own structure where
// they have one: an EFI zboot image's header gives its payload's offset,
// size and compressor; an arm zImage's table gives where its payload ends;
// a ppc64 vmlinux is ELF. An arm64 or riscv64 Image (told by its header's
// magic at 0x38), and what an s390 image, a zboot image or an arm zImage
// inflate to, is the kernel's loaded sections laid end to end, with no
// section table: the BTF is found by its magic number (either byte
// order), and a match counts only if its header is valid, its string
// section starts and ends with NUL and closes the BTF, and btf.Parse
// accepts it; exactly one match may be found. A package's System.map
// (not Debian's placeholder) locates the BTF by __start_BTF and
// __stop_BTF, and the scan must agree. The s390 payload, whose place no
// header records, is found by trying each compressor magic until a gzip
// member or zstd frame inflates to the size the build appended after it.
//
// A Debian package is an ar archive whose data.tar (xz, zstd or gzip) holds
// boot/vmlinuz-* and the modules under lib/modules; Walk streams through
// it, Vmlinuz picks the kernel image. An RPM package (a lead, a signature
// header, a header, then a cpio archive compressed with gzip, xz or zstd)
// is walked the same way; Fedora's and RHEL's kernel-core installs its
// image as lib/modules/RELEASE/vmlinuz, and kernel-debuginfo its vmlinux
// with DWARF under usr/lib/debug (IsDebugVmlinux). rpm stores a set of
// hard links' contents with the last link of the set; Walk gives them to
// the first name of the set that reads them.
//
// # Concurrency
//
// Every call runs on the caller's goroutine. Functions here keep their
// state in the call and are safe for concurrent use; a reader they return
// is not. A Package is immutable and safe for concurrent use.
//
// # Security
//
// Offsets and sizes from the setup header, the zboot and zImage headers,
// the ar headers and the RPM headers are checked against the data before
// use; a cpio file name is at most 4,096 bytes, and a cpio file is
// streamed, never allocated at its claimed size (one that ends early is an
// error), and the hard links that wait for their file's contents hold at most
// 4 MiB; every
// kernel that is inflated whole is bounded by the limit. A payload that claims an uncompressed size
// over the limit is refused after inflating, into nothing, at most the
// limit's worth of it: as over the limit if it does inflate past it, as
// truncated or corrupt if it fails first (a cut payload's last four bytes
// are any four of its data); decompressor dictionaries
// and LZO blocks are bounded; the LZO decoder checks every read and write.
// Callers bound the decompressed stream (btf.Options.MaxSize); OpenBTF,
// ReadBTF and OpenPackage bound it themselves, and check a package's magic
// before they read the rest.
package kimage
