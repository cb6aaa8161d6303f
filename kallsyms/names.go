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
// The encoder is greedy (longest token first) and deterministic, so two names
// are equal exactly when their encodings are: name lookups compare encoded
// bytes and never decode.

const (
	escByte = 0xff
	// maxTokenLen bounds a token's expansion, so that decoding can copy
	// every token as one 16-byte block; gentokens stays below it.
	maxTokenLen = 16
)

// codec holds the encode index and the decode table of the dictionary. It
// is built once from nameTokens and never changes.
type codec struct {
	// exp is the expansion of every code byte ("" for escByte).
	exp [256]string
	// blocks and lens hold exp as fixed 16-byte blocks for fast decoding.
	blocks [256][maxTokenLen]byte
	lens   [256]uint8
	// heads maps the first two bytes of a token, minus 0x20 each, to a
	// group of candidates starting with them (0 for none): the candidates
	// are cands[g>>8:][:g&0xff] for g = groups[heads[...]], longest first.
	// The table is 9 KiB, so that it stays in L1 while names are encoded.
	heads  [0x60 * 0x60]uint8
	groups []uint16
	cands  []candidate
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
// a pointer, so that decoding addresses its tables directly.
var names = *newCodec(nameTokens[:])

func tokenCode(k int) byte {
	if k < 0x20 {
		return byte(k)
	}
	return byte(0x80 + k - 0x20)
}

func newCodec(tokens []string) *codec {
	c := &codec{}
	for b := 0x20; b < 0x80; b++ {
		c.exp[b] = string(rune(b))
	}
	defer func() {
		for b, t := range c.exp {
			copy(c.blocks[b][:], t)
			c.lens[b] = uint8(len(t))
		}
	}()
	byHead := make(map[int][]int)
	for k, t := range tokens {
		if len(t) < 2 || len(t) > maxTokenLen || !printableASCII(t) {
			panic("kallsyms: bad name token " + t)
		}
		c.exp[tokenCode(k)] = t
		h := int(t[0])<<7 | int(t[1])
		byHead[h] = append(byHead[h], k)
	}
	c.groups = append(c.groups, 0)
	for h := range 1 << 14 {
		ks := byHead[h]
		if len(ks) == 0 {
			continue
		}
		// longest first; stable by code for equal lengths.
		for i := 1; i < len(ks); i++ {
			for j := i; j > 0 && len(tokens[ks[j]]) > len(tokens[ks[j-1]]); j-- {
				ks[j], ks[j-1] = ks[j-1], ks[j]
			}
		}
		start := len(c.cands)
		for _, k := range ks {
			c.cands = append(c.cands, newCandidate(tokenCode(k), tokens[k]))
		}
		c.heads[(h>>7-0x20)*0x60+h&0x7f-0x20] = uint8(len(c.groups))
		c.groups = append(c.groups, uint16(start)<<8|uint16(len(ks)))
	}
	if len(c.cands) > 0xff || len(c.groups) > 0x100 {
		panic("kallsyms: too many name tokens")
	}
	return c
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x80 {
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
// every candidate is compared as two 64-bit words.
//
// Guarded by BenchmarkKallsyms/Load (every stored name passes through here).
func (c *codec) appendPadded(dst, p []byte, n int) (out []byte, esc bool) {
	dst = slices.Grow(dst, 2*n) // an escape takes two bytes
	o, buf := len(dst), dst[:cap(dst)]
	for i := 0; i < n && o+1 < len(buf); {
		b := p[i]
		code, k := b, 1
		if b-0x20 >= 0x60 {
			buf[o] = escByte
			o, esc = o+1, true
		} else if b1 := p[i+1] - 0x20; b1 < 0x60 {
			if g := c.heads[int(b-0x20)*0x60+int(b1)]; g != 0 {
				h := c.groups[g]
				w := p[i : i+maxTokenLen]
				lo, hi := binary.LittleEndian.Uint64(w[:8]), binary.LittleEndian.Uint64(w[8:])
				if cd, m := matchCand(c.cands[h>>8:][:h&0xff], lo, hi); m > 0 {
					code, k = cd, m
				}
			}
		}
		buf[o] = code
		o, i = o+1, i+k
	}
	return buf[:o], esc
}

// matchCand returns the code and length of the first candidate that
// prefixes the name whose next 16 bytes are lo and hi, or length 0.
func matchCand(cands []candidate, lo, hi uint64) (byte, int) {
	for i := range cands {
		c := &cands[i]
		if (lo^c.lo)&c.mlo == 0 && (hi^c.hi)&c.mhi == 0 {
			return c.code, int(c.n)
		}
	}
	return 0, 0
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
		*(*[maxTokenLen]byte)(buf[p : p+maxTokenLen]) = c.blocks[b]
		p += int(c.lens[b])
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
	p, base := len(dst), unsafe.Pointer(unsafe.SliceData(dst))
	for _, b := range enc {
		*(*[maxTokenLen]byte)(unsafe.Add(base, p)) = c.blocks[b]
		p += int(c.lens[b])
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
