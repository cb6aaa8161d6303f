package dedup

// refType makes a reference type canonical once what it references is
// (btf_dedup_ref_type): its type ids are rewritten in place to canonical
// ids, then it is looked up by all its words. It returns the canonical id,
// or unprocessed on error (d.err).
func (d *state) refType(id uint32) uint32 {
	v := d.get(id)
	if v == inProgress {
		// The kinds whose pass breaks cycles: libbpf 1.1 deduplicates
		// typedefs as references, later versions as graphs.
		breakers := "struct, union or typedef"
		if d.compat == CompatLibbpf11 {
			breakers = "struct or union"
		}
		d.errorf("reference cycle through type [%d] without a %s", id, breakers)
		return unprocessed
	}
	if v <= maxID {
		return d.resolve(id)
	}
	r := d.rec(id)
	if !isRefPassKind(kindOf(r), d.compat) {
		d.errorf("unexpected %v [%d] among reference types", kindOf(r), id)
		return unprocessed
	}
	if d.depth >= maxDepth {
		d.fail(errDepth)
		return unprocessed
	}
	d.set(id, inProgress)
	// libbpf resolves an array's element type before its index type, a
	// prototype's return type before its parameters: the order of the
	// words, which decides which of two equal types is met first.
	d.depth++
	ok := d.refWord(r, r.Shape().Ref0) && d.refWord(r, r.Shape().Ref1) && d.refElems(r)
	d.depth--
	if !ok {
		return unprocessed
	}
	newID, ok := d.baseRef(r, id)
	if !ok {
		newID = d.refs.find(d, r, id)
	}
	d.set(id, newID)
	return newID
}

// refWord makes the type id in word i of r (if i >= 0) canonical, as
// refType does for each of its references; false on error (d.err).
func (d *state) refWord(r record, i int) bool {
	if i < 0 {
		return true
	}
	// Most references are to types decided already: resolved here,
	// without refType's checks.
	if v := d.get(r[i]); v <= maxID {
		if v != r[i] {
			r[i] = d.resolve(v)
		}
		return true
	}
	r[i] = d.refType(r[i])
	return r[i] != unprocessed
}

// refElems is refWord for the type id of each vlen element of r.
func (d *state) refElems(r record) bool {
	s := r.Shape()
	if s.ElemRef < 0 {
		return true
	}
	for i := s.Fixed + s.ElemRef; i < len(r); i += s.Elem {
		if !d.refWord(r, i) {
			return false
		}
	}
	return true
}
