package dedup

// Types whose graph reaches a cycle (deepCyc) have no deep signature, but
// can still be told apart (issue 37: a chain of nested records that
// reaches a self-referencing struct is compared as libbpf does, cubic in
// its length, otherwise).
//
// Reaching a cycle, through the references deep signatures follow, is kept
// by every success of btf_dedup_is_equiv: the comparison walks both graphs
// in step, and an endless path on one side meets, on the other, a type
// where the walk stops (a leaf of the deep signatures, where it stops on
// the first side too, since the kinds must agree and a struct met by a FWD
// of its name is a leaf on both sides), or a pair linked before by a
// success, which by induction agrees too. So a type with a deep signature
// and a deepCyc one are never equivalent.
//
// Among deepCyc types the refinement of partitions applies: g0 hashes a
// type's own words, and g(k+1) a type's g(k) with, in order, its
// references' deep signatures, or their g(k) where they are deepCyc. The
// types that a success links are linked pairwise along every path the
// comparison walked (or are equivalent leaves, or linked by earlier
// successes), so by induction on k they have equal g(k), for every k.
// Each round is thus a sound filter by itself: the rounds can stop at any
// point, and start again later, without changing the output. They run
// until the partition is stable, within a work budget proportional to the
// steps that failed comparisons have taken, run again from the start when
// those steps have doubled, so that they never cost more than a constant
// share of the comparisons they save.
type cycSigs struct {
	ids []uint32 // the deepCyc types found, in the order found
	// g holds each refined type's value, by own index, 0 if none; base
	// types in gBase.
	g        []uint32
	gBase    map[uint32]uint32
	refined  int    // len(ids) at the last refinement
	complete bool   // the last refinement reached a stable partition
	next     uint64 // failSteps that allow the next refinement
}

// cycWork is the refinement's budget of references hashed: this much,
// plus cycWorkPerStep per step that failed comparisons took.
const (
	cycWork        = 1 << 16
	cycWorkPerStep = 32
)

func (d *state) cycGet(id uint32) uint32 {
	c := &d.deep.cyc
	if id > d.blast {
		if c.g == nil {
			return 0
		}
		return c.g[id-d.first]
	}
	return c.gBase[id]
}

// cycRefine refines the deepCyc types once the failed steps allow it and
// there is something new to refine.
func (d *state) cycRefine() {
	c := &d.deep.cyc
	if d.failSteps < c.next || c.complete && c.refined == len(c.ids) {
		return
	}
	c.next = 2*d.failSteps + 1
	// Every own type first, so that what they reach is known.
	for id := d.first; id < d.first+d.n(); id++ {
		d.deepSig(&d.deep, id)
	}
	c.refined = len(c.ids)
	g := d.cycRounds(cycWork + cycWorkPerStep*d.failSteps)
	if c.g == nil {
		c.g = make([]uint32, d.n())
	}
	c.gBase = map[uint32]uint32{}
	for i, id := range c.ids[:c.refined] {
		v := uint32(0)
		if g != nil {
			v = g[i]
		}
		if id > d.blast {
			c.g[id-d.first] = v
		} else {
			c.gBase[id] = v
		}
	}
}

// cycRounds runs rounds of refinement on c.ids[:c.refined] while the work
// is within budget, and returns each type's value, nil if the types
// cannot be refined.
func (d *state) cycRounds(budget uint64) []uint32 {
	c := &d.deep.cyc
	ids := c.ids[:c.refined]
	pos := make(map[uint32]int32, len(ids))
	for i, id := range ids {
		pos[id] = int32(i)
	}
	// Each type's references: a fixed value (a deep signature or a leaf's,
	// odd), or twice its position among ids.
	start := make([]int32, len(ids)+1)
	var refs []uint32
	g := make([]uint32, len(ids))
	for i, id := range ids {
		r := d.rec(id)
		g[i] = sigClean(mix(hashShallow(r), 0xc1c1e))
		for k := range numRefs(r) {
			ref := r[refAt(r, k)]
			v := d.deepLeaf(&d.deep, kindOf(r), ref)
			if v == 0 {
				v = d.deepGet(&d.deep, ref)
			}
			switch v {
			case deepNone:
				c.complete = true // until more types come
				return nil        // a reference the comparison refuses
			case deepCyc:
				v = uint32(pos[ref]) << 1
			}
			refs = append(refs, v)
		}
		start[i+1] = int32(len(refs))
	}
	next := make([]uint32, len(ids))
	classes := 0
	c.complete = false
	for round, work := 1, uint64(0); work+uint64(len(refs)+len(ids)) <= budget; round++ {
		if d.canceled() { // the values so far are as sound
			break
		}
		work += uint64(len(refs) + len(ids))
		for i := range ids {
			h := mix(uint64(g[i]), 0xc1c2)
			for _, v := range refs[start[i]:start[i+1]] {
				if v&1 == 0 {
					v = g[v>>1]
				}
				h = mix(h, v)
			}
			next[i] = sigClean(h)
		}
		g, next = next, g
		if round >= len(ids) { // a partition of n types is stable after n rounds
			c.complete = true
			break
		}
		if round%16 == 0 {
			n := countDistinct(g)
			if n == classes { // unchanged for 16 rounds, so for good
				c.complete = true
				break
			}
			classes = n
		}
	}
	return g
}

func countDistinct(vs []uint32) int {
	seen := make(map[uint32]struct{}, len(vs))
	for _, v := range vs {
		seen[v] = struct{}{}
	}
	return len(seen)
}
