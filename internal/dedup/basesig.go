package dedup

import (
	"math/bits"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/workpool"
)

// baseSigs are a Base's signatures (sig.go), kept only where they cannot
// be had otherwise at once: depth 0 for every type; depths 1 to sigDepth
// only for the kinds that keep them (keepsSigs), by their rank among
// those. A leaf's signature is the same at every depth below the top
// (isSigLeaf), and a FUNC's, referred to by DECL_TAGs alone, is computed
// when asked from its prototype's; the top signatures are asked only for
// the structs, unions and typedefs the Base files, once, and are not
// kept. Of the Debian 6.1 vmlinux's 94,975 types 38,763 keep depths 1-5:
// 1.16 MB instead of seven words a type (2.66 MB).
type baseSigs struct {
	all  []uint32           // depth 0, by id
	deep [sigDepth][]uint32 // depth k at deep[k-1], by rank
	rank idRank             // of the types that keep depths 1..sigDepth
}

// keepsSigs reports whether a base type of kind k keeps its signatures of
// depths 1 to sigDepth.
func keepsSigs(k btf.Kind) bool { return sigHow[k] == sigKept }

// How a base type's signatures below the top are had, by kind (sigHow).
const (
	sigComputed = iota // a FUNC's, or of a kind deduplication refuses
	sigKept            // kept in baseSigs.deep
	sigAsDepth0        // a leaf's, or void's: depth 0's
)

// sigHow is how the signatures of each kind are had: a leaf's as
// isSigLeaf says (TestSigHow), kept for the other kinds but FUNC: a table, since sig is asked for every
// reference to a base type; a literal, not made by an init function,
// which every command would run.
var sigHow = [256]uint8{
	0:                 sigAsDepth0, // void
	btf.KindInt:       sigAsDepth0,
	btf.KindFloat:     sigAsDepth0,
	btf.KindStruct:    sigAsDepth0,
	btf.KindUnion:     sigAsDepth0,
	btf.KindForward:   sigAsDepth0,
	btf.KindEnum:      sigAsDepth0,
	btf.KindEnum64:    sigAsDepth0,
	btf.KindArray:     sigAsDepth0,
	btf.KindPointer:   sigKept,
	btf.KindTypedef:   sigKept,
	btf.KindVolatile:  sigKept,
	btf.KindConst:     sigKept,
	btf.KindRestrict:  sigKept,
	btf.KindFuncProto: sigKept,
	btf.KindVar:       sigKept,
	btf.KindDatasec:   sigKept,
	btf.KindDeclTag:   sigKept,
	btf.KindTypeTag:   sigKept,
}

// sig returns the signature of depth k (sigTop: the top one) of base type
// id: kept, or computed from those of the types it refers to.
func (b *Base) sig(id uint32, k int) uint32 {
	how := sigHow[b.kinds[id]]
	switch {
	case k == 0 || how == sigAsDepth0 && k < sigTop:
		return b.sigs.all[id]
	case how == sigKept && k < sigTop:
		return b.sigs.deep[k-1][b.sigs.rank.of(id)]
	}
	return b.sigComputed(id, k)
}

// sigComputed is sig for a top signature, a FUNC's and void's top one.
func (b *Base) sigComputed(id uint32, k int) uint32 {
	if id == 0 {
		return sigVoid
	}
	return sigOf(b.rec(id), k, b.sig)
}

// computeSigs fills the base's signatures, depth by depth. The types of a
// depth are independent of each other: each depth is shared among the
// workers, in chunks of ids.
//
// A reference's shallow hash, which every depth > 0 mixes its references'
// signatures into (refsSig), is computed with depth 0.
func (b *Base) computeSigs(workers int) {
	b.sigs.rank = newIDRank(b.kinds, keepsSigs)
	n := int(b.sigs.rank.n)
	var shallowMem *mmap.Region
	shallow := makePopulated[uint64](n, &shallowMem)
	defer shallowMem.Free()
	child := b.sig
	b.sigs.all = makePopulated[uint32](int(b.last)+1, &b.mem.sigs[0])
	b.sigs.all[0] = sigVoid
	for k := range sigDepth + 1 {
		var memo []uint32
		if k > 0 {
			memo = makePopulated[uint32](n, &b.mem.sigs[k])
		}
		// Ids lo+1..hi: id 0 is void.
		workpool.Chunks(workers, b.last, sigChunk, func(_ int, lo, hi uint32) {
			at := b.sigs.rank.of(lo + 1)
			for id := lo + 1; id <= hi; id++ {
				keeps := keepsSigs(btf.Kind(b.kinds[id]))
				switch {
				case k == 0:
					r := b.rec(id)
					b.sigs.all[id] = sigOf(r, 0, child)
					if keeps {
						shallow[at] = hashShallow(r)
					}
				case keeps:
					memo[at] = refsSig(b.rec(id), shallow[at], k-1, child)
				}
				if keeps {
					at++
				}
			}
		})
		if k > 0 {
			b.sigs.deep[k-1] = memo
		}
		b.evictTypes(b.last) // read again at the next depth
	}
}

// idRank numbers the ids of a set in increasing order: a bit per id, and
// the count before every 64.
type idRank struct {
	bits   []uint64
	before []uint32
	n      uint32 // ids in the set
}

// newIDRank returns the rank of the ids whose kind is in the set.
func newIDRank(kinds []uint8, in func(btf.Kind) bool) idRank {
	words := (len(kinds) + 63) / 64
	r := idRank{bits: make([]uint64, words), before: make([]uint32, words)}
	for id, k := range kinds {
		if id > 0 && in(btf.Kind(k)) {
			r.bits[id/64] |= 1 << (id % 64)
		}
	}
	for w := range r.bits {
		r.before[w] = r.n
		r.n += uint32(bits.OnesCount64(r.bits[w]))
	}
	return r
}

// of returns how many ids of the set are below id.
func (r *idRank) of(id uint32) uint32 {
	w := id / 64
	if int(w) >= len(r.bits) {
		return r.n
	}
	return r.before[w] + uint32(bits.OnesCount64(r.bits[w]&(1<<(id%64)-1)))
}
