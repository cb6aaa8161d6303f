package kimage

import (
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/ulikunitz/xz/lzma"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// Format is the compression of a kernel image's payload.
//
// Its values are Unknown (the zero value), Gzip, Bzip2, Lzma, Xz, Lzo,
// Lz4 and Zstd.
type Format int

// The compressors the kernel supports for x86 bzImages (CONFIG_KERNEL_*).
const (
	Unknown Format = iota
	Gzip
	Bzip2
	Lzma
	Xz
	Lzo
	Lz4
	Zstd
)

func (f Format) String() string {
	return [...]string{"unknown", "gzip", "bzip2", "lzma", "xz", "lzo", "lz4", "zstd"}[f]
}

// Offsets in the x86 boot sector and setup header (the kernel's
// Documentation/arch/x86/boot.rst).
const (
	offSetupSects   = 0x1f1
	offBootFlag     = 0x1fe // 0xAA55
	offHeader       = 0x202 // "HdrS"
	offVersion      = 0x206
	offPayloadOff   = 0x248 // protocol 2.08+
	offPayloadLen   = 0x24c
	setupHeaderEnd  = 0x250
	minProtocol     = 0x0208
	sectorSize      = 512
	defaultSetupLen = 4
)

// IsBzImage reports whether data starts like an x86 boot image with a
// setup header.
func IsBzImage(data []byte) bool {
	return len(data) >= setupHeaderEnd &&
		binary.LittleEndian.Uint16(data[offBootFlag:]) == 0xaa55 &&
		string(data[offHeader:offHeader+4]) == "HdrS"
}

// Payload returns the compressed kernel inside an x86 bzImage, located by
// its setup header (payload_offset and payload_length, boot protocol
// 2.08 and later), and its compression format, told from its magic.
func Payload(image []byte) ([]byte, Format, error) {
	if !IsBzImage(image) {
		return nil, Unknown, errors.New("kimage: not an x86 bzImage (no setup header)")
	}
	if v := binary.LittleEndian.Uint16(image[offVersion:]); v < minProtocol {
		return nil, Unknown, fmt.Errorf("kimage: boot protocol %d.%02d has no payload fields (2.08+ needed)", v>>8, v&0xff)
	}
	setup := int(image[offSetupSects])
	if setup == 0 {
		setup = defaultSetupLen
	}
	start := uint64(setup+1)*sectorSize + uint64(binary.LittleEndian.Uint32(image[offPayloadOff:]))
	end := start + uint64(binary.LittleEndian.Uint32(image[offPayloadLen:]))
	if end > uint64(len(image)) || start >= end {
		return nil, Unknown, fmt.Errorf("kimage: payload [%d, %d) lies outside the %d-byte image", start, end, len(image))
	}
	p := image[start:end]
	f := Detect(p)
	if f == Unknown {
		return nil, Unknown, fmt.Errorf("kimage: payload compression not recognized (starts %x)", p[:min(len(p), 8)])
	}
	return p, f, nil
}

// Magic numbers of the kernel's compressors (lzop's is in lzo.go).
var (
	xzMagic   = []byte{0xfd, '7', 'z', 'X', 'Z', 0}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	lz4Magic  = []byte{0x02, 0x21, 0x4c, 0x18}
)

// Detect tells a kernel payload's compression from its first bytes.
func Detect(p []byte) Format {
	switch {
	case bytes.HasPrefix(p, []byte{0x1f, 0x8b}):
		return Gzip
	case bytes.HasPrefix(p, []byte("BZh")):
		return Bzip2
	case bytes.HasPrefix(p, xzMagic):
		return Xz
	case bytes.HasPrefix(p, lzopMagic):
		return Lzo
	case bytes.HasPrefix(p, lz4Magic):
		return Lz4
	case bytes.HasPrefix(p, zstdMagic):
		return Zstd
	case len(p) >= 13 && p[0] == 0x5d && p[1] == 0: // lzma "alone": lc=3 lp=0 pb=2
		return Lzma
	}
	return Unknown
}

// sizeTrailer is the uncompressed size that the kernel's build appends to
// every payload but a gzip one (scripts/Makefile.lib's size_append).
const sizeTrailer = 4

// Decompress returns a reader of the uncompressed kernel (a vmlinux ELF
// file, for an x86 bzImage) from its payload p in format f, and the size
// it claims (0 if none). A claim over opts.MaxSize is refused; opts.MaxSize
// also bounds what a decompressor keeps for its own use (dictionaries,
// windows). Readers of the stream bound its size. Its read errors start
// with "kimage: ", as the package's other errors do.
func Decompress(p []byte, f Format, opts Options) (io.Reader, int64, error) {
	r, claim, err := decompress(p, f, opts.MaxSize)
	if err != nil {
		return nil, 0, err
	}
	return &prefixReader{r: r, what: f.String() + " payload"}, claim, nil
}

// prefixReader is the reader Decompress and Kernel return: a
// decompressor's, its errors said as the package's, after what it reads
// (a truncated gzip payload said "flate: corrupt input before offset
// 149"). The package's own readers of a payload use the decompressor's
// reader and say what failed themselves.
type prefixReader struct {
	r    io.Reader
	what string
}

func (p *prefixReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && err != io.EOF {
		err = pkgerr.Errorf("kimage: %s: %w", p.what, err)
	}
	return n, err
}

// decompress is Decompress under maxSize (0: input.DefaultLimit).
func decompress(p []byte, f Format, maxSize int64) (io.Reader, int64, error) {
	if maxSize <= 0 {
		maxSize = input.DefaultLimit
	}
	var claim int64
	if f != Gzip && len(p) > sizeTrailer {
		claim = int64(binary.LittleEndian.Uint32(p[len(p)-sizeTrailer:]))
		p = p[:len(p)-sizeTrailer]
	} else if f == Gzip && len(p) > sizeTrailer {
		claim = int64(binary.LittleEndian.Uint32(p[len(p)-sizeTrailer:]))
	}
	if claim > maxSize {
		return nil, 0, pkgerr.Errorf("kimage: %w", &input.TooLargeError{What: "kernel image " + f.String() + " payload", Limit: maxSize, Claim: claim})
	}
	var r io.Reader
	var err error
	switch f {
	case Gzip:
		r, _, err = input.Decompress(input.Gzip, p, maxSize)
	case Zstd:
		r, _, err = input.Decompress(input.Zstd, p, maxSize)
	case Xz:
		r, err = newXz(p, maxSize)
	case Bzip2:
		r = bzip2.NewReader(bytes.NewReader(p))
	case Lzma:
		r, err = newLzma(p, maxSize)
	case Lz4:
		r, err = newLz4Legacy(p)
	case Lzo:
		r, err = newLzopReader(bytes.NewReader(p))
	default:
		err = fmt.Errorf("kimage: unknown format %d", f)
	}
	if err != nil {
		return nil, 0, pkgerr.Errorf("kimage: %v payload: %w", f, err)
	}
	return r, claim, nil
}

// newLzma reads the .lzma ("alone") stream the kernel's build writes,
// refusing a dictionary larger than maxSize/8 (lzma -9 uses 64 MiB; the
// default maxSize allows 128 MiB).
func newLzma(p []byte, maxSize int64) (io.Reader, error) {
	if len(p) < 5 {
		return nil, fmt.Errorf("kimage: an lzma header of %d bytes, want at least 5", len(p))
	}
	dict := int64(binary.LittleEndian.Uint32(p[1:5]))
	if dict > max(maxSize/8, 1<<20) {
		return nil, fmt.Errorf("kimage: dictionary of %d bytes is too large", dict)
	}
	return lzma.NewReader(bytes.NewReader(p))
}
