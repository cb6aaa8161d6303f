package dedup

import (
	"math/bits"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
)

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
//
// The pairs kept from one comparison often step evenly: on the ring, the
// path from (struct j, struct i) holds (struct j+6k, struct i+6k) for
// every k up to the cut, and every comparison kept one such run of up to
// N/6 pairs, quadratic memory in all (20 MB at N = 4,000). So a run of
// pairs whose candidates and canonical types grow by the same steps is
// kept as its first pair, the steps and its length: the struct pass asks
// for a run's pairs in their candidates' order (its roots' order), and
// when the first is asked, the run moves on to the next. A run whose
// first pair is never asked (its candidate merged, or filtered out
// first) keeps the rest from being found: a comparison not skipped,
// never a wrong skip.
type failMemo struct {
	armed bool // the struct pass is on
	on    bool // armed, and the failed steps passed failBudget
	runs  runSet
	limit int // runs kept at most; past it, no more are kept
	// path holds the pairs whose subtree the comparison is in and that
	// may be kept, each with the stack's length after it was popped and
	// the hits before it; at most limit of them (the outer ones).
	path []failStep
	// hits counts the lookups of the hypothetical map that found an
	// entry, in one comparison: fewer than the input's references, since
	// a canonical type is descended once, so it fits 32 bits.
	hits uint32
	// peak is the largest table's bytes so far, kept by failOff (tests).
	peak int
}

type failStep struct {
	p    eqPair
	at   int32 // the stack is bounded by the input's words
	hits uint32
}

// failBudget is the failSteps past which pairs are recorded.
const failBudget = 1 << 16

// failLimit bounds the runs kept: failLimitMin, or failLimitPerType per
// own type if more. A run takes 48 bytes at most (runSet), so the memo
// takes 3 MB at most, or 48 bytes a type, as much as the input's own
// records.
const (
	failLimitMin     = 1 << 16
	failLimitPerType = 1
)

func failKey(cand, canon uint32) uint64 { return uint64(cand)<<32 | uint64(canon) }

// failOn starts recording failed pairs, for the struct pass.
func (d *state) failOn() {
	f := &d.fails
	f.armed = true
	f.limit = max(failLimitMin, failLimitPerType*int(d.n()))
}

// failOff forgets the failed pairs.
func (d *state) failOff() { d.fails = failMemo{peak: d.fails.peak} }

// failForget forgets the failed pairs, after a link.
func (d *state) failForget() { d.fails.runs.clear() }

