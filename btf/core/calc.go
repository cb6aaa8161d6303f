package core

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/ext"
)

// fieldVal is what bpf_core_calc_field_relo computes from one spec.
type fieldVal struct {
	val      uint64
	memSize  uint32     // size of a load or store of the field, 0 if none
	typeID   btf.TypeID // the field's type, for load size checks
	validate bool
}

// errPoison is libbpf's -EUCLEAN: the relocation cannot be satisfied and
// the instruction is to be poisoned.
var errPoison = errors.New("core: poison")

// calcField is bpf_core_calc_field_relo (libbpf 1.8: the signedness of
// non-integers, and load sizes of array elements). A nil spec means that
// no candidate matched.
func calcField(kind ext.Kind, spec *coreSpec) (fieldVal, error) {
	var v fieldVal
	if kind == ext.FieldExists {
		if spec != nil {
			v.val = 1
		}
		return v, nil
	}
	if spec == nil {
		return v, errPoison
	}
	s := spec.s
	acc := spec.acc[spec.n-1]
	if acc.name == nil {
		return calcArrayElem(kind, spec, acc)
	}
	t, _ := s.TypeByID(acc.typeID)
	m := t.Member(int(acc.idx))
	mt, err := resolve(s, m.Type)
	if err != nil {
		return v, err
	}
	bitOff, bitSz := spec.bitOffset, m.BitfieldSize
	var byteOff, byteSz uint32
	bitfield := bitSz > 0
	if bitfield {
		byteSz = mt.Size()
		if byteSz == 0 {
			return v, fmt.Errorf("%w: bitfield of size 0", ErrInvalid)
		}
		byteOff = bitOff / 8 / byteSz * byteSz
		for bitOff+bitSz-byteOff*8 > byteSz*8 {
			if byteSz >= 8 {
				return v, fmt.Errorf("%w: bitfield cannot be read with a 64-bit load", ErrTooBig)
			}
			byteSz *= 2
			byteOff = bitOff / 8 / byteSz * byteSz
		}
	} else {
		sz, err := s.SizeOf(mt.ID())
		if err != nil {
			return v, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		byteSz, byteOff, bitSz = sz, bitOff/8, sz*8
	}
	v.validate = !bitfield
	switch kind {
	case ext.FieldByteOffset:
		v.val = uint64(byteOff)
		if !bitfield {
			v.memSize, v.typeID, err = elemSize(s, mt.ID())
			if err != nil {
				return v, err
			}
		}
	case ext.FieldByteSize:
		v.val = uint64(byteSz)
	case ext.FieldSigned:
		if (isAnyEnum(mt) && mt.KindFlag()) || (mt.Kind() == btf.KindInt && mt.Int().Encoding&btf.IntSigned != 0) {
			v.val = 1
		}
		v.validate = true
	case ext.FieldLShiftU64:
		// libbpf computes it for the byte order of the host it runs on
		if hostBigEndian() {
			v.val = uint64((8-byteSz)*8 + (bitOff - byteOff*8))
		} else {
			v.val = uint64(64 - (bitOff + bitSz - byteOff*8))
		}
	case ext.FieldRShiftU64:
		v.val = uint64(64 - bitSz)
		v.validate = true
	}
	return v, nil
}

// calcArrayElem is the a[n] case of bpf_core_calc_field_relo.
func calcArrayElem(kind ext.Kind, spec *coreSpec, acc accessor) (fieldVal, error) {
	v := fieldVal{validate: true}
	var err error
	switch kind {
	case ext.FieldByteOffset:
		v.val = uint64(spec.bitOffset / 8)
		v.memSize, v.typeID, err = elemSize(spec.s, acc.typeID)
		if err != nil {
			return v, err
		}
	case ext.FieldByteSize:
		sz, err := spec.s.SizeOf(acc.typeID)
		if err != nil {
			return v, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		v.val = uint64(sz)
	default:
		return v, fmt.Errorf("%w: %s cannot be applied to an array access", ErrInvalid, kind)
	}
	return v, nil
}

// elemSize is the size of a load of a value of type id: for arrays, of
// one innermost element (libbpf 1.8).
func elemSize(s *btf.Spec, id btf.TypeID) (uint32, btf.TypeID, error) {
	t, err := resolve(s, id)
	for i := 0; err == nil && t.Kind() == btf.KindArray; i++ {
		if i > maxDepth {
			return 0, 0, fmt.Errorf("%w: arrays nested deeper than %d", ErrInvalid, maxDepth)
		}
		t, err = resolve(s, t.Array().Type)
	}
	if err != nil {
		return 0, 0, err
	}
	sz, err := s.SizeOf(t.ID())
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return sz, id, nil
}

// calcType is bpf_core_calc_type_relo.
func calcType(kind ext.Kind, spec *coreSpec) (uint64, error) {
	if spec == nil {
		return 0, nil
	}
	switch kind {
	case ext.TypeIDTarget:
		return uint64(spec.root), nil
	case ext.TypeExists, ext.TypeMatches:
		return 1, nil
	case ext.TypeSize:
		sz, err := spec.s.SizeOf(spec.root)
		if err != nil {
			return 0, fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		return uint64(sz), nil
	}
	return 0, fmt.Errorf("%w: kind %s", ErrUnsupported, kind)
}

// calcEnumval is bpf_core_calc_enumval_relo.
func calcEnumval(kind ext.Kind, spec *coreSpec) (uint64, error) {
	if kind == ext.EnumvalExists {
		if spec == nil {
			return 0, nil
		}
		return 1, nil
	}
	if spec == nil {
		return 0, errPoison
	}
	t, _ := spec.s.TypeByID(spec.acc[0].typeID)
	v := t.EnumValue(int(spec.acc[0].idx))
	if v.Is64 {
		return v.Value, nil
	}
	// struct btf_enum's val is an __s32: libbpf sign-extends it
	return uint64(int64(int32(uint32(v.Value)))), nil
}

// hostBigEndian is the byte order libbpf's lshift_u64 formula follows.
func hostBigEndian() bool { return binary.NativeEndian.Uint16([]byte{0, 1}) == 1 }
