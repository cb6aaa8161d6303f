package cdump

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
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
//
// The id last makes this a total order: no two types compare equal, so the
// sorted order is one and the same whatever algorithm sorts, and types that
// tie on everything else (10,000 enums "e", structs of one name and the
// same member names, anonymous types) keep their id order. bpftool sorts
// with glibc's qsort: in glibc 2.41 (Debian 13, stdlib/qsort.c) a stable
// top-down merge sort of its 32-byte records in a buffer on the stack (up
// to 1 KiB) or from malloc, with an unstable heapsort only if that malloc
// fails; in glibc 2.36 (Debian 12, stdlib/msort.c) the same merge sort with
// a quicksort fallback. On a total order every path gives the same result,
// so nothing of glibc's algorithm needs reproducing here. ties_test.go
// checks this against bpftool 7.5 itself, with a preloaded qsort that
// reverses the array before glibc sorts it. (Where kmeta's header differs
// from bpftool's on such inputs, it is the type that sorts first, which
// bpftool leaves out: see the package documentation.)

// Ranks of btf_type_rank.
const (
	rankAnonEnum = 0
	rankEnum     = 1
	rankScalar   = 2
	rankRecord   = 3
	rankProto    = 4
	rankOther    = 10
)

// sortKey is what the sort compares of one type: 40 bytes per type. The
// first 16 bytes of the sort name are kept in pre, big-endian and padded
// with zeros, so that most comparisons do not read the string section;
// names that share them are compared in full, then the types' own names.
// The own name's offset is kept too (it fills what was the struct's
// padding), so that no comparison reads a record: on a forest of types
// of one sort name that was 40% of the sort.
type sortKey struct {
	pre      [2]uint64
	hash     uint64
	id       btf.TypeID
	sortName uint32
	ownName  uint32
	rank     uint8
}

// silent are the kinds whose dumpType prints nothing and changes nothing
// wherever it is called (libbpf's btf_dump_order_type only marks them
// ordered): leaving them out of the sort does not change the output.
// They are more than half of a kernel's types (FUNC alone is 45%).
func silent(k wire.Kind) bool {
	switch k {
	case wire.KindFunc, wire.KindVar, wire.KindDatasec, wire.KindDeclTag, wire.KindInt, wire.KindFloat:
		return true
	}
	return false
}

// sortedIDs returns the m types of the Spec chain that sortKeys sorts, in
// bpftool 7.5's order, as plain ids: 4 bytes a type stay.
func (d *dumper) sortedIDs(m int, all bool) ([]btf.TypeID, error) {
	keys, err := d.sortKeys(m, all)
	if err != nil {
		return nil, err
	}
	ids := make([]btf.TypeID, len(keys))
	for i, k := range keys {
		ids[i] = k.id
	}
	return ids, nil
}

// numSorted returns how many types sortKeys sorts: those that dumpType
// prints, or with all, every type, void included.
func (d *dumper) numSorted(all bool) int {
	if all {
		return d.n
	}
	n := 0
	for id := 1; id < d.n; id++ {
		if !silent(d.typ(btf.TypeID(id)).Kind()) {
			n++
		}
	}
	return n
}

// sortKeys returns the keys of the m types that dumpType prints (with
// all, of every type, void included), sorted in bpftool 7.5's order, with
// the memo of the walks held for every type while they are built: what
// sortedTypes does when they fit in one window.
func (d *dumper) sortKeys(m int, all bool) ([]sortKey, error) {
	keys := make([]sortKey, 0, m)
	d.memo = newSortMemo(d.n)
	keys, protos, err := d.buildKeys(keys, 0, d.n, all, true)
	d.memo = nil // not needed to sort: the collector may take it
	if err != nil {
		return nil, err
	}
	d.sortByKey(keys)
	return d.mergeProtos(keys, protos), nil
}

// buildKeys appends to keys the key of every type of ids lo to hi that
// sortKeys sorts. With apart, it returns the unnamed prototypes apart
// instead, for mergeProtos.
func (d *dumper) buildKeys(keys []sortKey, lo, hi int, all, apart bool) ([]sortKey, []btf.TypeID, error) {
	// Unnamed prototypes, a quarter of a kernel's types, all have the key
	// (rankOther, "", "", hash 0): they are merged in by id after the sort.
	var protos []btf.TypeID
	for i := lo; i < hi; i++ {
		if err := d.poll(i); err != nil {
			return nil, nil, err
		}
		id := btf.TypeID(i)
		t := d.typ(id)
		if !all && (id == 0 || silent(t.Kind())) {
			continue
		}
		if apart && !all && t.Kind() == wire.KindFuncProto && t.NameOff() == 0 {
			protos = append(protos, id)
			continue
		}
		keys = append(keys, d.keyFrom(id, t))
		if d.err != nil {
			return nil, nil, d.err
		}
	}
	return keys, protos, nil
}

