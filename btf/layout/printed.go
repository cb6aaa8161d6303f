package layout

import (
	"bytes"
	"hash/maphash"

	"github.com/kmeta-dev/kmeta/btf"
)

// printed is the set of layouts printed so far, by name, for pahole's
// rule of printing a struct only if no struct of its name with the same
// layout was printed (type__compare): an open-addressing table of every
// struct printed, 4 bytes a slot, where the structs of one name and
// layout (less member names) lie on one probe sequence (home). It holds no pointers, so the
// collector does not scan it: a Go map of names to classes took some 200
// bytes a struct, and a map of a name's first struct to the others
// (fwd-storm: two structs of each name) kept 30-40 bytes and an
// allocation for each, all scanned at every cycle (BENCH.md).
type printed struct {
	seed  maphash.Seed
	slots []btf.TypeID // linear probing; 0 is free
	used  int
}

// newPrinted returns a table for up to n structs before it grows: the
// named structs and unions to print, so that it need not.
func newPrinted(n int) *printed {
	size := max(1024, n*4/3+1) // a load of at most 3/4
	return &printed{seed: maphash.MakeSeed(), slots: make([]btf.TypeID, size)}
}

// add records struct id, whose class is c, and reports whether its
// layout is new under its name. A struct compared with c is loaded for
// the comparison and dropped after unless another struct embeds it: it
// was printed, and only add asks for it again.
func (pr *printed) add(p *printer, id btf.TypeID, c *class) bool {
	if 4*(pr.used+1) > 3*len(pr.slots) {
		pr.grow(p)
	}
	n := uint64(len(pr.slots))
	for i := pr.home(c); ; i++ {
		if i == n {
			i = 0
		}
		o := pr.slots[i]
		if o == 0 {
			pr.slots[i] = id
			pr.used++
			return true
		}
		if !bytes.Equal(p.typ(o).NameBytes(), c.name) {
			continue
		}
		same, ok := p.sameRecord(c, o)
		if !ok {
			same = p.same(c, p.class(o))
			if !p.isEmbedded(o) {
				p.drop(o)
			}
		}
		if same {
			return false
		}
	}
}

// home returns the first slot of the probe sequence of struct c: the hash
// of its name and of what of its layout same compares but the member
// names (an anonymous member matches any name), so that the structs of
// one name and different layouts mostly lie apart: N structs "s" of N
// sizes were N*N/2 comparisons (pahole 1.24 finds one in a tree). The
// hash's top 32 bits are scaled to the table, whose size need not be a
// power of two.
func (pr *printed) home(c *class) uint64 {
	h := maphash.Bytes(pr.seed, c.name)
	h = mix(h, uint64(c.size)<<32|uint64(len(c.members)))
	for i := range c.members {
		m := &c.members[i]
		h = mix(h, uint64(m.bitfieldSize)<<32|uint64(m.bitOffset))
	}
	return (h >> 32) * uint64(len(pr.slots)) >> 32
}

// mix adds v to the hash h: a multiply by the 64-bit golden ratio and a
// fold of the high bits (Fibonacci hashing); the name's hash is seeded.
func mix(h, v uint64) uint64 {
	h = (h ^ v) * 0x9e3779b97f4a7c15
	return h ^ h>>29
}

// grow doubles the table, loading each struct's class for its hash
// (newPrinted sizes the table for every named struct: it does not grow).
func (pr *printed) grow(p *printer) {
	old := pr.slots
	pr.slots = make([]btf.TypeID, 2*len(old))
	n := uint64(len(pr.slots))
	for _, id := range old {
		if id == 0 {
			continue
		}
		i := pr.home(p.class(id))
		if !p.isEmbedded(id) {
			p.drop(id)
		}
		for pr.slots[i] != 0 {
			if i++; i == n {
				i = 0
			}
		}
		pr.slots[i] = id
	}
}

// sameRecord is same for c and the struct o as its record gives it,
// without loading o's class: ok is false if o has a bitfield before a
// difference is found, whose offset load may move.
func (p *printer) sameRecord(c *class, o btf.TypeID) (same, ok bool) {
	t := p.typ(o)
	if c.size != t.Size() || len(c.members) != t.Vlen() {
		return false, true
	}
	for i := range c.members {
		m := t.Member(i)
		if uint8(m.BitfieldSize) != 0 {
			return false, false
		}
		a := &c.members[i]
		if a.bitfieldSize != 0 || a.bitOffset != m.BitOffset {
			return false, true
		}
		an, bn := p.memberName(c, i), m.NameBytes()
		if an != nil && bn != nil && !bytes.Equal(an, bn) {
			return false, true
		}
	}
	return true, true
}
