package cdump

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
)

// rec is one type record in host byte order, from btf.Spec.TypeSection.
// The dumper reads every record many times (a struct's members are walked to
// order it, to emit its dependencies, to check its packing and to print it),
// so it decodes the wire words in place instead of going through the
// btf.Type accessors. loadRecords checks that each record has the standard
// size for its kind, so the offsets below are in bounds. The nil rec is void.
type rec []byte

const recHeader = 12 // name_off, info, size/type

func (r rec) word(off int) uint32 { return binary.NativeEndian.Uint32(r[off : off+4]) }

func (r rec) kind() btf.Kind {
	if len(r) < recHeader {
		return btf.KindUnknown
	}
	return btf.Kind(r.word(4) >> 24 & 0x1f)
}

func (r rec) nameOff() uint32 {
	if len(r) < recHeader {
		return 0
	}
	return r.word(0)
}

func (r rec) vlen() int {
	if len(r) < recHeader {
		return 0
	}
	return int(r.word(4) & 0xffff)
}

func (r rec) kflag() bool { return len(r) >= recHeader && r.word(4)>>31 != 0 }

// size is the size word of INT, STRUCT, UNION, ENUM, ENUM64, FLOAT, DATASEC.
func (r rec) size() uint32 {
	if len(r) < recHeader {
		return 0
	}
	return r.word(8)
}

// ref is the type word of PTR, TYPEDEF, qualifiers, TYPE_TAG, FUNC,
// FUNC_PROTO (its return type), VAR and DECL_TAG.
func (r rec) ref() btf.TypeID { return btf.TypeID(r.size()) }

func (r rec) isComposite() bool {
	k := r.kind()
	return k == btf.KindStruct || k == btf.KindUnion
}

// arrayElem and arrayIndex and arrayLen read an ARRAY's btf_array.
func (r rec) arrayElem() btf.TypeID  { return btf.TypeID(r.word(recHeader)) }
func (r rec) arrayIndex() btf.TypeID { return btf.TypeID(r.word(recHeader + 4)) }
func (r rec) arrayLen() uint32       { return r.word(recHeader + 8) }

// member returns the i-th btf_member of a STRUCT or UNION: name offset,
// type, bit offset and bitfield size (0 for a plain member).
func (r rec) member(i int) (name uint32, typ btf.TypeID, off, bits uint32) {
	p := recHeader + 12*i
	name, typ, off = r.word(p), btf.TypeID(r.word(p+4)), r.word(p+8)
	if r.kflag() {
		bits, off = off>>24, off&0xffffff
	}
	return name, typ, off, bits
}

// memberType returns only the type of the i-th member.
func (r rec) memberType(i int) btf.TypeID { return btf.TypeID(r.word(recHeader + 12*i + 4)) }

// param returns the i-th btf_param of a FUNC_PROTO.
func (r rec) param(i int) (name uint32, typ btf.TypeID) {
	p := recHeader + 8*i
	return r.word(p), btf.TypeID(r.word(p + 4))
}

// paramType returns the type of the i-th parameter.
func (r rec) paramType(i int) btf.TypeID { return btf.TypeID(r.word(recHeader + 8*i + 4)) }

// enumValue returns the i-th value of an ENUM (low 32 bits) or ENUM64.
func (r rec) enumValue(i int, is64 bool) (name uint32, val uint64) {
	if is64 {
		p := recHeader + 12*i
		return r.word(p), uint64(r.word(p+4)) | uint64(r.word(p+8))<<32
	}
	p := recHeader + 8*i
	return r.word(p), uint64(r.word(p + 4))
}

// secinfoType returns the variable of the i-th btf_var_secinfo of a DATASEC.
func (r rec) secinfoType(i int) btf.TypeID { return btf.TypeID(r.word(recHeader + 12*i)) }

// recordSize is the size of a record of kind k with vlen elements in the
// standard layout, or -1 for a kind this package does not know.
func recordSize(k btf.Kind, vlen int) int {
	switch k {
	case btf.KindPointer, btf.KindForward, btf.KindTypedef, btf.KindVolatile, btf.KindConst,
		btf.KindRestrict, btf.KindFunc, btf.KindFloat, btf.KindTypeTag:
		return recHeader
	case btf.KindInt, btf.KindVar, btf.KindDeclTag:
		return recHeader + 4
	case btf.KindArray:
		return recHeader + 12
	case btf.KindStruct, btf.KindUnion, btf.KindDatasec, btf.KindEnum64:
		return recHeader + 12*vlen
	case btf.KindEnum, btf.KindFuncProto:
		return recHeader + 8*vlen
	}
	return -1
}

// section is the type section of one Spec of a chain, with the offset of
// each of its records: record first+i is data[offs[i]:offs[i+1]].
type section struct {
	first btf.TypeID
	data  []byte
	offs  []uint32
}

// records are the type records of a Spec chain, the split Spec first. They
// hold no pointers but the sections', so the garbage collector does not
// scan one per type.
type records []section

// loadRecords indexes the records of every type of s and its bases.
func loadRecords(s *btf.Spec) (records, error) {
	var rs records
	for ; s != nil; s = s.Base() {
		data := s.TypeSection()
		if data == nil && s.NumTypes() > 0 {
			return nil, fmt.Errorf("cdump: %w", btf.ErrClosed)
		}
		offs := make([]uint32, 0, s.NumTypes()+1)
		for off := 0; off < len(data); {
			r := rec(data[off:])
			if len(r) < recHeader {
				return nil, fmt.Errorf("cdump: type section truncated at %d", off)
			}
			size := recordSize(r.kind(), r.vlen())
			if size < 0 || size > len(r) {
				return nil, fmt.Errorf("cdump: type [%d]: unsupported kind %v or record layout",
					int(s.FirstID())+len(offs), r.kind())
			}
			offs = append(offs, uint32(off))
			off += size
		}
		if len(offs) != s.NumTypes() {
			return nil, fmt.Errorf("cdump: %d records in the type section, want %d", len(offs), s.NumTypes())
		}
		offs = append(offs, uint32(len(data)))
		rs = append(rs, section{first: s.FirstID(), data: data, offs: offs})
	}
	return rs, nil
}

// get returns the record of type id, or nil for void or an id out of range.
func (rs records) get(id btf.TypeID) rec {
	for i := range rs {
		s := &rs[i]
		if id >= s.first {
			j := int(id - s.first)
			if j+1 >= len(s.offs) {
				return nil
			}
			return rec(s.data[s.offs[j]:s.offs[j+1]])
		}
	}
	return nil
}

// strtab resolves string offsets over the string sections of a Spec chain.
type strtab []strSection

type strSection struct {
	start uint32
	data  []byte
}

func newStrtab(s *btf.Spec) strtab {
	var t strtab
	for ; s != nil; s = s.Base() {
		data, start := s.StringSection()
		t = append(t, strSection{start, data})
	}
	return t
}

// name returns the string at off, without its NUL; nil for "" or an offset
// outside the sections (which btf.Parse does not let through).
func (t strtab) name(off uint32) []byte {
	if off == 0 {
		return nil
	}
	for _, sec := range t {
		if off >= sec.start {
			off -= sec.start
			if off >= uint32(len(sec.data)) {
				return nil
			}
			b := sec.data[off:]
			if i := bytes.IndexByte(b, 0); i >= 0 {
				return b[:i]
			}
			return b
		}
	}
	return nil
}
