package kimage

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"io"
)

// No maintained Go package decompresses LZO, so this file has a small one:
// the lzop container (as the kernel's lib/decompress_unlzo.c reads it) and
// the LZO1X block format (as lib/lzo/lzo1x_decompress_safe.c decodes it),
// written anew. FuzzLZO1X guards it against hostile input.

var lzopMagic = []byte{0x89, 'L', 'Z', 'O', 0x00, '\r', '\n', 0x1a, '\n'}

// lzop header flags.
const (
	lzopAdler32D = 0x0001
	lzopAdler32C = 0x0002
	lzopExtra    = 0x0040
	lzopCRC32D   = 0x0100
	lzopCRC32C   = 0x0200
	lzopFilter   = 0x0800
	lzopMaxBlock = 256 << 10 // lzop writes 256 KiB blocks, the kernel reads no larger
)

var errLZO = errors.New("kimage: lzo: corrupt data")

// lzopReader decompresses an lzop stream block by block.
type lzopReader struct {
	r     *bufio.Reader
	flags uint32
	in    []byte
	out   []byte
	left  []byte // decompressed bytes not read yet
	done  bool
}

func newLzopReader(r io.Reader) (*lzopReader, error) {
	z := &lzopReader{r: bufio.NewReader(r)}
	if err := z.header(); err != nil {
		return nil, pkgerr.Errorf("kimage: lzop header: %w", err)
	}
	return z, nil
}

// header reads the lzop file header up to the first block.
func (z *lzopReader) header() error {
	var magic [9]byte
	if _, err := io.ReadFull(z.r, magic[:]); err != nil {
		return err
	}
	if string(magic[:]) != string(lzopMagic) {
		return errors.New("kimage: bad magic")
	}
	version, err := z.u16()
	if err != nil {
		return err
	}
	if _, err := z.skip(2); err != nil { // library version
		return err
	}
	if version >= 0x0940 {
		if _, err := z.skip(2); err != nil { // version needed to extract
			return err
		}
	}
	method, err := z.r.ReadByte()
	if err != nil {
		return err
	}
	if method < 1 || method > 3 {
		return fmt.Errorf("kimage: method %d is not LZO1X", method)
	}
	if version >= 0x0940 {
		if _, err := z.skip(1); err != nil { // level
			return err
		}
	}
	if z.flags, err = z.u32(); err != nil {
		return err
	}
	if z.flags&lzopFilter != 0 {
		return errors.New("kimage: filters are not supported")
	}
	n := 4 + 4 + 0 // mode, mtime low
	if version >= 0x0940 {
		n += 4 // mtime high
	}
	if _, err := z.skip(n); err != nil {
		return err
	}
	nameLen, err := z.r.ReadByte()
	if err != nil {
		return err
	}
	if _, err := z.skip(int(nameLen) + 4); err != nil { // name, header checksum
		return err
	}
	if z.flags&lzopExtra != 0 {
		l, err := z.u32()
		if err != nil {
			return err
		}
		if l > 1<<20 {
			return errors.New("kimage: extra field too long")
		}
		if _, err := z.skip(int(l) + 4); err != nil {
			return err
		}
	}
	return nil
}

func (z *lzopReader) skip(n int) (int, error) { return z.r.Discard(n) }

func (z *lzopReader) u16() (uint16, error) {
	var b [2]byte
	_, err := io.ReadFull(z.r, b[:])
	return binary.BigEndian.Uint16(b[:]), err
}

func (z *lzopReader) u32() (uint32, error) {
	var b [4]byte
	_, err := io.ReadFull(z.r, b[:])
	return binary.BigEndian.Uint32(b[:]), err
}

func (z *lzopReader) Read(p []byte) (int, error) {
	for len(z.left) == 0 {
		if z.done {
			return 0, io.EOF
		}
		if err := z.block(); err != nil {
			return 0, err
		}
	}
	n := copy(p, z.left)
	z.left = z.left[n:]
	return n, nil
}

// block decompresses the next block into z.left.
func (z *lzopReader) block() error {
	dstLen, err := z.u32()
	if err != nil {
		return pkgerr.Errorf("kimage: lzop block: %w", noEOF(err))
	}
	if dstLen == 0 {
		z.done = true
		return nil
	}
	srcLen, err := z.u32()
	if err != nil {
		return pkgerr.Errorf("kimage: lzop block: %w", noEOF(err))
	}
	if dstLen > lzopMaxBlock || srcLen == 0 || srcLen > dstLen {
		return pkgerr.Errorf("kimage: lzop block of %d bytes from %d: %w", dstLen, srcLen, errLZO)
	}
	sums := 0
	if z.flags&(lzopAdler32D|lzopCRC32D) != 0 {
		sums += 4
	}
	if srcLen < dstLen && z.flags&(lzopAdler32C|lzopCRC32C) != 0 {
		sums += 4
	}
	if _, err := z.skip(sums); err != nil {
		return pkgerr.Errorf("kimage: lzop block: %w", noEOF(err))
	}
	z.in = grow(z.in, int(srcLen))
	if _, err := io.ReadFull(z.r, z.in); err != nil {
		return pkgerr.Errorf("kimage: lzop block: %w", noEOF(err))
	}
	if srcLen == dstLen { // stored
		z.left = z.in
		return nil
	}
	z.out = grow(z.out, int(dstLen))
	n, err := lzo1xDecompress(z.in, z.out)
	if err != nil {
		return err
	}
	if n != int(dstLen) {
		return pkgerr.Errorf("kimage: lzop block decompresses to %d bytes, not %d: %w", n, dstLen, errLZO)
	}
	z.left = z.out
	return nil
}

