package dedup

import "fmt"

// wordInput is an input laid out in the Merger's word form away from the
// Merger, by Merger.Prepare (a Prepared Spec) or by a producer's Add calls
// (a Unit), so that appending it is a copy of words and the interning of
// its new strings. appendWordInput is the one routine that appends both.
type wordInput struct {
	first uint32 // the input's first own id
	w     []uint32
	ends  []uint32 // each record's end in w
	// names are the positions in w of the names to resolve, which hold a
	// string's number in keys; refs those of references to the input's
	// own types, which are shifted to the ids they get.
	names, refs []uint32
	// namesByShape says that names is empty and every name of w holds a
	// string's number: the names are found by the records' shapes.
	namesByShape bool
	// keys holds, per string of the input in the order of first use, its
	// key, or pending if it is not a base string: then appending adds
	// strs[strEnds[j-1]:strEnds[j]], of hash hashes[j], to the own
	// strings. libbpf's interning visits the same strings in that order.
	keys    []uint32
	hashes  []uint64
	strs    []byte
	strEnds []uint32
	pending int
}

// appendWordInput appends in's records after the types appended so far:
// its strings interned, its names and references rewritten, and each
// position in later set to deferred. On error nothing is appended.
func (m *Merger) appendWordInput(in *wordInput, later []uint32, deferred uint32) error {
	d := m.d
	if err := d.room(len(in.ends)); err != nil {
		return err
	}
	rs := &d.recs
	if err := wordRoom(len(rs.w), len(in.w)); err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	// The strings first, in order, since only they can fail.
	strMark := d.strs.Own.Len()
	d.strs.Own.Reserve(in.pending)
	from := uint32(0)
	for j, k := range in.keys {
		to := in.strEnds[j]
		if k == pending {
			key, err := d.strs.addOwn(in.strs[from:to], in.hashes[j])
			if err != nil {
				d.strs.Own.Truncate(strMark)
				return err
			}
			in.keys[j] = key
		}
		from = to
	}
	in.pending = 0
	shift := d.first + d.n() - in.first
	rs.reserve(len(in.w), len(in.ends))
	at := uint32(len(rs.w))
	rs.w = append(rs.w, in.w...)
	w := rs.w[at:]
	// Guarded by BenchmarkAppend.
	for _, i := range in.names {
		w[i] = in.keys[w[i]]
	}
	if in.namesByShape {
		nameByShape(w, in.ends, in.keys)
	}
	for _, i := range in.refs {
		w[i] += shift
	}
	for _, i := range later {
		w[i] = deferred
	}
	for _, e := range in.ends {
		rs.off.push(at + e)
	}
	return nil
}

// wordRoom checks that more words of records fit after have: a record's
// offset is kept below wideBit (offsets.go).
func wordRoom(have, more int) error {
	if have+more >= wideBit {
		return fmt.Errorf("more than %d words of records", wideBit-1)
	}
	return nil
}

// nameByShape sets every name of the records in w, which end at ends,
// from the number of a string to its key.
func nameByShape(w, ends, keys []uint32) {
	start := uint32(0)
	for _, end := range ends {
		r := record(w[start:end])
		r[wName] = keys[r[wName]]
		if sh := r.Shape(); sh.Elem > 0 && sh.ElemName >= 0 {
			for e := sh.Fixed + sh.ElemName; e < len(r); e += sh.Elem {
				r[e] = keys[r[e]]
			}
		}
		start = end
	}
}