// keyFrom returns the sort key of type id, whose record is t; d.err is
// set if a walk failed. The record is read once for the whole key (each
// key is built twice in the merged sort, and a chain of 100,000 structs
// read records 25 times a type).
func (d *dumper) keyFrom(id btf.TypeID, t wire.Record) sortKey {
	name := d.sortName(t)
	return sortKey{
		pre:      d.strs.prefix(name),
		hash:     d.sortHash(id, true, 0),
		id:       id,
		sortName: name,
		ownName:  t.NameOff(),
		rank:     d.sortRank(id, t),
	}
}

// sortByKey sorts keys in bpftool's order.
func (d *dumper) sortByKey(keys []sortKey) {
	slices.SortFunc(keys, d.keyOrder())
}

// keyOrder returns the function that compares two keys in bpftool's
// order. A closure, not a method value: the sort calls it a million times
// for a kernel, and a method value would add a call to each.
func (d *dumper) keyOrder() func(a, b sortKey) int {
	return func(a, b sortKey) int {
		if a.rank != b.rank {
			return int(a.rank) - int(b.rank)
		}
		if c := cmp.Compare(a.pre[0], b.pre[0]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.pre[1], b.pre[1]); c != 0 {
			return c
		}
		if a.sortName != b.sortName && a.pre[1]&0xff != 0 {
			// Both names are longer than the prefix.
			if c := bytes.Compare(d.strs.name(a.sortName), d.strs.name(b.sortName)); c != 0 {
				return c
			}
		}
		if a.ownName != b.ownName {
			if c := bytes.Compare(d.strs.name(a.ownName), d.strs.name(b.ownName)); c != 0 {
				return c
			}
		}
		return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.id, b.id))
	}
}

// mergeProtos inserts the unnamed prototypes, in id order, into the sorted
// keys: their key is the smallest of rankOther, so they go first there,
// merged by id with the other types whose key is the same (pointers to
// void, for one). keys has room for them.
func (d *dumper) mergeProtos(keys []sortKey, protos []btf.TypeID) []sortKey {
	if len(protos) == 0 {
		return keys
	}
	i0, _ := slices.BinarySearchFunc(keys, uint8(rankOther), func(k sortKey, r uint8) int {
		return cmp.Compare(k.rank, r)
	})
	j := i0
	for j < len(keys) && keys[j].pre == [2]uint64{} && keys[j].hash == 0 &&
		len(d.name(d.typ(keys[j].id))) == 0 {
		j++
	}
	n, p := len(keys), len(protos)
	keys = keys[:n+p]
	copy(keys[j+p:], keys[j:n])
	// Merge keys[i0:j] and protos into keys[i0:j+p], from the back.
	a, b := j-1, p-1
	for w := j + p - 1; b >= 0; w-- {
		if a >= i0 && keys[a].id > protos[b] {
			keys[w] = keys[a]
			a--
		} else {
			keys[w] = sortKey{id: protos[b], rank: rankOther}
			b--
		}
	}
	return keys
}

// chainNext returns what a typedef, qualifier, type tag, pointer, array or
// decl tag leads to, the links that bpftool's sort follows.
func chainNext(t wire.Record) (btf.TypeID, bool) {
	switch t.Kind() {
	case wire.KindArray:
		elem, _, _ := t.Array()
		return btf.TypeID(elem), true
	case wire.KindTypeTag, wire.KindConst, wire.KindPointer, wire.KindVolatile,
		wire.KindRestrict, wire.KindTypedef, wire.KindDeclTag:
		return btf.TypeID(t.SizeType()), true
	}
	return 0, false
}

// sortRank is bpftool's btf_type_rank: a name met anywhere from id down
// the chain of typedefs, qualifiers, pointers and arrays makes the chain
// take the rank of the type it ends at (t is id's record); without a name, the type's own kind
// decides.
func (d *dumper) sortRank(id btf.TypeID, t wire.Record) uint8 {
	if t.NameOff() != 0 {
		return d.rankNamed(id, 0)
	}
	switch t.Kind() {
	case wire.KindEnum, wire.KindEnum64:
		return rankAnonEnum
	case wire.KindInt, wire.KindFloat:
		return rankScalar
	}
	return rankOther // anonymous structs, unions and prototypes; unnamed chains
}

