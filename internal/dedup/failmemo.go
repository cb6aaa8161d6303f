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
// change what resolves to what, forgets every pair (state.set).
//
// On the ring, the pair (struct j+1, struct i+1) lies in the subtree of
// (struct j, struct i), and the difference lies beyond both: every
// comparison but the first of each type is skipped, and the pass is
// quadratic.
type failMemo struct {
	on    bool // the struct pass records and uses failed pairs
	pairs map[uint64]struct{}
	limit int // pairs kept at most; past it, they are forgotten
	// path holds the pairs whose subtree the comparison is in, each with
	// the stack's length after it was popped and the hits before it.
	path []failStep
	hits uint64 // lookups of the hypothetical map that found an entry
}

type failStep struct {
	p    eqPair
	at   int
	hits uint64
}

// failLimit bounds the pairs kept: failLimitMin, or failLimitPerType per
// own type if more.
const (
	failLimitMin     = 1 << 18
	failLimitPerType = 16
)

func failKey(cand, canon uint32) uint64 { return uint64(cand)<<32 | uint64(canon) }

// failOn starts recording failed pairs, for the struct pass.
func (d *state) failOn() {
	f := &d.fails
	f.on = true
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

// failedBefore reports whether comparing cand with canon is known to fail.
func (d *state) failedBefore(cand, canon uint32) bool {
	_, ok := d.fails.pairs[failKey(cand, canon)]
	return ok
}

// enter notes that isEquiv pops pair p, leaving the stack n long.
func (f *failMemo) enter(p eqPair, n int) {
	for len(f.path) > 0 && f.path[len(f.path)-1].at > n {
		f.path = f.path[:len(f.path)-1]
	}
	f.path = append(f.path, failStep{p, n, f.hits})
}

// failed keeps the pairs of the path whose subtree saw no hit, where the
// comparison failed.
func (d *state) failed() {
	f := &d.fails
	for _, s := range f.path {
		if s.hits != f.hits {
			continue // a hit in this subtree (hits grow along the path)
		}
		if s.p.cand <= d.blast || s.p.cand == 0 || d.mapped(s.p.cand) || !isGraphKind(d.kind(s.p.cand)) {
			continue
		}
		if f.pairs == nil {
			f.pairs = map[uint64]struct{}{}
		}
		if len(f.pairs) >= f.limit {
			clear(f.pairs)
		}
		f.pairs[failKey(s.p.cand, s.p.canon)] = struct{}{}
	}
	f.path = f.path[:0]
}
