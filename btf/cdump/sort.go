package cdump

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
)

// The sorted order of bpftool 7.5's "btf dump ... format c" (bpftool's
// sort_btf_c and btf_type_compare, tools/bpf/bpftool/btf.c of Linux 6.12):
// every type of the Spec chain, void included, is sorted by
//
//  1. a rank: anonymous enums first, then named enums, integers and floats,
//     named structs and unions, named function prototypes, and everything
//     else; typedefs, qualifiers, pointers and arrays with a name anywhere
//     along their chain take the rank of what they lead to;
//  2. a sort name: the type's own name, or for typedefs, qualifiers,
//     pointers and arrays the name of what they lead to, or for an anonymous
//     enum its first enumerator's name;
//  3. the type's own name;
//  4. a hash of the names in the type (enumerators, members and their
//     types' names, array lengths), which keeps structs of the same name
//     apart;
//  5. the type id.
//
// Names compare as C's strcmp does, byte by byte.

// Ranks of btf_type_rank.
const (
	rankAnonEnum = 0
	rankEnum     = 1
	rankScalar   = 2
	rankRecord   = 3
	rankProto    = 4
	rankOther    = 10
)

// sortKey is what the sort compares of one type: 24 bytes per type, names
// kept as offsets into the string sections.
type sortKey struct {
	id       btf.TypeID
	sortName uint32
	ownName  uint32
	rank     uint32
	hash     uint64
}

// sortedIDs returns the keys of every type of the Spec chain, void
// included, in bpftool 7.5's sorted order.
func (d *dumper) sortedIDs() ([]sortKey, error) {
	keys := make([]sortKey, d.n)
	for i := range keys {
		id := btf.TypeID(i)
		t := d.typ(id)
		keys[i] = sortKey{
			id:       id,
			rank:     d.sortRank(id),
			sortName: d.sortName(id),
			ownName:  t.nameOff(),
			hash:     d.sortHash(id, true, 0),
		}
		if d.err != nil {
			return nil, d.err
		}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if a.rank != b.rank {
			return int(a.rank) - int(b.rank)
		}
		if c := bytes.Compare(d.strs.name(a.sortName), d.strs.name(b.sortName)); c != 0 {
			return c
		}
		if c := bytes.Compare(d.strs.name(a.ownName), d.strs.name(b.ownName)); c != 0 {
			return c
		}
		switch {
		case a.hash < b.hash:
			return -1
		case a.hash > b.hash:
			return 1
		}
		return int(a.id) - int(b.id)
	})
	return keys, nil
}

// sortRank is bpftool's btf_type_rank: a name met anywhere from id down
// the chain of typedefs, qualifiers, pointers and arrays makes the chain
// take the rank of the type it ends at.
func (d *dumper) sortRank(id btf.TypeID) uint32 {
	hasName := false
	for n := 0; n <= maxDepth; n++ {
		t := d.typ(id)
		if t.nameOff() != 0 {
			hasName = true
		}
		switch t.kind() {
		case btf.KindEnum, btf.KindEnum64:
			if hasName {
				return rankEnum
			}
			return rankAnonEnum
		case btf.KindInt, btf.KindFloat:
			return rankScalar
		case btf.KindStruct, btf.KindUnion:
			if hasName {
				return rankRecord
			}
			return rankOther
		case btf.KindFuncProto:
			if hasName {
				return rankProto
			}
			return rankOther
		case btf.KindArray:
			if !hasName {
				return rankOther
			}
			id = t.arrayElem()
		case btf.KindTypeTag, btf.KindConst, btf.KindPointer, btf.KindVolatile,
			btf.KindRestrict, btf.KindTypedef, btf.KindDeclTag:
			if !hasName {
				return rankOther
			}
			id = t.ref()
		default:
			return rankOther
		}
		if !d.step(id) {
			return rankOther
		}
	}
	d.failDeep(id, "type chain too long to sort")
	return rankOther
}

