package dedup

import "math/bits"

// Failed pairs let the struct pass skip a comparison that an earlier one
// already walked and saw fail (issue 37: a ring of N types through every
// reference kind, each struct and typedef of it compared with every one
// before it, libbpf's order, each comparison walking the ring to where it
// differs: cubic in N, in libbpf too).
//
// A comparison from a pair (x, y) is a walk that depends only on the
// canonical map, which the struct pass changes only by linking, and on the
// hypothetical map, which starts empty. Within a comparison, call a pair
// p's subtree the pairs compared from p's until the stack is back below
// p's position. If the comparison fails inside p's subtree, and no
// lookup of the hypothetical map within it found an entry (a "hit": a
// revisit or a conflict), then a comparison started from p, with an empty
// hypothetical map, meets the same pairs in the same order: each lookup
// misses there too, its map holding a subset of the first one's, and
// everything else reads the records and the canonical map, unchanged. So
// it fails at the same pair. failMemo keeps such pairs p (their candidate
// a struct, union or typedef not yet deduplicated: a later root), and the
// struct pass skips a candidate whose pair is kept, as it would have
// failed, leaving no trace. Any link of a type to another, which may
// change what resolves to what, forgets every pair (link: the struct
// pass links through it alone).
//
// On the ring, the pair (struct j+1, struct i+1) lies in the subtree of
// (struct j, struct i), and the difference lies beyond both: every
// comparison but the first of each type is skipped, and the pass is
// quadratic.
//
// Pairs are recorded only once the struct pass has spent failBudget steps
// of comparisons that failed, as deep signatures are, so that real BTF,
// whose failures are few and shallow (the 1,121 Debian 6.1 modules merged
// spend 662 steps), pays for none of it.
type failMemo struct {
	armed bool // the struct pass is on
	on    bool // armed, and the failed steps passed failBudget
	pairs pairSet
	limit int // pairs kept at most; past it, no more are kept
	// path holds the pairs whose subtree the comparison is in and that
	// may be kept, each with the stack's length after it was popped and
	// the hits before it; at most limit of them (the outer ones).
	path []failStep
	// hits counts the lookups of the hypothetical map that found an
	// entry, in one comparison: fewer than the input's references, since
	// a canonical type is descended once, so it fits 32 bits.
	hits uint32
}

type failStep struct {
	p    eqPair
	at   int32 // the stack is bounded by the input's words
	hits uint32
}

// failBudget is the failSteps past which pairs are recorded.
const failBudget = 1 << 16

// failLimit bounds the pairs kept: failLimitMin, or failLimitPerType per
// own type if more.
const (
	failLimitMin     = 1 << 18
	failLimitPerType = 4
)

func failKey(cand, canon uint32) uint64 { return uint64(cand)<<32 | uint64(canon) }

// failOn starts recording failed pairs, for the struct pass.
func (d *state) failOn() {
	f := &d.fails
	f.armed = true
	f.limit = max(failLimitMin, failLimitPerType*int(d.n()))
}

// failOff forgets the failed pairs.
func (d *state) failOff() { d.fails = failMemo{} }

// failForget forgets the failed pairs, after a link.
func (d *state) failForget() { d.fails.pairs.clear() }

// failedBefore reports whether comparing cand with canon is known to
// fail. The struct pass asks for a pair once, so the pair goes.
func (d *state) failedBefore(cand, canon uint32) bool {
	f := &d.fails
	return f.pairs.n > 0 && f.pairs.remove(failKey(cand, canon))
}

// failEnter notes that isEquiv pops pair p, leaving the stack n long.
// Only the pairs that failed may keep go on the path: a deep walk
// through other kinds leaves it empty.
func (d *state) failEnter(p eqPair, n int) {
	f := &d.fails
	for len(f.path) > 0 && f.path[len(f.path)-1].at > int32(n) {
		f.path = f.path[:len(f.path)-1]
	}
	if d.mayKeep(p.cand) && len(f.path) < f.limit {
		f.path = append(f.path, failStep{p, int32(n), f.hits})
	}
}

// mayKeep reports whether a failed pair of candidate cand may be kept: a
// later root of the struct pass.
func (d *state) mayKeep(cand uint32) bool {
	return cand > d.blast && isGraphKind(d.kind(cand)) && !d.mapped(cand)
}

// failed keeps the pairs of the path whose subtree saw no hit, where the
// comparison of root failed; not root, which is never asked again.
func (d *state) failed(root eqPair) {
	f := &d.fails
	for _, s := range f.path {
		if s.hits != f.hits || s.p == root {
			continue // a hit in this subtree (hits grow along the path)
		}
		if f.pairs.n >= f.limit {
			break // full until pairs are used or forgotten
		}
		f.pairs.add(failKey(s.p.cand, s.p.canon))
	}
	f.path = f.path[:0]
}

// pairSet is a set of failed pairs' keys: open addressing with linear
// probing in a power-of-two table, at most half full, 0 marking a free
// slot (no key is 0: a candidate is never type 0). A Go map took about
// 40 bytes a pair at the memo's size and churn (issue 37: 20 MB peak on
// a ring of 4,000 types, 6.7 MB without the memo); this takes 16 at most,
// and removes by shifting back the slots that follow (Knuth's algorithm
// R, volume 3, 6.4), so removals leave no tombstones to grow it.
type pairSet struct {
	slots []uint64
	n     int // keys held
}

// pairSetMin is the smallest table allocated.
const pairSetMin = 1 << 10

// slot is where the search for key k starts: its bits mixed by a
// multiplicative hash (Fibonacci hashing), the top ones taken.
func (s *pairSet) slot(k uint64) int {
	return int((k * 0x9e3779b97f4a7c15) >> (64 - bits.Len(uint(len(s.slots)-1))))
}

// add adds key k (not 0).
func (s *pairSet) add(k uint64) {
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := len(s.slots) - 1
	for i := s.slot(k); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case k:
			return
		case 0:
			s.slots[i] = k
			s.n++
			return
		}
	}
}

// grow doubles the table, or allocates the first.
func (s *pairSet) grow() {
	old := s.slots
	s.slots = make([]uint64, max(pairSetMin, 2*len(old)))
	s.n = 0
	for _, k := range old {
		if k != 0 {
			s.add(k)
		}
	}
}

// remove removes key k and reports whether it was there.
func (s *pairSet) remove(k uint64) bool {
	if len(s.slots) == 0 {
		return false
	}
	mask := len(s.slots) - 1
	i := s.slot(k)
	for ; s.slots[i] != k; i = (i + 1) & mask {
		if s.slots[i] == 0 {
			return false
		}
	}
	// Shift back each following key whose search starts at or before
	// the hole (cyclically), so that no search passes a free slot
	// before its key.
	for j := (i + 1) & mask; s.slots[j] != 0; j = (j + 1) & mask {
		if h := s.slot(s.slots[j]); (j-h)&mask >= (j-i)&mask {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = 0
	s.n--
	return true
}

// clear removes every key, keeping the table.
func (s *pairSet) clear() {
	if s.n > 0 {
		clear(s.slots)
		s.n = 0
	}
}
