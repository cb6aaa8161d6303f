package diff

import (
	"cmp"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
)

// compareGroups compares the types of one kind and name in old (ga) and
// new (gb), and yields the details of the difference: none when the two
// groups hold the same layouts, whatever their order and ids. It stops
// when yield returns false. alias is as for Change.more.
//
// The layouts found on both sides are removed as a multiset. What it holds
// is 16 bytes a type of ga and 4 a type left over, whatever the layouts:
// ga's signatures are kept as 64-bit hashes, sorted, and a type of gb is
// matched with a type of ga of the same hash whose signature, spelled
// again, is the same. Left over are, in their group's order, the types
// of gb that found no match and, of each layout of ga, its first
// occurrences; their signatures are spelled again, a pair at a time, for
// the details.
func compareGroups(a, b *side, ga, gb []btf.TypeID, alias bool, yield func(Detail) bool) error {
	if len(ga) == 1 && len(gb) == 1 {
		return compareOne(a, b, ga[0], gb[0], alias, yield)
	}
	onlyA, onlyB, err := matchGroups(a, b, ga, gb)
	if err != nil || (len(onlyA) == 0 && len(onlyB) == 0) {
		return err
	}
	return groupDetails(a, b, len(ga), len(gb), onlyA, onlyB, alias, yield)
}

// matchGroups returns the types of ga and of gb left over once the
// layouts found on both sides are removed, in their group's order: of
// each layout of ga, its first occurrences. While ga has few distinct
// layouts they are counted in a map (a group of a million copies of one
// layout holds one string, and each type is spelled once); beyond
// maxDistinct of them, or maxDistinctBytes of their signatures (a few
// enums of 65,535 values), or when one is longer than streamAbove, by
// hash (matchByHash).
func matchGroups(a, b *side, ga, gb []btf.TypeID) (onlyA, onlyB []btf.TypeID, err error) {
	left := make(map[string]int)
	var sig []byte
	held := 0
	for _, id := range ga {
		if sig, err = a.signatureUpTo(sig[:0], id, streamAbove); err == errBig {
			return matchByHash(a, b, ga, gb)
		} else if err != nil {
			return nil, nil, err
		}
		if n, ok := left[string(sig)]; ok {
			left[string(sig)] = n + 1
		} else if len(left) >= maxDistinct || held+len(sig) > maxDistinctBytes && len(left) > 0 {
			return matchByHash(a, b, ga, gb)
		} else {
			left[string(sig)] = 1
			held += len(sig)
		}
	}
	unmatched := len(ga)
	for _, id := range gb {
		// A signature too long to hold is none of those held.
		if sig, err = b.signatureUpTo(sig[:0], id, streamAbove); err != nil && err != errBig {
			return nil, nil, err
		}
		if err == nil && left[string(sig)] > 0 {
			left[string(sig)]--
			unmatched--
		} else {
			onlyB = append(onlyB, id)
		}
	}
	for _, id := range ga {
		if len(onlyA) == unmatched {
			break
		}
		if sig, err = a.signature(sig[:0], id); err != nil {
			return nil, nil, err
		}
		if left[string(sig)] > 0 {
			left[string(sig)]--
			onlyA = append(onlyA, id)
		}
	}
	return onlyA, onlyB, nil
}

// maxDistinct is how many distinct layouts of a group matchGroups counts
// in a map.
const maxDistinct = 1024

// maxDistinctBytes is how many bytes of distinct signatures matchGroups
// holds in its map (one signature is held whatever its size).
const maxDistinctBytes = 1 << 20

// matchByHash is matchGroups for a group of many layouts.
func matchByHash(a, b *side, ga, gb []btf.TypeID) (onlyA, onlyB []btf.TypeID, err error) {
	m, err := newMultiset(a, ga)
	if err != nil {
		return nil, nil, err
	}
	for _, id := range gb {
		ok, err := m.take(b, id)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			onlyB = append(onlyB, id)
		}
	}
	if m.taken == len(ga) {
		return nil, onlyB, nil
	}
	return m.left(), onlyB, nil
}

// groupDetails yields the details of a group of na types in old and nb in
// new whose types onlyA and onlyB are left over, a pair of them at a time.
// It stops when yield returns false. alias is as for Change.more.
func groupDetails(a, b *side, na, nb int, onlyA, onlyB []btf.TypeID, alias bool, yield func(Detail) bool) error {
	if !yield(Detail{Change: Changed, Field: "definitions", Old: na, New: nb}) {
		return nil
	}
	for i := range max(len(onlyA), len(onlyB)) {
		ok := true
		switch {
		case i >= len(onlyA):
			ok = yield(Detail{Change: Added, Field: "definition"})
		case i >= len(onlyB):
			ok = yield(Detail{Change: Removed, Field: "definition"})
		default:
			// Spelled anew for each pair: its details alias them.
			stopped := false
			if err := compareOne(a, b, onlyA[i], onlyB[i], alias, func(d Detail) bool {
				stopped = !yield(d)
				return !stopped
			}); err != nil {
				return err
			}
			ok = !stopped
		}
		if !ok {
			return nil
		}
	}
	return nil
}

// interner shares the strings and values of the details kept of one
// change, so that a detail repeated for many types (as a member's type
// that changed the same way in each) does not keep a copy of each type's
// signature, and none keeps the signature it was cut from.
type interner struct {
	strs map[string]string
	vals map[any]any
}

// maxInterned bounds what an interner holds of each.
const maxInterned = 4096

