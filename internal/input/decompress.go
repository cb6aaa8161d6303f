package input

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/klauspost/compress/zstd"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/ulikunitz/xz"
)

// Format is a compression format.
type Format int

// The formats Decompress reads. Zlib has no magic number of its own that
// Detect looks for; it appears in compressed ELF sections.
const (
	None Format = iota
	Gzip
	Xz
	Zstd
	Zlib
)

func (f Format) String() string {
	return [...]string{"none", "gzip", "xz", "zstd", "zlib"}[f]
}

// Magic numbers of the formats Detect recognizes.
var (
	magicGzip = []byte{0x1f, 0x8b}
	magicXz   = []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}
	magicZstd = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// Detect tells the compression format of data from its first bytes: Gzip,
// Xz, Zstd, or None.
func Detect(head []byte) Format {
	switch {
	case bytes.HasPrefix(head, magicGzip):
		return Gzip
	case bytes.HasPrefix(head, magicXz):
		return Xz
	case bytes.HasPrefix(head, magicZstd):
		return Zstd
	}
	return None
}

// minWindow is the smallest window bound: every zstd level up to 19 and
// every xz preset up to -6 fit in it.
const minWindow = 8 << 20

// maxWindow bounds the memory a decompressor may keep of its own (a zstd
// window, an xz dictionary) for data limited to limit bytes.
func maxWindow(limit int64) int64 { return max(limit/8, minWindow) }

// Decompress returns a reader of what data, compressed in format f,
// decompresses to, and the size it claims for that (0 if it claims none:
// gzip's trailer is only a hint modulo 4 GiB). It refuses a claim over
// limit, and a zstd window or an xz dictionary over an eighth of it.
func Decompress(f Format, data []byte, limit int64) (io.Reader, int64, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	return decompress(f, data, bytes.NewReader(data), limit, limit)
}

// ArchiveRatio bounds what an archive (a package's data.tar, an RPM's
// payload) may inflate to as a whole: ArchiveRatio times its compressed
// size, and at least the limit. Its files are read one by one, each under
// the limit, so no limit on the whole keeps memory in bounds; this one
// keeps the work linear in the input, which a small archive of a file of
// zeros, skipped, would otherwise make as long as it likes. Real
// packages inflate to a few times their size (Debian's -dbg packages,
// the most, under six).
const ArchiveRatio = 16

// DecompressArchive is Decompress for an archive whose files are read one
// at a time, each under limit (which also bounds the decompressor's
// window): the whole may inflate to what ArchiveRatio allows, and reading
// past that fails with a *TooLargeError. With once, data is read this once
// and never again (a file's mapping, or memory its owner frees after), and
// the pages the decompressor has read are given back (mmap.Release) as it
// goes, so that an archive read through to a file near its end is not
// resident whole beside what it inflates to.
func DecompressArchive(f Format, data []byte, limit int64, once bool) (io.Reader, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	total := max(limit, ArchiveRatio*int64(len(data)))
	var src io.Reader = bytes.NewReader(data)
	if once {
		src = &releasingReader{data: data}
	}
	r, _, err := decompress(f, data, src, limit, total)
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("%v archive of %s (at most %d times its size or the limit)", f, FormatSize(int64(len(data))), ArchiveRatio)
	return &LimitReader{R: r, What: what, Limit: total}, nil
}

// decompress is Decompress reading data through src, with the size data
// claims bounded by claimLimit.
func decompress(f Format, data []byte, src io.Reader, limit, claimLimit int64) (io.Reader, int64, error) {
	switch f {
	case Gzip:
		r, err := gzip.NewReader(src)
		return r, 0, err
	case Zlib:
		r, err := zlib.NewReader(src)
		return r, 0, err
	case Xz:
		return newXz(data, src, limit, claimLimit)
	case Zstd:
		return newZstd(data, src, limit, claimLimit)
	}
	return nil, 0, fmt.Errorf("compression format %v", f)
}

// releaseStep is how much a releasingReader reads between two releases.
const releaseStep = 1 << 20

// releasingReader reads data and releases the pages behind what it has
// read, every releaseStep bytes.
type releasingReader struct {
	data          []byte
	off, released int
}

func (r *releasingReader) Read(p []byte) (int, error) {
	if r.off >= len(r.data) {
		return 0, io.EOF
	}
	n := copy(p, r.data[r.off:])
	r.off += n
	if r.off-r.released >= releaseStep {
		mmap.Release(r.data[r.released:r.off])
		r.released = r.off
	}
	return n, nil
}

// ReadByte makes a releasingReader an io.ByteReader, which the flate
// decoder reads without a buffer of its own.
func (r *releasingReader) ReadByte() (byte, error) {
	var b [1]byte
	if _, err := r.Read(b[:]); err != nil {
		return 0, err
	}
	return b[0], nil
}

