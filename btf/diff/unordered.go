package diff

import (
	"errors"
	"hash/maphash"
	"math"
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

// leftBytes is the most bytes of name hashes of the old struct's facts
// left over that unordered keeps from its matching walk (beyond that, and
// beyond the side's bound, a walk finds them again). A variable for the
// tests.
var leftBytes = math.MaxInt

// errTooMany is why a struct with too many facts to compare is refused.
var errTooMany = errors.New("diff: its members, flattened, are too many to compare within the memory the input allows")

// hash128 hashes facts' names, or names and values, in 128 bits: two
// 64-bit hashes of names, of independent seeds, each XORed with one of
// values, of two more: two facts that differ in name or value differ in
// an input of each half, so that their keys are equal with a chance of
// 2^-128. (One hash of name and value together took 20-30% more
// instructions: a copy of the two, or maphash.Hash's 128-byte chunks.)
// A member's value is hashed as its offset, bitfield size and the hash
// of its type's C name, kept by type id: a C name of kilobytes is hashed
// once, not at each member and walk.
type hash128 struct {
	n1, n2, v1, v2 maphash.Seed
	types          map[typeOf][2]uint64 // the hashes of C names
	buf            []byte
}

// typeOf is a type of a side.
type typeOf struct {
	sd *side
	id btf.TypeID
}

// memberHash is what a member's value hash takes: its offset, bitfield
// size and the two hashes of its type's C name.
type memberHash struct {
	offset, bits uint32
	name         [2]uint64
}

// maxTypeHashes is how many hashes of C names hash128 keeps (then it
// forgets them): 40 bytes and the map's own a type.
const maxTypeHashes = 1 << 12

func newHash128() hash128 {
	return hash128{n1: maphash.MakeSeed(), n2: maphash.MakeSeed(), v1: maphash.MakeSeed(), v2: maphash.MakeSeed()}
}

// name returns the key of the current fact's name of w, of index at.
func (h *hash128) name(w *factWalker) factKey {
	return factKey{hi: maphash.Bytes(h.n1, w.name), lo: maphash.Bytes(h.n2, w.name), at: int32(w.at - 1)}
}

// fact returns the key of the current fact of w, its name and value.
// The walk need not spell values: a member's are hashed from its parts.
func (h *hash128) fact(w *factWalker) (factKey, error) {
	return h.withValue(h.name(w), w)
}

// withValue returns k, the key of the current fact's name of w, as the
// key of its name and value.
func (h *hash128) withValue(k factKey, w *factWalker) (factKey, error) {
	v1, v2, err := h.value(w)
	k.hi ^= v1
	k.lo ^= v2
	return k, err
}

// value returns the two hashes of the value of the current fact of w.
// A member's value spells its offset, then its bitfield size, then its
// type's C name, which, unless it begins with a digit (or is empty),
// tells where the size ends: so the value is hashed as those three
// parts, the name as its two hashes. Another value (the size's, or an
// odd name's) is hashed as it is spelled.
func (h *hash128) value(w *factWalker) (uint64, uint64, error) {
	if w.at == 1 { // the size
		return maphash.Bytes(h.v1, w.value), maphash.Bytes(h.v2, w.value), nil
	}
	m := w.member1
	th, ok := h.types[typeOf{w.sd, m.typ}]
	if !ok {
		name, err := w.sd.typeName(m.typ)
		if err != nil {
			return 0, 0, err
		}
		if name == "" || '0' <= name[0] && name[0] <= '9' {
			h.buf, err = w.sd.appendMemberValue(h.buf[:0], m)
			return maphash.Bytes(h.v1, h.buf), maphash.Bytes(h.v2, h.buf), err
		}
		th = [2]uint64{maphash.String(h.n1, name), maphash.String(h.n2, name)}
		if h.types == nil || len(h.types) >= maxTypeHashes {
			h.types = make(map[typeOf][2]uint64)
		}
		h.types[typeOf{w.sd, m.typ}] = th
	}
	// Each half takes the whole name's hash: then a collision of one
	// half's name hash alone leaves the other's inputs apart.
	v := memberHash{m.offset, m.bits, th}
	return maphash.Comparable(h.v1, v), maphash.Comparable(h.v2, v), nil
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
	h := newHash128()
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
	wb := b.walker(tb, false) // values hashed from members
	for wb.next() {
		if err := b.pollSpelled(1 + len(wb.name)/spelledBytes); err != nil {
			return err
		}
		k, err := h.fact(wb)
		if err != nil {
			return err
		}
		keys = append(keys, k)
	}
	if wb.err != nil {
		return wb.error(tb)
	}
	sortKeys(keys)
	// The old struct's facts of the same name and value, the k-th with
	// the k-th; the others' name hashes kept (while they fit).
	var same, changed bits // facts of ta
	var inA bits           // facts of tb that ta has
	var left []factKey     // ta's facts left over: their names' hashes
	nleft, walkLeft := 0, false
	wa := a.walker(ta, false)
	for wa.next() {
		if err := a.pollSpelled(1 + len(wa.name)/spelledBytes); err != nil {
			return err
		}
		if wa.at/4 > a.bound() {
			return refuse(ta, errTooMany)
		}
		n := h.name(wa)
		k, err := h.withValue(n, wa)
		if err != nil {
			return err
		}
		if j, ok := take(keys, k); ok {
			same.add(wa.at - 1)
			inA.add(int(j))
			continue
		}
		nleft++
		switch {
		case walkLeft:
		case (len(left)+1)*keyBytes > min(a.bound(), leftBytes):
			left, walkLeft = nil, true // found again by a walk
		default:
			left = append(left, n)
		}
	}
	if wa.err != nil {
		return wa.error(ta)
	}
	// The facts left over of one name, the k-th with the k-th: the new
	// struct's by the hashes of their names, in the keys' room.
	var need []int32 // the new facts whose values to fetch, in ta's order
	if nleft > 0 && len(keys) > countBits(inA) {
		// A key is its name's hash XORed with its value's: a walk that
		// spells no names hashes the left-over facts' values again and
		// takes them out, leaving the names' hashes in place.
		keys = slices.DeleteFunc(keys, func(k factKey) bool { return inA.has(int(k.at)) })
		slices.SortFunc(keys, func(x, y factKey) int { return int(x.at - y.at) })
		wn := b.walker(tb, false)
		wn.noNames = true
		i := 0
		for i < len(keys) && wn.next() {
			if err := b.pollSpelled(1); err != nil {
				return err
			}
			if int32(wn.at-1) != keys[i].at {
				continue
			}
			v1, v2, err := h.value(wn)
			if err != nil {
				return err
			}
			keys[i].hi ^= v1
			keys[i].lo ^= v2
			keys[i].taken = 0
			i++
		}
		if wn.err != nil {
			return wn.error(tb)
		}
		if i < len(keys) {
			return refuse(tb, errChanged)
		}
		sortKeys(keys)
		pair := func(n factKey) error {
			j, ok := take(keys, n)
			if !ok {
				return nil
			}
			if (len(need)+1)*4 > a.bound() {
				return refuse(ta, errTooMany)
			}
			changed.add(int(n.at))
			inA.add(int(j))
			need = append(need, j)
			return nil
		}
		if walkLeft {
			wn = a.walker(ta, false)
			wn.skipNames = same
			for wn.next() {
				if err := a.pollSpelled(1 + len(wn.name)/spelledBytes); err != nil {
					return err
				}
				if !same.has(wn.at - 1) {
					if err := pair(h.name(wn)); err != nil {
						return err
					}
				}
			}
			if wn.err != nil {
				return wn.error(ta)
			}
		}
		for _, n := range left {
			if err := pair(n); err != nil {
				return err
			}
		}
	}
	keys = nil

	found := false
	yield := func(change string, w *factWalker, old, new []byte) bool {
		found = true
		return factDetails(change, str(w.name), str(old), str(new), details)
	}
	f := fetcher{sd: b, t: tb, need: need}
	wa, wb = a.walker(ta, true), b.walker(tb, true)
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
