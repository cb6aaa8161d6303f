package diff

import (
	"errors"
	"hash/maphash"
	bits64 "math/bits"
	"slices"
	"strconv"

	"github.com/kmeta-dev/kmeta/btf"
)

// A struct whose signature is too long to hold, and whose members shared
// with the other side's come in another order or repeat a name (anonymous
// members: "#0" of several levels), is compared by unordered: through
// 128-bit hashes of its facts, and walks that fetch the values it needs in
// chunks, so that what it holds grows by 24 bytes a fact of the new struct
// and a few bits a fact of the old one, not by the bytes of their paths
// (issue 37). It pairs the facts as factDiff does (matchFacts: equal name
// and value first, then what is left of a name, in order), and trusts the
// hashes: two facts of equal hashes are taken for one. The two seeds are
// random for each comparison (maphash.MakeSeed), so that no input can aim
// at a collision, and a pair of 64-bit hashes of independent seeds
// collides for n facts with a chance of about n*n/2^129 (10^-27 for a
// million: a wrong detail is as unlikely as a collision of SHA-256's
// first half).

// factKey is a fact of the new struct: a 128-bit hash of its name and
// value (of its name alone, when its facts left over are paired by name),
// its index, and, in the first key of a hash, how many keys of that hash
// are taken.
type factKey struct {
	hi, lo uint64
	at     int32
	taken  int32
}

// keyBytes is what unordered holds for a fact of the new struct, beside
// two bits for one of the old (and 4 bytes for a fact whose value is
// fetched).
const keyBytes = 24

// fetchBytes is what unordered holds of the new struct's members whose
// values it needs at a time: those beyond are fetched by another walk of
// the new struct.
var fetchBytes = 1 << 20

// errTooMany is why a struct with too many facts to compare is refused.
var errTooMany = errors.New("diff: its members, flattened, are too many to compare within the memory the input allows")

// hash128 hashes facts' names, or names and values, in 128 bits.
type hash128 struct {
	s1, s2 maphash.Seed
	buf    []byte
}

// key returns the hash of name and value (of name alone when value is
// nil) as a factKey of index at.
func (h *hash128) key(name, value []byte, at int) factKey {
	p := name
	if value != nil {
		h.buf = append(append(append(h.buf[:0], name...), 0), value...)
		p = h.buf
	}
	return factKey{hi: maphash.Bytes(h.s1, p), lo: maphash.Bytes(h.s2, p), at: int32(at)}
}

// take finds the first key of k's hash in keys (sorted by hash, then
// index) not taken yet, marks it taken and returns its index.
func take(keys []factKey, k factKey) (int32, bool) {
	i, ok := slices.BinarySearchFunc(keys, k, cmpHash)
	if !ok {
		return 0, false
	}
	first := &keys[i]
	j := i + int(first.taken)
	if j >= len(keys) || cmpHash(keys[j], k) != 0 {
		return 0, false
	}
	first.taken++
	return keys[j].at, true
}

func cmpHash(x, y factKey) int {
	if c := cmpUint(x.hi, y.hi); c != 0 {
		return c
	}
	return cmpUint(x.lo, y.lo)
}

func sortKeys(keys []factKey) {
	slices.SortFunc(keys, func(x, y factKey) int {
		if c := cmpHash(x, y); c != 0 {
			return c
		}
		return int(x.at - y.at)
	})
}

