package dedup

import (
	"cmp"
	"math"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
)

// Exact depths filter the candidates that deep and full signatures cannot
// tell apart because every record of a chain may meet a FWD (issue 37:
// records linked by pointers, an anonymous FWD struct at the bottom; every
// pointer to a record refers to an anonymous struct or union as the one to
// the FWD does, so the chain has one deep signature and no full one, and
// libbpf compares it pair by pair, cubic in its length).
//
// Call fd(t) the FWD depth of a type: the fewest references from t to a
// FWD, following the references of structs, unions, prototypes and the
// kinds that refer to one type (an array, an INT, an enum and a FWD are
// leaves, whose references are not followed), infinite if none. Call
// H_r(t) the graph of t cut at depth r: H_0 is sigOf's value of depth 0
// (class and name for a FWD, struct, union or enum, the kind and name
// for the others, every word of an INT, the shallow words of an array),
// and H_r of a type that is not a leaf is H_(r-1) with its shallow words
// (hashShallow) and the H_(r-1) of its references in order; a leaf's is
// H_0 at every depth. The graphs of x and y agree to depth r when H_r(x)
// = H_r(y), which implies they agree at every lower depth.
//
// The claim: while every class (the types that resolve to one type)
// agrees pairwise to the lower FWD depth of each pair (the invariant), a
// comparison of a and b that succeeds finds their graphs agree to depth
// min(fd(a), fd(b)). Call R the pairs (cand, canon) that the comparison
// visits first, each checked whole in a comparison that succeeds (a
// failure anywhere ends it). By induction on r, every pair of R, and every
// pair it meets otherwise, whose FWD depths are both at least r agrees to
// depth r. For r = 0: the comparison checks names and kinds, a FWD's
// class against its struct's, and resolves only FWDs, to a struct of
// their class and name. For r > 0, x and y are no FWDs: leaves agree at
// depth 0, where their checks (equal INTs, compatible enums of one name,
// shallow-equal arrays) hold; other kinds are equal and so are their
// shallow words, and each pair of references has FWD depths of r-1 at
// least and is a pair of R, or a pair revisited with its candidate, or a
// pair of one class (the invariant gives agreement to their lower FWD
// depth), or a conflict of the hypothetical map that the check (identical,
// or identical11) accepts: the candidate hv and the new one are then the
// same graph down to every leaf that H reads (arrays by their shallow
// words, FWDs by all their words, references in one order), so the new one
// agrees with hv at every depth and has hv's FWD depth, and (hv, canon) is
// a pair of R. A comparison between types whose graphs differ at their
// lower FWD depth therefore fails, and a failed comparison leaves no
// trace: skipping it changes nothing. A graph that reaches a kind the
// comparison refuses (a VAR, a DATASEC, a DECL_TAG) would end it with an
// error, wherever the difference lies: such inputs turn the filter off.
//
// The depths are found by partition refinement over all types, base and
// own: round 0 groups types by H_0, round r splits each group by the
// shallow words and the round r-1 groups of the references. The groups
// form a tree (a group's children are the groups it splits into, each a
// contiguous range of one order of the types, nested in its parent's), and
// each type keeps its group at round min(fd(t), rounds done), at[t]. For
// x and y with fd(y) <= fd(x), H_fd(y)(x) = H_fd(y)(y) exactly when at[y]
// is an ancestor of at[x] or at[x] itself (the group of x alive at round
// fd(y) is the one on its path whose children split later): so two types
// pass when one's group contains the other's. Rounds stop when no group
// splits (stable), or when their work passes a budget proportional to the
// steps failed comparisons took; at[t] is then the group of the last round
// done, a lower depth and so as sound. They run again from the start when
// those steps have doubled, so that they never cost more than a constant
// share of the comparisons they save.
//
// The invariant is checked when the filter starts (every class so far)
// and kept at every link the struct pass makes (link): a class's groups
// lie on one path of the tree, kept as its deepest group, and a link that
// joins classes whose deepest groups are not on one path stops the filter
// (broken) until the next refinement finds the invariant holds again.
type exactSigs struct {
	built    bool
	off      bool // a graph reaches a kind the comparison refuses
	broken   bool // a link joined classes that disagree
	complete bool // the last refinement reached a stable partition
	next     uint64
	// at holds each type's group at round min(fd, rounds done), by dense
	// index; lo and hi each group's range in the refinement's order.
	at     []uint32
	lo, hi []uint32
	// class holds a class's deepest group, by the id it resolves to,
	// where that is not at[id].
	class map[uint32]uint32
}

