package dedup

// refType makes a reference type canonical once what it references is
// (btf_dedup_ref_type): its type ids are rewritten in place to canonical
// ids, then it is looked up by all its words. It returns the canonical id,
// or unprocessed on error (d.err).
//
// libbpf recurses into the references not yet canonical; here a stack of
// the types being made canonical (refFrame) does, so that a chain of
// pointers or prototypes is bounded by the input, not by the goroutine's
// stack (issue 37). Each type's references are made canonical in the
// order of their words, depth first, as libbpf's recursion does: an
// array's element type before its index type, a prototype's return type
// before its parameters. That order decides which of two equal types is
// met first.
func (d *state) refType(id uint32) uint32 {
	if v := d.get(id); v <= maxID {
		return d.resolve(id)
	}
	if !d.refEnter(id) {
		return unprocessed
	}
	st := &d.refStack
	st.push(refFrame{id: id})
	for {
		f := st.top()
		r := d.rec(f.id)
		c, ok := d.refNext(r, f)
		if !ok {
			st.reset()
			return unprocessed
		}
		if c != 0 {
			// A chain of references is made canonical in one call:
			// the context is looked at along it.
			if d.stopped() {
				st.reset()
				return unprocessed
			}
			st.push(refFrame{id: c})
			continue
		}
		newID, ok := d.baseRef(r, f.id)
		if !ok {
			newID = d.refs.find(d, r, f.id)
		}
		d.set(f.id, newID)
		if st.pop(); st.n == 0 {
			return newID
		}
		p := st.top()
		pr := d.rec(p.id)
		pr[refAt(pr, int(p.k))] = newID
		p.k++
	}
}

// refFrame is a type refType is making canonical, whose references
// before the k-th (numRefs, refAt) are canonical: 8 bytes, so that a
// chain of a million pointers costs 8 MB of stack at most.
type refFrame struct{ id, k uint32 }

// refNext rewrites the references of f, whose record is r, from the k-th
// on that are decided already, and stops at the first that is not: it
// returns that type, once refEnter has taken it, or 0 when every
// reference is canonical; false on error (d.err).
func (d *state) refNext(r record, f *refFrame) (uint32, bool) {
	for n := uint32(numRefs(r)); f.k < n; f.k++ {
		i := refAt(r, int(f.k))
		// Most references are to types decided already: resolved here,
		// without refEnter's checks.
		if v := d.get(r[i]); v <= maxID {
			if v != r[i] {
				r[i] = d.resolve(v)
			}
			continue
		}
		if !d.refEnter(r[i]) {
			return 0, false
		}
		return r[i], true
	}
	return 0, true
}

// refEnter marks id, a type that no pass has decided, as being made
// canonical, after checking that it is a reference type and that it is
// not already being made canonical, which would be a cycle; false on
// error (d.err).
func (d *state) refEnter(id uint32) bool {
	if d.get(id) == inProgress {
		// The kinds whose pass breaks cycles: libbpf 1.1 deduplicates
		// typedefs as references, later versions as graphs.
		breakers := "struct, union or typedef"
		if d.compat == CompatLibbpf11 {
			breakers = "struct or union"
		}
		d.errorf("reference cycle through type [%d] without a %s", id, breakers)
		return false
	}
	if k := d.kind(id); !isRefPassKind(k, d.compat) {
		d.errorf("unexpected %v [%d] among reference types", k, id)
		return false
	}
	d.set(id, inProgress)
	return true
}
