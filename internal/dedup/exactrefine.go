package dedup

import (
	"cmp"
	"math"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
)

// The refinement behind exact depths (exact.go).
//
// Every type has a position in one order of all types; a group is a range
// of it, [lo, end) the types still in the group, and a group that splits
// keeps one part and carves the others off the end of its range, each a
// new group (so that a group's range holds, past end, only the groups
// carved from it, and before end the types still in it or in groups
// carved from it later). A type is in y's group at round r exactly when
// its own group at any later round starts in [lo, end) of y's group as it
// was at round r: groups carved at r or before start at end or past it.
// So each type t keeps pos (its group's lo) and end at round d(t), and x
// was in y's group at round d(y) <= d(x) when pos[y] <= pos[x] < end[y].
//
// Round r re-keys only the types one of whose references changed group at
// round r-1 (touched): the others of a group share the key they had, so
// the touched ones whose key differs are carved off, by key, and the
// others stay; where every type of a group is touched, its largest part
// stays. A carved type touches its referrers for the next round. A chain
// of N records then splits one type a round, in about 2N rounds of a few
// types each, instead of hashing every type of the chain each round.

const fdNone = math.MaxUint32

// exactRefiner holds the refinement's scratch.
type exactRefiner struct {
	d *state
	e *exactSigs
	// start and refs: the followed references of dense index i are
	// refs[start[i]:start[i+1]], by dense index; a leaf has none. rstart
	// and from: the referrers, the same way.
	start, refs  []uint32
	rstart, from []uint32
	leaf         []bool
	h0, shallow  []uint32
	fd           []uint32
	// The groups: each type's, and each group's lo and end.
	group, lo, end []uint32
	order, at      []uint32 // the types by position, and each one's
	rounds         uint32   // the rounds done
}

// expands reports whether H follows the references of kind k.
func expands(k btf.Kind) bool {
	switch k {
	case btf.KindStruct, btf.KindUnion, btf.KindFuncProto, btf.KindConst, btf.KindVolatile,
		btf.KindRestrict, btf.KindPointer, btf.KindTypedef, btf.KindFunc, btf.KindTypeTag:
		return true
	}
	return false
}

// compared reports whether the comparison accepts kind k.
func compared(k btf.Kind) bool {
	switch k {
	case btf.KindInt, btf.KindFloat, btf.KindForward, btf.KindEnum, btf.KindEnum64, btf.KindArray:
		return true
	}
	return expands(k)
}

// graph collects every type's H_0, shallow words and followed references;
// false if a type the comparison descends refers to one it refuses, or to
// no type.
func (r *exactRefiner) graph() bool {
	d := r.d
	size := d.blast + 1 + d.n()
	r.start = make([]uint32, size+1)
	r.leaf = make([]bool, size)
	r.h0 = make([]uint32, size)
	r.shallow = make([]uint32, size)
	r.h0[0], r.leaf[0] = sigVoid, true
	for i := uint32(1); i < size; i++ {
		r.start[i] = uint32(len(r.refs))
		t := d.rec(d.undense(i))
		k := kindOf(t)
		r.h0[i] = sigOf(t, 0, nil)
		r.leaf[i] = !expands(k)
		if !expands(k) && k != btf.KindArray {
			continue
		}
		r.shallow[i] = uint32(hashShallow(t) >> 32)
		for j := range numRefs(t) {
			c := t[refAt(t, j)]
			if c >= d.first+d.n() || c > d.blast && c < d.first || c != 0 && !compared(d.kind(c)) {
				return false
			}
			if !r.leaf[i] {
				r.refs = append(r.refs, d.dense(c))
			}
		}
	}
	r.start[size] = uint32(len(r.refs))
	return true
}

// depths finds every type's FWD depth, by a search from the FWDs over the
// reversed references.
func (r *exactRefiner) depths() {
	size := len(r.leaf)
	r.rstart = make([]uint32, size+1)
	for _, c := range r.refs {
		r.rstart[c+1]++
	}
	for i := 1; i <= size; i++ {
		r.rstart[i] += r.rstart[i-1]
	}
	r.from = make([]uint32, len(r.refs))
	fill := slices.Clone(r.rstart[:size])
	for i := range size {
		for _, c := range r.refs[r.start[i]:r.start[i+1]] {
			r.from[fill[c]] = uint32(i)
			fill[c]++
		}
	}
	r.fd = make([]uint32, size)
	var queue []uint32
	for i := range size {
		r.fd[i] = fdNone
		if i > 0 && r.d.kind(r.d.undense(uint32(i))) == btf.KindForward {
			r.fd[i] = 0
			queue = append(queue, uint32(i))
		}
	}
	for q := 0; q < len(queue); q++ {
		c := queue[q]
		for _, p := range r.from[r.rstart[c]:r.rstart[c+1]] {
			if r.fd[p] == fdNone {
				r.fd[p] = r.fd[c] + 1
				queue = append(queue, p)
			}
		}
	}
}

