package kimage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/ulikunitz/xz/lzma"

	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// The kernel's build compresses x86 kernels with "xz --x86 --lzma2"
// (scripts/xz_wrap.sh): an xz block with the x86 branch-call-jump filter
// in front of LZMA2. ulikunitz/xz reads LZMA2 only, so for that case this
// file parses the xz stream and block headers, inflates the block with
// ulikunitz/xz/lzma's LZMA2 reader and undoes the x86 filter (xz's
// simple/x86.c, written anew). 32-bit arm kernels are compressed the same
// way with the arm filter ("xz --arm", 0x07; xz's simple/arm.c). Plain
// LZMA2 streams go to internal/input.

const (
	xzFilterX86   = 0x04
	xzFilterARM   = 0x07
	xzFilterLZMA2 = 0x21
)

// newXz returns a reader of the xz stream p.
func newXz(p []byte, maxSize int64) (io.Reader, error) {
	ids, props, data, err := xzBlock(p)
	if err != nil {
		return nil, pkgerr.Errorf("kimage: xz: %w", err)
	}
	switch {
	case len(ids) == 1 && ids[0] == xzFilterLZMA2:
		r, _, err := input.Decompress(input.Xz, p, maxSize)
		return r, err
	case len(ids) == 2 && (ids[0] == xzFilterX86 || ids[0] == xzFilterARM) && ids[1] == xzFilterLZMA2:
	default:
		return nil, fmt.Errorf("kimage: xz: filter chain %x is not supported", ids)
	}
	var start uint32
	if len(props[0]) == 4 {
		start = binary.LittleEndian.Uint32(props[0])
	} else if len(props[0]) != 0 {
		return nil, errors.New("kimage: xz: bad branch filter properties")
	}
	if len(props[1]) != 1 || props[1][0] > 40 {
		return nil, errors.New("kimage: xz: bad LZMA2 properties")
	}
	bits := uint(props[1][0])
	dict := int64(2|bits&1) << (bits/2 + 11)
	if bits == 40 {
		dict = 1<<32 - 1
	}
	if err := checkDict(dict, maxSize); err != nil {
		return nil, pkgerr.Errorf("kimage: xz: %w", err)
	}
	lr, err := lzma.Reader2Config{DictCap: int(max(dict, lzma.MinDictCap))}.NewReader2(bytes.NewReader(data))
	if err != nil {
		return nil, pkgerr.Errorf("kimage: xz: %w", err)
	}
	var f bcjFilter = &x86Filter{}
	if ids[0] == xzFilterARM {
		f = armFilter{}
	}
	return &bcjReader{r: lr, pos: start, buf: make([]byte, 64<<10), f: f}, nil
}

// xzBlock parses the stream header and the first block header of p and
// returns the block's filter ids and properties and the data after the
// header.
func xzBlock(p []byte) (ids []uint64, props [][]byte, data []byte, err error) {
	const streamHeader = 12
	if len(p) < streamHeader+1 || !bytes.HasPrefix(p, []byte{0xfd, '7', 'z', 'X', 'Z', 0}) {
		return nil, nil, nil, errors.New("kimage: no stream header")
	}
	size := (int(p[streamHeader]) + 1) * 4
	if p[streamHeader] == 0 || len(p) < streamHeader+size {
		return nil, nil, nil, errors.New("kimage: bad block header")
	}
	h := p[streamHeader : streamHeader+size-4] // without the CRC32
	flags := h[1]
	i := 2
	for _, bit := range []byte{0x40, 0x80} { // compressed, uncompressed size
		if flags&bit != 0 {
			if _, n := binary.Uvarint(h[i:]); n <= 0 {
				return nil, nil, nil, errors.New("kimage: bad block header size field")
			} else {
				i += n
			}
		}
	}
	for range int(flags&3) + 1 {
		id, n := binary.Uvarint(h[i:])
		if n <= 0 {
			return nil, nil, nil, errors.New("kimage: bad filter id")
		}
		i += n
		psize, n := binary.Uvarint(h[i:])
		if n <= 0 || psize > uint64(len(h)-i-n) {
			return nil, nil, nil, errors.New("kimage: bad filter properties")
		}
		i += n
		ids = append(ids, id)
		props = append(props, h[i:i+int(psize)])
		i += int(psize)
	}
	return ids, props, p[streamHeader+size:], nil
}

