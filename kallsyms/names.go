package kallsyms

//go:generate go run ./internal/gentokens -in testdata/host-6.18.44.kallsyms.gz -out names_table.go

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// Symbol names are stored compressed with a static dictionary, in the spirit
// of the kernel's own kallsyms token table: printable ASCII bytes
// (0x20-0x7f) stand for themselves, the other code bytes 0x00-0x1f and
// 0x80-0xfe each stand for one of the strings in nameTokens, and 0xff escapes
// the next byte, which is then taken literally. Kernel symbol names are
// printable, so escapes only appear for hostile input.
//
// The encoder looks at most at two tokens per position, so that it runs
// without data-dependent branches: the longest token that starts with the
// next two bytes, if it matches, else the two-byte token of those bytes, if
// there is one, else the byte itself. It is deterministic, so two names are
// equal exactly when their encodings are: name lookups compare encoded bytes
// and never decode.

const (
	escByte = 0xff
	// maxTokenLen bounds a token's expansion, so that decoding can copy
	// every token as one 16-byte block; gentokens stays below it.
	maxTokenLen = 16
)

// An entry of codec.next describes what to emit at a position from the two
// bytes found there: entEsc when the first byte must be escaped; otherwise
// the low 8 bits are the fallback code (a pair token or the byte itself),
// bit 8 is set when that fallback covers two bytes, and the bits from
// entLongShift up index codec.long.
const (
	entEsc       = 0xffff
	entPair      = 1 << 8
	entLongShift = 9
	maxLong      = 1<<(16-entLongShift) - 1 // the last index is entEsc's
)

// codec holds the encode tables and the decode table of the dictionary. It
// is built once from nameTokens and never changes.
type codec struct {
	// dec holds exp as fixed 16-byte blocks, for fast decoding. (It comes
	// first, so that the decoding loop addresses it without an offset.)
	dec [256]token
	// exp is the expansion of every code byte ("" for escByte).
	exp [256]string
	// next is indexed by the next two bytes of a name, little-endian (the
	// second is 0 at the name's last byte). Names use only the printable
	// rows, so about 19 KiB of the 128 KiB are touched while encoding.
	next [1 << 16]uint16
	// long holds, for each two-byte start, the longest token longer than
	// two bytes; long[0] never matches.
	long []candidate
}

// token is the expansion of a code byte: its first n bytes of b. Its size
// is a power of two, so that the decoding loop finds it with one shift.
type token struct {
	b [maxTokenLen]byte
	n uint8
	_ [maxTokenLen - 1]byte
}

// candidate is a token as two little-endian words and their masks, so that
// matching it against a zero-padded name costs two compares.
type candidate struct {
	lo, hi   uint64
	mlo, mhi uint64
	code, n  uint8
}

func newCandidate(code byte, t string) candidate {
	var b [maxTokenLen]byte
	copy(b[:], t)
	c := candidate{code: code, n: uint8(len(t))}
	c.lo, c.hi = binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])
	c.mlo = ^uint64(0) >> (64 - 8*min(len(t), 8))
	c.mhi = ^uint64(0) >> (64 - 8*max(len(t)-8, 0))
	return c
}

// names is the package's single, immutable name codec. It is a value, not
// a pointer, so that encoding and decoding address its tables directly.
var names = *newCodec(nameTokens[:])

func tokenCode(k int) byte {
	if k < 0x20 {
		return byte(k)
	}
	return byte(0x80 + k - 0x20)
}

// literal reports whether byte b stands for itself in an encoding.
func literal(b byte) bool { return b >= 0x20 && b < 0x80 }

func newCodec(tokens []string) *codec {
	c := &codec{}
	for b := 0x20; b < 0x80; b++ {
		c.exp[b] = string(rune(b))
	}
	// The entry 0 of long is a token of one zero byte: names reach the
	// encoder's matching only at a printable byte, so it never matches.
	c.long = append(c.long, candidate{mlo: 0xff})
	longest := make(map[uint16]int) // two-byte start -> index in tokens
	pairs := make(map[uint16]byte)  // two-byte token -> its code
	for k, t := range tokens {
		if len(t) < 2 || len(t) > maxTokenLen || !printableASCII(t) {
			panic("kallsyms: bad name token " + t)
		}
		code := tokenCode(k)
		c.exp[code] = t
		head := uint16(t[0]) | uint16(t[1])<<8
		if len(t) == 2 {
			pairs[head] = code
		} else if j, ok := longest[head]; !ok || len(t) > len(tokens[j]) {
			longest[head] = k // ties: the lower code
		}
	}
	for b, t := range c.exp {
		copy(c.dec[b].b[:], t)
		c.dec[b].n = uint8(len(t))
	}
	for w := range c.next {
		b0, b1 := byte(w), byte(w>>8)
		if !literal(b0) {
			c.next[w] = entEsc
			continue
		}
		e := uint16(b0)
		if code, ok := pairs[uint16(w)]; ok {
			e = entPair | uint16(code)
		}
		if k, ok := longest[uint16(w)]; ok && literal(b1) {
			if len(c.long) == maxLong {
				panic("kallsyms: too many long name tokens")
			}
			e |= uint16(len(c.long)) << entLongShift
			c.long = append(c.long, newCandidate(tokenCode(k), tokens[k]))
		}
		c.next[w] = e
	}
	return c
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if !literal(s[i]) {
			return false
		}
	}
	return true
}

