package dedup

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/workpool"
)

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
// table derives from insertion order alone. A shallow hash that only one
// type has so far is filed alone, without its top signature, and the
// next type of that hash is compared with it as libbpf would; only a
// second type that is not equivalent to it splits the hash into full keys
// (structLone). Two distinct VARs, DATASECs or
// DECL_TAGs of one kind and name reached from graphs would make libbpf's
// comparison fail with an error when it meets them, which a skip could
// hide; on such inputs the struct pass files types under their shallow
// hash alone and compares every candidate, in libbpf's order (faithful
// mode, checkOdd). Without such a pair, a comparison meeting one of them
// succeeds for the same id and fails without an error otherwise, so no
// signature has to account for them beyond its record.
const (
	sigDepth = 5            // depth of the member signatures
	sigTop   = sigDepth + 1 // index of the top signature: a struct's members, a typedef's target
)

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
	r.ForRefs(func(i uint32) {
		h = mix(h, child(r[i], k))
	})
	return sigClean(h)
}

// sigVoid is void's signature. Any odd value serves: signatures only
// decide which comparisons to skip, and void is equivalent to void alone,
// so its signature need only be a valid memo entry (not 0) and a
// signature (odd, unlike deep.go's markers), the same wherever it is used.
// It is 1 because it was first written sigClean(0x766f6964), "void",
// and sigClean keeps a hash's upper half, which that has none of. The
// value does not reach the output: with 0x766f6965 instead, btf dedup of
// Debian 6.1's vmlinux, of its 1,121 modules on it, and --each of them,
// are the same bytes, and internal/dedup's libbpf goldens pass, also
// with KMETA_HEAVY=1 (session 27). A constant, not a call: a call would
// be made by an init function, which every kmeta command runs
// (cmd/kmeta/BENCH.md).
const sigVoid uint32 = 1

// isSigLeaf reports whether the signature of a record of kind k is made
// from the record alone, at every depth: such signatures are computed, not
// remembered.
func isSigLeaf(k btf.Kind) bool {
	switch k {
	case btf.KindInt, btf.KindFloat, btf.KindStruct, btf.KindUnion,
		btf.KindForward, btf.KindEnum, btf.KindEnum64, btf.KindArray:
		return true
	}
	return false
}

// sigWindow is how many own ids a sigMemo remembers densely.
const sigWindow = 1 << 15

// passSigWindow is the window of the struct pass when Dedup runs the
// passes itself (not a pipeline): since it computes the top signatures as
// it files types (topSig), its window's levels are written through the
// pass, beside the tables. A quarter of sigWindow keeps the peak of a
// split input on the Debian vmlinux (base-copies) at main's, 18.3-18.4
// MB where a full window made it 18.8; a deduplication of the vmlinux
// took 1% more instructions (326.3 -> 329.4 M), one of its modules'
// merge none (BENCH.md, "Top signatures where they decide something").
const passSigWindow = sigWindow / 4

// A sigMemo remembers the signatures of a window of own ids, the ids near
// the type the pass is at, and those of any other id it meets in a map.
//
// Both passes that need signatures (struct and reference) go through the
// types in id order, and the graph of a type lies near it: inputs are
// appended whole, a DWARF encoder's compile unit at a time, and refer to
// their own types and the base's. Remembering every signature of every
// type, seven words per type, grows with the input; the window has a
// fixed size (BENCH.md). Signatures are a function of the
// records, so what is forgotten and computed again comes out the same.
type sigMemo struct {
	lo   uint32 // first own id (index id-first) of the window
	size uint32 // of the window: sigWindow, or fewer if there are fewer types
	win  [sigTop + 1][]uint32
	away map[uint64]uint32 // (index<<3 | k) -> signature, outside the window
	// populate makes the window's levels populated when made (see
	// mmap.Region.Populate): computeTops's windows, used for a moment
	// by each worker, and not the window a pipelined deduplication keeps
	// through a DWARF encoder's run.
	populate bool
	mem      [sigTop + 1]*mmap.Region
}

// free gives back the window's mappings and forgets every signature.
func (m *sigMemo) free() {
	for k := range m.win {
		mmap.Free(&m.mem[k])
		m.win[k] = nil
	}
	m.away = nil
}

// moveTo makes the window cover index i, with half a window behind it,
// forgetting everything remembered so far if it has to move. The passes
// call it with the index they are at, in increasing order, so it moves at
// most once per half window; types reached from there that lie outside the
// window (forward references, or types far away) go to the map.
//
// The window's levels are allocated when first written: a pass whose
// signatures were computed beforehand (computeTops) never needs them.
func (m *sigMemo) moveTo(i uint32) {
	if i-m.lo < m.size {
		return
	}
	m.lo = max(i, m.size/2) - m.size/2
	for _, w := range m.win {
		clear(w)
	}
	clear(m.away)
}

// get returns the remembered signature of depth k of index i, 0 if none.
func (m *sigMemo) get(i uint32, k int) uint32 {
	if i-m.lo < m.size {
		if m.win[k] == nil {
			return 0
		}
		return m.win[k][i-m.lo]
	}
	return m.away[uint64(i)<<3|uint64(k)]
}