// failedBefore reports whether comparing cand with canon is known to
// fail. The struct pass asks for a pair once, so the pair goes, and its
// run moves on to its next pair.
func (d *state) failedBefore(cand, canon uint32) bool {
	f := &d.fails
	if f.runs.n == 0 {
		return false
	}
	r, ok := f.runs.remove(failKey(cand, canon))
	if !ok {
		return false
	}
	if r.left > 1 {
		f.runs.add(failRun{failKey(cand+r.dcand, canon+r.dcanon), r.dcand, r.dcanon, r.left - 1})
	}
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
// comparison of root failed (not root, which is never asked again), as
// runs, one open for each kind of candidate (on the ring, a typedef's
// pairs and a struct's alternate on the path): a pair extends its kind's
// run if it is that run's next by its steps, or by the first's two
// pairs' (candidates growing), or starts a run.
func (d *state) failed(root eqPair) {
	f := &d.fails
	var open [3]struct {
		r    failRun // left 0 before the first pair
		last eqPair
	}
	full := false
	for _, s := range f.path {
		if s.hits != f.hits || s.p == root {
			continue // a hit in this subtree (hits grow along the path)
		}
		o := &open[graphKindIndex(d.kind(s.p.cand))]
		switch r := &o.r; {
		case r.left == 1 && s.p.cand > o.last.cand:
			r.dcand, r.dcanon = s.p.cand-o.last.cand, s.p.canon-o.last.canon
			r.left++
		case r.left > 1 && s.p.cand == o.last.cand+r.dcand && s.p.canon == o.last.canon+r.dcanon:
			r.left++
		default:
			if r.left > 0 && !f.keep(*r) {
				full = true
			}
			*r = failRun{key: failKey(s.p.cand, s.p.canon), left: 1}
		}
		o.last = s.p
		if full {
			break
		}
	}
	for _, o := range open {
		if o.r.left > 0 && !full {
			full = !f.keep(o.r)
		}
	}
	f.path = f.path[:0]
}

// keep adds run r unless the memo is full, and reports whether it was not.
func (f *failMemo) keep(r failRun) bool {
	if f.runs.n >= f.limit {
		return false // full until runs are used or forgotten
	}
	f.runs.add(r)
	f.peak = max(f.peak, len(f.runs.slots)*int(unsafe.Sizeof(failRun{})))
	return true
}

// failRun is a run of failed pairs: the first's key, the steps from one
// to the next of candidate and canonical type (modulo 2^32), and how many.
type failRun struct {
	key           uint64
	dcand, dcanon uint32
	left          uint32
}

// runSet is a set of failed runs keyed by their first pairs: open
// addressing with linear probing in a power-of-two table, at most half
// full, a key of 0 marking a free slot (no key is 0: a candidate is
// never type 0). A Go map of pairs took about 40 bytes a pair at the
// memo's size and churn; this takes 48 bytes a run at most, and removes
// by shifting back the slots that follow (Knuth's algorithm R, volume 3,
// 6.4), so removals leave no tombstones to grow it.
type runSet struct {
	slots []failRun
	n     int // runs held
}

// runSetMin is the smallest table allocated.
const runSetMin = 1 << 8

// slot is where the search for key k starts: its bits mixed by a
// multiplicative hash (Fibonacci hashing), the top ones taken.
func (s *runSet) slot(k uint64) int {
	return int((k * 0x9e3779b97f4a7c15) >> (64 - bits.Len(uint(len(s.slots)-1))))
}

// add adds run r, unless a run with its key is there.
func (s *runSet) add(r failRun) {
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := len(s.slots) - 1
	for i := s.slot(r.key); ; i = (i + 1) & mask {
		switch s.slots[i].key {
		case r.key:
			return
		case 0:
			s.slots[i] = r
			s.n++
			return
		}
	}
}

// grow doubles the table, or allocates the first.
func (s *runSet) grow() {
	old := s.slots
	s.slots = make([]failRun, max(runSetMin, 2*len(old)))
	s.n = 0
	for _, r := range old {
		if r.key != 0 {
			s.add(r)
		}
	}
}

// remove removes the run keyed k and returns it, if it was there.
func (s *runSet) remove(k uint64) (failRun, bool) {
	if len(s.slots) == 0 {
		return failRun{}, false
	}
	mask := len(s.slots) - 1
	i := s.slot(k)
	for ; s.slots[i].key != k; i = (i + 1) & mask {
		if s.slots[i].key == 0 {
			return failRun{}, false
		}
	}
	r := s.slots[i]
	// Shift back each following run whose search starts at or before
	// the hole (cyclically), so that no search passes a free slot
	// before its run.
	for j := (i + 1) & mask; s.slots[j].key != 0; j = (j + 1) & mask {
		if h := s.slot(s.slots[j].key); (j-h)&mask >= (j-i)&mask {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = failRun{}
	s.n--
	return r, true
}

// clear removes every run, keeping the table.
func (s *runSet) clear() {
	if s.n > 0 {
		clear(s.slots)
		s.n = 0
	}
}

// graphKindIndex numbers the kinds isGraphKind accepts: 0, 1, 2.
func graphKindIndex(k btf.Kind) int {
	switch k {
	case btf.KindStruct:
		return 0
	case btf.KindUnion:
		return 1
	}
	return 2
}