// exactWork is the refinement's budget of references hashed: this much,
// plus exactWorkPerStep per step that failed comparisons took.
const (
	exactWork        = 1 << 20
	exactWorkPerStep = 32
)

const fdNone = math.MaxUint32

// exactDiffer reports whether the graphs of a and b differ at their lower
// FWD depth, so that comparing them must fail.
func (d *state) exactDiffer(a, b uint32) bool {
	e := &d.exact
	if !e.built || !e.complete && d.failSteps >= e.next {
		d.exactInit()
	}
	if e.off || e.broken {
		return false
	}
	x, y := e.at[d.dense(a)], e.at[d.dense(b)]
	return !e.contains(x, y) && !e.contains(y, x)
}

// contains reports whether group u is group v or an ancestor of it.
func (e *exactSigs) contains(u, v uint32) bool {
	return e.lo[u] <= e.lo[v] && e.hi[v] <= e.hi[u]
}

// exactInit refines the partition within the budget and checks the
// invariant on every class linked so far.
func (d *state) exactInit() {
	e := &d.exact
	*e = exactSigs{built: true, next: 2*d.failSteps + 1}
	r := exactRefiner{d: d, e: e}
	if !r.graph() {
		e.off = true
		return
	}
	r.depths()
	r.refine(exactWork + exactWorkPerStep*d.failSteps)
	e.class = map[uint32]uint32{}
	for i := uint32(1); i < uint32(len(e.at)) && !e.broken; i++ {
		id := d.undense(i)
		if v := d.resolve(id); v != id {
			d.exactJoin(id, v)
		}
	}
}

func (d *state) undense(i uint32) uint32 {
	if i <= d.blast {
		return i
	}
	return i - d.blast - 1 + d.first
}

// exactJoin records that a's class joins that of r, a type that resolves
// to itself, and marks the filter broken if they disagree.
func (d *state) exactJoin(a, r uint32) {
	e := &d.exact
	na, nr := e.classGroup(d, a), e.classGroup(d, r)
	delete(e.class, a)
	switch {
	case e.contains(na, nr):
	case e.contains(nr, na):
		e.class[r] = na
	default:
		e.broken = true
	}
}

func (e *exactSigs) classGroup(d *state, id uint32) uint32 {
	if g, ok := e.class[id]; ok {
		return g
	}
	return e.at[d.dense(id)]
}

func (e *exactSigs) free() {
	*e = exactSigs{}
}