// unordered yields the details of composite ta of a and tb of b, as
// signatureDiff yields them from their signatures: for each fact of ta in
// order, Removed or Changed as matchFacts pairs it; then Added for each
// fact of tb that ta does not have; "member_order" when none. str makes a
// detail's strings of the walkers' bytes.
func unordered(a, b *side, ta, tb btf.Type, str func([]byte) string, details func(Detail) bool) error {
	h := &hash128{s1: maphash.MakeSeed(), s2: maphash.MakeSeed()}
	// The new struct's facts, sized by a count of them first (a walk
	// that spells nothing): grown by appends, they left as much again
	// behind them.
	nb, err := countFacts(b, tb)
	if err != nil {
		return err
	}
	if nb*keyBytes > b.bound() {
		return refuse(tb, errTooMany)
	}
	keys := make([]factKey, 0, nb)
	wb := b.walker(tb, true)
	for wb.next() {
		if err := b.pollSpelled(1 + (len(wb.name)+len(wb.value))/spelledBytes); err != nil {
			return err
		}
		keys = append(keys, h.key(wb.name, wb.value, wb.at-1))
	}
	if wb.err != nil {
		return wb.error(tb)
	}
	sortKeys(keys)
	// The old struct's facts of the same name and value, the k-th with
	// the k-th.
	var same, changed bits // facts of ta
	var inA bits           // facts of tb that ta has
	left := 0              // facts of ta left over
	wa := a.walker(ta, true)
	for wa.next() {
		if err := a.pollSpelled(1 + (len(wa.name)+len(wa.value))/spelledBytes); err != nil {
			return err
		}
		if wa.at/4 > a.bound() {
			return refuse(ta, errTooMany)
		}
		if j, ok := take(keys, h.key(wa.name, wa.value, 0)); ok {
			same.add(wa.at - 1)
			inA.add(int(j))
		} else {
			left++
		}
	}
	if wa.err != nil {
		return wa.error(ta)
	}
	// The facts left over of one name, the k-th with the k-th: the new
	// struct's by the hashes of their names, in the keys' room.
	var need []int32 // the new facts whose values to fetch, in ta's order
	if left > 0 && len(keys) > countBits(inA) {
		keys = keys[:0]
		wn := b.walker(tb, false)
		for wn.next() {
			if err := b.pollSpelled(1 + len(wn.name)/spelledBytes); err != nil {
				return err
			}
			if !inA.has(wn.at - 1) {
				keys = append(keys, h.key(wn.name, nil, wn.at-1))
			}
		}
		if wn.err != nil {
			return wn.error(tb)
		}
		sortKeys(keys)
		wn = a.walker(ta, false)
		for wn.next() {
			if err := a.pollSpelled(1 + len(wn.name)/spelledBytes); err != nil {
				return err
			}
			if same.has(wn.at - 1) {
				continue
			}
			if j, ok := take(keys, h.key(wn.name, nil, 0)); ok {
				if (len(need)+1)*4 > a.bound() {
					return refuse(ta, errTooMany)
				}
				changed.add(wn.at - 1)
				inA.add(int(j))
				need = append(need, j)
			}
		}
		if wn.err != nil {
			return wn.error(ta)
		}
	}
	keys = nil

	found := false
	yield := func(change string, w *factWalker, old, new []byte) bool {
		found = true
		return factDetails(change, str(w.name), str(old), str(new), details)
	}
	f := fetcher{sd: b, t: tb, need: need}
	wa.reset(ta)
	for wa.next() {
		if err := a.pollSpelled(1 + (len(wa.name)+len(wa.value))/spelledBytes); err != nil {
			return err
		}
		switch i := wa.at - 1; {
		case same.has(i):
		case changed.has(i):
			v, err := f.next()
			if err != nil {
				return err
			}
			if !yield(Changed, wa, wa.value, v) {
				return nil
			}
		default:
			if !yield(Removed, wa, wa.value, nil) {
				return nil
			}
		}
	}
	if wa.err != nil {
		return wa.error(ta)
	}
	f = fetcher{}
	wb.reset(tb)
	for wb.next() {
		if err := b.pollSpelled(1 + (len(wb.name)+len(wb.value))/spelledBytes); err != nil {
			return err
		}
		if !inA.has(wb.at-1) && !yield(Added, wb, nil, wb.value) {
			return nil
		}
	}
	if wb.err != nil {
		return wb.error(tb)
	}
	if !found {
		details(Detail{Change: Changed, Field: "member_order"})
	}
	return nil
}

// countBits returns how many indexes s holds.
func countBits(s bits) int {
	n := 0
	for _, w := range s {
		n += bits64.OnesCount64(w)
	}
	return n
}

// countFacts returns how many facts t has (of sd), with a walk that
// spells neither names nor values.
func countFacts(sd *side, t btf.Type) (int, error) {
	w := sd.walker(t, false)
	w.noNames = true
	for w.next() {
		if err := sd.pollSpelled(1); err != nil {
			return 0, err
		}
	}
	return w.at, w.error(t)
}

func cmpUint(x, y uint64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// fetcher hands over the values of the facts of t (of sd) at the indexes
// need, in need's order. A walk of t that spells nothing fetches the
// members of up to fetchBytes/16 of them at a time (their offsets,
// bitfield sizes and types, 16 bytes each with the index, whatever their
// values' length), and their values are spelled as they are handed over:
// a walk for each few values held would grow as the square of the
// values' bytes.
type fetcher struct {
	sd   *side
	t    btf.Type
	need []int32 // what is left to hand over
	w    *factWalker
	// The chunk fetched: its facts' indexes sorted, and their members.
	at      []int32
	members []memberValue
	n       int // how many of need the chunk holds
	value   []byte
}

// next returns the value of the next fact of need, valid until the next
// call.
func (f *fetcher) next() ([]byte, error) {
	if f.n == 0 {
		if err := f.fetch(); err != nil {
			return nil, err
		}
	}
	i, _ := slices.BinarySearch(f.at, f.need[0])
	f.need, f.n = f.need[1:], f.n-1
	if f.at[i] == 0 { // the size
		f.value = strconv.AppendUint(f.value[:0], uint64(f.t.Size()), 10)
		return f.value, nil
	}
	var err error
	f.value, err = f.sd.appendMemberValue(f.value[:0], f.members[i])
	return f.value, err
}

// fetch walks t for the members of the next chunk of need.
func (f *fetcher) fetch() error {
	f.n = min(max(1, fetchBytes/16), len(f.need))
	f.at = append(f.at[:0], f.need[:f.n]...)
	slices.Sort(f.at)
	f.at = slices.Compact(f.at)
	f.members = f.members[:0]
	if f.w == nil {
		f.w = f.sd.walker(f.t, false)
		f.w.noNames = true
	} else {
		f.w.reset(f.t)
	}
	for i := 0; i < len(f.at) && f.w.next(); {
		if err := f.sd.pollSpelled(1); err != nil {
			return err
		}
		if int32(f.w.at-1) == f.at[i] {
			f.members = append(f.members, f.w.member1)
			i++
		}
	}
	if f.w.err != nil {
		return f.w.error(f.t)
	}
	if len(f.members) != len(f.at) {
		return refuse(f.t, errChanged)
	}
	return nil
}

// errChanged is the error of a struct that walked twice spelled different
// facts (which a Spec, read only, does not).
var errChanged = errors.New("diff: its facts changed between two walks")
