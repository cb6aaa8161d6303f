package dedup

import "github.com/kmeta-dev/kmeta/btf"

// refTable indexes the canonical reference types of the reference pass
// (refType) by their words, once their references are canonical.
//
// libbpf files them in its dedup_table with every other kind, and the
// order of a bucket's candidates matters for structs (see table). It
// does not here: two canonical reference types are never equal word for
// word (the second would have matched the first), so at most one
// candidate matches, whatever the order. A table of its own, probed once
// per type, spares the reference pass the shared table's chains and a read
// of the candidate's record: most reference types are three words
// (pointers, qualifiers, typedefs, functions), which its slots hold whole.
// The pass is serial, after the encoding of a vmlinux, where it took 0.22 s
// for 2.6 million reference types.
type refTable struct {
	slots []refSlot
	n     int
}

type refSlot struct {
	h uint64
	// w holds a three-word record whole; it is zeros for the others (a
	// reference type's info word is never 0), which are compared with
	// their records.
	w  [3]uint32
	id uint32 // 0: empty (void is never a reference type)
}

// find returns the canonical type equal to r, a reference type whose
// references are canonical, or files id as canonical and returns it.
func (t *refTable) find(d *state, r record, id uint32) uint32 {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	h := hashAll(r)
	var w [3]uint32
	if len(r) == 3 {
		w = [3]uint32{r[0], r[1], r[2]}
	}
	mask := uint64(len(t.slots) - 1)
	for i := h >> 32 & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		switch {
		case s.id == 0:
			*s = refSlot{h: h, w: w, id: id}
			t.n++
			return id
		case s.h != h || s.w != w:
		case w[1] != 0 || equalAll(r, d.rec(s.id)):
			return s.id
		}
	}
}

func (t *refTable) grow() {
	old := t.slots
	t.slots = make([]refSlot, max(1<<10, 2*len(old)))
	mask := uint64(len(t.slots) - 1)
	for _, e := range old {
		if e.id == 0 {
			continue
		}
		i := e.h >> 32 & mask
		for t.slots[i].id != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = e
	}
}

// baseRef returns the base's type equal to r, a reference type (own type
// id) whose references are canonical, if any: filed in the base's table
// as libbpf files it.
func (d *state) baseRef(r record, id uint32) (uint32, bool) {
	under := d.tab.under
	if under == nil {
		return 0, false
	}
	h := hashAll(r)
	if kindOf(r) == btf.KindTypedef {
		// libbpf 1.1 deduplicates typedefs here, equal word for word;
		// the Base files its typedefs under their struct-pass key
		// (libbpf 1.8's), which equal typedefs share.
		h = structKey(r, d.topSig(id))
	}
	if under.head(h) == 0 {
		return 0, false
	}
	for c := range under.candidates(h) {
		if equalAll(r, d.rec(c)) {
			return c, true
		}
	}
	return 0, false
}
