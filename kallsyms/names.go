package kallsyms

//go:generate go run ./internal/gentokens -in testdata/host-6.18.44.kallsyms.gz -out names_table.go

import (
	"slices"
	"strings"
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
	// heads maps the first two bytes of a token (each < 0x80) to the range
	// [start, end) of order that holds the codes starting with them,
	// longest first. Packed as start<<16 | end.
	heads [1 << 14]uint32
	order []byte
}

// names is the package's single, immutable name codec.
var names = newCodec(nameTokens[:])

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
	for h := range c.heads {
		ks := byHead[h]
		// longest first; stable by code for equal lengths.
		for i := 1; i < len(ks); i++ {
			for j := i; j > 0 && len(tokens[ks[j]]) > len(tokens[ks[j-1]]); j-- {
				ks[j], ks[j-1] = ks[j-1], ks[j]
			}
		}
		start := len(c.order)
		for _, k := range ks {
			c.order = append(c.order, tokenCode(k))
		}
		c.heads[h] = uint32(start)<<16 | uint32(len(c.order))
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

// appendEncoded appends the encoding of name to dst.
//
// Guarded by BenchmarkKallsyms/Load (every stored name passes through here).
func (c *codec) appendEncoded(dst []byte, name string) []byte {
	for i := 0; i < len(name); {
		b := name[i]
		if b < 0x20 || b >= 0x80 {
			dst = append(dst, escByte, b)
			i++
			continue
		}
		if i+1 < len(name) && name[i+1] >= 0x20 && name[i+1] < 0x80 {
			h := c.heads[int(b)<<7|int(name[i+1])]
			code, n := c.match(name[i:], c.order[h>>16:h&0xffff])
			if n > 0 {
				dst = append(dst, code)
				i += n
				continue
			}
		}
		dst = append(dst, b)
		i++
	}
	return dst
}

// match returns the first of the candidate codes whose expansion prefixes s.
func (c *codec) match(s string, cands []byte) (byte, int) {
	for _, code := range cands {
		if t := c.exp[code]; strings.HasPrefix(s, t) {
			return code, len(t)
		}
	}
	return 0, 0
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
		copy(buf[p:p+maxTokenLen], c.blocks[b][:])
		p += int(c.lens[b])
	}
	return buf[:p]
}

// decode returns prefix followed by the name encoded in enc, as a new
// string: one allocation, no intermediate copy.
//
// Guarded by BenchmarkKallsyms/Lookup.
//
// plain promises that enc holds no escByte (names with escapes are stored
// in the long form, see table).
func (c *codec) decode(prefix string, enc []byte, plain bool) string {
	if !plain {
		return string(c.appendDecoded([]byte(prefix), enc))
	}
	n := len(prefix)
	for _, b := range enc {
		n += int(c.lens[b])
	}
	if n == 0 {
		return ""
	}
	buf := make([]byte, n+maxTokenLen)
	p := copy(buf, prefix)
	for _, b := range enc {
		copy(buf[p:p+maxTokenLen], c.blocks[b][:])
		p += int(c.lens[b])
	}
	return unsafe.String(&buf[0], n)
}
