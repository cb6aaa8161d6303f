package dedup

import (
	"math/bits"
	"sync/atomic"

	"github.com/kmeta-dev/kmeta/btf"
)

// baseSigs are a Base's signatures (sig.go), computed when first asked
// and remembered: depth 0 by id; depths 1 to sigDepth only for the kinds
// that keep them (keepsSigs), by their rank among those; the top ones
// only for the structs, unions and typedefs the Base files, by their rank
// among those. A leaf's signature is the same at every depth below the
// top (isSigLeaf), and a FUNC's, referred to by DECL_TAGs alone, is
// computed when asked from its prototype's, not kept.
//
// libbpf hashes each base type once (btf_dedup_prep) and compares the
// ones a split type's hash meets; a Base computed every signature of
// every type beforehand, 114 M instructions for the Debian 6.1 vmlinux
// and 45 M more for its top signatures, about half of any small split
// deduplication on it. A split deduplication asks for the signatures of
// the base types its own refer to, and the top signatures of the base
// types its lookups meet (table.walk): a module, a few thousand of the
// vmlinux's 94,975 types. The memos are mappings, whose pages are
// written only where a signature is; 0 is "not yet" (sigClean never
// gives it). A Base is used by concurrent deduplications: the memos are
// read and written atomically, and since a signature is a function of
// the records, two that compute one at once write the same value.
type baseSigs struct {
	all  []uint32           // depth 0, by id
	deep [sigDepth][]uint32 // depth k at deep[k-1], by rank
	rank idRank             // of the types that keep depths 1..sigDepth
	top  []uint32           // by topRank
	// topRank ranks the types filed under their shallow hash alone
	// (isStructPass), whose top signatures tell them apart (table.walk).
	topRank idRank
	// child is the Base's sig, as sigOf takes it: made once, not at
	// every call.
	child func(id uint32, k int) uint32
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
// id: remembered, or computed from those of the types it refers to.
func (b *Base) sig(id uint32, k int) uint32 {
	how := sigHow[b.kinds[id]]
	switch {
	case k == 0 || how == sigAsDepth0 && k < sigTop:
		return b.memoSig(&b.sigs.all[id], id, 0)
	case how == sigKept && k < sigTop:
		return b.memoSig(&b.sigs.deep[k-1][b.sigs.rank.of(id)], id, k)
	case id != 0 && isStructPass(btf.Kind(b.kinds[id])):
		return b.memoSig(&b.sigs.top[b.sigs.topRank.of(id)], id, sigTop)
	}
	return b.sigComputed(id, k)
}

// memoSig returns *p, the signature of depth k of type id, computing it
// first if not yet.
func (b *Base) memoSig(p *uint32, id uint32, k int) uint32 {
	if v := atomic.LoadUint32(p); v != 0 {
		return v
	}
	v := sigOf(b.rec(id), k, b.sigs.child)
	atomic.StoreUint32(p, v)
	return v
}

// sigComputed is sig for a FUNC's signatures and void's top one.
func (b *Base) sigComputed(id uint32, k int) uint32 {
	if id == 0 {
		return sigVoid
	}
	return sigOf(b.rec(id), k, b.sigs.child)
}

// makeSigs makes the memos of the base's signatures, all "not yet" but
// void's.
func (b *Base) makeSigs() {
	s := &b.sigs
	s.child = b.sig
	s.rank = newIDRank(b.kinds, keepsSigs)
	s.topRank = newIDRank(b.kinds, isStructPass)
	s.all = makeMapped[uint32](int(b.last)+1, &b.mem.sigs[0])
	s.all[0] = sigVoid
	for k := range s.deep {
		s.deep[k] = makeMapped[uint32](int(s.rank.n), &b.mem.sigs[k+1])
	}
	s.top = makeMapped[uint32](int(s.topRank.n), &b.mem.top)
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
	// A Base ranks its 94,975 types three ways: in is asked once a kind.
	var set [256]bool
	for k := range set {
		set[k] = in(btf.Kind(k))
	}
	words := (len(kinds) + 63) / 64
	r := idRank{bits: make([]uint64, words), before: make([]uint32, words)}
	for w := range r.bits {
		var x uint64
		for j, k := range kinds[w*64 : min(w*64+64, len(kinds))] {
			if set[k] {
				x |= 1 << j
			}
		}
		if w == 0 {
			x &^= 1 // void
		}
		r.bits[w], r.before[w] = x, r.n
		r.n += uint32(bits.OnesCount64(x))
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
