package kallsyms

//go:generate go run ./internal/gentokens -in testdata/host-6.18.44.kallsyms.gz -out names_table.go

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// Symbol names are stored compressed with a static dictionary. An encoded
// name is a sequence of codes, each a little-endian uint16: codes 0-255
// stand for the byte of that value, and codes from byteCodes up for the
// strings of nameTokens, 2 to maxTokenLen bytes each: words of kernel names
// ("sched_", "x64_"), runs of words ("trace_event_") and word tails, trained
// on the names of a real kernel by internal/gentokens. A typical name takes
// four or five codes.
//
// Every code has the same width so that decoding does not chain loads: the
// offset of the next code is known before the current one is looked up,
// and only the output position waits for a token's length. Decoding a code
// is one load of a 16-byte entry of codec.dec and one 16-byte store.
//
// The encoder is greedy: at each position it takes the longest token that
// the rest of the name starts with, else the byte itself. It is
// deterministic, so two names are equal exactly when their encodings are:
// name lookups compare encoded bytes and never decode. Any byte string
// round-trips, bytes that no token holds (kernel names are printable ASCII)
// at one code each, so there is no escape and no name needs a slower
// decoder.

const (
	// byteCodes is the number of codes that stand for a single byte.
	byteCodes = 256
	// numCodes is the size of the dictionary (gentokens -codes: 4096, a
	// 64 KiB decoding table, the trade of bytes per name against the
	// tables' size given in BENCH.md). It is a power of two, so
	// that masking any uint16 with codeMask gives a code of the table:
	// decoding needs no bounds check and garbage decodes to something.
	numCodes = byteCodes + len(nameTokens)
	codeMask = uint16(numCodes - 1)
	// maxTokenLen is the longest token: a decoding-table entry holds the
	// token in its first 15 bytes and its length in the 16th, so that one
	// 16-byte load brings both.
	maxTokenLen = 15
	// hashSize is the size of codec.hash, four times the number of
	// tokens, so that cuckoo insertion finds room at once and most tokens
	// sit in their first slot.
	hashSize = uint32(4 * numCodes)
	// maxKicks bounds the evictions of one cuckoo insertion.
	maxKicks = 1000
	// lensSize is the size of codec.lens, four times the number of
	// tokens, so that few prefixes share a slot.
	lensSize = uint32(4 * numCodes)
)

// numCodes must be a power of two (this fails to compile otherwise).
var _ [0]struct{} = [numCodes & (numCodes - 1)]struct{}{}

// token is an entry of the decoding table: the token's bytes, zero-padded,
// and its length in the last byte. Its size is a power of two, so that the
// decoding loop finds it with one shift.
type token [maxTokenLen + 1]byte

// codec holds the decoding table of the dictionary and the encoder's
// indexes of it. It is built once from nameTokens and never changes.
type codec struct {
	// dec is indexed by code. (It comes first, so that the decoding loop
	// addresses it without an offset.)
	dec [numCodes]token
	// hash is a cuckoo hash table of the codes of the tokens, keyed by
	// the two little-endian words of their dec entries (see tokenKey): a
	// token is in one of its two slots (hashSlot1, hashSlot2), so a lookup
	// reads at most two slots, with no probing loop. 0 marks an empty
	// slot: it names dec[0], a single byte, which no key of two bytes or
	// more matches.
	hash [hashSize]uint16
	// lens filters the token lengths worth looking up at a position: bit l
	// of lens[lensSlot(l, lo)] is set when a token of length l may start
	// with the name's next bytes, lo (little-endian). The slot depends on
	// the first 2 bytes for lengths 2-3, the first 4 for lengths 4-7 and
	// the first 8 for longer tokens, so that on the host's names the
	// encoder looks up ~1.3 tokens per code, where the first two bytes
	// alone leave ~4 lengths to try (many words start with "__" or "s").
	// Slots are hashed: a collision only costs a lookup.
	lens [lensSize]uint16
	// keyMasks[l] masks the first l bytes of two little-endian words.
	keyMasks [maxTokenLen + 1][2]uint64
}

// names returns the package's single, immutable name codec (128 KiB of
// tables), built on first use so that importing the package costs nothing:
// not even an init function, which would fault in the 64 KB of code
// around it in every program that imports the package (as a
// sync.OnceValue made at initialization would; cmd/kmeta/BENCH.md).
func names() *codec {
	namesOnce.Do(func() { namesCodec = newCodec(nameTokens[:]) })
	return namesCodec
}

var (
	namesCodec *codec // names
	namesOnce  sync.Once
)