func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// lzo1xDecompress decodes one LZO1X block from in into out, which must be
// large enough, and returns the number of bytes written. Every read and
// write is checked: corrupt input gives errLZO, never a panic.
func lzo1xDecompress(in, out []byte) (int, error) {
	d := lzoDec{in: in, out: out}
	if err := d.run(); err != nil {
		return d.op, err
	}
	return d.op, nil
}

type lzoDec struct {
	in, out []byte
	ip, op  int
}

func (d *lzoDec) byte() (int, bool) {
	if d.ip >= len(d.in) {
		return 0, false
	}
	d.ip++
	return int(d.in[d.ip-1]), true
}

// long reads a run length extension: zero bytes add 255 each, the next
// byte is added with base.
func (d *lzoDec) long(t, base int) (int, bool) {
	for {
		b, ok := d.byte()
		if !ok {
			return 0, false
		}
		if b != 0 {
			return t + base + b, true
		}
		t += 255
		if t > len(d.out) {
			return 0, false
		}
	}
}

// literals copies n bytes from the input to the output.
func (d *lzoDec) literals(n int) bool {
	if n < 0 || d.ip+n > len(d.in) || d.op+n > len(d.out) {
		return false
	}
	copy(d.out[d.op:], d.in[d.ip:d.ip+n])
	d.ip += n
	d.op += n
	return true
}

// match copies n bytes from dist bytes back in the output (overlapping
// copies repeat the pattern, as LZ77 requires).
func (d *lzoDec) match(dist, n int) bool {
	from := d.op - dist
	if dist <= 0 || from < 0 || d.op+n > len(d.out) {
		return false
	}
	for i := range n {
		d.out[d.op+i] = d.out[from+i]
	}
	d.op += n
	return true
}

// run is the decoder's state machine. state is the number of literals the
// last instruction copied (4 meaning four or more), which selects the
// meaning of the short instructions (t < 16).
func (d *lzoDec) run() error {
	if len(d.in) < 3 {
		return errLZO
	}
	state := 0
	if d.in[0] > 17 {
		d.ip = 1
		t := int(d.in[0]) - 17
		if !d.literals(t) {
			return errLZO
		}
		state = min(t, 4)
	}
	for {
		t, ok := d.byte()
		if !ok {
			return errLZO
		}
		var dist, n, next int
		switch {
		case t < 16 && state == 0: // a literal run
			if t == 0 {
				if t, ok = d.long(0, 15); !ok {
					return errLZO
				}
			}
			if !d.literals(t + 3) {
				return errLZO
			}
			state = 4
			continue
		case t < 16: // a short match right after literals
			b, ok := d.byte()
			if !ok {
				return errLZO
			}
			next, n = t&3, 2
			dist = 1 + t>>2 + b<<2
			if state == 4 {
				n, dist = 3, dist+0x800
			}
		case t >= 64: // M2: 3 to 8 bytes, distance up to 2 KiB
			b, ok := d.byte()
			if !ok {
				return errLZO
			}
			next = t & 3
			dist = 1 + (t>>2)&7 + b<<3
			n = t>>5 + 1
		case t >= 32: // M3: distance up to 16 KiB
			n = t & 31
			if n == 0 {
				if n, ok = d.long(0, 31); !ok {
					return errLZO
				}
			}
			n += 2
			w, ok := d.le16()
			if !ok {
				return errLZO
			}
			next, dist = w&3, 1+w>>2
		default: // M4: distance 16 to 48 KiB, or the end marker
			n = t & 7
			if n == 0 {
				if n, ok = d.long(0, 7); !ok {
					return errLZO
				}
			}
			n += 2
			w, ok := d.le16()
			if !ok {
				return errLZO
			}
			next, dist = w&3, (t&8)<<11+w>>2
			if dist == 0 {
				if n != 3 || d.ip != len(d.in) {
					return errLZO
				}
				return nil // end of stream
			}
			dist += 0x4000
		}
		if !d.match(dist, n) || !d.literals(next) {
			return errLZO
		}
		state = next
	}
}

func (d *lzoDec) le16() (int, bool) {
	if d.ip+2 > len(d.in) {
		return 0, false
	}
	w := int(binary.LittleEndian.Uint16(d.in[d.ip:]))
	d.ip += 2
	return w, true
}
