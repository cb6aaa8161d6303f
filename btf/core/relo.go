package core

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/ext"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// reloRes is libbpf's struct bpf_core_relo_res: the value the instruction
// holds for the local BTF, the value for the target, and how to patch.
type reloRes struct {
	orig, val      uint64
	poison         bool
	validate       bool
	failMemsz      bool
	origSz, newSz  uint32
	origTy, newTy  btf.TypeID
	poisonNoTarget bool // poisoned because nothing matched
}

// calcRelo is bpf_core_calc_relo: the result for one candidate's target
// spec, or for none (targ nil).
func calcRelo(kind ext.Kind, local, targ *coreSpec) (reloRes, error) {
	res := reloRes{validate: true}
	var err error
	switch {
	case kind.IsField():
		var lv, tv fieldVal
		lv, err = calcField(kind, local)
		if err == nil {
			tv, err = calcField(kind, targ)
		}
		if err != nil {
			break
		}
		res.orig, res.validate, res.origSz, res.origTy = lv.val, lv.validate, lv.memSize, lv.typeID
		res.val, res.newSz, res.newTy = tv.val, tv.memSize, tv.typeID
		if res.origSz != res.newSz {
			res.failMemsz = !safeResize(local.s, res.origTy, targ.s, res.newTy)
		}
	case kind.IsType():
		res.orig, err = calcType(kind, local)
		if err == nil {
			res.val, err = calcType(kind, targ)
		}
		if kind == ext.TypeIDTarget {
			res.validate = false
		}
	case kind.IsEnumval():
		res.orig, err = calcEnumval(kind, local)
		if err == nil {
			res.val, err = calcEnumval(kind, targ)
		}
	default:
		err = fmt.Errorf("%w: unrecognized CO-RE relocation kind %d", ErrUnsupported, uint32(kind))
	}
	if err == errPoison {
		res.poison, err = true, nil
	}
	return res, err
}

// safeResize reports whether a load of the field may change size: both
// pointers, or both unsigned integers.
func safeResize(ls *btf.Spec, lid btf.TypeID, ts *btf.Spec, tid btf.TypeID) bool {
	lt, _ := ls.TypeByID(lid)
	tt, _ := ts.TypeByID(tid)
	if lt.Kind() == btf.KindPointer && tt.Kind() == btf.KindPointer {
		return true
	}
	return lt.Kind() == btf.KindInt && tt.Kind() == btf.KindInt &&
		lt.Int().Encoding != btf.IntSigned && tt.Int().Encoding != btf.IntSigned
}

// outcome is what bpf_core_calc_relo_insn decides for one relocation.
type outcome struct {
	local, targ coreSpec
	parsed      bool // local is complete
	matched     bool // targ is the first matching candidate's spec
	res         reloRes
	ncands      int
}

// calcReloInsn is bpf_core_calc_relo_insn: parse the local spec, match
// it against every candidate, check that all matches agree, and compute
// the result. *cands is pruned to the matching candidates when there are
// some, as libbpf prunes its cached list (candMatches.prune): a new list,
// the old one is left as it is.
func calcReloInsn(local *btf.Spec, r ext.CORERelo, cands **candList, mi *memberIndexes, out *outcome) error {
	lt, err := local.TypeByID(r.TypeID)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if err := parseSpec(local, r, &out.local); err != nil {
		return pkgerr.Errorf("core: parsing [%d] %s %s: %w", r.TypeID, kindStr(lt.Kind()), anon(lt.Name()), err)
	}
	out.parsed = true
	if r.Kind == ext.TypeIDLocal {
		out.res = reloRes{orig: uint64(r.TypeID), val: uint64(r.TypeID)}
		return nil
	}
	if len(lt.NameBytes()) == 0 {
		return fmt.Errorf("%w: <%s> relocation of an anonymous type", ErrUnsupported, r.Kind)
	}
	var m candMatches
	err = matchCands(r.Kind, *cands, mi, out, &m)
	*cands = m.prune(*cands, err == nil)
	if err != nil || m.n > 0 {
		return err
	}
	res, err := calcRelo(r.Kind, &out.local, nil)
	if err != nil {
		return err
	}
	res.poisonNoTarget = res.poison
	out.res = res
	return nil
}

// matchCands matches out.local against every candidate of l, noting in
// m which match, and keeps the first match's spec and result in out; it
// stops at the first error.
func matchCands(kind ext.Kind, l *candList, mi *memberIndexes, out *outcome, m *candMatches) error {
	var candSpec coreSpec
	out.ncands = l.len()
	for i, c := range l.all() {
		ok, err := specMatch(&budget{members: mi}, &out.local, c.s, c.id, &candSpec)
		if err != nil {
			return pkgerr.Errorf("core: matching candidate [%d]: %w", c.id, err)
		}
		if !ok {
			m.note(i, out.ncands, false)
			continue
		}
		if m.n == 0 {
			// The first match is known, and reported, even if the
			// calculation below fails (libbpf logs it first too).
			out.targ, out.matched = candSpec, true
		}
		res, err := calcRelo(kind, &out.local, &candSpec)
		if err != nil {
			return err
		}
		switch {
		case m.n == 0:
			out.res = res
		case candSpec.bitOffset != out.targ.bitOffset:
			return fmt.Errorf("%w: field offset ambiguity: %d != %d", ErrInvalid, candSpec.bitOffset, out.targ.bitOffset)
		case res.poison != out.res.poison || res.val != out.res.val:
			return fmt.Errorf("%w: relocation decision ambiguity: %s %d != %s %d", ErrInvalid,
				decision(res.poison), res.val, decision(out.res.poison), out.res.val)
		}
		m.note(i, out.ncands, true)
	}
	return nil
}

func decision(poison bool) string {
	if poison {
		return "failure"
	}
	return "success"
}

func anon(name string) string {
	if name == "" {
		return "<anon>"
	}
	return name
}
