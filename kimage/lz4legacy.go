package kimage

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/pierrec/lz4/v4"
)

// The kernel's lz4 payload is lz4's legacy frame format (lz4 -l; the
// kernel's lib/decompress_unlz4.c reads it): the magic, then chunks, each
// a le32 compressed size and an lz4 block that inflates to at most 8 MiB;
// a size equal to the magic starts another frame, and the data ends the
// last chunk. The blocks are inflated here, one at a time into one
// buffer, from the payload in place: pierrec/lz4's stream reader takes a
// fresh 8 MiB pooled buffer for every chunk, which the collector frees
// only in its own time (a limit + 58 MB peak whatever the limit).

const (
	lz4LegacyMagic = 0x184c2102
	lz4LegacyChunk = 8 << 20 // LZ4_DEFAULT_UNCOMPRESSED_CHUNK_SIZE
)

// lz4Legacy reads a legacy lz4 stream held in memory.
type lz4Legacy struct {
	src []byte // what is left of the stream, after the magic
	buf []byte // the chunk inflated last
	off int    // what of buf was read
	err error
}

// newLz4Legacy returns a reader of the legacy lz4 stream p.
func newLz4Legacy(p []byte) (*lz4Legacy, error) {
	if len(p) < 4 || binary.LittleEndian.Uint32(p) != lz4LegacyMagic {
		return nil, fmt.Errorf("kimage: lz4: not a legacy frame")
	}
	return &lz4Legacy{src: p[4:]}, nil
}

func (r *lz4Legacy) Read(p []byte) (int, error) {
	for r.off == len(r.buf) {
		if r.err != nil {
			return 0, r.err
		}
		r.err = r.next()
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// next inflates the next chunk into r.buf; io.EOF at the end of the data.
func (r *lz4Legacy) next() error {
	for {
		if len(r.src) == 0 {
			return io.EOF
		}
		if len(r.src) < 4 {
			return fmt.Errorf("kimage: lz4: %d bytes after the last chunk", len(r.src))
		}
		size := binary.LittleEndian.Uint32(r.src)
		r.src = r.src[4:]
		if size == lz4LegacyMagic {
			continue // another frame
		}
		if uint64(size) > uint64(len(r.src)) || int(size) > lz4.CompressBlockBound(lz4LegacyChunk) {
			return fmt.Errorf("kimage: lz4: a chunk of %d bytes, past the data or larger than any", size)
		}
		if r.buf == nil {
			r.buf = make([]byte, lz4LegacyChunk)
		}
		n, err := lz4.UncompressBlock(r.src[:size], r.buf[:cap(r.buf)])
		if err != nil {
			return fmt.Errorf("kimage: lz4: %w", err)
		}
		r.src, r.buf, r.off = r.src[size:], r.buf[:n], 0
		if n > 0 {
			return nil
		}
	}
}
