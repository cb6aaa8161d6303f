package btf

import (
	"errors"
	"fmt"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"math"
	"slices"
	"strconv"
)

// maxChain bounds the typedef, qualifier and array chains that Resolve,
// SizeOf and AlignOf follow, so that a cycle in corrupt BTF ends with an
// error instead of a hang. libbpf uses the same limit (MAX_RESOLVE_DEPTH).
const maxChain = 32

// errLoop is wrapped by errors about chains longer than maxChain.
var errLoop = errors.New("btf: reference chain too long or cyclic")

// Resolve follows TYPEDEF, CONST, VOLATILE, RESTRICT and TYPE_TAG from id
// and returns the first type that is none of these (possibly void).
func (s *Spec) Resolve(id TypeID) (Type, error) {
	for range maxChain {
		t, err := s.TypeByID(id)
		if err != nil {
			return Type{}, err
		}
		switch t.Kind() {
		case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag:
			id = t.Ref()
		default:
			return t, nil
		}
	}
	return Type{}, pkgerr.Errorf("btf: resolve type %d: %w", id, errLoop)
}

// SizeOf returns the size in bytes of a value of type id, following
// typedefs, qualifiers, VARs and arrays as the C compiler would. Void,
// FWD, FUNC and FUNC_PROTO have no size and give an error.
func (s *Spec) SizeOf(id TypeID) (uint32, error) {
	nelems := uint64(1)
	start := id
	for range maxChain {
		t, err := s.TypeByID(id)
		if err != nil {
			return 0, err
		}
		var size uint64
		switch t.Kind() {
		case KindInt, KindEnum, KindEnum64, KindStruct, KindUnion, KindDatasec, KindFloat:
			size = uint64(t.Size())
		case KindPointer:
			size = uint64(s.PointerSize())
		case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag, KindVar, KindDeclTag:
			id = t.Ref()
			continue
		case KindArray:
			a := t.Array()
			nelems *= uint64(a.Nelems)
			if nelems > math.MaxUint32 {
				return 0, fmt.Errorf("btf: size of type %d: array too large", start)
			}
			id = a.Type
			continue
		default:
			return 0, fmt.Errorf("btf: size of type %d: %v has no size", start, t)
		}
		if total := nelems * size; total <= math.MaxUint32 {
			return uint32(total), nil
		}
		return 0, fmt.Errorf("btf: size of type %d: larger than 4 GiB", start)
	}
	return 0, pkgerr.Errorf("btf: size of type %d: %w", start, errLoop)
}

// AlignOf returns the alignment in bytes of type id, as libbpf's
// btf__align_of computes it: a STRUCT or UNION whose members are not all
// naturally aligned (a packed one) has alignment 1.
//
// Each composite type is computed once per call, so the work is linear in
// the number of types reached, and chains deeper than 32 give an error, so
// hostile BTF cannot make it run for long.
func (s *Spec) AlignOf(id TypeID) (uint32, error) {
	a := aligner{s: s}
	return a.alignOf(id, 0)
}

// aligner computes alignments for one AlignOf call, remembering those of
// the composites it has seen.
type aligner struct {
	s    *Spec
	memo map[TypeID]uint32
}

func (a *aligner) alignOf(id TypeID, depth int) (uint32, error) {
	if depth > maxChain {
		return 0, pkgerr.Errorf("btf: alignment of type %d: %w", id, errLoop)
	}
	t, err := a.s.TypeByID(id)
	if err != nil {
		return 0, err
	}
	switch t.Kind() {
	case KindInt, KindEnum, KindEnum64, KindFloat:
		if t.Size() == 0 {
			// libbpf's btf__align_of gives 0 too, which its callers
			// take for an error; a member of it would divide by zero.
			return 0, fmt.Errorf("btf: alignment of type %d: %v has size 0", id, t)
		}
		return min(t.Size(), a.s.PointerSize()), nil
	case KindPointer:
		return a.s.PointerSize(), nil
	case KindTypedef, KindConst, KindVolatile, KindRestrict, KindTypeTag, KindVar:
		return a.alignOf(t.Ref(), depth+1)
	case KindArray:
		return a.alignOf(t.Array().Type, depth+1)
	case KindStruct, KindUnion:
		if v, ok := a.memo[id]; ok {
			return v, nil
		}
		v, err := a.composite(t, depth)
		if err != nil {
			return 0, err
		}
		if a.memo == nil {
			a.memo = make(map[TypeID]uint32)
		}
		a.memo[id] = v
		return v, nil
	}
	return 0, fmt.Errorf("btf: alignment of type %d: %v has no alignment", id, t)
}

func (a *aligner) composite(t Type, depth int) (uint32, error) {
	align := uint32(1)
	for _, m := range t.Members() {
		ma, err := a.alignOf(m.Type, depth+1)
		if err != nil {
			return 0, err
		}
		if ma == 0 {
			// Only a Spec closed under the walk (which Close's
			// doc forbids) reads as no alignment: its views are
			// zero values.
			return 0, pkgerr.Errorf("btf: alignment of type %d: %w", m.Type, ErrClosed)
		}
		if m.BitfieldSize == 0 && m.BitOffset%(8*ma) != 0 {
			return 1, nil // a member is not naturally aligned: packed
		}
		align = max(align, ma)
	}
	if t.Size()%align != 0 {
		return 1, nil
	}
	return align, nil
}

// longNames are the spellings of C's long that libbpf's determine_ptr_size
// recognizes.
var longNames = []string{
	"long", "long int", "int long", "unsigned long", "long unsigned",
	"unsigned long int", "unsigned int long", "long unsigned int",
	"long int unsigned", "int unsigned long", "int long unsigned",
}

// PointerSize returns the size of a pointer on the BTF's target, deduced as
// libbpf's btf__pointer_size does (KnownPointerSize). Without an INT to
// tell it, it is the host's pointer size, as libbpf's btf__resolve_size
// and btf__align_of take it (btf_ptr_sz).
func (s *Spec) PointerSize() uint32 {
	if n := s.KnownPointerSize(); n != 0 {
		return n
	}
	return strconv.IntSize / 8
}

// KnownPointerSize is libbpf's btf__pointer_size: for BTF read from an
// ELF file, the pointer size of the file's class (btf_parse_elf);
// otherwise a split Spec's base's, if known, else the size of the first
// INT, in id order (a split Spec's base first), that is 4 or 8 bytes and
// named as a spelling of "long" (determine_ptr_size); 0 without one.
// pahole's BTF loader takes it for the pointer size (cu->addr_size), 0
// included.
func (s *Spec) KnownPointerSize() uint32 {
	s.ptrOnce.Do(func() {
		if s.base != nil {
			if s.ptrSize = s.base.KnownPointerSize(); s.ptrSize != 0 {
				return
			}
		}
		for _, t := range s.All() {
			if t.Kind() != KindInt || (t.Size() != 4 && t.Size() != 8) {
				continue
			}
			if slices.Contains(longNames, string(t.NameBytes())) {
				s.ptrSize = t.Size()
				return
			}
		}
	})
	return s.ptrSize
}

// setPointerSize sets the pointer size of a Spec read from an ELF file to
// n, that of the file's class, as libbpf's btf_parse_elf does; 0 leaves it
// to be deduced.
func (s *Spec) setPointerSize(n uint32) {
	if n != 0 {
		s.ptrOnce.Do(func() { s.ptrSize = n })
	}
}
