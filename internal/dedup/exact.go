package dedup

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
// agrees pairwise to the lower depth of each pair (the invariant), a
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
// a pair of R. The filter asks no depth past the rounds of refinement
// done, and so the invariant below is kept to the lower of the two types'
// depths d, FWD depths capped at those rounds, which is all this needs. A
// comparison between types whose graphs differ at their lower depth d
// therefore fails, and a failed comparison leaves no
// trace: skipping it changes nothing. A graph that reaches a kind the
// comparison refuses (a VAR, a DATASEC, a DECL_TAG) would end it with an
// error, wherever the difference lies: such inputs turn the filter off.
//
// The depths are found by partition refinement over all types, base and
// own (exactrefine.go): round 0 groups types by H_0, round r splits each
// group by the shallow words and the round r-1 groups of the references.
// Each type keeps where its group was at round d(t) = min(fd(t), rounds
// done), which tells, for x and y with d(y) <= d(x), whether x was in
// y's group at round d(y): whether H_d(y)(x) = H_d(y)(y). Two types pass
// when that holds. Rounds stop when no group splits (stable), or when
// their work passes a budget proportional to the steps failed comparisons
// took; d(t) is then capped at the last round done, a lower depth and so
// as sound. They run again from the start when those steps have doubled,
// so that they never cost more than a constant share of the comparisons
// they save.
//
// The invariant is checked when the filter starts (every class so far)
// and kept at every link the struct pass makes (link). A class is kept as
// its member of the greatest d, its deepest: a set of types agrees
// pairwise to the lower d of each pair when each agrees so with the
// deepest, and two such sets joined agree when their deepest agree (the
// agreements at lower depths follow from those at higher ones, by
// transitivity). A link that joins classes whose deepest disagree stops
// the filter (broken) until the next refinement finds the invariant holds
// again.
type exactSigs struct {
	built    bool
	off      bool // a graph reaches a kind the comparison refuses
	broken   bool // a link joined classes that disagree
	complete bool // the last refinement reached a stable partition
	next     uint64
	// By dense index: d(t), and where t's group was at round d(t) in the
	// refinement's order: its first position and the end of the types
	// still in it (exactrefine.go).
	d, pos, end []uint32
	// class holds a class's deepest member (dense), by the id it
	// resolves to, where that is not the id itself.
	class map[uint32]uint32
}

// exactWork is the refinement's budget of references hashed: this much,
// plus exactWorkPerStep per step that failed comparisons took.
const (
	exactWork        = 1 << 20
	exactWorkPerStep = 32
)

// exactSetupSteps is about what the refinement's setup costs a type, in
// steps of failed comparisons: on vsock-m1 (exactDiffer) the setup over
// 98,683 types took about 84 ms, and the module's 85,280 failed steps
// with everything else about 92.
const exactSetupSteps = 4

// exactDiffer reports whether the graphs of a and b differ at their lower
// FWD depth, so that comparing them must fail.
//
// The refinement is set up over every type, the base's too, at a few
// steps' cost each (exactSetupSteps), so it is first built only once the
// failed steps pass that cost for the base's types as well as the budget
// that turned the filters on (as a rental that is bought once its rent
// reaches the price, this costs at most about twice the better choice): a
// module whose types stop matching a vmlinux base (a relocation's
// addend changed in vsock_loopback.ko, 3,707 types over 94,975) failed
// 65,825 steps when it was built and 85,280 in all, and the setup over
// 98,683 types was over half of the encoding's CPU (BENCH.md); 7.3's
// tun.ko on its vmlinux failed 187,508 steps over 121,184 base types.
// Before that, comparisons run unfiltered, at most as many steps more as
// the setup costs, and the output is the same (the filter only skips
// comparisons that fail).
func (d *state) exactDiffer(a, b uint32) bool {
	e := &d.exact
	if !e.built && d.failSteps < d.deepBudget+exactSetupSteps*uint64(d.blast) {
		return false
	}
	if !e.built || !e.complete && d.failSteps >= e.next {
		d.exactInit()
	}
	if e.off || e.broken {
		return false
	}
	return !e.agree(d.dense(a), d.dense(b))
}

// agree reports whether types x and y (dense) agree to the lower of their
// depths d: whether the deeper one was in the other's group at that round.
func (e *exactSigs) agree(x, y uint32) bool {
	if e.d[y] > e.d[x] {
		x, y = y, x
	}
	return e.pos[y] <= e.pos[x] && e.pos[x] < e.end[y]
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
	if d.exactHook != nil {
		d.exactHook(&r)
	}
	e.class = map[uint32]uint32{}
	for i := uint32(1); i < uint32(len(e.d)) && !e.broken; i++ {
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
// to itself, and marks the filter broken if their deepest disagree.
func (d *state) exactJoin(a, r uint32) {
	e := &d.exact
	na, nr := e.deepest(d, a), e.deepest(d, r)
	delete(e.class, a)
	switch {
	case !e.agree(na, nr):
		e.broken = true
	case e.d[na] > e.d[nr]:
		e.class[r] = na
	}
}

// deepest returns the deepest member of the class that resolves to id.
func (e *exactSigs) deepest(d *state, id uint32) uint32 {
	if x, ok := e.class[id]; ok {
		return x
	}
	return d.dense(id)
}

func (e *exactSigs) free() {
	*e = exactSigs{}
}