// bcjFilter undoes a branch-call-jump filter on buf, whose first byte is
// at position pos of the stream, and returns how many bytes of buf are
// final.
type bcjFilter interface {
	filter(buf []byte, pos uint32) int
}

// bcjReader undoes a BCJ filter on what r reads.
type bcjReader struct {
	r     io.Reader
	f     bcjFilter
	buf   []byte
	n     int    // bytes in buf
	ready []byte // filtered bytes not read yet (a prefix of buf)
	pos   uint32 // stream position of buf[0]
	eof   bool
}

func (x *bcjReader) Read(p []byte) (int, error) {
	for len(x.ready) == 0 {
		if x.eof && x.n == 0 {
			return 0, io.EOF
		}
		if err := x.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, x.ready)
	x.ready = x.ready[n:]
	return n, nil
}

// fill reads more into buf and filters what it can.
func (x *bcjReader) fill() error {
	for x.n < len(x.buf) && !x.eof {
		m, err := x.r.Read(x.buf[x.n:])
		x.n += m
		if err == io.EOF {
			x.eof = true
		} else if err != nil {
			return pkgerr.Errorf("kimage: xz: %w", err)
		}
	}
	k := x.f.filter(x.buf[:x.n], x.pos)
	if x.eof {
		k = x.n // the last bytes stay as they are
	}
	out := make([]byte, k)
	copy(out, x.buf[:k])
	copy(x.buf, x.buf[k:x.n])
	x.n -= k
	x.pos += uint32(k)
	x.ready = out
	return nil
}

func isX86MSByte(b byte) bool { return b == 0 || b == 0xff }

// x86Filter is the x86 BCJ filter's state between calls.
type x86Filter struct {
	pos      uint32
	prevMask uint32
	prevPos  uint32
}

// filter converts the absolute addresses of x86 CALL and JMP instructions
// back to relative ones and returns how many bytes of buf are final.
func (x *x86Filter) filter(buf []byte, pos uint32) int {
	x.pos = pos
	allowed := [8]bool{true, true, true, false, true, false, false, false}
	bitNumber := [8]uint32{0, 1, 2, 2, 3, 3, 3, 3}
	if len(buf) < 5 {
		return 0
	}
	if x.pos-x.prevPos > 5 {
		x.prevPos = x.pos - 5
	}
	i := 0
	for i <= len(buf)-5 {
		b := buf[i]
		if b != 0xe8 && b != 0xe9 {
			i++
			continue
		}
		off := x.pos + uint32(i) - x.prevPos
		x.prevPos = x.pos + uint32(i)
		if off > 5 {
			x.prevMask = 0
		} else {
			for range off {
				x.prevMask &= 0x77
				x.prevMask <<= 1
			}
		}
		b = buf[i+4]
		if !isX86MSByte(b) || !allowed[(x.prevMask>>1)&7] || x.prevMask>>1 >= 0x10 {
			i++
			x.prevMask |= 1
			if isX86MSByte(b) {
				x.prevMask |= 0x10
			}
			continue
		}
		src := binary.LittleEndian.Uint32(buf[i+1:])
		var dest uint32
		for {
			dest = src - (x.pos + uint32(i) + 5)
			if x.prevMask == 0 {
				break
			}
			j := bitNumber[x.prevMask>>1]
			if !isX86MSByte(byte(dest >> (24 - j*8))) {
				break
			}
			src = dest ^ (1<<(32-j*8) - 1)
		}
		dest &= 0x01ffffff
		if dest&0x01000000 != 0 {
			dest |= 0xff000000
		}
		binary.LittleEndian.PutUint32(buf[i+1:], dest)
		i += 5
		x.prevMask = 0
	}
	return i
}

// armFilter is the arm BCJ filter: it has no state.
type armFilter struct{}

// filter converts the absolute targets of arm BL instructions (the
// aligned little-endian words whose top byte is 0xeb) back to the
// relative offsets the instruction holds.
func (armFilter) filter(buf []byte, pos uint32) int {
	i := 0
	for ; i+4 <= len(buf); i += 4 {
		if buf[i+3] != 0xeb {
			continue
		}
		src := (uint32(buf[i+2])<<16 | uint32(buf[i+1])<<8 | uint32(buf[i])) << 2
		dest := (src - (pos + uint32(i) + 8)) >> 2
		buf[i], buf[i+1], buf[i+2] = byte(dest), byte(dest>>8), byte(dest>>16)
	}
	return i
}
