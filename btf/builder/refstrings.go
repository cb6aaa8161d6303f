package builder

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"
	"math/rand/v2"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// refStrings is the string table of a WriteCopy whose one input's strings
// are not laid out in place (see inPlace): it interns as strTable does,
// giving each distinct string the next output offset on first use, but
// holds no string bytes. Every output string is an input string, so a
// slot of its index is 8 bits of the string's hash and the input offset
// (low 24 bits); lookups compare against the input's bytes, and the
// string section is written at the end by reading each string from the
// input again, in output order.
//
// Beside the index, each string that starts the input's section has a
// place in a table of output offsets, found from its input offset by the
// rank of a bit that marks where strings start (known): a name met again
// is answered without reading, hashing or probing it, and in either read
// of WriteCopy; a string found in the index has its output offset there
// (or, for the rare name that starts inside a string, in inner). The
// input offsets of the output's strings are kept in output order (order),
// so that the section is written without sorting.
type refStrings struct {
	src    *btf.Spec
	strs   []byte // src's string section, from offset 0
	seed   uint64
	slots  []uint32
	inner  map[uint32]uint32 // output offsets of strings indexed where none starts
	starts []uint64          // a bit a byte of strs: a string starts there
	ranks  []uint32          // per word of starts, the bits set before it
	outs   []uint32          // per string starting strs, by rank: its output offset; 0 not yet
	order  []uint32          // the output's strings in output order: orderEntry
	mem    *mmap.Region
	memo   *mmap.Region // starts, ranks and outs
	ordMem *mmap.Region
	count  int    // strings indexed
	size   uint32 // bytes of the output's string section
	finds  int    // strings looked up, for the tests' work count
}

// Slot layout of refStrings.
const (
	refOffBits = 24
	refOffMask = 1<<refOffBits - 1
	refTagMask = 0xff << refOffBits
)

// newRefStrings returns the table for src, whose own string section
// must start at offset 0, with an index for every string in it, or nil
// if the section is larger than a slot's input offset holds.
func newRefStrings(src *btf.Spec) *refStrings {
	strs, _ := src.StringSection()
	if len(strs) > refOffMask+1 {
		return nil
	}
	n, size := bytes.Count(strs, []byte{0}), 64
	for 3*size < 4*n {
		size *= 2
	}
	t := &refStrings{src: src, strs: strs, seed: rand.Uint64(), size: 1}
	// Every insertion probes before it writes.
	t.slots = mmap.MakePopulated[uint32](size, &t.mem)
	t.order = mmap.Make[uint32](n, &t.ordMem)[:0]
	t.markStarts(n)
	return t
}

// markStarts fills starts and ranks for the n strings of the section,
// and makes room in outs for them (and one more: place answers 0 for an
// offset where no string starts, and a section whose last byte is not a
// NUL has n+1 starts). The three share one mapping: starts and ranks
// are written whole, outs as names are met.
func (t *refStrings) markStarts(n int) {
	n++
	words := (len(t.strs) + 63) / 64
	all := mmap.Make[uint64](words+(words+1)/2+(n+1)/2, &t.memo)
	t.starts = all[:words:words]
	ranks := all[words : words+(words+1)/2]
	t.ranks = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(ranks))), words)
	outs := all[words+(words+1)/2:]
	t.outs = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(outs))), n)
	t.markNULs()
	r := uint32(0)
	for w, word := range t.starts {
		t.ranks[w] = r
		r += uint32(bits.OnesCount64(word))
	}
}

// markNULs sets the bits of starts: offset 0, and every offset after a
// NUL of the section. The NULs are found 8 bytes at a time (a word's zero
// bytes by A. Mycroft's test, made exact, then gathered to a bit each by
// a multiplication that moves byte j's bit to bit 56+j without carries):
// a search for each NUL (IndexByte) cost a call a string, 73
// instructions a string on 270,000 names of 6 bytes (BENCH.md).
func (t *refStrings) markNULs() {
	const lows, highs = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	strs, carry := t.strs, uint64(1) // offset 0 starts a string
	for w := range t.starts {
		var zeros uint64 // bit j: byte 64w+j is a NUL
		if chunk := strs[64*w:]; len(chunk) >= 64 {
			for g := range 8 {
				x := binary.LittleEndian.Uint64(chunk[8*g:])
				if z := ^((x&lows + lows) | x | lows) & highs; z != 0 {
					zeros |= (z >> 7 * 0x0102040810204080 >> 56) << (8 * g)
				}
			}
		} else {
			for j, c := range chunk {
				if c == 0 {
					zeros |= 1 << j
				}
			}
		}
		t.starts[w] = zeros<<1 | carry
		carry = zeros >> 63
	}
	// No string starts at the section's end.
	if r := len(strs) % 64; r != 0 {
		t.starts[len(t.starts)-1] &= 1<<r - 1
	}
}

// place returns the index in outs of the string at input offset off, or
// false if no string of the section starts there.
func (t *refStrings) place(off uint32) (uint32, bool) {
	w := off >> 6
	if w >= uint32(len(t.starts)) {
		return 0, false
	}
	word, bit := t.starts[w], uint64(1)<<(off&63)
	if word&bit == 0 {
		return 0, false
	}
	return t.ranks[w] + uint32(bits.OnesCount64(word&(bit-1))), true
}

