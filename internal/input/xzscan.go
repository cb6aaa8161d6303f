package input

import (
	"bytes"
	"encoding/binary"
	"errors"
)

// The .xz layout that xzScan reads (see the .xz file format
// specification, tukaani.org/xz/xz-file-format.txt): streams, each a
// 12-byte header, blocks, an index and a 12-byte footer, with zero padding
// in 4-byte units between and after streams.
const (
	xzHeaderLen  = 12
	xzFooterLen  = 12
	xzFilterLZMA = 0x21
)

var errXzLayout = errors.New("malformed stream layout")

// xzScan reads the index of every stream of an .xz file, from the end,
// and the header of every block, and returns the total uncompressed size
// the indexes claim and the largest LZMA2 dictionary a block declares:
// the memory a decoder will want, known before it starts.
func xzScan(data []byte) (size, dict int64, err error) {
	end := len(data)
	for end > 0 {
		for end >= 4 && binary.LittleEndian.Uint32(data[end-4:]) == 0 {
			end -= 4 // stream padding
		}
		if end < xzHeaderLen+xzFooterLen || !bytes.Equal(data[end-2:end], []byte("YZ")) {
			return 0, 0, errXzLayout
		}
		idxLen := (int64(binary.LittleEndian.Uint32(data[end-8:])) + 1) * 4
		idxStart := int64(end-xzFooterLen) - idxLen
		if idxStart < xzHeaderLen {
			return 0, 0, errXzLayout
		}
		blocks, err := xzIndex(data[idxStart : end-xzFooterLen])
		if err != nil {
			return 0, 0, err
		}
		var total int64
		for _, b := range blocks {
			total += (b.unpadded + 3) &^ 3
			size += b.uncompressed
			if total > idxStart || size < 0 || size > 1<<62 {
				return 0, 0, errXzLayout
			}
		}
		start := idxStart - total - xzHeaderLen
		if start < 0 || !bytes.HasPrefix(data[start:], magicXz) {
			return 0, 0, errXzLayout
		}
		off := start + xzHeaderLen
		for _, b := range blocks {
			d, err := xzBlockDict(data[off:idxStart])
			if err != nil {
				return 0, 0, err
			}
			dict = max(dict, d)
			off += (b.unpadded + 3) &^ 3
		}
		end = int(start)
	}
	return size, dict, nil
}

type xzBlock struct{ unpadded, uncompressed int64 }

// xzIndex reads an index: indicator 0, the record count, then each
// block's unpadded and uncompressed sizes, as variable-length integers.
func xzIndex(idx []byte) ([]xzBlock, error) {
	if len(idx) == 0 || idx[0] != 0 {
		return nil, errXzLayout
	}
	r := varints{b: idx[1:]}
	n := r.next()
	if n > int64(len(idx)/2) { // a record takes at least two bytes
		return nil, errXzLayout
	}
	blocks := make([]xzBlock, 0, n)
	for range n {
		blocks = append(blocks, xzBlock{unpadded: r.next(), uncompressed: r.next()})
	}
	if r.bad {
		return nil, errXzLayout
	}
	return blocks, nil
}

// xzBlockDict reads a block header and returns the dictionary size of its
// LZMA2 filter (0 if it has none).
func xzBlockDict(b []byte) (int64, error) {
	if len(b) < 2 || b[0] == 0 || (int(b[0])+1)*4 > len(b) {
		return 0, errXzLayout
	}
	h := b[:(int(b[0])+1)*4]
	flags := h[1]
	r := varints{b: h[2:]}
	if flags&0x40 != 0 {
		r.next() // compressed size
	}
	if flags&0x80 != 0 {
		r.next() // uncompressed size
	}
	var dict int64
	for range int(flags&3) + 1 {
		id, n := r.next(), r.next()
		props := r.bytes(n)
		if r.bad {
			return 0, errXzLayout
		}
		if id == xzFilterLZMA && len(props) == 1 {
			dict = max(dict, lzma2Dict(props[0]))
		}
	}
	return dict, nil
}

// lzma2Dict decodes an LZMA2 dictionary size byte.
func lzma2Dict(c byte) int64 {
	if c >= 40 {
		return 1<<32 - 1
	}
	return int64(2|c&1) << (c/2 + 11)
}

// varints reads the .xz format's variable-length integers (7 bits a byte,
// at most 9 bytes); bad is set on a short or overlong one.
type varints struct {
	b   []byte
	bad bool
}

func (r *varints) next() int64 {
	var v uint64
	for i := 0; i < 9; i++ {
		if len(r.b) == 0 {
			break
		}
		c := r.b[0]
		r.b = r.b[1:]
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return int64(v & (1<<62 - 1))
		}
	}
	r.bad = true
	return 0
}

func (r *varints) bytes(n int64) []byte {
	if n < 0 || n > int64(len(r.b)) {
		r.bad = true
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}
