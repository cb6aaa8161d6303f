package kimage

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// zbootPayload returns the compressed kernel of an EFI zboot image and
// its format. The header's size leaves out the le32 that the build
// appends to every payload but a gzip one (Makefile.zboot), so the
// payload handed on keeps it, as Decompress expects.
func zbootPayload(image []byte) ([]byte, Format, error) {
	off := uint64(binary.LittleEndian.Uint32(image[offZbootPayload:]))
	size := uint64(binary.LittleEndian.Uint32(image[offZbootSize:]))
	comp := image[offZbootComp : offZbootComp+zbootCompLen]
	if i := bytes.IndexByte(comp, 0); i >= 0 {
		comp = comp[:i]
	}
	end := off + size
	if end > uint64(len(image)) || size == 0 {
		return nil, Unknown, fmt.Errorf("kimage: EFI zboot payload [%d, +%d) lies outside the %d-byte image", off, size, len(image))
	}
	p := image[off:end]
	f := Detect(p)
	if f == Unknown {
		return nil, Unknown, fmt.Errorf("kimage: EFI zboot payload (%q) starts with %x, no compressor's magic", comp, p[:min(len(p), 8)])
	}
	if f != Gzip {
		if end+sizeTrailer > uint64(len(image)) {
			return nil, Unknown, fmt.Errorf("kimage: EFI zboot %v payload has no size after it", f)
		}
		p = image[off : end+sizeTrailer]
	}
	return p, f, nil
}

// zImagePayload returns the compressed kernel of a 32-bit arm zImage
// whose byte order is bo: it ends with the le32 that the table's
// __piggy_size_addr points at; where it starts no header says, so each
// compressor magic before the end is tried (the decompressor's own code
// and strings hold some too) until one inflates to the size that le32
// claims.
func zImagePayload(ctx context.Context, image []byte, bo binary.ByteOrder, maxSize int64) (*input.Data, error) {
	table := uint64(bo.Uint32(image[offZImageTable:]))
	if table+12 > uint64(len(image)) || bo.Uint32(image[table+4:]) != zImageTableTag {
		return nil, fmt.Errorf("kimage: arm zImage has no table of sizes at %d (an image older than Linux 4.x?)", table)
	}
	end := uint64(bo.Uint32(image[table+8:])) + sizeTrailer
	if end > uint64(len(image)) || end <= sizeTrailer {
		return nil, fmt.Errorf("kimage: arm zImage's compressed kernel ends at %d, past the %d-byte image", end, len(image))
	}
	return tryPayloads(ctx, image[:end], maxSize, func(p []byte, f Format, b *budget) (*input.Data, error) {
		r, claim, err := decompress(ctx, p, f, maxSize, b)
		if err != nil {
			return nil, err
		}
		return readKernel(ctx, b.reader(r), claim, maxSize, true)
	})
}

// s390Payload returns the kernel inside an s390 image: the compressed
// kernel sits in its decompressor, followed by the le32 of its size, at a
// place no header records. Each compressor magic is tried until a gzip
// member or a zstd frame inflates to the size after it.
func s390Payload(ctx context.Context, image []byte, maxSize int64) (*input.Data, error) {
	return tryPayloads(ctx, image, maxSize, func(p []byte, f Format, b *budget) (*input.Data, error) {
		return singleStream(ctx, p, f, b, maxSize)
	})
}

// errNoPayload is the error of tryPayloads when no magic was found.
var errNoPayload = errors.New("kimage: no compressor's magic number in it")

// tryPayloads calls inflate at each offset of image where a compressor's
// magic number starts, and returns the first kernel it inflates. The
// errors of the others are left out but for the last one. What all the
// tries inflate is bounded by twice maxSize (inflate reads through the
// budget), so that an image full of false payloads cannot make it inflate
// without end.
func tryPayloads(ctx context.Context, image []byte, maxSize int64, inflate func(p []byte, f Format, b *budget) (*input.Data, error)) (*input.Data, error) {
	if maxSize <= 0 {
		maxSize = input.DefaultLimit
	}
	lastErr, tried, b := errNoPayload, 0, &budget{left: 2 * maxSize}
	m := newMagicIndex(image)
	for i := m.next(0); i >= 0; i = m.next(i + 1) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := Detect(image[i:])
		d, err := inflate(image[i:], f, b)
		if err == nil {
			return d, nil
		}
		if errors.Is(err, errBudget) {
			return nil, pkgerr.Errorf("kimage: no compressed kernel found: %w (%d candidates before)", err, tried)
		}
		if strings.Contains(err.Error(), "the "+f.String()+" payload") {
			lastErr = pkgerr.Errorf("kimage: at %d: %w", i, err) // it names the format
		} else {
			lastErr = pkgerr.Errorf("kimage: at %d, %v: %w", i, f, err)
		}
		tried++
	}
	return nil, pkgerr.Errorf("kimage: no compressed kernel found (%d candidates): %w", tried, lastErr)
}

// payloadMagics are the magic numbers of the compressors an image's
// payload may use: a gzip member, xz, zstd, lz4's legacy frame, lzop,
// bzip2.
var payloadMagics = [...][]byte{{0x1f, 0x8b, 0x08}, xzMagic, zstdMagic, lz4Magic, lzopMagic, []byte("BZh")}

// magicIndex finds, in offset order, where in its data a payload magic
// starts. It keeps each magic's next occurrence, so that a walk over the
// data searches each byte once per magic however many candidates there
// are: searching every magic again after each candidate would make an
// image dense with one magic cost the square of its size.
type magicIndex struct {
	data     []byte
	at       [len(payloadMagics)]int // next occurrence of each magic; -1: none left
	searched int64                   // bytes handed to bytes.Index, for tests
}

