package kimage

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
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
// it claims (0 if none). A claim over opts.MaxSize is refused (see
// decompress for how the refusal is worded); opts.MaxSize also bounds what
// a decompressor keeps for its own use (dictionaries, windows). Readers of
// the stream bound its size. Its read errors start with "kimage: ", as the
// package's other errors do, and say that the payload is truncated or
// corrupt.
func Decompress(p []byte, f Format, opts Options) (io.Reader, int64, error) {
	return decompress(context.Background(), p, f, opts.MaxSize, nil)
}

// prefixReader is the reader Kernel returns: a decompressor's, its
// errors said as the package's, after what it reads (a truncated gzip
// payload said "flate: corrupt input before offset 149"). A payload's
// own error (a *payloadError) already says what failed and is handed on.
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

// payloadError is a decompressor's read error: the payload's data ends
// early or does not decode, which no option changes.
type payloadError struct {
	f   Format
	err error
}

func (e *payloadError) Error() string {
	return pkgerr.Errorf("kimage: the %v payload is truncated or corrupt: %w", e.f, e.err).Error()
}

func (e *payloadError) Unwrap() error { return e.err }

// payloadReader reads a decompressor, its errors said as *payloadError.
type payloadReader struct {
	r io.Reader
	f Format
}

func (p *payloadReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err != nil && err != io.EOF {
		err = &payloadError{f: p.f, err: err}
	}
	return n, err
}

// asPayloadError returns err's *payloadError if it has one, else err:
// what a truncated or corrupt payload makes its readers fail with (btf's
// "btf: unexpected EOF", "btf: kimage: ...") said as what it is.
func asPayloadError(err error) error {
	if pe := (*payloadError)(nil); errors.As(err, &pe) {
		return pe
	}
	return err
}

// splitClaim returns the compressed stream of payload p in format f and
// the size its last four bytes claim for the kernel (0 if none): the le32
// the build appends to every payload but gzip's (size_append), and gzip's
// own ISIZE, which is part of its stream.
func splitClaim(p []byte, f Format) ([]byte, int64) {
	if len(p) <= sizeTrailer {
		return p, 0
	}
	claim := int64(binary.LittleEndian.Uint32(p[len(p)-sizeTrailer:]))
	if f != Gzip {
		p = p[:len(p)-sizeTrailer]
	}
	return p, claim
}

// decompress is Decompress under maxSize (0: input.DefaultLimit), its
// claim checked as overClaim says, through b (nil: no budget).
func decompress(ctx context.Context, p []byte, f Format, maxSize int64, b *budget) (io.Reader, int64, error) {
	if maxSize <= 0 {
		maxSize = input.DefaultLimit
	}
	body, claim := splitClaim(p, f)
	if claim > maxSize {
		return nil, 0, overClaim(ctx, body, f, claim, maxSize, b)
	}
	r, err := newDecompressor(body, f, maxSize)
	if err != nil {
		return nil, 0, err
	}
	return r, claim, nil
}

// overClaim is the error for a payload whose size claims more than
// maxSize. A cut payload's last four bytes are not its size but any
// four bytes of its data, so the claim alone is not taken as the
// kernel's: the payload is inflated (and dropped) up to maxSize, and only
// one that inflates past it is refused with the limit's error, which
// the CLI follows with how to raise the limit; one that fails first is
// truncated or corrupt, and one that ends first has a wrong size.
// Finding out inflates at most maxSize bytes, what a payload that claims
// maxSize costs anyway, and holds nothing but the decompressor.
func overClaim(ctx context.Context, body []byte, f Format, claim, maxSize int64, b *budget) error {
	r, err := newDecompressor(body, f, maxSize)
	if err != nil {
		return err
	}
	if b != nil {
		r = b.reader(r)
	}
	n, err := discard(ctx, r, maxSize+1)
	switch {
	case err != nil:
		return asPayloadError(err)
	case n > maxSize:
		return pkgerr.Errorf("kimage: %w", &input.TooLargeError{What: "kernel image " + f.String() + " payload", Limit: maxSize, Claim: claim})
	}
	return fmt.Errorf("kimage: the %v payload inflates to %d bytes, not the %d its last four bytes claim: truncated or corrupt", f, n, claim)
}

// discard reads r up to limit bytes and drops them; it returns how many it
// read, and stops early when ctx is done.
func discard(ctx context.Context, r io.Reader, limit int64) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for n < limit {
		if err := ctx.Err(); err != nil {
			return n, context.Cause(ctx)
		}
		m, err := r.Read(buf[:min(int64(len(buf)), limit-n)])
		n += int64(m)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// newDecompressor returns a reader of the compressed stream p in format
// f, whose read errors are *payloadError.
func newDecompressor(p []byte, f Format, maxSize int64) (io.Reader, error) {
	var r io.Reader
	var err error
	switch f {
	case Gzip:
		r, _, err = input.Decompress(input.Gzip, p, maxSize)
		if zr, ok := r.(*gzip.Reader); ok && err == nil {
			// One member, and what follows it ignored, as the
			// kernel's decompressor (lib/decompress_inflate.c) and
			// GNU gzip do: not read as the header of another.
			zr.Multistream(false)
		}
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
		return nil, pkgerr.Errorf("kimage: %v payload: %w", f, err)
	}
	return &payloadReader{r: r, f: f}, nil
}

// newLzma reads the .lzma ("alone") stream the kernel's build writes,
// refusing a dictionary larger than maxSize/8 (lzma -9 uses 64 MiB; the
// default maxSize allows 128 MiB).
func newLzma(p []byte, maxSize int64) (io.Reader, error) {
	if len(p) < 5 {
		return nil, fmt.Errorf("kimage: an lzma header of %d bytes, want at least 5", len(p))
	}
	dict := int64(binary.LittleEndian.Uint32(p[1:5]))
	if err := checkDict(dict, maxSize); err != nil {
		return nil, err
	}
	return lzma.NewReader(bytes.NewReader(p))
}

// checkDict refuses an lzma or xz dictionary larger than maxSize/8 (and
// 1 MiB), saying by which limit: it said "is too large", which left the
// user to guess that --max-input was the measure.
func checkDict(dict, maxSize int64) error {
	if w := max(maxSize/8, 1<<20); dict > w {
		return fmt.Errorf("kimage: a dictionary of %s, more than the %s allowed under an input limit of %s", input.FormatSize(dict), input.FormatSize(w), input.FormatSize(maxSize))
	}
	return nil
}
