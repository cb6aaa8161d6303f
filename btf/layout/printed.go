package layout

import (
	"bytes"
	"hash/maphash"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
)

// printed is the set of layouts printed so far, by name, for pahole's
// rule of printing a struct only if no struct of its name with the same
// layout was printed (type__compare): an open-addressing table of the
// first struct printed under each name, 4 bytes a slot, and apart the
// other layouts of the names that have several. A Go map of names to
// classes took some 200 bytes a struct.
type printed struct {
	seed  maphash.Seed
	slots []btf.TypeID // linear probing; 0 is free
	used  int
	more  map[btf.TypeID][]btf.TypeID // first of a name -> the others printed
}

// newPrinted returns a table for up to n names before it grows: the
// named structs and unions to print, so that it need not.
func newPrinted(n int) *printed {
	size := max(1024, n*4/3+1) // a load of at most 3/4
	return &printed{seed: maphash.MakeSeed(), slots: make([]btf.TypeID, size), more: make(map[btf.TypeID][]btf.TypeID)}
}

// add records struct id, whose class is c, and reports whether its
// layout is new under its name.
func (pr *printed) add(p *printer, id btf.TypeID, c *class) bool {
	if 4*(pr.used+1) > 3*len(pr.slots) {
		pr.grow(p)
	}
	i := pr.find(p, c.name)
	first := pr.slots[i]
	if first == 0 {
		pr.slots[i] = id
		pr.used++
		return true
	}
	if p.same(c, p.class(first)) || slices.ContainsFunc(pr.more[first], func(o btf.TypeID) bool { return p.same(c, p.class(o)) }) {
		return false
	}
	pr.more[first] = append(pr.more[first], id)
	return true
}

// find returns the slot of name: the one that holds its first struct, or
// the free one where it goes.
func (pr *printed) find(p *printer, name []byte) int {
	// The hash's top 32 bits scaled to the table, whose size need not be
	// a power of two.
	n := uint64(len(pr.slots))
	for i := (maphash.Bytes(pr.seed, name) >> 32) * n >> 32; ; i++ {
		if i == n {
			i = 0
		}
		if id := pr.slots[i]; id == 0 || bytes.Equal(p.typ(id).NameBytes(), name) {
			return int(i)
		}
	}
}

// grow doubles the table.
func (pr *printed) grow(p *printer) {
	old := pr.slots
	pr.slots = make([]btf.TypeID, 2*len(old))
	for _, id := range old {
		if id != 0 {
			pr.slots[pr.find(p, p.typ(id).NameBytes())] = id
		}
	}
}