func newZstd(data []byte, src io.Reader, limit, claimLimit int64) (io.Reader, int64, error) {
	var h zstd.Header
	if err := h.Decode(data); err != nil {
		return nil, 0, err
	}
	var claim int64
	if h.HasFCS {
		claim = int64(min(h.FrameContentSize, 1<<62))
		if claim > claimLimit {
			return nil, 0, &TooLargeError{What: "zstd data", Limit: claimLimit, Claim: claim}
		}
	}
	w := uint64(maxWindow(limit))
	d, err := zstd.NewReader(src, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxWindow(w), zstd.WithDecoderMaxMemory(w), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, 0, err
	}
	return closingZstd{d}, claim, nil
}

// closingZstd releases the decoder's goroutines and buffers at the end of
// the stream or at the first error.
type closingZstd struct{ d *zstd.Decoder }

func (z closingZstd) Read(p []byte) (int, error) {
	n, err := z.d.Read(p)
	if err != nil {
		z.d.Close()
	}
	return n, err
}

func newXz(data []byte, src io.Reader, limit, claimLimit int64) (io.Reader, int64, error) {
	size, dict, err := xzScan(data)
	if err != nil {
		return nil, 0, fmt.Errorf("xz: %w", err)
	}
	if size > claimLimit {
		return nil, 0, &TooLargeError{What: "xz data", Limit: claimLimit, Claim: size}
	}
	if w := maxWindow(limit); dict > w {
		return nil, 0, fmt.Errorf("xz: dictionary of %s, more than the %s allowed for a limit of %s",
			FormatSize(dict), FormatSize(w), FormatSize(limit))
	}
	r, err := xz.NewReader(src)
	return r, size, err
}

// Inflate decompresses data, in format f, into memory under o (whose
// Claim it sets from the data's).
func Inflate(ctx context.Context, f Format, data []byte, o Options) (*Data, error) {
	r, claim, err := Decompress(f, data, o.limit())
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("%v data is truncated or corrupt: %w", f, err)
	}
	if err != nil {
		if strings.HasPrefix(err.Error(), f.String()+": ") {
			return nil, err // not "xz: xz: malformed stream layout"
		}
		return nil, fmt.Errorf("%v: %w", f, err)
	}
	if claim > 0 {
		o.Claim = claim
	}
	if o.What == "" {
		o.What = "decompressed " + f.String() + " data"
	}
	d, err := ReadAll(ctx, &dataReader{r: r}, o)
	var de *dataError
	if errors.As(err, &de) {
		// "gzip: unexpected EOF" did not say that the data is cut.
		return nil, fmt.Errorf("%v data is truncated or corrupt: %w", f, de.err)
	}
	if err != nil {
		return nil, fmt.Errorf("%v: %w", f, err)
	}
	return d, nil
}

// dataReader reads a decompressor, its read errors (but EOF) said as
// *dataError: the compressed data ends early or does not decode.
type dataReader struct{ r io.Reader }

func (d *dataReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = &dataError{err}
	}
	return n, err
}

// dataError is a decompressor's read error.
type dataError struct{ err error }

func (e *dataError) Error() string { return e.err.Error() }
func (e *dataError) Unwrap() error { return e.err }

// ELF compression types (ch_type) and header sizes.
const (
	elfCompressZlib = 1
	elfCompressZstd = 2
	chdr32Len       = 12
	chdr64Len       = 24
)

// InflateELFSection decompresses the contents of an ELF section flagged
// SHF_COMPRESSED (an Elf32_Chdr or Elf64_Chdr, then zlib or zstd data),
// of an ELF file of class 32 or 64 bits in byte order bo, under o.
func InflateELFSection(ctx context.Context, sec []byte, is64 bool, bo binary.ByteOrder, o Options) (*Data, error) {
	var typ uint32
	var size uint64
	hdr := chdr32Len
	if is64 {
		hdr = chdr64Len
	}
	if len(sec) < hdr {
		return nil, fmt.Errorf("compressed section of %d bytes, shorter than its %d-byte header", len(sec), hdr)
	}
	typ = bo.Uint32(sec)
	if is64 {
		size = bo.Uint64(sec[8:])
	} else {
		size = uint64(bo.Uint32(sec[4:]))
	}
	f := map[uint32]Format{elfCompressZlib: Zlib, elfCompressZstd: Zstd}[typ]
	if f == None {
		return nil, fmt.Errorf("unknown ELF compression type %d", typ)
	}
	limit := o.limit()
	if size > uint64(limit) {
		return nil, &TooLargeError{What: o.what(), Limit: limit, Claim: int64(min(size, 1<<62))}
	}
	o.Claim = int64(size)
	d, err := Inflate(ctx, f, sec[hdr:], o)
	if err != nil {
		return nil, err
	}
	if uint64(len(d.Bytes())) != size {
		d.Release()
		return nil, fmt.Errorf("compressed section inflates to %d bytes, its header says %d", len(d.Bytes()), size)
	}
	return d, nil
}