// newCodec builds the codec of tokens, which take the codes from byteCodes
// on, in order. An empty token leaves its code unused (decoding to
// nothing), for dictionaries smaller than numCodes.
func newCodec(tokens []string) *codec {
	if byteCodes+len(tokens) > numCodes {
		panic("kallsyms: too many name tokens")
	}
	c := &codec{}
	for l := range c.keyMasks {
		c.keyMasks[l][0] = ^uint64(0) >> (64 - 8*min(l, 8))
		c.keyMasks[l][1] = ^uint64(0) >> (128 - 8*max(l, 8))
	}
	for b := range byteCodes {
		c.dec[b][0], c.dec[b][maxTokenLen] = byte(b), 1
	}
	for k, t := range tokens {
		if t == "" {
			continue
		}
		// The encoder relies on tokens holding no zero byte: a token
		// that runs past a name's end then never matches its padding.
		if len(t) < 2 || len(t) > maxTokenLen || strings.IndexByte(t, 0) >= 0 {
			panic("kallsyms: bad name token " + t)
		}
		code := uint16(byteCodes + k)
		e := &c.dec[code]
		copy(e[:], t)
		e[maxTokenLen] = byte(len(t))
		lo, hi := tokenKey(e)
		c.insert(code, lo, hi)
		c.lens[lensSlot(len(t), lo)] |= 1 << len(t)
	}
	return c
}

// tokenKey returns the entry e as two little-endian words: the hash key of
// its token, with the length in the top byte of hi.
func tokenKey(e *token) (lo, hi uint64) {
	return binary.LittleEndian.Uint64(e[:8]), binary.LittleEndian.Uint64(e[8:])
}

// hashKey returns the hash of the token key lo, hi (see tokenKey).
func hashKey(lo, hi uint64) uint64 {
	return (lo*0x9e3779b97f4a7c15 + hi) * 0xc2b2ae3d27d4eb4f
}

// hashSlot1 and hashSlot2 return the two slots of codec.hash where the
// token with key hash x may be: the top bits of x and of a remix of x (the
// low bits of a product depend only on the low bits of its operands, which
// many tokens share).
func hashSlot1(x uint64) uint32 { return uint32(x>>40) % hashSize }

func hashSlot2(x uint64) uint32 { return uint32((x^x>>29)*0xff51afd7ed558ccd>>40) % hashSize }

// insert puts code, whose token has key lo, hi, in codec.hash: in its
// first slot if free, else its second if free, else in the first, whose
// code then moves to its own other slot, and so on (cuckoo hashing).
// Tokens are inserted in code order, so the table depends only on the
// dictionary.
func (c *codec) insert(code uint16, lo, hi uint64) {
	if c.find(lo, hi) != 0 {
		panic("kallsyms: duplicate name token")
	}
	x := hashKey(lo, hi)
	h, h2 := hashSlot1(x), hashSlot2(x)
	if c.hash[h] != 0 && c.hash[h2] == 0 {
		h = h2
	}
	for range maxKicks {
		if code, c.hash[h] = c.hash[h], code; code == 0 {
			return
		}
		if x := hashKey(tokenKey(&c.dec[code])); h == hashSlot1(x) {
			h = hashSlot2(x)
		} else {
			h = hashSlot1(x)
		}
	}
	panic("kallsyms: name token hash table full")
}

// find returns the code of the token with key lo, hi (see tokenKey), or 0
// if there is none.
func (c *codec) find(lo, hi uint64) uint16 {
	x := hashKey(lo, hi)
	t1, t2 := c.hash[hashSlot1(x)], c.hash[hashSlot2(x)]
	if e1, e2 := tokenKey(&c.dec[t1&codeMask]); e1 == lo && e2 == hi {
		return t1
	}
	if e1, e2 := tokenKey(&c.dec[t2&codeMask]); e1 == lo && e2 == hi {
		return t2
	}
	return 0
}

// lensSlot returns the slot of codec.lens for a token of length l that
// starts with the bytes of lo (little-endian).
func lensSlot(l int, lo uint64) uint32 {
	switch {
	case l < 4:
		return lens2(lo)
	case l < 8:
		return lens4(lo)
	}
	return lens8(lo)
}

// lens2, lens4 and lens8 return the slot of codec.lens for the tokens of
// 2-3, 4-7 and 8 or more bytes that may start with the bytes of lo: a hash
// of its first 2, 4 and 8 bytes.
func lens2(lo uint64) uint32 { return uint32((lo&0xffff)*0x9e3779b97f4a7c15>>40) % lensSize }

func lens4(lo uint64) uint32 {
	return uint32((lo&0xffffffff)*0xc2b2ae3d27d4eb4f>>40) % lensSize
}

func lens8(lo uint64) uint32 { return uint32(lo*0xff51afd7ed558ccd>>40) % lensSize }

// appendTo appends the encoding of name to dst: at each position, the
// longest token the name continues with, else the byte (see next).
//
// Every stored name passes through here.
func (c *codec) appendTo(dst, name []byte) []byte {
	dst = slices.Grow(dst, 2*len(name)) // one code per byte at most
	start := len(dst)
	// The bytes at a position are read as two 64-bit words: those of the
	// last positions from a zero-padded copy of the name's end.
	var tail [2 * len(token{})]byte
	t0 := max(len(name)-len(token{}), 0)
	copy(tail[:], name[t0:])
	for i := 0; i < len(name); {
		var lo, hi uint64
		if i < t0 {
			lo, hi = binary.LittleEndian.Uint64(name[i:]), binary.LittleEndian.Uint64(name[i+8:])
		} else {
			w := tail[(i-t0)&(len(token{})-1):]
			lo, hi = binary.LittleEndian.Uint64(w), binary.LittleEndian.Uint64(w[8:])
		}
		code, k := c.next(lo, hi)
		dst = binary.LittleEndian.AppendUint16(dst, code)
		i += k
	}
	if coded, raw := len(dst)-start, len(name)+rawPad(len(name)); 2*coded > 3*raw {
		dst = appendRaw(dst[:start], name)
	}
	return dst
}