// sortName is bpftool's btf_type_sort_name: the name offset of the type
// that id's chain of typedefs, qualifiers, pointers and arrays ends at; an
// anonymous enum sorts by its first enumerator, unless reached through
// such a chain.
func (d *dumper) sortName(id btf.TypeID) uint32 {
	fromRef := false
	for n := 0; n <= maxDepth; n++ {
		t := d.typ(id)
		switch t.kind() {
		case btf.KindEnum, btf.KindEnum64:
			off := t.nameOff()
			if !fromRef && off == 0 && t.vlen() > 0 {
				off, _ = t.enumValue(0)
			}
			return off
		case btf.KindArray:
			id = t.arrayElem()
		case btf.KindTypeTag, btf.KindConst, btf.KindPointer, btf.KindVolatile,
			btf.KindRestrict, btf.KindTypedef, btf.KindDeclTag:
			id = t.ref()
		default:
			return t.nameOff()
		}
		fromRef = true
		if !d.step(id) {
			return 0
		}
	}
	d.failDeep(id, "type chain too long to sort")
	return 0
}

// sortHash is bpftool's btf_type_disambig_hash: h*31+v over the type's
// name, its enumerators' names, its members' names and (without their own
// members) types, and what typedefs, qualifiers, pointers and arrays lead
// to, with array lengths. Names hash as libbpf's str_hash, whose char is
// signed on x86.
func (d *dumper) sortHash(id btf.TypeID, members bool, depth int) uint64 {
	if depth > maxDepth {
		d.failDeep(id, "type chain too long to sort")
		return 0
	}
	if !d.step(id) {
		return 0
	}
	t := d.typ(id)
	h := d.nameHash(0, t.nameOff())
	switch t.kind() {
	case btf.KindEnum, btf.KindEnum64:
		for i := range t.vlen() {
			off, _ := t.enumValue(i)
			h = d.nameHash(h, off)
		}
	case btf.KindStruct, btf.KindUnion:
		if !members {
			break
		}
		for i := range t.vlen() {
			name, typ, _, _ := t.member(i)
			h = d.nameHash(h, name)
			h = h*31 + d.sortHash(typ, false, depth+1)
		}
	case btf.KindTypeTag, btf.KindConst, btf.KindPointer, btf.KindVolatile,
		btf.KindRestrict, btf.KindTypedef, btf.KindDeclTag:
		h = h*31 + d.sortHash(t.ref(), members, depth+1)
	case btf.KindArray:
		h = h*31 + uint64(t.arrayLen())
		h = h*31 + d.sortHash(t.arrayElem(), members, depth+1)
	}
	return h
}

// nameHash folds the name at off into h (bpftool's btf_name_hasher); the
// empty name leaves h as it is.
func (d *dumper) nameHash(h uint64, off uint32) uint64 {
	if off == 0 {
		return h
	}
	var s uint64
	for _, c := range d.strs.name(off) {
		s = s*31 + uint64(int64(int8(c)))
	}
	return h*31 + s
}

// kfuncTag is the DECL_TAG that marks a kernel function callable from BPF
// (pahole's decl_tag_kfuncs, resolve_btfids --btf).
const kfuncTag = "bpf_kfunc"

// emitKfuncs prints bpftool 7.5's block of kfunc prototypes (bpftool's
// dump_btf_kfuncs): an extern declaration for the FUNC of every DECL_TAG
// "bpf_kfunc" on a whole function, in the order of the tags' ids, base
// types included. bpftool 7.5 does not sort them by name (later versions
// do), nor dedupe a function tagged twice.
func (d *dumper) emitKfuncs() error {
	d.o.str("\n/* BPF kfuncs */\n#ifndef BPF_NO_KFUNC_PROTOTYPES\n")
	for id := 1; id < d.n; id++ {
		t := d.typ(btf.TypeID(id))
		if t.kind() != btf.KindDeclTag || t.declTagComponent() != -1 ||
			string(d.name(t)) != kfuncTag {
			continue
		}
		fn := d.typ(t.ref())
		if fn.kind() != btf.KindFunc {
			continue
		}
		d.o.str("extern ")
		d.emitTypeDecl(fn.ref(), d.name(fn), 0)
		d.o.str(" __weak __ksym;\n")
		if d.err != nil {
			return d.err
		}
		if d.o.err != nil {
			return fmt.Errorf("cdump: %w", d.o.err)
		}
	}
	d.o.str("#endif\n\n")
	return nil
}
