package dedup

import "github.com/kmeta-dev/kmeta/btf"

// libbpf files every ENUM and ENUM64 under its name alone (btf_hash_enum),
// so that a declaration (vlen 0) meets the definitions of its name; all
// anonymous enums share one list, and each new one is compared with every
// earlier one. Two more indexes give the same result without the walk:
// definitions by all their words, declarations by name. Both keep each
// entry's place in libbpf's list (epoch and sequence number), so the
// first equal definition and the declarations libbpf meets before it are
// found as libbpf finds them.
type enumIndex struct {
	defs, decls *table
}

func newEnumIndex(under *enumIndex) enumIndex {
	if under == nil {
		return enumIndex{newTable(nil, 0), newTable(nil, 0)}
	}
	return enumIndex{newTable(under.defs, 0), newTable(under.decls, 0)}
}

// file records canonical enum r, just added to the main table as e.
func (x *enumIndex) file(r record, e entry) {
	if isEnumFwd(r) {
		x.decls.file(hashEnum(r), e)
	} else {
		x.defs.file(hashAll(r), e)
	}
}

// enumType deduplicates an ENUM or ENUM64, as the enum case of
// btf_dedup_prim_type.
func (d *state) enumType(id uint32, r record) uint32 {
	h := hashEnum(r)
	if isEnumFwd(r) {
		// Every enum of the same name is compatible: the first one wins.
		for c := range d.tab.candidates(hashKey(h)) {
			if compatEnum(r, d.rec(c)) {
				return c
			}
		}
		return id
	}
	grows := d.tab.grows
	var eq entry
	found := false
	for e := range d.enums.defs.entries(hashAll(r), grows) {
		if equalAll(r, d.rec(e.id)) {
			eq, found = e, true
			break
		}
	}
	// The declarations libbpf meets before the definition it takes (or
	// all, if none) are resolved to this definition.
	for e := range d.enums.decls.entries(h, grows) {
		if found && !before(e, eq, grows) {
			break
		}
		if compatEnum(r, d.rec(e.id)) {
			d.set(e.id, id)
		}
	}
	if found {
		return eq.id
	}
	return id
}

// addCanonical files a canonical type in the main table, and an enum in
// the enum index too.
func (d *state) addCanonical(h uint64, id uint32, r record) {
	d.tab.add(h, id)
	if k := kindOf(r); k == btf.KindEnum || k == btf.KindEnum64 {
		d.enums.file(r, d.tab.ents[len(d.tab.ents)-1])
	}
}
