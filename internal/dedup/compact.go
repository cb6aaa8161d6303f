package dedup

import "github.com/kmeta-dev/kmeta/btf"

// Compacted records.
//
// A DWARF encoder appends every struct once per compile unit that uses
// it: in a vmlinux's encoding, structs are a fifth of the types but most
// of the records' bytes, and all but a few thousand of them turn out to be
// duplicates (BENCH.md). The struct pass proves each
// such duplicate equivalent to its canonical type, and equivalence implies
// shallow equality: the same name, info word, size, member names and
// member offsets. Only the member types differ, since they are the
// duplicate's own unit's types. Yet the record must stay: a later
// comparison whose canonical side reaches it through its unit's graph
// reads it (libbpf's btf_dedup_is_equiv follows the canonical side's raw
// ids), and the reference pass and the output never do.
//
// So a pipelined Merger rewrites each struct or union that its struct
// pass has decided, whose canonical type is another, as [canonical id,
// info word, member type ids...]: 2+vlen words instead of 3+3*vlen. The
// rest is read from the canonical record, which a shape check proved
// equal when compacting. Such a record is told from a full one by its
// length alone (2+vlen is never 3+3*vlen). d.rec expands it; isEquiv, the
// only place that meets them often, reads it in place.

// isCompact reports whether r, an own record, is a compacted struct,
// union or enum: shorter than any full record of its kind and vlen (3+vlen
// words at least; 2+vlen for a compacted struct or union, 2 for an enum).
// It is called for every record the passes read, so it is kept cheap
// enough to inline.
func isCompact(r record) bool {
	return compactKinds>>kindOf(r)&1 != 0 && len(r) < wHead+vlenOf(r)
}

const compactKinds = 1<<btf.KindStruct | 1<<btf.KindUnion | 1<<btf.KindEnum | 1<<btf.KindEnum64

// expand returns the full record of the compacted record r, in new memory.
func (d *state) expand(r record) record {
	src := d.rec(r[0])
	full := make(record, len(src))
	copy(full, src)
	full[wInfo] = r[wInfo]
	s := src.Shape()
	if s.ElemRef < 0 {
		return full // an enum
	}
	for k, i := 0, s.Fixed+s.ElemRef; i < len(full); k, i = k+1, i+s.Elem {
		full[i] = r[2+k]
	}
	return full
}

// recOrCompact returns the record of type id as the struct pass reads
// its canonical side: a full record and nil, or, for a compacted struct or
// union, the full record of its canonical type (equal but for the member
// types) and the member types.
func (d *state) recOrCompact(id uint32) (r, types record) {
	if id <= d.blast {
		return d.rec(id), nil
	}
	r = d.recs.rec(id - d.first)
	if isCompact(r) {
		src := d.rec(r[0])
		if src.Shape().ElemRef < 0 {
			return src, nil // an enum
		}
		return src, r[2:]
	}
	return r, nil
}

// compactible returns the canonical type that own record r (of index i)
// can be compacted against, if any: r is a struct or union with members
// that the struct pass mapped to another type, whose record is full and
// equal to r but for the member types, or an enum with values that the
// primitive pass mapped to another equal to it word for word.
func (d *state) compactible(i uint32, r record) (uint32, bool) {
	switch d.kt.ownKind(i) {
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64:
	default:
		return 0, false
	}
	if vlenOf(r) == 0 {
		return 0, false
	}
	id := d.first + i
	c := d.m[i]
	if c > maxID || c == id {
		return 0, false
	}
	if c = d.resolve(c); c == id || d.get(c) != c {
		return 0, false
	}
	var src record
	if c <= d.blast {
		src = d.base.rec(c)
	} else {
		src = d.recs.rec(c - d.first)
	}
	if len(src) != len(r) || src[wName] != r[wName] || src[wInfo] != r[wInfo] || src[wSize] != r[wSize] {
		return 0, false
	}
	s := r.Shape()
	for e := s.Fixed; e < len(r); e += s.Elem {
		for j := range s.Elem {
			if j != s.ElemRef && src[e+j] != r[e+j] {
				return 0, false
			}
		}
	}
	return c, true
}

// compactibleBelow is compactible for a record of index i below hi, and
// false for any other.
func (d *state) compactibleBelow(i, hi uint32, r record) (uint32, bool) {
	if i >= hi {
		return 0, false
	}
	return d.compactible(i, r)
}

// compactRecs rewrites the records the struct pass has decided since the last
// call (from d.pipe.compacted up to d.pipe.structDone), compacting those
// it can and moving the rest down, and the records after them too. It
// runs after each step of the pipeline, while these records were just
// written and are still in the cache.
func (d *state) compactRecs() {
	p := d.pipe
	lo, hi := p.compacted, p.structDone
	if lo >= hi {
		return
	}
	rs := &d.recs
	n := rs.len()
	ends := p.ends[:0]
	at := rs.off.at(lo)
	start := at
	for i := lo; i < n; i++ {
		end := rs.off.at(i + 1)
		r := record(rs.w[start:end:end])
		// Only records the struct pass decided (i < hi) are asked: the
		// maps and kinds do not reach the records after the closed
		// prefix (a unit may refer past its last type: pipeline.advance).
		if c, ok := d.compactibleBelow(i, hi, r); ok {
			// The words are written over r's first ones, or before
			// them: at <= start.
			info := r[wInfo]
			n := uint32(2)
			if s := r.Shape(); s.ElemRef >= 0 {
				for e := s.Fixed + s.ElemRef; e < len(r); e += s.Elem {
					rs.w[at+n] = r[e]
					n++
				}
			}
			rs.w[at], rs.w[at+1] = c, info
			at += n
		} else {
			at += uint32(copy(rs.w[at:], r))
		}
		ends = append(ends, at)
		start = end
	}
	rs.off.truncate(int(lo) + 1)
	for _, e := range ends {
		rs.off.push(e)
	}
	rs.w = rs.w[:at]
	p.ends = ends[:0]
	p.compacted = hi
}