// known returns the output offset of the string at input offset off, if
// a name met before gave it one. (An offset where no string starts has
// place 0, the empty string's, whose entry stays 0: intern gives "" no
// place.)
func (t *refStrings) known(off uint32) (uint32, bool) {
	i, _ := t.place(off)
	v := t.outs[i]
	return v, v != 0
}

// intern returns the output offset of s, the string at input offset off,
// giving it the next one if s is new. The empty string is offset 0.
func (t *refStrings) intern(s []byte, off uint32) (uint32, error) {
	i, start := t.place(off)
	v, err := t.add(s, off, start)
	if start && err == nil {
		t.outs[i] = v
	}
	return v, err
}

// first is intern for the string at input offset off, where a string
// starts (place i), met for the first time: its length is where the next
// string starts, and its output offset goes to its place. It is add with
// the lookup written out, the string's end found in its word of starts:
// the path of every new name of a copy by reference, it cost 4 calls and
// about 200 instructions a name of 6 bytes as add (BENCH.md).
func (t *refStrings) first(i, off uint32) (uint32, error) {
	var end uint32
	if m := t.starts[off>>6] >> (off & 63) >> 1; m != 0 {
		end = off + uint32(bits.TrailingZeros64(m))
	} else {
		end = t.nextStart(off) - 1
	}
	if end == off {
		return 0, nil
	}
	s := t.strs[off:end]
	h := uint64(0)
	if len(s) > 8 {
		h = longHash(s, t.seed)
	} else { // nameHash, in line
		h = tailHash(s, t.seed^uint64(len(s))*hashM1, t.seed)
	}
	tag := uint32(max(h>>56, 1)) << refOffBits
	slots := t.slots
	mask := uint32(len(slots) - 1)
	j := uint32(h) & mask
	for ; slots[j&mask] != 0; j++ {
		if slots[j&mask]&refTagMask == tag {
			// Perhaps there already: add, from the start.
			return t.firstSlow(i, off, s)
		}
	}
	n := end - off
	out := t.size
	if out+n >= wire.MaxStrLen || 4*(t.count+1) > 3*len(slots) ||
		len(t.order) == cap(t.order) || n >= orderLenMax {
		return t.firstSlow(i, off, s)
	}
	// add's insertion, where it neither grows nor fails.
	t.finds++
	slots[j&mask] = tag | off
	t.size += n + 1
	t.count++
	t.order = append(t.order, off|n<<refOffBits)
	t.outs[i] = out
	return out, nil
}

// firstSlow is first through add: for a string whose tag is in the
// index already, or whose insertion grows the index or fails.
func (t *refStrings) firstSlow(i, off uint32, s []byte) (uint32, error) {
	v, err := t.add(s, off, true)
	t.outs[i] = v
	return v, err
}

// nextStart returns the offset of the first string that starts after
// input offset off, or the section's length if none does.
func (t *refStrings) nextStart(off uint32) uint32 {
	w := off >> 6
	if m := t.starts[w] >> (off & 63) >> 1; m != 0 {
		return off + 1 + uint32(bits.TrailingZeros64(m))
	}
	for w++; w < uint32(len(t.starts)); w++ {
		if m := t.starts[w]; m != 0 {
			return w<<6 + uint32(bits.TrailingZeros64(m))
		}
	}
	return uint32(len(t.strs))
}

// add is intern without keeping the output offset in its place; start
// says whether a string starts at off (place).
func (t *refStrings) add(s []byte, off uint32, start bool) (uint32, error) {
	if len(s) == 0 {
		return 0, nil
	}
	t.finds++
	h := nameHash(s, t.seed)
	i, slot, ok := t.probe(s, h)
	if ok {
		return t.outputOf(slot & refOffMask), nil
	}
	return t.insert(i, slot|off, s, h, start)
}

// insert gives s, of hash h, new to the index, the next output offset,
// in the empty slot i with the tag and input offset of slot; start says
// whether a string starts at its input offset (place).
func (t *refStrings) insert(i, slot uint32, s []byte, h uint64, start bool) (uint32, error) {
	out := t.size
	// Output offsets are not slots: the section may pass the kernel's
	// 2^24 bytes (names inside strings add to it) up to libbpf's limit.
	if uint64(out)+uint64(len(s))+1 > wire.MaxStrLen {
		return 0, errStrings
	}
	if 4*(t.count+1) > 3*len(t.slots) {
		// Names that start inside strings: more than the section's NULs.
		t.grow()
		i, _, _ = t.probe(s, h)
	}
	t.slots[i] = slot
	off := slot & refOffMask
	if !start {
		if t.inner == nil {
			t.inner = make(map[uint32]uint32)
		}
		t.inner[off] = out
	}
	t.size += uint32(len(s)) + 1
	t.count++
	if len(t.order) == cap(t.order) {
		t.order = mmap.Append(t.order, 1, &t.ordMem)
	}
	t.order = append(t.order, off|uint32(min(len(s), orderLenMax))<<refOffBits)
	return out, nil
}

