package dedup

import (
	"fmt"
	"hash/maphash"

	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/recenc"
)

// wordInput is an input laid out in the Merger's word form away from the
// Merger, by Merger.Prepare (a Prepared Spec) or by a producer's Add calls
// (a Unit), so that appending it is a copy of words and the interning of
// its new strings: its records (recenc.Words) and its strings, here.
// appendWordInput is the one routine that appends every input.
type wordInput struct {
	// byShape says that recs.Names and recs.Refs are empty: every name
	// of the records holds a string's number, and the references to
	// shift are those at or above own (recs.First, or a continued
	// Builder's first id); both are found by the records' shapes.
	byShape bool
	own     uint32
	// keys holds, per string of the input in the order of first use, its
	// key, or pending if it is not a base string: then appending adds
	// strs[strEnds[j-1]:strEnds[j]], of hash hashes[j], to the own
	// strings; a Unit keeps no hashes (nil), and its strings are hashed
	// again there. libbpf's interning visits the same strings in that order.
	// The names that recs.Names lists hold a string's number in keys.
	keys    []uint32
	hashes  []uint64
	strs    []byte
	strEnds []uint32
	pending int
}

// appendWordInput appends the records of recs after the types appended
// so far: the strings of in interned, the names and references rewritten,
// and each Deferred reference (recs.Later) set to deferred. On error
// nothing is appended. If recs.W is held in the mapping *mem (a
// Prepared's) and nothing was appended before, the records take it
// over (records.adopt): recs.W and *mem are nil then.
func (m *Merger) appendWordInput(recs *recenc.Words, in *wordInput, deferred uint32, mem **mmap.Region) error {
	d := m.d
	m.src.b = nil // a Builder appended before is not continued
	if err := d.room(len(recs.Ends)); err != nil {
		return err
	}
	rs := &d.recs
	if err := wordRoom(len(rs.w), len(recs.W)); err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	// The strings first, in order, since only they can fail.
	strMark := d.strs.Own.Len()
	d.strs.Own.Reserve(in.pending)
	from := uint32(0)
	for j, k := range in.keys {
		to := in.strEnds[j]
		if k == pending {
			s := in.strs[from:to]
			var h uint64
			if in.hashes != nil {
				h = in.hashes[j]
			} else {
				h = maphash.Bytes(m.seed, s)
			}
			key, err := d.strs.addOwn(s, h)
			if err != nil {
				d.strs.Own.Truncate(strMark)
				return err
			}
			in.keys[j] = key
		}
		from = to
	}
	in.pending = 0
	shift := d.first + d.n() - recs.First
	at := uint32(len(rs.w))
	if rs.adopt(recs.W, mem) {
		recs.W = nil
		rs.reserve(0, len(recs.Ends))
	} else {
		rs.reserve(len(recs.W), len(recs.Ends))
		rs.w = append(rs.w, recs.W...)
	}
	w := rs.w[at:]
	// Guarded by BenchmarkAppend.
	for _, i := range recs.Names {
		w[i] = in.keys[w[i]]
	}
	if in.byShape {
		fixByShape(w, recs.Ends, in.keys, in.own, shift)
	}
	for _, i := range recs.Refs {
		w[i] += shift
	}
	for _, i := range recs.Later {
		w[i] = deferred
	}
	for _, e := range recs.Ends {
		rs.off.push(at + e)
	}
	if recs.MaxRef > 0 { // a reference to shift
		m.maxRef = max(m.maxRef, recs.MaxRef+shift)
	}
	if len(recs.Later) > 0 {
		m.maxRef = max(m.maxRef, deferred)
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

// fixByShape sets every name of the records in w, which end at ends,
// from the number of a string, or a key marked isKey, to its key
// (keyOf), and adds shift to every
// reference at or above first.
func fixByShape(w, ends, keys []uint32, first, shift uint32) {
	start := uint32(0)
	for _, end := range ends {
		r := record(w[start:end])
		r[wName] = keyOf(keys, r[wName])
		sh := r.Shape()
		if sh.Ref0 >= 0 && r[sh.Ref0] >= first {
			r[sh.Ref0] += shift
		}
		if sh.Ref1 >= 0 && r[sh.Ref1] >= first {
			r[sh.Ref1] += shift
		}
		if sh.Elem > 0 && (sh.ElemName >= 0 || sh.ElemRef >= 0) {
			for e := sh.Fixed; e < len(r); e += sh.Elem {
				if sh.ElemName >= 0 {
					r[e+sh.ElemName] = keyOf(keys, r[e+sh.ElemName])
				}
				if sh.ElemRef >= 0 && r[e+sh.ElemRef] >= first {
					r[e+sh.ElemRef] += shift
				}
			}
		}
		start = end
	}
}
