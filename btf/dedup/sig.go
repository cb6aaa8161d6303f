package dedup

import "github.com/kmeta-dev/kmeta/btf"

// Signatures let the struct pass skip candidates whose graph comparison
// must fail, without running it. libbpf runs btf_dedup_is_equiv on every
// shallow-equal candidate; some hashes gather thousands of them (the
// anonymous unions of trace events, one per module, differing only in
// module types reached through pointers), which makes that pass most of
// the work.
//
// A signature of depth k summarises what the comparison checks on every
// path of length k: the kind class and name of each type reached, the
// words that must be equal, and nothing where equivalence may hold without
// equality. So:
//   - STRUCT, UNION and FWD are leaves, with the FWD in the class of the
//     kind it declares (a FWD is equivalent to its struct); ENUM and ENUM64
//     are leaves of one class (an enum declaration resolves to either);
//   - an ARRAY is only its own words: btf_dedup_identical_types compares an
//     array's element and index types with themselves (a libbpf quirk), so
//     arrays with different elements can be found identical;
//   - the comparison of two types that resolve to one canonical type, or
//     that the hypothetical map already pairs, succeeds only between types
//     of equal signatures, since every mapping and every pairing links
//     types that passed the same checks.
//
// A failed comparison leaves no trace (the hypothetical map is cleared
// before the next), so not making one changes nothing.
//
// The struct pass therefore files structs, unions and typedefs under their
// shallow hash mixed with their top signature (the signatures of their
// members, or of a typedef's target): the candidates it skips are then
// never even visited, and those it visits keep libbpf's order, which the
// table derives from insertion order alone. A VAR, DATASEC or DECL_TAG
// reached from a graph would make libbpf's comparison fail with an error;
// such references are refused before deduplication (see checkRefs), so no
// signature has to account for them.
//
// Guarded by BenchmarkMerged.
const (
	sigDepth = 5            // depth of the member signatures
	sigTop   = sigDepth + 1 // index of the top signature: a struct's members, a typedef's target
)

type sigs [sigTop + 1][]uint32

// sigClean makes h a valid memo entry: never 0, which means "not computed".
func sigClean(h uint64) uint32 { return uint32(h>>32) | 1 }

// sigOf computes the signature of depth k (sigTop: the top signature) of
// record r, with child giving those of referenced types.
func sigOf(r record, k int, child func(id uint32, k int) uint32) uint32 {
	kind := kindOf(r)
	switch {
	case kind == btf.KindInt || kind == btf.KindFloat:
		return sigClean(hashAll(r))
	case k == sigTop:
		return refsSig(r, 0, sigDepth, child)
	}
	class := kind
	switch kind {
	case btf.KindForward:
		class = fwdKind(r)
	case btf.KindEnum64:
		class = btf.KindEnum
	}
	h := mix(mix(uint64(class), r[wName]), 0x5167)
	switch kind {
	case btf.KindStruct, btf.KindUnion, btf.KindForward, btf.KindEnum, btf.KindEnum64:
		return sigClean(h)
	case btf.KindArray:
		return sigClean(hashShallow(r))
	}
	if k == 0 {
		return sigClean(h)
	}
	return refsSig(r, hashShallow(r), k-1, child)
}

// refsSig mixes h with the signatures of depth k of r's references.
func refsSig(r record, h uint64, k int, child func(id uint32, k int) uint32) uint32 {
	forRefs(r, func(i int) {
		h = mix(h, child(r[i], k))
	})
	return sigClean(h)
}

var sigVoid = sigClean(0x766f6964)

// sig returns the signature of depth k of type id.
func (d *state) sig(id uint32, k int) uint32 {
	if id == 0 {
		return sigVoid
	}
	if id <= d.blast {
		return d.base.sigs[k][id]
	}
	memo := d.sigs[k]
	if memo == nil {
		memo = make([]uint32, d.n())
		d.sigs[k] = memo
	}
	i := id - d.first
	if memo[i] == 0 {
		memo[i] = sigOf(d.recs.rec(i), k, d.sig)
	}
	return memo[i]
}

// structKey is the table key of a STRUCT, UNION or TYPEDEF: its shallow
// hash (libbpf's btf_hash_struct, btf_hash_typedef) refined by its top
// signature.
func structKey(r record, top uint32) uint64 { return mix(hashShallow(r), top) }

// computeSigs fills the base's signatures, level by level.
func (b *Base) computeSigs() {
	for k := range b.sigs {
		memo := make([]uint32, b.last+1)
		memo[0] = sigVoid
		child := func(id uint32, k int) uint32 { return b.sigs[k][id] }
		for id := uint32(1); id <= b.last; id++ {
			memo[id] = sigOf(b.rec(id), k, child)
		}
		b.sigs[k] = memo
	}
}
