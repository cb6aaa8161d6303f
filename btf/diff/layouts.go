package diff

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"

	"github.com/kmeta-dev/kmeta/btf"
)

// A struct's signature is its size and its members' facts: a function of
// its own record (size, and each member's name, type id, offset and
// bitfield size) in its Spec, whatever its name. Two structs of one side
// whose records are equal spell the same signature, and two pairs of
// structs whose records are equal on each side compare the same. layouts
// remembers the comparisons of pairs of structs whose signatures are
// long, by their records, so that the next pair of the same records is
// not spelled again: many named structs that hold one wide anonymous
// member, changed, compared it again for each of them (issue 37: 256
// structs holding one anonymous struct of 65,535 members, one renamed,
// took 26 s on a 1.2 MB input).
type layouts struct {
	seed maphash.Seed
	seen map[uint64]layoutPair
}

// layoutPair is a pair of structs compared, and what was found: the
// same signatures, or the index of the group of a whose details were
// kept.
type layoutPair struct {
	ia, ib btf.TypeID
	same   bool
	group  int32
}

// rememberAbove is how long two signatures together must be for their
// comparison to be remembered: a kernel's structs are mostly shorter
// (a few of its 4,408 changed ones against another kernel are longer).
// (A variable for the tests.)
var rememberAbove = 4 << 10

// maxLayouts bounds the pairs remembered: all are forgotten when full.
const maxLayouts = 1 << 12

// key returns the hash of the records of ia of a and ib of b, and false
// if they are not both structs or unions.
func (l *layouts) key(a, b *side, ia, ib btf.TypeID) (uint64, bool) {
	ta, errA := a.spec.TypeByID(ia)
	tb, errB := b.spec.TypeByID(ib)
	if errA != nil || errB != nil || !ta.IsComposite() || !tb.IsComposite() {
		return 0, false
	}
	if l.seen == nil {
		l.seed = maphash.MakeSeed()
	}
	var h maphash.Hash
	h.SetSeed(l.seed)
	for _, t := range []btf.Type{ta, tb} {
		var buf [12]byte
		h.Write(le32s(buf[:0], uint32(t.Kind()), t.Size(), uint32(t.Vlen())))
		for i := range t.Vlen() {
			m := t.Member(i)
			h.Write(le32s(buf[:0], uint32(m.Type), m.BitOffset, m.BitfieldSize))
			h.Write(m.NameBytes())
			h.WriteByte(0)
		}
	}
	return h.Sum64(), true
}

// find returns the hash of the records of ia of a and ib of b, with
// keyed false if they are not both structs or unions, and the pair
// remembered of the same records, with found, if there is one.
func (l *layouts) find(a, b *side, ia, ib btf.TypeID) (p layoutPair, key uint64, keyed, found bool) {
	if key, keyed = l.key(a, b, ia, ib); !keyed {
		return p, 0, false, false
	}
	if memosOff {
		return p, key, true, false
	}
	p, found = l.seen[key]
	if found && (!sameRecord(a, p.ia, ia) || !sameRecord(b, p.ib, ib)) {
		found = false // another pair of the same hash
	}
	return p, key, true, found
}

// remember keeps p under key.
func (l *layouts) remember(key uint64, p layoutPair) {
	if l.seen == nil || len(l.seen) >= maxLayouts {
		l.seen = make(map[uint64]layoutPair)
	}
	l.seen[key] = p
}

// sameRecord reports whether the structs x and y of sd have equal
// records: the same kind, size and members.
func sameRecord(sd *side, x, y btf.TypeID) bool {
	tx, errX := sd.spec.TypeByID(x)
	ty, errY := sd.spec.TypeByID(y)
	if errX != nil || errY != nil || tx.Kind() != ty.Kind() || tx.Size() != ty.Size() || tx.Vlen() != ty.Vlen() {
		return false
	}
	for i := range tx.Vlen() {
		mx, my := tx.Member(i), ty.Member(i)
		if mx.Type != my.Type || mx.BitOffset != my.BitOffset || mx.BitfieldSize != my.BitfieldSize ||
			!bytes.Equal(mx.NameBytes(), my.NameBytes()) {
			return false
		}
	}
	return true
}

// le32s appends vs to dst, for a hash.
func le32s(dst []byte, vs ...uint32) []byte {
	for _, v := range vs {
		dst = binary.LittleEndian.AppendUint32(dst, v)
	}
	return dst
}