// rankNamed is btf_type_rank once a name has been met.
func (d *dumper) rankNamed(id btf.TypeID, depth int) uint8 {
	if depth >= d.memoFrom {
		if r, ok := d.memo.rankOf(id); ok {
			return r
		}
	}
	if depth > maxDepth {
		d.failDeep(id, "type chain too long to sort")
		return rankOther
	}
	if !d.step(id) {
		return rankOther
	}
	t := d.typ(id)
	r := uint8(rankOther)
	switch t.Kind() {
	case wire.KindEnum, wire.KindEnum64:
		r = rankEnum
	case wire.KindInt, wire.KindFloat:
		r = rankScalar
	case wire.KindStruct, wire.KindUnion:
		r = rankRecord
	case wire.KindFuncProto:
		r = rankProto
	default:
		if next, ok := chainNext(t); ok {
			r = d.rankNamed(next, depth+1)
		}
	}
	if depth >= d.memoFrom {
		d.memo.setRank(id, r)
	}
	return r
}

// sortName is bpftool's btf_type_sort_name: the name offset of the type
// that the chain from record t of typedefs, qualifiers, pointers and arrays ends at; an
// anonymous enum sorts by its first enumerator, unless reached through
// such a chain.
func (d *dumper) sortName(t wire.Record) uint32 {
	switch k := t.Kind(); {
	case (k == wire.KindEnum || k == wire.KindEnum64) && t.NameOff() == 0 && t.Vlen() > 0:
		off, _ := t.Enum(0)
		return off
	case k == wire.KindEnum || k == wire.KindEnum64:
		return t.NameOff()
	}
	if next, ok := chainNext(t); ok {
		return d.sortNameRef(next, 0)
	}
	return t.NameOff()
}

// sortStep counts one step of the sort's walks, at type id and depth
// links down a chain; false, with d.err set, when the chain is too long or
// the walk too big.
func (d *dumper) sortStep(id btf.TypeID, depth int) bool {
	if depth > maxDepth {
		d.failDeep(id, "type chain too long to sort")
		return false
	}
	return d.step(id)
}

// sortNameRef is btf_type_sort_name of a type reached through a chain.
func (d *dumper) sortNameRef(id btf.TypeID, depth int) uint32 {
	if depth >= d.memoFrom {
		if off, ok := d.memo.nameOf(id); ok {
			return off
		}
	}
	if !d.sortStep(id, depth) {
		return 0
	}
	t := d.typ(id)
	off := t.NameOff()
	if next, ok := chainNext(t); ok {
		off = d.sortNameRef(next, depth+1)
	}
	if depth >= d.memoFrom {
		d.memo.setName(id, off)
	}
	return off
}

// sortHash is bpftool's btf_type_disambig_hash: h*31+v over the type's
// name, its enumerators' names, its members' names and (without their own
// members) types, and what typedefs, qualifiers, pointers and arrays lead
// to, with array lengths. Names hash as libbpf's str_hash, whose char is
// signed on x86.
func (d *dumper) sortHash(id btf.TypeID, members bool, depth int) uint64 {
	m := 0
	if members {
		m = 1
	}
	if depth >= d.memoFrom {
		if h, ok := d.memo.hashOf(id, m); ok {
			return h
		}
	}
	if !d.sortStep(id, depth) {
		return 0
	}
	t := d.typ(id)
	h := d.nameHash(0, t.NameOff())
	switch t.Kind() {
	case wire.KindEnum, wire.KindEnum64:
		for i := range t.Vlen() {
			off, _ := t.Enum(i)
			h = d.nameHash(h, off)
		}
	case wire.KindStruct, wire.KindUnion:
		if !members {
			break
		}
		for i := range t.Vlen() {
			name, typ, _ := t.Member(i)
			h = d.nameHash(h, name)
			h = h*31 + d.sortHash(btf.TypeID(typ), false, depth+1)
		}
	case wire.KindArray:
		elem, _, n := t.Array()
		h = h*31 + uint64(n)
		h = h*31 + d.sortHash(btf.TypeID(elem), members, depth+1)
	default:
		if next, ok := chainNext(t); ok {
			h = h*31 + d.sortHash(next, members, depth+1)
		}
	}
	if depth >= d.memoFrom {
		d.memo.setHash(id, m, h)
	}
	return h
}

// nameHash folds the name at off into h (bpftool's btf_name_hasher); the
// empty name leaves h as it is.
func (d *dumper) nameHash(h uint64, off uint32) uint64 {
	if off == 0 {
		return h
	}
	return h*31 + d.strs.hash(off)
}