func newMagicIndex(data []byte) *magicIndex {
	m := &magicIndex{data: data}
	for k := range m.at {
		m.at[k] = m.find(k, 0)
	}
	return m
}

// find returns the first occurrence of magic k at or after from, or -1.
func (m *magicIndex) find(k, from int) int {
	j := bytes.Index(m.data[from:], payloadMagics[k])
	if j < 0 {
		m.searched += int64(len(m.data) - from)
		return -1
	}
	m.searched += int64(j + len(payloadMagics[k]))
	return from + j
}

// next returns the first offset at or after from where a magic starts, or
// -1. Calls must not go back: from is at least the last call's.
func (m *magicIndex) next(from int) int {
	first := -1
	for k, at := range m.at {
		if at >= 0 && at < from {
			at = m.find(k, from)
			m.at[k] = at
		}
		if at >= 0 && (first < 0 || at < first) {
			first = at
		}
	}
	return first
}

// singleStream inflates the one gzip member or zstd frame at the start of
// p, which the le32 of the kernel's size follows, and checks that size.
func singleStream(ctx context.Context, p []byte, f Format, b *budget, maxSize int64) (*input.Data, error) {
	var r io.Reader
	var n int
	switch f {
	case Gzip:
		br := bytes.NewReader(p)
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		zr.Multistream(false)
		d, err := readKernel(ctx, b.reader(zr), 0, maxSize, false)
		if err != nil {
			return nil, err
		}
		return checkSize(d, p[len(p)-br.Len():])
	case Zstd:
		var err error
		if n, err = zstdFrameLen(p); err != nil {
			return nil, err
		}
		if r, _, err = input.Decompress(input.Zstd, p[:n], maxSize); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("kimage: a %v payload without a header that bounds it is not supported", f)
	}
	d, err := readKernel(ctx, b.reader(r), 0, maxSize, false)
	if err != nil {
		return nil, err
	}
	return checkSize(d, p[n:])
}

// checkSize checks that after holds the le32 of d's size; it releases d if
// not.
func checkSize(d *input.Data, after []byte) (*input.Data, error) {
	if len(after) < sizeTrailer || binary.LittleEndian.Uint32(after) != uint32(len(d.Bytes())) {
		d.Release()
		return nil, fmt.Errorf("kimage: inflates to %d bytes, not the size after it", len(d.Bytes()))
	}
	return d, nil
}

// readKernel reads a kernel from r, under maxSize. claim is the size the
// payload claims (0: none); exact requires the kernel to have it.
func readKernel(ctx context.Context, r io.Reader, claim, maxSize int64, exact bool) (*input.Data, error) {
	d, err := input.ReadAll(ctx, r, input.Options{Limit: maxSize, What: "the kernel in the image", Claim: claim})
	if err != nil {
		return nil, err
	}
	if exact && claim > 0 && int64(len(d.Bytes())) != claim {
		d.Release()
		return nil, fmt.Errorf("kimage: inflates to %d bytes, not the %d its size says", len(d.Bytes()), claim)
	}
	return d, nil
}

// zstdFrameLen returns the length of the zstd frame at the start of p
// (RFC 8878, section 3.1.1): its header, then blocks whose headers give
// their sizes, up to the last one, then the optional checksum. Its errors
// do not say "zstd": its caller's do ("at 1024, zstd: ...").
func zstdFrameLen(p []byte) (int, error) {
	if len(p) < 5 || !bytes.HasPrefix(p, zstdMagic) {
		return 0, errors.New("kimage: no frame")
	}
	fhd := p[4]
	n := 5
	if fhd&0x20 == 0 { // not single segment: a window descriptor
		n++
	}
	n += [4]int{0, 1, 2, 4}[fhd&3]
	fcs := [4]int{0, 2, 4, 8}[fhd>>6]
	if fcs == 0 && fhd&0x20 != 0 {
		fcs = 1
	}
	n += fcs
	for {
		if len(p)-n < 3 {
			return 0, errors.New("kimage: frame truncated")
		}
		h := uint32(p[n]) | uint32(p[n+1])<<8 | uint32(p[n+2])<<16
		size := int(h >> 3)
		switch (h >> 1) & 3 {
		case 1: // RLE: one byte
			size = 1
		case 3:
			return 0, errors.New("kimage: reserved block type")
		}
		n += 3
		if size > len(p)-n {
			return 0, errors.New("kimage: block past the end")
		}
		n += size
		if h&1 != 0 {
			break
		}
	}
	if fhd&4 != 0 {
		n += 4
	}
	if n > len(p) {
		return 0, errors.New("kimage: checksum past the end")
	}
	return n, nil
}

// errBudget is the error of a budget's reader once it is spent.
var errBudget = errors.New("kimage: the candidate payloads inflate to more than twice the limit in all")

// budget bounds what several readers read in all.
type budget struct{ left int64 }

// reader returns r, counting what it reads against the budget.
func (b *budget) reader(r io.Reader) io.Reader { return &budgetReader{r: r, b: b} }

type budgetReader struct {
	r io.Reader
	b *budget
}

func (br *budgetReader) Read(p []byte) (int, error) {
	if br.b.left <= 0 {
		return 0, errBudget
	}
	n, err := br.r.Read(p[:min(int64(len(p)), br.b.left)])
	br.b.left -= int64(n)
	return n, err
}