func (in *interner) detail(d Detail) Detail {
	d.Member, d.Enumerator, d.Field = in.str(d.Member), in.str(d.Enumerator), in.str(d.Field)
	d.Old, d.New = in.val(d.Old), in.val(d.New)
	return d
}

func (in *interner) str(s string) string {
	if s == "" {
		return s
	}
	if v, ok := in.strs[s]; ok {
		return v
	}
	if in.strs == nil {
		in.strs = make(map[string]string)
	}
	s = strings.Clone(s)
	if len(in.strs) < maxInterned {
		in.strs[s] = s
	}
	return s
}

func (in *interner) val(v any) any {
	if v == nil {
		return v
	}
	if w, ok := in.vals[v]; ok {
		return w
	}
	if s, ok := v.(string); ok {
		v = strings.Clone(s)
	}
	if in.vals == nil {
		in.vals = make(map[any]any)
	}
	if len(in.vals) < maxInterned {
		in.vals[v] = v
	}
	return v
}

// multiset is a group's types by the hash of their signatures, from which
// types of the same signature are taken one at a time.
type multiset struct {
	sd   *side
	ids  []btf.TypeID
	seed maphash.Seed
	// byHash is the indexes of ids sorted by hash, and, for equal
	// hashes, the last first: the types taken of a layout are its last
	// occurrences, so that those left are its first.
	byHash []hashed
	// next[p] leads to the first position at or after p of byHash not
	// taken (len(byHash) for none), through the positions taken.
	next  []int32
	taken int
	// sig, buf and bufs are scratch space for the signatures hashed
	// and compared.
	sig, buf []byte
	bufs     [2][]byte
}

// hashed is the hash of a type's signature and its index in its group.
type hashed struct {
	h uint64
	i int32
}

func newMultiset(sd *side, ids []btf.TypeID) (*multiset, error) {
	m := &multiset{sd: sd, ids: ids, seed: maphash.MakeSeed(), byHash: make([]hashed, len(ids))}
	for i, id := range ids {
		h, _, err := m.hash(sd, id)
		if err != nil {
			return nil, err
		}
		m.byHash[i] = hashed{h, int32(i)}
	}
	slices.SortFunc(m.byHash, func(x, y hashed) int {
		if c := cmp.Compare(x.h, y.h); c != 0 {
			return c
		}
		return cmp.Compare(y.i, x.i)
	})
	m.next = make([]int32, len(ids)+1)
	for p := range m.next {
		m.next[p] = int32(p)
	}
	return m, nil
}

// free returns the first position at or after p not taken.
func (m *multiset) free(p int) int {
	for int(m.next[p]) != p {
		m.next[p] = m.next[m.next[p]] // path halving
		p = int(m.next[p])
	}
	return p
}

// hash returns the hash of the signature of type id of sd: of the bytes
// held in m.sig, or, for a signature longer than streamAbove (big), of
// the same bytes as they are spelled (maphash.Hash gives the same sum for
// bytes written in pieces).
func (m *multiset) hash(sd *side, id btf.TypeID) (h uint64, big bool, err error) {
	if m.sig, err = sd.signatureUpTo(m.sig[:0], id, streamAbove); err != errBig {
		return maphash.Bytes(m.seed, m.sig), false, err
	}
	t, err := sd.spec.TypeByID(id)
	if err != nil {
		return 0, true, err
	}
	var mh maphash.Hash
	mh.SetSeed(m.seed)
	w := sd.walker(t, true)
	for w.next() {
		if err := sd.pollSpelled(1 + (len(w.name)+len(w.value))/spelledBytes); err != nil {
			return 0, true, err
		}
		mh.Write(w.name)
		mh.WriteByte(0)
		mh.Write(w.value)
		mh.WriteByte(0)
	}
	return mh.Sum64(), true, w.error(t)
}

// take takes a type whose signature is that of type id of sd, and
// reports whether there was one.
func (m *multiset) take(sd *side, id btf.TypeID) (bool, error) {
	h, big, err := m.hash(sd, id)
	if err != nil {
		return false, err
	}
	lo, _ := slices.BinarySearchFunc(m.byHash, h, func(x hashed, h uint64) int { return cmp.Compare(x.h, h) })
	for p := m.free(lo); p < len(m.byHash) && m.byHash[p].h == h; p = m.free(p + 1) {
		same, err := m.same(m.ids[m.byHash[p].i], sd, id, big)
		if err != nil {
			return false, err
		}
		if same {
			m.next[p] = int32(p + 1)
			m.taken++
			return true, nil
		}
	}
	return false, nil
}

// same reports whether type ia of the multiset's side has the signature
// of type ib of sd: the one in m.sig, unless it is big.
func (m *multiset) same(ia btf.TypeID, sd *side, ib btf.TypeID, big bool) (bool, error) {
	if big {
		same, _, err := heldOrBig(m.sd, sd, ia, ib, &m.bufs)
		return same, err
	}
	var err error
	m.buf, err = m.sd.signatureUpTo(m.buf[:0], ia, streamAbove)
	if err == errBig {
		return false, nil // longer than m.sig
	}
	return err == nil && string(m.buf) == string(m.sig), err
}

// left returns the types not taken, in their group's order.
func (m *multiset) left() []btf.TypeID {
	isLeft := make([]bool, len(m.ids))
	for p := m.free(0); p < len(m.byHash); p = m.free(p + 1) {
		isLeft[m.byHash[p].i] = true
	}
	out := make([]btf.TypeID, 0, len(m.ids)-m.taken)
	for i, id := range m.ids {
		if isLeft[i] {
			out = append(out, id)
		}
	}
	return out
}