// A name that the dictionary barely shortens (one code of two bytes per
// byte, as for random letters: its codes take over 1.5 times its raw form,
// which a kernel's names, short ones included, almost never do, so that
// decoding them seldom branches away) is stored raw instead: its bytes followed
// by a pad of rawPad bytes, each holding the pad's length, which makes the
// stored length odd. Codes take two bytes each, so an odd length marks a
// raw name. The choice depends only on the name, so that equal names still
// have equal encodings.

// rawPad returns the length of the pad after a raw name of n bytes: 1 when
// n is even, 2 when it is odd.
func rawPad(n int) int { return 1 + n&1 }

// appendRaw appends the raw form of name to dst.
func appendRaw(dst, name []byte) []byte {
	dst = append(dst, name...)
	p := rawPad(len(name))
	for range p {
		dst = append(dst, byte(p))
	}
	return dst
}

// rawName returns the name stored raw in enc, whose length is odd. Any
// such enc gives a name, garbage included.
func rawName(enc []byte) []byte {
	p := 1 + int(enc[len(enc)-1]>>1&1)
	return enc[:max(len(enc)-p, 0)]
}

// next returns the code of the longest token that starts with the 16 bytes
// lo, hi (little-endian), else of the byte, and its length. A token that
// runs past a name's end does not match: the bytes past it are zeros,
// which no token has.
func (c *codec) next(lo, hi uint64) (code uint16, k int) {
	// The lengths of the tokens that may start here (see codec.lens),
	// tried longest first.
	m := c.lens[lens8(lo)]&0xff00 | c.lens[lens4(lo)]&0x00f0 | c.lens[lens2(lo)]&0x000c
	for m != 0 {
		l := bits.Len16(m) - 1
		m &^= 1 << l
		// The key of a token of length l (see tokenKey), looked up as in
		// find, written out to be inlined.
		mask := &c.keyMasks[l&maxTokenLen]
		klo, khi := lo&mask[0], hi&mask[1]|uint64(l)<<56
		// The second slot is read only when the first misses: most
		// tokens sit in their first slot, and each slot read is likely a
		// cache miss.
		x := hashKey(klo, khi)
		t := c.hash[hashSlot1(x)]
		if e := &c.dec[t&codeMask]; binary.LittleEndian.Uint64(e[:8]) == klo && binary.LittleEndian.Uint64(e[8:]) == khi {
			return t, l
		}
		t = c.hash[hashSlot2(x)]
		if e := &c.dec[t&codeMask]; binary.LittleEndian.Uint64(e[:8]) == klo && binary.LittleEndian.Uint64(e[8:]) == khi {
			return t, l
		}
	}
	return uint16(uint8(lo)), 1
}

// appendEncodedString appends the encoding of name to dst, for callers
// outside the parser.
func appendEncodedString(dst []byte, name string) []byte {
	return names().appendTo(dst, []byte(name))
}

// appendDecoded appends the name encoded in enc to dst. It grows dst to hold
// a full 16-byte entry per code, then copies whole entries: it may write up
// to 16 bytes past the name's end, within dst's capacity. Any enc decodes
// without fault: a code is masked into the table, and an enc of odd length
// is a raw name (see appendRaw).
func (c *codec) appendDecoded(dst, enc []byte) []byte {
	if len(enc)&1 != 0 {
		return append(dst, rawName(enc)...)
	}
	dst = slices.Grow(dst, len(enc)/2*len(token{}))
	// Before code j, p <= len(dst) + j*maxTokenLen, so each 16-byte store
	// stays within the capacity just grown: the stores go through unsafe
	// only to drop a bounds check per code. The codes are read through
	// unsafe as well, at i+1 < len(enc).
	p, base, dec := len(dst), unsafe.Pointer(unsafe.SliceData(dst)), &c.dec
	src := unsafe.Pointer(unsafe.SliceData(enc))
	for i := 0; i < len(enc)-1; i += 2 {
		b := (*[2]byte)(unsafe.Add(src, i))
		t := &dec[(uint16(b[0])|uint16(b[1])<<8)&codeMask]
		*(*token)(unsafe.Add(base, p)) = *t
		p += int(t[maxTokenLen])
	}
	return dst[:p]
}

// decode returns prefix followed by the name encoded in enc, as a new
// string: one allocation of the name's size.
func (c *codec) decode(prefix string, enc []byte) string {
	var buf [512]byte
	if len(prefix)+len(enc)/2*len(token{}) > len(buf) {
		return string(c.appendDecoded([]byte(prefix), enc))
	}
	return string(c.appendDecoded(append(buf[:0], prefix...), enc))
}
