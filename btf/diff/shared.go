package diff

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
)

// A struct's facts are its size, its own members' facts, and those of the
// members of each anonymous struct or union it holds, flattened into it.
// Many structs that hold one changed wide anonymous struct under a
// member name of their own, beside members that differ from struct to
// struct, were each walked whole (issue 37: 64 structs holding one
// anonymous struct of 65,535 members took 5 s on a 1.2 MB input). The
// facts of a named anonymous member N are those of its type, named
// "member N.…", at its offset: when no other fact of either struct has
// a name that begins so (sharedAnon), factDiff compares them only with
// each other. Their details are then a function of the member's type and
// offset on each side and of N (anonKey), and the struct's details are
// its own facts' details (ownFacts) with those of the member spliced in
// where factDiff puts them: the removed and changed ones before the
// member's own fact in the old struct's order (its members' facts come
// first), the added ones before it in the new struct's order.
// sharedDetails does that from the details kept of the first pair of the
// same key, which it cut out of that pair's details by their member path.

// anonKey is a named anonymous member of a pair of structs: its type and
// bit offset on each side, and its name.
type anonKey struct {
	ta, tb btf.TypeID
	oa, ob uint32
	name   string
}

// anonDetails are the details of the facts of the members of a named
// anonymous member: removed and changed ones, in the old order, and
// added ones, in the new.
type anonDetails struct{ removed, added []Detail }

// maxOwn bounds the members of a struct compared by sharedDetails, which
// holds its own facts and an index of them (some 150 bytes a member): a
// wider one is walked whole, which costs about as much as its own members.
const maxOwn = 1 << 12

// maxAnons bounds the members remembered: all are forgotten when full.
const maxAnons = 1 << 12

// sharedAnon returns the key of the named anonymous member of ta and tb
// whose facts only each other's can share a name with, and the member's
// index on each side; ok is false if there is none: one side has no
// named member of anonymous struct or union type or more than one, or
// the other side has not one of that name, or either has more than
// maxOwn members, or a fact of either struct
// outside it has a name that begins as the member's facts' do.
func sharedAnon(a, b *side, ta, tb btf.Type) (key anonKey, ka, kb int, ok bool) {
	if memosOff || !ta.IsComposite() || !tb.IsComposite() || ta.Vlen() > maxOwn || tb.Vlen() > maxOwn {
		return key, 0, 0, false
	}
	ka = namedAnon(a, ta)
	if ka < 0 {
		return key, 0, 0, false
	}
	ma := ta.Member(ka)
	kb = namedAnon(b, tb)
	if kb < 0 {
		return key, 0, 0, false
	}
	mb := tb.Member(kb)
	name := ma.NameBytes()
	if !bytes.Equal(name, mb.NameBytes()) || !ownedApart(ta, ka, name) || !ownedApart(tb, kb, name) {
		return key, 0, 0, false
	}
	return anonKey{ma.Type, mb.Type, ma.BitOffset, mb.BitOffset, string(name)}, ka, kb, true
}

// namedAnon returns the index of t's one named member of anonymous
// struct or union type, or -1 if it has none, more than one, or a member
// of anonymous struct or union type of no name (whose members' facts
// take any name) or of a type it cannot find.
func namedAnon(sd *side, t btf.Type) int {
	k := -1
	for i := range t.Vlen() {
		m := t.Member(i)
		mt, err := sd.spec.TypeByID(m.Type)
		if err != nil {
			return -1
		}
		if !mt.IsComposite() || mt.NameOffset() != 0 {
			continue
		}
		if k >= 0 || len(m.NameBytes()) == 0 {
			return -1
		}
		k = i
	}
	return k
}

// ownedApart reports whether no member of t but k has a fact name that
// begins as those of the members of k (named name) do, "member name.",
// nor is named name.
func ownedApart(t btf.Type, k int, name []byte) bool {
	for i := range t.Vlen() {
		if i == k {
			continue
		}
		n := t.Member(i).NameBytes()
		if len(n) == 0 {
			// "#i": begins as k's facts only if name is "#…".
			n = strconv.AppendInt([]byte{'#'}, int64(i), 10)
		}
		if bytes.Equal(n, name) || (len(n) > len(name) && n[len(name)] == '.' && bytes.HasPrefix(n, name)) {
			return false
		}
	}
	return true
}