// nameHash returns the hash of s (not empty) under seed: a multiply-mix
// of its 8-byte words, as wyhash (W. Yi, 2019) and the runtime's
// fallback memhash mix them, with the tail read as two overlapping
// halves. It is about 23 instructions for a kernel name of 6 bytes,
// where maphash.Bytes cost about 45 a name of 6 bytes, in calls
// (BENCH.md); the seed is random, as maphash's, so an input cannot
// choose its collisions.
func nameHash(s []byte, seed uint64) uint64 {
	if len(s) > 8 {
		return longHash(s, seed)
	}
	return tailHash(s, seed^uint64(len(s))*hashM1, seed)
}

// Multipliers of nameHash (wyhash's).
const hashM1, hashM2 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db

// longHash is nameHash of a string longer than 8 bytes: its words mixed
// in turn, then its tail.
func longHash(s []byte, seed uint64) uint64 {
	h := seed ^ uint64(len(s))*hashM1
	for len(s) > 8 {
		h = mix(h^binary.LittleEndian.Uint64(s), hashM2)
		s = s[8:]
	}
	return tailHash(s, h, seed)
}

// tailHash mixes into h the last 1 to 8 bytes of a string, s. It is
// small enough to be inlined.
func tailHash(s []byte, h, seed uint64) uint64 {
	var v uint64
	if n := len(s); n >= 4 {
		v = uint64(binary.LittleEndian.Uint32(s)) | uint64(binary.LittleEndian.Uint32(s[n-4:]))<<32
	} else {
		v = uint64(s[0]) | uint64(s[n>>1])<<8 | uint64(s[n-1])<<16
	}
	return mix(h^v, hashM2^seed)
}

// mix returns the two halves of a*b folded by exclusive or.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// probe returns the index of the slot of s, of hash h, and the slot, or
// false and the index of the empty slot where s goes and its tag.
func (t *refStrings) probe(s []byte, h uint64) (uint32, uint32, bool) {
	tag := uint32(max(h>>56, 1)) << refOffBits
	mask := uint32(len(t.slots) - 1)
	for i := uint32(h) & mask; ; i = (i + 1) & mask {
		slot := t.slots[i]
		if slot == 0 {
			return i, tag, false
		}
		if slot&refTagMask == tag && t.at(uint32(slot&refOffMask), s) {
			return i, slot, true
		}
	}
}

// grow doubles the index.
func (t *refStrings) grow() {
	old, mem := t.slots, t.mem
	t.mem = nil
	t.slots = mmap.MakePopulated[uint32](2*len(old), &t.mem)
	for _, slot := range old {
		if slot != 0 {
			s := strtab.CString(t.strs[slot&refOffMask:])
			i, _, _ := t.probe(s, nameHash(s, t.seed))
			t.slots[i] = slot
		}
	}
	mmap.Free(&mem)
}

// outputOf returns the output offset of the indexed string at input
// offset off: its place's (the caller of add keeps it there at once), or
// inner's.
func (t *refStrings) outputOf(off uint32) uint32 {
	if i, ok := t.place(off); ok {
		return t.outs[i]
	}
	return t.inner[off]
}

// at reports whether the input string at off is s.
func (t *refStrings) at(off uint32, s []byte) bool {
	rest := t.strs[off:]
	return len(rest) > len(s) && rest[len(s)] == 0 && bytes.Equal(rest[:len(s)], s)
}

// writeTo writes the output's string section to w, reading each string
// from the input's section in output order, and evicting the input's
// pages every evictEvery bytes read.
func (t *refStrings) writeTo(w io.Writer) error {
	buf := make([]byte, 1, flushSize+4096)
	read := 0
	for k := 0; k < len(t.order); {
		// A run of strings laid out in the input as in the output is
		// copied at once, with their NULs.
		off, n := t.orderEntry(k)
		end := off + n + 1
		for k++; k < len(t.order); k++ {
			e := t.order[k]
			if e&refOffMask != end {
				break
			}
			if n = e >> refOffBits; n == orderLenMax {
				_, n = t.orderEntry(k)
			}
			end += n + 1
		}
		buf = append(buf, t.strs[off:end]...)
		if read += int(end - off); read >= evictEvery {
			btfmem.Evict(t.src)
			read = 0
		}
		if len(buf) >= flushSize {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}

// orderLenMax is the length from which an entry of order does not hold
// its string's length: a word holds the input offset (refOffBits) and the
// length below it, which kernel names are.
const orderLenMax = 1<<(32-refOffBits) - 1

// orderEntry returns the input offset and the length of the k-th string
// of the output.
func (t *refStrings) orderEntry(k int) (off, n uint32) {
	e := t.order[k]
	off, n = e&refOffMask, e>>refOffBits
	if n == orderLenMax {
		n = uint32(len(strtab.CString(t.strs[off:])))
	}
	return off, n
}

// free gives back the index.
func (t *refStrings) free() { mmap.Free(&t.mem, &t.memo, &t.ordMem) }