func (m *sigMemo) put(i uint32, k int, v uint32) {
	if i-m.lo < m.size {
		if m.win[k] == nil {
			if m.populate {
				// Read (get) before written: populated, as hash slots.
				m.win[k] = makePopulated[uint32](int(m.size), &m.mem[k])
			} else {
				m.win[k] = makeMapped[uint32](int(m.size), &m.mem[k])
			}
		}
		m.win[k][i-m.lo] = v
		return
	}
	if m.away == nil {
		m.away = make(map[uint64]uint32)
	}
	m.away[uint64(i)<<3|uint64(k)] = v
}

// sig returns the signature of depth k of type id, remembered in d.sigs.
func (d *state) sig(id uint32, k int) uint32 { return d.sigIn(&d.sigs, d.sig, id, k) }

// sigIn returns the signature of depth k of type id, remembered in m;
// child is the same for the types id refers to.
func (d *state) sigIn(m *sigMemo, child func(uint32, int) uint32, id uint32, k int) uint32 {
	if id == 0 {
		return sigVoid
	}
	if id <= d.blast {
		return d.base.sig(id, k)
	}
	i := id - d.first
	r := d.ownRec(i)
	if isSigLeaf(kindOf(r)) && k < sigTop {
		return sigOf(r, k, nil)
	}
	if v := m.get(i, k); v != 0 {
		return v
	}
	v := sigOf(r, k, child)
	m.put(i, k, v)
	return v
}

// topSig returns the top signature of own type id, computed when the
// struct pass (or the reference pass, for a base's typedefs) first files
// or looks up the type: remembered in d.sigs's window, not beforehand for
// every type. Types the struct pass reaches already mapped (the members'
// unions and typedefs of an equivalent copy) never need one (BENCH.md,
// "Top signatures where they decide something").
//
// It is sigOf's top signature (refsSig of depth sigDepth, the references
// in ForRefs's order) with the references read off the word shape and
// their signatures asked of d.sig directly: no closure a reference, for
// the type the struct pass files (BENCH.md).
func (d *state) topSig(id uint32) uint32 {
	r := d.ownRec(id - d.first)
	if k := kindOf(r); k == btf.KindInt || k == btf.KindFloat {
		return sigOf(r, sigTop, d.sig)
	}
	s := r.Shape()
	h := uint64(0)
	if s.Ref0 >= 0 {
		h = mix(h, d.sig(r[s.Ref0], sigDepth))
	}
	if s.Ref1 >= 0 {
		h = mix(h, d.sig(r[s.Ref1], sigDepth))
	}
	if s.ElemRef >= 0 {
		for i := s.Fixed + s.ElemRef; i < len(r); i += s.Elem {
			h = mix(h, d.sig(r[i], sigDepth))
		}
	}
	return sigClean(h)
}

// sketchKeys sketches the keys of the types the main table may file (the
// struct pass's and the primitive pass's but enums'), if sketch is set,
// and counts the enums: the index's size (keySketch). The struct pass's
// types are sketched by their head words alone (keyProxy), on d.workers
// goroutines.
func (d *state) sketchKeys(sketch bool) (keys *keySketch, enums int) {
	n := d.n()
	if !sketch {
		for _, k := range d.kt.own[:n] {
			if k == uint8(btf.KindEnum) || k == uint8(btf.KindEnum64) {
				enums++
			}
		}
		return nil, enums
	}
	workers := min(d.workers, int(n/sigChunk)+1)
	sketches := make([]keySketch, workers)
	counts := make([]int, workers)
	workpool.Chunks(workers, n, sigChunk, func(w int, lo, hi uint32) {
		ks := &sketches[w]
		for i := lo; i < hi; i++ {
			switch btf.Kind(d.kt.own[i]) {
			case btf.KindTypedef:
				if d.compat == CompatLibbpf11 {
					continue
				}
			case btf.KindStruct, btf.KindUnion:
			case btf.KindInt, btf.KindForward, btf.KindFloat:
				ks.add(hashAll(d.recs.rec(i))) // primType's key
				continue
			case btf.KindEnum, btf.KindEnum64:
				counts[w]++
				continue
			default:
				continue
			}
			ks.add(keyProxy(d.recs.head(i)))
		}
	})
	for w := range sketches {
		sketches[0].merge(&sketches[w])
		enums += counts[w]
	}
	return &sketches[0], enums
}

// keyProxy stands for structKey in keySketch: the head words hashShallow
// mixes, not the members (hashing them twice cost 2% of a vmlinux's
// deduplication), nor the top signature (computed only where the struct
// pass needs it). Records that differ only in their members' names,
// offsets or types make one proxy and several keys: the sketch counts
// fewer chains, and the index grows.
func keyProxy(r record) uint64 {
	h := mix(uint64(r[wName]), r[wInfo])
	if kindOf(r) != btf.KindTypedef {
		h = mix(h, r[wSize])
	}
	return h
}

// structKey is the table key of own STRUCT, UNION or TYPEDEF id, record
// r: its shallow hash (libbpf's btf_hash_struct, btf_hash_typedef)
// refined by its top signature; in a Base's table, its shallow hash (see
// key).
func (d *state) structKey(r record, id uint32) key {
	return d.structKeyOf(r, id, hashShallow(r))
}

// structKeyOf is structKey of a record whose shallow hash is s.
func (d *state) structKeyOf(r record, id uint32, s uint64) key {
	top := d.topSig(id)
	return key{h: mix(s, top), shallow: s, top: top, base: d.base}
}

// sigChunk is how many types a worker computes signatures for at a time:
// enough that handing out chunks costs nothing, few enough that the
// workers finish together.
const sigChunk = 1 << 13
