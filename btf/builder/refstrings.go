package builder

import (
	"bytes"
	"hash/maphash"
	"io"
	"math/bits"
	"slices"

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
// slot of its index is the output offset (high 32 bits), 8 bits of the
// string's hash and the input offset (low 24 bits); lookups compare
// against the input's bytes, and the string section is written at the
// end by reading each string from the input again, in output order.
type refStrings struct {
	src   *btf.Spec
	strs  []byte // src's string section, from offset 0
	seed  maphash.Seed
	slots []uint64
	mem   *mmap.Region
	count int    // strings indexed
	size  uint32 // bytes of the output's string section
	finds int    // strings looked up, for the tests' work count
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
	t := &refStrings{src: src, strs: strs, seed: maphash.MakeSeed(), size: 1}
	// Every insertion probes before it writes.
	t.slots = mmap.MakePopulated[uint64](size, &t.mem)
	return t
}

// intern returns the output offset of s, the string at input offset off,
// giving it the next one if s is new. The empty string is offset 0.
func (t *refStrings) intern(s []byte, off uint32) (uint32, error) {
	if len(s) == 0 {
		return 0, nil
	}
	t.finds++
	h := maphash.Bytes(t.seed, s)
	i, slot, ok := t.probe(s, h)
	if ok {
		return uint32(slot >> 32), nil
	}
	out := t.size
	if out > wire.MaxNameOffset {
		return 0, errStrings
	}
	if 4*(t.count+1) > 3*len(t.slots) {
		// Names that start inside strings: more than the section's NULs.
		t.grow()
		i, _, _ = t.probe(s, h)
	}
	t.slots[i] = uint64(out)<<32 | slot | uint64(off)
	t.size += uint32(len(s)) + 1
	t.count++
	return out, nil
}

// probe returns the index of the slot of s, of hash h, and the slot, or
// false and the index of the empty slot where s goes and its tag.
func (t *refStrings) probe(s []byte, h uint64) (uint32, uint64, bool) {
	tag := max(h>>56, 1) << refOffBits
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
	t.slots = mmap.MakePopulated[uint64](2*len(old), &t.mem)
	for _, slot := range old {
		if slot != 0 {
			s := strtab.CString(t.strs[slot&refOffMask:])
			i, _, _ := t.probe(s, maphash.Bytes(t.seed, s))
			t.slots[i] = slot
		}
	}
	mmap.Free(&mem)
}

// at reports whether the input string at off is s.
func (t *refStrings) at(off uint32, s []byte) bool {
	rest := t.strs[off:]
	return len(rest) > len(s) && rest[len(s)] == 0 && bytes.Equal(rest[:len(s)], s)
}

// writeTo writes the output's string section to w, reading each string
// from the input's section in output order, and evicting the input's
// pages every evictEvery bytes read. The index is sorted for it: t can
// then only be freed.
func (t *refStrings) writeTo(w io.Writer) error {
	n := 0
	for _, slot := range t.slots {
		if slot != 0 {
			t.slots[n] = slot
			n++
		}
	}
	// By output offset, the slots' high 32 bits, all distinct.
	radixSort(t.slots[:n], 32+uint(bits.Len32(t.size)), 32)
	buf := make([]byte, 1, flushSize+4096)
	read := 0
	for _, slot := range t.slots[:n] {
		s := strtab.CString(t.strs[slot&refOffMask:])
		buf = append(append(buf, s...), 0)
		if read += len(s) + 1; read >= evictEvery {
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

// radixSort sorts a by the bits of its elements from bit lo up to bit hi
// (exclusive; those above are equal), in place: an American flag sort (P.
// McIlroy, K. Bostic, M. D. McIlroy, "Engineering Radix Sort", 1993),
// 8 bits a level, and slices.Sort below 64 elements. The elements must
// differ in those bits: their order below lo is not sorted. For the
// string index it took half of pdqsort's instructions (BENCH.md).
func radixSort(a []uint64, hi, lo uint) {
	if hi > lo {
		radixLevel(a, hi, lo, make([][2][256]int, (hi-lo+7)/8))
	}
}

// radixLevel sorts a as radixSort does, with a bucket count and next
// place per level in scratch. They are not on the stack: frames of 4 KB
// grew the goroutine's stack, whose copy reads the binary's tables of
// every frame and faulted 0.7-1 MB of the binary's released pages back
// (BENCH.md).
func radixLevel(a []uint64, hi, lo uint, scratch [][2][256]int) {
	if len(a) < 64 || hi <= lo {
		slices.Sort(a)
		return
	}
	shift := max(hi, lo+8) - 8
	count, next := &scratch[0][0], &scratch[0][1]
	clear(count[:])
	for _, x := range a {
		count[x>>shift&0xff]++
	}
	sum := 0
	for d, c := range count {
		next[d] = sum
		sum += c
	}
	end := 0
	for d, c := range count {
		// Swap each element of bucket d's part that belongs elsewhere to
		// its bucket's next place, until one of d's comes.
		end += c
		for next[d] < end {
			x := a[next[d]]
			for e := x >> shift & 0xff; int(e) != d; e = x >> shift & 0xff {
				a[next[e]], x = x, a[next[e]]
				next[e]++
			}
			a[next[d]] = x
			next[d]++
		}
	}
	if shift == lo {
		return
	}
	start := 0
	for _, c := range count {
		radixLevel(a[start:start+c], shift, lo, scratch[1:])
		start += c
	}
}

// free gives back the index.
func (t *refStrings) free() { mmap.Free(&t.mem) }