// roots makes the groups of round 0, by H_0, and returns every type that
// shares its group (touched at round 1).
func (r *exactRefiner) roots() []uint32 {
	size := uint32(len(r.leaf))
	r.order = make([]uint32, size)
	for i := range r.order {
		r.order[i] = uint32(i)
	}
	slices.SortFunc(r.order, func(a, b uint32) int { return cmp.Compare(r.h0[a], r.h0[b]) })
	r.at = make([]uint32, size)
	r.group = make([]uint32, size)
	var touched []uint32
	for lo := uint32(0); lo < size; {
		hi := lo + 1
		for hi < size && r.h0[r.order[hi]] == r.h0[r.order[lo]] {
			hi++
		}
		g := uint32(len(r.lo))
		r.lo, r.end = append(r.lo, lo), append(r.end, hi)
		for p, t := range r.order[lo:hi] {
			r.group[t], r.at[t] = g, lo+uint32(p)
		}
		if hi-lo > 1 {
			touched = append(touched, r.order[lo:hi]...)
		}
		lo = hi
	}
	return touched
}

// refine runs the rounds of refinement within budget and fills e.d, e.pos
// and e.end.
func (r *exactRefiner) refine(budget uint64) {
	e := r.e
	size := uint32(len(r.leaf))
	touched := r.roots()
	byFd := make([]uint32, 0, size) // the types of finite FWD depth, by it
	for i := range size {
		if r.fd[i] != fdNone {
			byFd = append(byFd, i)
		}
	}
	slices.SortFunc(byFd, func(a, b uint32) int { return cmp.Compare(r.fd[a], r.fd[b]) })
	e.d, e.pos, e.end = make([]uint32, size), make([]uint32, size), make([]uint32, size)
	keep := func(t, round uint32) {
		g := r.group[t]
		e.d[t], e.pos[t], e.end[t] = round, r.lo[g], r.end[g]
	}
	next := 0
	for ; next < len(byFd) && r.fd[byFd[next]] == 0; next++ {
		keep(byFd[next], 0)
	}
	keys := make([]uint64, size)
	stamp := make([]uint32, size) // the round that last touched a type
	var work uint64
	round := uint32(1)
	for ; len(touched) > 0; round++ {
		if work > budget || r.d.canceled() {
			break
		}
		work += uint64(len(touched))
		for _, t := range touched {
			keys[t] = r.key(t)
			work += uint64(r.start[t+1] - r.start[t])
		}
		moved := r.split(touched, keys)
		touched = touched[:0]
		for _, t := range moved {
			for _, p := range r.from[r.rstart[t]:r.rstart[t+1]] {
				if stamp[p] != round {
					stamp[p] = round
					touched = append(touched, p)
				}
			}
		}
		for ; next < len(byFd) && r.fd[byFd[next]] <= round; next++ {
			keep(byFd[next], round)
		}
	}
	e.complete = len(touched) == 0 // no group can split any more
	r.rounds = round - 1
	for t := range size {
		if r.fd[t] >= round {
			keep(t, round-1)
		}
	}
}

// key hashes what splits type i's group at the next round: its shallow
// words and its references' groups; a leaf's is constant.
func (r *exactRefiner) key(i uint32) uint64 {
	if r.leaf[i] {
		return 0
	}
	h := mix(uint64(r.shallow[i]), 0xe8ac7)
	for _, c := range r.refs[r.start[i]:r.start[i+1]] {
		h = mix(h, r.group[c])
	}
	return h
}

// split carves off, group by group, the touched types whose key differs
// from the others', and returns the types that changed group.
func (r *exactRefiner) split(touched []uint32, keys []uint64) []uint32 {
	slices.SortFunc(touched, func(a, b uint32) int {
		if c := cmp.Compare(r.group[a], r.group[b]); c != 0 {
			return c
		}
		return cmp.Compare(keys[a], keys[b])
	})
	var moved []uint32
	for i := 0; i < len(touched); {
		g := r.group[touched[i]]
		j := i + 1
		for j < len(touched) && r.group[touched[j]] == g {
			j++
		}
		run := touched[i:j]
		i = j
		// The parts of one key each; the largest stays if every type
		// of the group is touched, none otherwise.
		stay := -1
		if uint32(len(run)) == r.end[g]-r.lo[g] {
			stay = largestRun(run, keys)
		}
		for a := 0; a < len(run); {
			b := a + 1
			for b < len(run) && keys[run[b]] == keys[run[a]] {
				b++
			}
			if a != stay {
				r.carve(g, run[a:b])
				moved = append(moved, run[a:b]...)
			}
			a = b
		}
	}
	return moved
}

// largestRun returns where the longest run of one key starts in run,
// which is sorted by key.
func largestRun(run []uint32, keys []uint64) int {
	best, bestLen := 0, 0
	for a := 0; a < len(run); {
		b := a + 1
		for b < len(run) && keys[run[b]] == keys[run[a]] {
			b++
		}
		if b-a > bestLen {
			best, bestLen = a, b-a
		}
		a = b
	}
	return best
}

// carve moves types, of group g, to the end of g's types, as a new group.
func (r *exactRefiner) carve(g uint32, types []uint32) {
	end := r.end[g]
	for _, t := range types {
		end--
		u := r.order[end]
		r.order[r.at[t]], r.at[u] = u, r.at[t]
		r.order[end], r.at[t] = t, end
	}
	n := uint32(len(r.lo))
	r.lo, r.end = append(r.lo, end), append(r.end, r.end[g])
	r.end[g] = end
	for _, t := range types {
		r.group[t] = n
	}
}