// encoder encodes names with the package's codec. It owns a scratch
// buffer, so it is used by one goroutine.
type encoder struct {
	pad []byte
}

// appendEncoded appends the encoding of name to dst; esc reports whether
// the encoding has escapes.
func (e *encoder) appendEncoded(dst, name []byte) (out []byte, esc bool) {
	if cap(e.pad) < len(name)+2*maxTokenLen {
		e.pad = make([]byte, max(len(name)+2*maxTokenLen, 256))
	}
	p := e.pad[:len(name)+maxTokenLen]
	copy(p, name)
	clear(p[len(name):])
	return names.appendPadded(dst, p, len(name))
}

// appendPadded appends the encoding of p[:n] to dst. p holds at least
// maxTokenLen zero bytes after the name, which no token matches, so that
// a candidate is compared as two 64-bit words.
//
// Guarded by BenchmarkKallsyms/Load (every stored name passes through here).
func (c *codec) appendPadded(dst, p []byte, n int) (out []byte, esc bool) {
	dst = slices.Grow(dst, 2*n) // an escape takes two bytes
	o, buf := len(dst), dst[:cap(dst)]
	for i := 0; i < n && o+1 < len(buf); {
		w := p[i : i+maxTokenLen]
		lo, hi := binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])
		e := c.next[uint16(lo)]
		if e == entEsc {
			buf[o], buf[o+1] = escByte, byte(lo)
			o, i, esc = o+2, i+1, true
			continue
		}
		code, k := byte(e), 1+int(e>>8&1)
		if l := &c.long[e>>entLongShift]; (lo^l.lo)&l.mlo|(hi^l.hi)&l.mhi == 0 {
			code, k = l.code, int(l.n)
		}
		buf[o] = code
		o, i = o+1, i+k
	}
	return buf[:o], esc
}

// appendEncodedString appends the encoding of name to dst, for callers
// outside the parser.
func appendEncodedString(dst []byte, name string) []byte {
	var e encoder
	out, _ := e.appendEncoded(dst, []byte(name))
	return out
}

// appendDecoded appends the name encoded in enc to dst. It grows dst to
// hold a full token block per input byte, then copies 16-byte blocks.
//
// Guarded by BenchmarkKallsyms/LookupAppend.
func (c *codec) appendDecoded(dst, enc []byte) []byte {
	dst = slices.Grow(dst, len(enc)*maxTokenLen)
	p, buf := len(dst), dst[:cap(dst)]
	for i := 0; i < len(enc); i++ {
		b := enc[i]
		if b == escByte {
			if i++; i < len(enc) {
				buf[p] = enc[i]
				p++
			}
			continue
		}
		*(*[maxTokenLen]byte)(buf[p : p+maxTokenLen]) = c.dec[b].b
		p += int(c.dec[b].n)
	}
	return buf[:p]
}

// appendPlain appends the name encoded in enc, which holds no escByte, to
// dst. It grows dst to hold a full token block per input byte, then copies
// 16-byte blocks.
//
// Guarded by BenchmarkKallsyms/LookupAppend.
func (c *codec) appendPlain(dst, enc []byte) []byte {
	dst = slices.Grow(dst, len(enc)*maxTokenLen)
	// Before token i, p <= len(dst) + i*maxTokenLen (no token is longer),
	// so each 16-byte store stays within the capacity just grown: the
	// stores go through unsafe only to drop a bounds check per token.
	p, base, dec := len(dst), unsafe.Pointer(unsafe.SliceData(dst)), &c.dec
	for _, b := range enc {
		t := &dec[b]
		*(*[maxTokenLen]byte)(unsafe.Add(base, p)) = t.b
		p += int(t.n)
	}
	return dst[:p]
}

// decode returns prefix followed by the name encoded in enc, as a new
// string: one allocation of the name's size.
//
// Guarded by BenchmarkKallsyms/Lookup.
//
// plain promises that enc holds no escByte (names with escapes are stored
// in the long form, see table).
func (c *codec) decode(prefix string, enc []byte, plain bool) string {
	var buf [512]byte
	if !plain || len(prefix)+len(enc)*maxTokenLen > len(buf) {
		return string(c.appendDecoded([]byte(prefix), enc))
	}
	return string(c.appendPlain(append(buf[:0], prefix...), enc))
}