// exactRefiner holds the refinement's scratch.
type exactRefiner struct {
	d *state
	e *exactSigs
	// start and refs: the followed references of dense index i are
	// refs[start[i]:start[i+1]], by dense index; a leaf has none.
	start, refs []uint32
	leaf        []bool
	h0, shallow []uint32
	fd          []uint32
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
		if !compared(k) || k == btf.KindForward || k == btf.KindEnum || k == btf.KindEnum64 ||
			k == btf.KindInt || k == btf.KindFloat {
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
	rstart := make([]uint32, size+1)
	for _, c := range r.refs {
		rstart[c+1]++
	}
	for i := 1; i <= size; i++ {
		rstart[i] += rstart[i-1]
	}
	from := make([]uint32, len(r.refs))
	fill := slices.Clone(rstart[:size])
	for i := range size {
		for _, c := range r.refs[r.start[i]:r.start[i+1]] {
			from[fill[c]] = uint32(i)
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
		for _, p := range from[rstart[c]:rstart[c+1]] {
			if r.fd[p] == fdNone {
				r.fd[p] = r.fd[c] + 1
				queue = append(queue, p)
			}
		}
	}
}

// refine runs the rounds of refinement within budget and fills e.at,
// e.lo and e.hi.
func (r *exactRefiner) refine(budget uint64) {
	d, e := r.d, r.e
	size := uint32(len(r.leaf))
	order := make([]uint32, size)
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return cmp.Compare(r.h0[a], r.h0[b]) })
	group := make([]uint32, size) // each type's group at the last round
	var active []uint32           // the groups of two types or more
	for lo := uint32(0); lo < size; {
		hi := lo + 1
		for hi < size && r.h0[order[hi]] == r.h0[order[lo]] {
			hi++
		}
		if g := e.newGroup(order, group, lo, hi); hi-lo > 1 {
			active = append(active, g)
		}
		lo = hi
	}
	// The types by FWD depth, so that each keeps its group at that round.
	byFd := make([]uint32, 0, size)
	for i := range size {
		if r.fd[i] != fdNone {
			byFd = append(byFd, i)
		}
	}
	slices.SortFunc(byFd, func(a, b uint32) int { return cmp.Compare(r.fd[a], r.fd[b]) })
	e.at = make([]uint32, size)
	keys := make([]uint64, size)
	next := 0
	keep := func(round uint32) {
		for ; next < len(byFd) && r.fd[byFd[next]] <= round; next++ {
			e.at[byFd[next]] = group[byFd[next]]
		}
	}
	keep(0)
	var work uint64
	for round := uint32(1); len(active) > 0; round++ {
		if work > budget || d.canceled() {
			break
		}
		for _, g := range active {
			for _, i := range order[e.lo[g]:e.hi[g]] {
				keys[i] = r.key(i, group)
				work += uint64(1 + r.start[i+1] - r.start[i])
			}
		}
		var split bool
		if active, split = e.split(active, order, group, keys); !split {
			e.complete = true // every later round the same
			break
		}
		keep(round)
	}
	if len(active) == 0 {
		e.complete = true
	}
	for ; next < len(byFd); next++ {
		e.at[byFd[next]] = group[byFd[next]]
	}
	for i := range size {
		if r.fd[i] == fdNone {
			e.at[i] = group[i]
		}
	}
}

// key hashes what splits type i's group at the next round: its shallow
// words and its references' groups; a leaf's is constant.
func (r *exactRefiner) key(i uint32, group []uint32) uint64 {
	if r.leaf[i] {
		return 0
	}
	h := mix(uint64(r.shallow[i]), 0xe8ac7)
	for _, c := range r.refs[r.start[i]:r.start[i+1]] {
		h = mix(h, group[c])
	}
	return h
}

// newGroup adds a group of the types order[lo:hi].
func (e *exactSigs) newGroup(order, group []uint32, lo, hi uint32) uint32 {
	g := uint32(len(e.lo))
	e.lo, e.hi = append(e.lo, lo), append(e.hi, hi)
	for _, i := range order[lo:hi] {
		group[i] = g
	}
	return g
}

// split splits each active group by keys into child groups, and returns
// the groups of two types or more and whether any group split.
func (e *exactSigs) split(active, order, group []uint32, keys []uint64) ([]uint32, bool) {
	var out []uint32
	split := false
	for _, g := range active {
		lo, hi := e.lo[g], e.hi[g]
		m := order[lo:hi]
		// The types of the first key first, the others sorted: a
		// group mostly splits off a few types per round.
		k0 := keys[m[0]]
		j := 0
		for x := range m {
			if keys[m[x]] == k0 {
				m[j], m[x] = m[x], m[j]
				j++
			}
		}
		if j == len(m) {
			out = append(out, g)
			continue
		}
		split = true
		slices.SortFunc(m[j:], func(a, b uint32) int { return cmp.Compare(keys[a], keys[b]) })
		for a := uint32(0); a < uint32(len(m)); {
			b := a + 1
			for b < uint32(len(m)) && keys[m[b]] == keys[m[a]] {
				b++
			}
			if c := e.newGroup(order, group, lo+a, lo+b); b-a > 1 {
				out = append(out, c)
			}
			a = b
		}
	}
	return out, split
}
