package layout

import (
	"bytes"
	"hash/maphash"

	"github.com/kmeta-dev/kmeta/btf"
)

// printed is the set of layouts printed so far, by name, for pahole's
// rule of printing a struct only if no struct of its name with the same
// layout was printed (type__compare): an open-addressing table of every
// struct printed, 4 bytes a slot. It holds no pointers, so the collector
// does not scan it: a Go map of names to classes took some 200 bytes a
// struct, and a map of a name's first struct to the others (fwd-storm:
// two structs of each name) kept 30-40 bytes and an allocation for each,
// all scanned at every cycle (BENCH.md).
//
// The structs of one name and layout less the member names make a
// bucket. An anonymous member matches any name, so a struct with one
// (wild) must be compared with the whole bucket, but a struct whose
// members are all named (named) only with the bucket's wild structs and
// its named ones of the same member names. The table keeps the wild
// structs and the first named struct of each bucket (its head) on the
// bucket's probe sequence (home), and the bucket's other named structs on
// the sequence of their member names (names), marked by the slot's top
// bit, and chained from the head (next). A named struct looks on both
// sequences, a wild one walks its home sequence and the head's chain:
// mnames-N, N structs "s" { int a<i>; }, were N*N/2 comparisons when
// every struct of a bucket lay on its home sequence (BENCH.md).
type printed struct {
	seed  maphash.Seed
	slots []btf.TypeID // linear probing; 0 is free
	used  int
	// next chains the named structs of a bucket after its head; only
	// buckets of more than one named struct have an entry, and it is nil
	// until one does.
	next map[btf.TypeID]btf.TypeID
	// compares counts comparisons, for the tests that pin their number.
	compares int
}

// byNames marks a slot holding a struct on its names sequence; type ids
// are below 1<<31 (btf.Parse).
const byNames btf.TypeID = 1 << 31

// newPrinted returns a table for up to n structs before it grows: the
// named structs and unions to print, so that it need not.
func newPrinted(n int) *printed {
	size := max(1024, n*4/3+1) // a load of at most 3/4
	return &printed{seed: maphash.MakeSeed(), slots: make([]btf.TypeID, size)}
}

// add records struct id, whose class is c, and reports whether its
// layout is new under its name.
func (pr *printed) add(p *printer, id btf.TypeID, c *class) bool {
	if 4*(pr.used+1) > 3*len(pr.slots) {
		pr.grow(p)
	}
	home := pr.home(c)
	named := -1 // whether c's members are all named (1) or not (0), once asked
	head := btf.TypeID(0)
	for i := home; ; i = pr.step(i) {
		o := pr.slots[i]
		if o == 0 {
			break
		}
		if o&byNames != 0 || !bytes.Equal(p.typ(o).NameBytes(), c.name) {
			continue
		}
		if pr.same(p, c, o, true) {
			return false
		}
		if named < 0 {
			named = 0
			if p.allNamed(c) {
				named = 1
			}
		}
		if named == 1 {
			// Is o the head of c's bucket (its first named struct)?
			if head == 0 && p.allNamedRecord(o) && pr.same(p, c, o, false) {
				head = o
			}
			continue
		}
		// Only a head has a chain; walk it if it is c's bucket's.
		if _, ok := pr.next[o]; !ok || !pr.same(p, c, o, false) {
			continue
		}
		for n, ok := pr.next[o]; ok; n, ok = pr.next[n] {
			if pr.same(p, c, n, true) {
				return false
			}
		}
	}
	if head == 0 {
		// c has an anonymous member, or is its bucket's first named
		// struct: no struct of its bucket is on the names sequence.
		pr.put(id, home)
		return true
	}
	names := pr.names(p, c, home)
	for i := names; ; i = pr.step(i) {
		o := pr.slots[i]
		if o == 0 {
			break
		}
		if o&byNames == 0 {
			continue
		}
		if o &^= byNames; bytes.Equal(p.typ(o).NameBytes(), c.name) && pr.same(p, c, o, true) {
			return false
		}
	}
	pr.put(id|byNames, names)
	if pr.next == nil {
		pr.next = map[btf.TypeID]btf.TypeID{}
	}
	if n, ok := pr.next[head]; ok {
		pr.next[id] = n
	}
	pr.next[head] = id
	return true
}

// step is the slot after slot i.
func (pr *printed) step(i uint64) uint64 {
	if i++; i == uint64(len(pr.slots)) {
		return 0
	}
	return i
}

// put stores v in the first free slot from i.
func (pr *printed) put(v btf.TypeID, i uint64) {
	for pr.slots[i] != 0 {
		i = pr.step(i)
	}
	pr.slots[i] = v
	pr.used++
}

// same compares c with the struct o, of c's name, by its record if it
// can, else by its class, loaded for the comparison and dropped after
// unless another struct embeds it: it was printed, and only add asks for
// it again. names false compares the layouts only.
func (pr *printed) same(p *printer, c *class, o btf.TypeID, names bool) bool {
	pr.compares++
	same, ok := p.sameRecord(c, o, names)
	if !ok {
		same = p.same(c, p.class(o), names)
		if !p.isEmbedded(o) {
			p.drop(o)
		}
	}
	return same
}

// home returns the first slot of the probe sequence of struct c's
// bucket: the hash of its name and of what of its layout same compares
// but the member names, so that the structs of one name and different
// layouts mostly lie apart: N structs "s" of N sizes were N*N/2
// comparisons (pahole 1.24 finds one in a tree). The hash's top 32 bits
// are scaled to the table, whose size need not be a power of two.
func (pr *printed) home(c *class) uint64 {
	h := maphash.Bytes(pr.seed, c.name)
	h = mix(h, uint64(c.size)<<32|uint64(len(c.members)))
	for i := range c.members {
		m := &c.members[i]
		h = mix(h, uint64(m.bitfieldSize)<<32|uint64(m.bitOffset))
	}
	return pr.scale(h)
}

// names returns the first slot of the probe sequence of the named
// struct c, whose bucket's is home: the hash of home and c's member
// names.
func (pr *printed) names(p *printer, c *class, home uint64) uint64 {
	h := home
	for i := range c.members {
		h = mix(h, maphash.Bytes(pr.seed, p.memberName(c, i)))
	}
	return pr.scale(h)
}

// scale maps the hash h to a slot.
func (pr *printed) scale(h uint64) uint64 {
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
	pr.used = 0
	for _, v := range old {
		if v == 0 {
			continue
		}
		id := v &^ byNames
		c := p.class(id)
		i := pr.home(c)
		if v&byNames != 0 {
			i = pr.names(p, c, i)
		}
		if !p.isEmbedded(id) {
			p.drop(id)
		}
		pr.put(v, i)
	}
}

// allNamed reports whether every member of c has a name.
func (p *printer) allNamed(c *class) bool {
	for i := range c.members {
		if p.memberName(c, i) == nil {
			return false
		}
	}
	return true
}

// allNamedRecord is allNamed for the struct o as its record gives it.
func (p *printer) allNamedRecord(o btf.TypeID) bool {
	t := p.typ(o)
	for i := range t.Vlen() {
		if t.Member(i).NameBytes() == nil {
			return false
		}
	}
	return true
}

// sameRecord is same for c and the struct o as its record gives it,
// without loading o's class: ok is false if o has a bitfield before a
// difference is found, whose offset load may move.
func (p *printer) sameRecord(c *class, o btf.TypeID, names bool) (same, ok bool) {
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
		if names && an != nil && bn != nil && !bytes.Equal(an, bn) {
			return false, true
		}
	}
	return true, true
}
