package core

import (
	"bytes"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/ext"
)

// This file holds libbpf's compatibility rules (relo_core.c):
// bpf_core_fields_are_compat, __bpf_core_types_are_compat,
// __bpf_core_types_match and bpf_core_match_member. They return 1 (match),
// 0 (no match) or an error, as libbpf's int results do.

// maxDepth is libbpf's recursion bound for type compatibility and
// matching.
const maxDepth = 32

// essentialLen is libbpf's bpf_core_essential_name_len: the length of
// name before its last "___flavor" suffix, where the "___" has a
// character other than '_' on both sides.
func essentialLen(name []byte) int {
	for i := len(name) - 5; i >= 0; i-- {
		if name[i] != '_' && name[i+1] == '_' && name[i+2] == '_' && name[i+3] == '_' && name[i+4] != '_' {
			return i + 1
		}
	}
	return len(name)
}

// essential returns name without its flavor suffix.
func essential(name []byte) []byte { return name[:essentialLen(name)] }

// kindCompat is libbpf's btf_kind_core_compat: the same kind, or both
// enums of either width.
func kindCompat(a, b btf.Type) bool {
	return a.Kind() == b.Kind() || (isAnyEnum(a) && isAnyEnum(b))
}

// resolve is libbpf's skip_mods_and_typedefs; a chain that does not end
// is an error (libbpf's NULL).
func resolve(s *btf.Spec, id btf.TypeID) (btf.Type, error) {
	t, err := s.Resolve(id)
	if err != nil {
		return btf.Type{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return t, nil
}

// resolvePair resolves a local and a target type id.
func resolvePair(ls *btf.Spec, lid btf.TypeID, ts *btf.Spec, tid btf.TypeID) (btf.Type, btf.Type, error) {
	lt, err := resolve(ls, lid)
	if err != nil {
		return lt, lt, err
	}
	tt, err := resolve(ts, tid)
	return lt, tt, err
}

// fieldsCompat is bpf_core_fields_are_compat.
func fieldsCompat(ls *btf.Spec, lid btf.TypeID, ts *btf.Spec, tid btf.TypeID) (bool, error) {
	for range maxDepth + 1 {
		lt, tt, err := resolvePair(ls, lid, ts, tid)
		if err != nil {
			return false, err
		}
		if lt.IsComposite() && tt.IsComposite() {
			return true, nil
		}
		if !kindCompat(lt, tt) {
			return false, nil
		}
		switch lt.Kind() {
		case btf.KindPointer, btf.KindFloat:
			return true, nil
		case btf.KindForward, btf.KindEnum, btf.KindEnum64:
			ln, tn := essential(lt.NameBytes()), essential(tt.NameBytes())
			return len(ln) == 0 || len(tn) == 0 || bytes.Equal(ln, tn), nil
		case btf.KindInt:
			return lt.Int().Offset == 0 && tt.Int().Offset == 0, nil
		case btf.KindArray:
			lid, tid = lt.Array().Type, tt.Array().Type
		default:
			return false, nil
		}
	}
	// libbpf recurses through arrays without a bound; nested arrays
	// deeper than a type chain can be in valid BTF are cyclic.
	return false, fmt.Errorf("%w: array nesting deeper than %d", ErrInvalid, maxDepth)
}

// typesCompat is __bpf_core_types_are_compat, for type-based relocations.
func typesCompat(b *budget, ls *btf.Spec, lid btf.TypeID, ts *btf.Spec, tid btf.TypeID, level int) (bool, error) {
	if err := b.spend(); err != nil {
		return false, err
	}
	lt0, _ := ls.TypeByID(lid)
	tt0, _ := ts.TypeByID(tid)
	if !kindCompat(lt0, tt0) {
		return false, nil
	}
	for depth := maxDepth; ; {
		depth--
		if depth < 0 {
			return false, fmt.Errorf("%w: types nested deeper than %d", ErrInvalid, maxDepth)
		}
		lt, tt, err := resolvePair(ls, lid, ts, tid)
		if err != nil {
			return false, err
		}
		if !kindCompat(lt, tt) {
			return false, nil
		}
		switch lt.Kind() {
		case btf.KindUnknown, btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindForward, btf.KindEnum64:
			return true, nil
		case btf.KindInt:
			return lt.Int().Offset == 0 && tt.Int().Offset == 0, nil
		case btf.KindPointer:
			lid, tid = lt.Ref(), tt.Ref()
		case btf.KindArray:
			lid, tid = lt.Array().Type, tt.Array().Type
		case btf.KindFuncProto:
			if lt.Vlen() != tt.Vlen() {
				return false, nil
			}
			for i := range lt.Vlen() {
				if level <= 0 {
					return false, fmt.Errorf("%w: prototypes nested deeper than %d", ErrInvalid, maxDepth)
				}
				lp, _ := ls.Resolve(lt.Param(i).Type)
				tp, _ := ts.Resolve(tt.Param(i).Type)
				ok, err := typesCompat(b, ls, lp.ID(), ts, tp.ID(), level-1)
				if err != nil || !ok {
					return ok, err
				}
			}
			lr, _ := ls.Resolve(lt.Ref())
			tr, _ := ts.Resolve(tt.Ref())
			lid, tid = lr.ID(), tr.ID()
		default:
			return false, nil
		}
	}
}

// namesMatch is bpf_core_names_match: an anonymous target matches only
// an anonymous local; otherwise the essential names must be equal.
func namesMatch(ln, tn []byte) bool {
	if len(tn) == 0 {
		return len(ln) == 0
	}
	return bytes.Equal(essential(ln), essential(tn))
}

// enumsMatch is bpf_core_enums_match.
func enumsMatch(lt, tt btf.Type) bool {
	if lt.Size() != tt.Size() || lt.Vlen() > tt.Vlen() {
		return false
	}
	for i := range lt.Vlen() {
		ln := lt.EnumValue(i).NameBytes()
		found := false
		for j := range tt.Vlen() {
			if namesMatch(ln, tt.EnumValue(j).NameBytes()) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// compositesMatch is bpf_core_composites_match.
func compositesMatch(b *budget, ls *btf.Spec, lt btf.Type, ts *btf.Spec, tt btf.Type, behindPtr bool, level int) (bool, error) {
	if lt.Vlen() > tt.Vlen() {
		return false, nil
	}
	for i := range lt.Vlen() {
		lm := lt.Member(i)
		found := false
		for j := range tt.Vlen() {
			tm := tt.Member(j)
			if !namesMatch(lm.NameBytes(), tm.NameBytes()) {
				continue
			}
			ok, err := typesMatch(b, ls, lm.Type, ts, tm.Type, behindPtr, level-1)
			if err != nil {
				return false, err
			}
			if ok {
				found = true
				break
			}
		}
		if !found {
			return false, nil
		}
	}
	return true, nil
}

// typesMatch is __bpf_core_types_match, for type_matches relocations.
func typesMatch(b *budget, ls *btf.Spec, lid btf.TypeID, ts *btf.Spec, tid btf.TypeID, behindPtr bool, level int) (bool, error) {
	if level <= 0 {
		return false, fmt.Errorf("%w: types nested deeper than %d", ErrInvalid, maxDepth)
	}
	if err := b.spend(); err != nil {
		return false, err
	}
	for depth := maxDepth; ; {
		depth--
		if depth < 0 {
			return false, fmt.Errorf("%w: types nested deeper than %d", ErrInvalid, maxDepth)
		}
		lt, tt, err := resolvePair(ls, lid, ts, tid)
		if err != nil {
			return false, err
		}
		if !namesMatch(lt.NameBytes(), tt.NameBytes()) {
			return false, nil
		}
		lk, tk := lt.Kind(), tt.Kind()
		switch lk {
		case btf.KindUnknown:
			return lk == tk, nil
		case btf.KindForward:
			lf := lt.KindFlag()
			if behindPtr && lk != tk {
				return (tk == btf.KindStruct && !lf) || (tk == btf.KindUnion && lf), nil
			}
			return lk == tk && lf == tt.KindFlag(), nil
		case btf.KindEnum, btf.KindEnum64:
			return isAnyEnum(tt) && enumsMatch(lt, tt), nil
		case btf.KindStruct, btf.KindUnion:
			if behindPtr {
				if lk == tk {
					return true, nil
				}
				return tk == btf.KindForward && (lk == btf.KindUnion) == tt.KindFlag(), nil
			}
			if lk != tk {
				return false, nil
			}
			return compositesMatch(b, ls, lt, ts, tt, behindPtr, level)
		case btf.KindInt:
			if lk != tk {
				return false, nil
			}
			return lt.Size() == tt.Size() && lt.Int().Encoding&btf.IntSigned == tt.Int().Encoding&btf.IntSigned, nil
		case btf.KindPointer:
			if lk != tk {
				return false, nil
			}
			behindPtr = true
			lid, tid = lt.Ref(), tt.Ref()
		case btf.KindArray:
			la, ta := lt.Array(), tt.Array()
			if lk != tk || la.Nelems != ta.Nelems {
				return false, nil
			}
			lid, tid = la.Type, ta.Type
		case btf.KindFuncProto:
			if lk != tk || lt.Vlen() != tt.Vlen() {
				return false, nil
			}
			for i := range lt.Vlen() {
				ok, err := typesMatch(b, ls, lt.Param(i).Type, ts, tt.Param(i).Type, behindPtr, level-1)
				if err != nil || !ok {
					return ok, err
				}
			}
			lid, tid = lt.Ref(), tt.Ref()
		default:
			return false, nil
		}
	}
}

// matchMember is bpf_core_match_member: it looks for the member named by
// local accessor la in target composite tid, descending into anonymous
// members, and extends the target spec with its steps. It returns the
// matched member's type id.
func matchMember(b *budget, ls *btf.Spec, la accessor, ts *btf.Spec, tid btf.TypeID, spec *coreSpec) (bool, btf.TypeID, error) {
	tt, err := resolve(ts, tid)
	if err != nil {
		return false, 0, err
	}
	if !tt.IsComposite() {
		return false, 0, nil
	}
	if err := b.spend(); err != nil {
		return false, 0, err
	}
	lt, _ := ls.TypeByID(la.typeID)
	lm := lt.Member(int(la.idx))
	if x, ok := b.members.get(ts, tt); ok {
		return matchIndexed(b, ls, la, lm, ts, tt, x, spec)
	}
	lname := lm.NameBytes()
	for i := range tt.Vlen() {
		done, found, next, err := tryMember(b, ls, la, lm, lname, ts, tt, i, spec)
		if done {
			return found, next, err
		}
	}
	return false, 0, nil
}

// matchIndexed is matchMember's scan through tt's member index: it visits
// the anonymous members before the first member named as lm, then that
// one, as the scan would; the named members it skips would only have
// checked the spec's length, which changes only at a visited member.
func matchIndexed(b *budget, ls *btf.Spec, la accessor, lm btf.Member, ts *btf.Spec, tt btf.Type, x memberIndex, spec *coreSpec) (bool, btf.TypeID, error) {
	lname := lm.NameBytes()
	j := x.first(tt, lname)
	last := -1
	for _, a := range x.anon() {
		if j >= 0 && int(a) > j {
			break
		}
		done, found, next, err := tryMember(b, ls, la, lm, lname, ts, tt, int(a), spec)
		if done {
			return found, next, err
		}
		last = int(a)
	}
	if j >= 0 {
		_, found, next, err := tryMember(b, ls, la, lm, lname, ts, tt, j, spec)
		return found, next, err
	}
	if last+1 < tt.Vlen() && spec.rawLen == maxSpecLen {
		return false, 0, errTooDeep()
	}
	return false, 0, nil
}

// tryMember is one step of bpf_core_match_member's scan: member i of tt,
// speculatively pushed onto spec. done reports that the scan ends there,
// with (found, next, err); otherwise the member is popped again (an
// anonymous member whose search met a same-named but incompatible field
// leaves that field's step pushed, as libbpf's does).
func tryMember(b *budget, ls *btf.Spec, la accessor, lm btf.Member, lname []byte, ts *btf.Spec, tt btf.Type, i int, spec *coreSpec) (done, found bool, next btf.TypeID, err error) {
	if spec.rawLen == maxSpecLen {
		return true, false, 0, errTooDeep()
	}
	b.visits++
	m := tt.Member(i)
	spec.bitOffset += m.BitOffset
	spec.raw[spec.rawLen] = uint32(i)
	spec.rawLen++
	name := m.NameBytes()
	if len(name) == 0 {
		found, next, err := matchMember(b, ls, la, ts, m.Type, spec)
		if found || err != nil {
			return true, found, next, err
		}
	} else if bytes.Equal(name, lname) {
		spec.acc[spec.n] = accessor{typeID: tt.ID(), idx: uint32(i), name: name}
		spec.n++
		ok, err := fieldsCompat(ls, lm.Type, ts, m.Type)
		if !ok {
			spec.n--
		}
		return true, ok, m.Type, err
	}
	spec.bitOffset -= m.BitOffset
	spec.rawLen--
	return false, false, 0, nil
}

func errTooDeep() error {
	return fmt.Errorf("%w: nesting deeper than %d", ErrTooBig, maxSpecLen)
}

// specMatch is bpf_core_spec_match: it matches local spec ls against
// target type tid of ts and fills the target spec.
func specMatch(b *budget, local *coreSpec, ts *btf.Spec, tid btf.TypeID, targ *coreSpec) (bool, error) {
	*targ = coreSpec{s: ts, root: tid, kind: local.kind}
	switch {
	case local.kind == ext.TypeMatches:
		return typesMatch(b, local.s, local.root, ts, tid, false, maxDepth)
	case local.kind.IsType():
		return typesCompat(b, local.s, local.root, ts, tid, maxDepth)
	case local.kind.IsEnumval():
		return enumvalMatch(local, ts, tid, targ)
	case !local.kind.IsField():
		return false, fmt.Errorf("%w: kind %d", ErrInvalid, uint32(local.kind))
	}
	for i := range local.n {
		la := local.acc[i]
		tt, err := resolve(ts, tid)
		if err != nil {
			return false, err
		}
		tid = tt.ID()
		if la.name != nil {
			ok, next, err := matchMember(b, local.s, la, ts, tid, targ)
			if !ok || err != nil {
				return false, err
			}
			tid = next
			continue
		}
		if i > 0 {
			if tt.Kind() != btf.KindArray {
				return false, nil
			}
			a := tt.Array()
			if !isFlexArray(ts, targ.acc[i-1], a) && la.idx >= a.Nelems {
				return false, nil
			}
			et, err := resolve(ts, a.Type)
			if err != nil {
				return false, err
			}
			tid = et.ID()
		}
		if targ.rawLen == maxSpecLen {
			return false, errTooDeep()
		}
		targ.acc[targ.n] = accessor{typeID: tid, idx: la.idx}
		targ.n++
		targ.raw[targ.rawLen] = la.idx
		targ.rawLen++
		sz, err := ts.SizeOf(tid)
		if err != nil {
			return false, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		targ.bitOffset += la.idx * sz * 8
	}
	return true, nil
}

// enumvalMatch is the enumerator part of bpf_core_spec_match.
func enumvalMatch(local *coreSpec, ts *btf.Spec, tid btf.TypeID, targ *coreSpec) (bool, error) {
	tt, err := resolve(ts, tid)
	if err != nil {
		return false, err
	}
	if !isAnyEnum(tt) {
		return false, nil
	}
	want := essential(local.acc[0].name)
	for i := range tt.Vlen() {
		name := tt.EnumValue(i).NameBytes()
		if bytes.Equal(essential(name), want) {
			targ.acc[0] = accessor{typeID: tt.ID(), idx: uint32(i), name: name}
			targ.n = 1
			targ.raw[0] = uint32(i)
			targ.rawLen = 1
			return true, nil
		}
	}
	return false, nil
}

// maxSteps bounds the work of matching one relocation against one
// candidate. libbpf has no such bound: type_matches and prototype
// compatibility recurse into every member or parameter, 32 levels deep, so
// that BTF whose types refer to themselves more than once (which no
// compiler writes) takes exponential time there; here it is an error.
const maxSteps = 1 << 20

// budget counts the steps of one match, and the members it visits;
// members, if not nil, are the member indexes of the run the match is
// part of.
type budget struct {
	n       int
	visits  int
	members *memberIndexes
}

func (b *budget) spend() error {
	b.n++
	if b.n > maxSteps {
		return fmt.Errorf("%w: matching takes more than %d steps", ErrTooBig, maxSteps)
	}
	return nil
}
