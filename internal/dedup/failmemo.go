package dedup

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
	pairs map[uint64]struct{}
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
func (d *state) failForget() {
	if len(d.fails.pairs) > 0 {
		clear(d.fails.pairs)
	}
}

// failedBefore reports whether comparing cand with canon is known to
// fail. The struct pass asks for a pair once, so the pair goes.
func (d *state) failedBefore(cand, canon uint32) bool {
	f := &d.fails
	if len(f.pairs) == 0 {
		return false
	}
	k := failKey(cand, canon)
	if _, ok := f.pairs[k]; !ok {
		return false
	}
	delete(f.pairs, k)
	return true
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
		if f.pairs == nil {
			f.pairs = map[uint64]struct{}{}
		}
		if len(f.pairs) >= f.limit {
			break // full until pairs are used or forgotten
		}
		f.pairs[failKey(s.p.cand, s.p.canon)] = struct{}{}
	}
	f.path = f.path[:0]
}
