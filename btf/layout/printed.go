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

func newPrinted() *printed {
	return &printed{seed: maphash.MakeSeed(), slots: make([]btf.TypeID, 1024), more: make(map[btf.TypeID][]btf.TypeID)}
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
	if c.same(p.class(first)) || slices.ContainsFunc(pr.more[first], func(o btf.TypeID) bool { return c.same(p.class(o)) }) {
		return false
	}
	pr.more[first] = append(pr.more[first], id)
	return true
}

// find returns the slot of name: the one that holds its first struct, or
// the free one where it goes.
func (pr *printed) find(p *printer, name []byte) int {
	mask := len(pr.slots) - 1
	for i := int(maphash.Bytes(pr.seed, name)) & mask; ; i = (i + 1) & mask {
		if id := pr.slots[i]; id == 0 || bytes.Equal(p.typ(id).NameBytes(), name) {
			return i
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
