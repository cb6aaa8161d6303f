package btf

import "github.com/kmeta-dev/kmeta/internal/wire"

// wrongBase is the hint added to errors in split BTF that point to a base
// other than the one it was made for, as libbpf asks "did you forget to
// provide base BTF?".
const wrongBase = " (wrong base?)"

// checkBaseStrings checks that every name offset of split BTF that falls
// in the base's strings points at the start of one of them, as the
// writers of split BTF (pahole, libbpf, the Builder) always make it. A
// module parsed on another kernel's base has offsets that land in the
// middle of the base's strings, and would print garbage names.
func (s *Spec) checkBaseStrings() error {
	if s.base == nil {
		return nil
	}
	w := newWords(s.types)
	off := uint32(0)
	for i := range s.n {
		info := w.at(off + wire.InfoAt)
		kind := wire.InfoKind(info)
		size := s.sizes.Of(info)
		// Most names are the module's own: checked here, not by a call.
		if o := w.at(off + wire.NameAt); o != 0 && o < s.strStart {
			if err := s.baseString(s.firstID+TypeID(i), off, o); err != nil {
				return err
			}
		}
		if sh := &wire.Shapes[kind]; sh.ElemSize != 0 && sh.ElemNameMask != 0 {
			for e := off + sh.ElemStart; e < off+size; e += sh.ElemSize {
				if o := w.at(e + sh.ElemNameAt); o != 0 && o < s.strStart {
					if err := s.baseString(s.firstID+TypeID(i), off, o); err != nil {
						return err
					}
				}
			}
		}
		off += size
	}
	return nil
}

// baseString checks one name offset o of the record of type id at off.
func (s *Spec) baseString(id TypeID, off, o uint32) error {
	if o == 0 || o >= s.strStart {
		return nil
	}
	for b := s.base; b != nil; b = b.base {
		if o >= b.strStart {
			if rel := o - b.strStart; rel != 0 && b.strs[rel-1] != 0 {
				return midStringErr(id, off, o)
			}
			return nil
		}
	}
	return nil
}

// midStringErr is the error for name offset o of the record of type id at
// off, which lands inside a string of the base.
func midStringErr(id TypeID, off, o uint32) error {
	return typeErr(id, off, "name offset %d lands inside a string of the base, not at its start%s", o, wrongBase)
}