// ownFact is a fact of a struct other than those of the members of its
// named anonymous member: its name and value as the signature spells
// them, and the index of its member (-1 for the size).
type ownFact struct {
	name, value string
	member      int
}

// ownFacts returns the facts of t other than those of the members of its
// named anonymous member, in the signature's order (the size, then each
// member's own fact).
func ownFacts(sd *side, t btf.Type) ([]ownFact, error) {
	facts := []ownFact{{"size", strconv.FormatUint(uint64(t.Size()), 10), -1}}
	var v []byte
	for i := range t.Vlen() {
		m := t.Member(i)
		name := "member " + string(m.NameBytes())
		if len(m.NameBytes()) == 0 {
			name = "member #" + strconv.Itoa(i)
		}
		var err error
		if v, err = sd.appendMemberValue(v[:0], memberValue{m.BitOffset, m.BitfieldSize, m.Type}); err != nil {
			return nil, err
		}
		facts = append(facts, ownFact{name, string(v), i})
		if err := sd.pollSpelled(1 + len(v)/spelledBytes); err != nil {
			return nil, err
		}
	}
	return facts, nil
}

// sharedDetails yields the details of ta of a against tb of b, whose
// members ka and kb are the named anonymous member of sharedAnon, from
// sub, the details of that member's members: factDiff's details, in its
// order. It returns false when yield does.
func sharedDetails(a, b *side, ta, tb btf.Type, ka, kb int, sub anonDetails, yield func(Detail) bool) (bool, error) {
	fa, err := ownFacts(a, ta)
	if err != nil {
		return false, err
	}
	fb, err := ownFacts(b, tb)
	if err != nil {
		return false, err
	}
	pair, inA := matchFacts(ownList(fa), ownList(fb))
	all := func(ds []Detail) bool {
		for _, d := range ds {
			if !yield(d) {
				return false
			}
		}
		return true
	}
	for i, f := range fa {
		if f.member == ka && !all(sub.removed) {
			return false, nil
		}
		switch j := pair[i]; j {
		case factSame:
		case factRemoved:
			if !factDetails(Removed, f.name, f.value, "", yield) {
				return false, nil
			}
		default:
			if !factDetails(Changed, f.name, f.value, fb[j].value, yield) {
				return false, nil
			}
		}
	}
	for j, f := range fb {
		if f.member == kb && !all(sub.added) {
			return false, nil
		}
		if !inA.has(j) && !factDetails(Added, f.name, "", f.value, yield) {
			return false, nil
		}
	}
	return true, nil
}

// cutAnon returns the details of the members of the named anonymous
// member name among a struct's details, ds.
func cutAnon(ds []Detail, name string) anonDetails {
	var sub anonDetails
	prefix := name + "."
	for _, d := range ds {
		if !strings.HasPrefix(d.Member, prefix) {
			continue
		}
		if d.Change == Added {
			sub.added = append(sub.added, d)
		} else {
			sub.removed = append(sub.removed, d)
		}
	}
	return sub
}

// rememberAnon keeps sub under key.
func (sd *side) rememberAnon(key anonKey, sub anonDetails) {
	if sd.anons == nil || len(sd.anons) >= maxAnons {
		sd.anons = make(map[anonKey]anonDetails)
	}
	sd.anons[key] = sub
}

// sharedAnonOf is sharedAnon for the types ia of a and ib of b.
func sharedAnonOf(a, b *side, ia, ib btf.TypeID) (key anonKey, ka, kb int, ok bool) {
	ta, errA := a.spec.TypeByID(ia)
	tb, errB := b.spec.TypeByID(ib)
	if errA != nil || errB != nil {
		return key, 0, 0, false
	}
	return sharedAnon(a, b, ta, tb)
}

// sharedDetailsOf is sharedDetails for the types ia of a and ib of b.
func sharedDetailsOf(a, b *side, ia, ib btf.TypeID, ka, kb int, sub anonDetails, yield func(Detail) bool) (bool, error) {
	ta, err := a.spec.TypeByID(ia)
	if err != nil {
		return false, err
	}
	tb, err := b.spec.TypeByID(ib)
	if err != nil {
		return false, err
	}
	return sharedDetails(a, b, ta, tb, ka, kb, sub, yield)
}

// ownList is a struct's own facts as matchFacts takes them.
type ownList []ownFact

func (l ownList) len() int           { return len(l) }
func (l ownList) name(i int) string  { return l[i].name }
func (l ownList) value(i int) string { return l[i].value }
