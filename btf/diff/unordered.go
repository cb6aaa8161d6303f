package diff

import (
	"errors"
	"hash/maphash"
	"slices"
	"strconv"

	"github.com/kmeta-dev/kmeta/btf"
)

// A struct whose signature is too long to hold, and whose members shared
// with the other side's come in another order or repeat a name (anonymous
// members: "#0" of several levels), is compared by unordered: through
// 64-bit hashes of its facts' names and values, and walks that fetch the
// values it needs in chunks, so that what it holds grows by 24 bytes a
// fact of the new struct and 12 of the old one, not by the bytes of their
// paths (issue 37). It trusts the hashes: two names, or two values of one
// name, of equal hash are taken for equal. The seed is random for each
// comparison (maphash.MakeSeed in Walk), so that no input can aim at a
// collision; n facts collide with a chance of about n*n/2^65 (3e-8 for a
// million).

// factKey is a fact of the new struct: the hashes of its name and value,
// and its index.
type factKey struct {
	name, value uint64
	at          int32
}

// keyBytes is what unordered holds for a fact of the new struct, beside
// what it holds for one of the old (8 bytes, and 4 for a fact whose value
// is fetched).
const keyBytes = 24

// fetchBytes is what unordered holds of the new struct's members whose
// values it needs at a time: those beyond are fetched by another walk of
// the new struct.
var fetchBytes = 1 << 20

// errTooMany is why a struct with too many facts to compare is refused.
var errTooMany = errors.New("diff: its members, flattened, are too many to compare within the memory the input allows")

// unordered yields the details of composite ta of a and tb of b, as
// signatureDiff yields them from their signatures: for each fact of ta in
// order, Removed when tb has none of its name, Changed when the last of
// tb's of its name has another value; then Added for each fact of tb whose
// name ta does not have; "member_order" when none. str makes a detail's
// strings of the walkers' bytes.
func unordered(a, b *side, ta, tb btf.Type, str func([]byte) string, details func(Detail) bool) error {
	seed := a.seed
	hash := func(p []byte) uint64 { return maphash.Bytes(seed, p) }
	// The new struct's facts: the last of each name. The slices are
	// sized by a count of the facts first (a walk that spells nothing):
	// grown by appends, they left as much again behind them.
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
		keys = append(keys, factKey{hash(wb.name), hash(wb.value), int32(wb.at - 1)})
	}
	if wb.err != nil {
		return wb.error(tb)
	}
	slices.SortFunc(keys, func(x, y factKey) int {
		if c := cmpUint(x.name, y.name); c != 0 {
			return c
		}
		return int(x.at - y.at)
	})
	last := keys[:0]
	for i, k := range keys {
		if i+1 < len(keys) && keys[i+1].name == k.name {
			continue
		}
		last = append(last, k)
	}
	if len(last) < len(keys)*3/4 { // names repeat: keep what is left
		last = slices.Clone(last)
	}
	keys = last
	find := func(name uint64) (factKey, bool) {
		i, ok := slices.BinarySearchFunc(keys, name, func(k factKey, n uint64) int { return cmpUint(k.name, n) })
		if !ok {
			return factKey{}, false
		}
		return keys[i], true
	}
	// The old struct's names, and which of its facts' new values to
	// fetch.
	na, err := countFacts(a, ta)
	if err != nil {
		return err
	}
	names := make([]uint64, 0, na)
	var need []int32
	wa := a.walker(ta, true)
	for wa.next() {
		if err := a.pollSpelled(1 + (len(wa.name)+len(wa.value))/spelledBytes); err != nil {
			return err
		}
		if (len(names)+1)*8+len(need)*4 > a.bound() {
			return refuse(ta, errTooMany)
		}
		h := hash(wa.name)
		names = append(names, h)
		if k, ok := find(h); ok && k.value != hash(wa.value) {
			need = append(need, k.at)
		}
	}
	if wa.err != nil {
		return wa.error(ta)
	}
	slices.Sort(names)
	names = slices.Clip(slices.Compact(names))

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
		k, ok := find(hash(wa.name))
		switch {
		case !ok:
			if !yield(Removed, wa, wa.value, nil) {
				return nil
			}
		case k.value != hash(wa.value):
			v, err := f.next()
			if err != nil {
				return err
			}
			if !yield(Changed, wa, wa.value, v) {
				return nil
			}
		}
	}
	if wa.err != nil {
		return wa.error(ta)
	}
	keys, f = nil, fetcher{}
	wb.reset(tb)
	for wb.next() {
		if err := b.pollSpelled(1 + (len(wb.name)+len(wb.value))/spelledBytes); err != nil {
			return err
		}
		if _, ok := slices.BinarySearch(names, hash(wb.name)); !ok && !yield(Added, wb, nil, wb.value) {
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
