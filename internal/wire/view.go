package wire

// Byte offsets of the three words of a record's fixed part, and of the
// first word after it (the "extra" word of INT, VAR and DECL_TAG, and the
// btf_array of ARRAY).
const (
	NameAt     = 0  // name_off: a string offset
	InfoAt     = 4  // info: vlen, kind, kind_flag
	SizeTypeAt = 8  // size, or a type id, depending on the kind
	ExtraAt    = 12 // first byte after the fixed part
)

// Byte offsets within an ARRAY's btf_array, which follows the fixed part.
const (
	arrayTypeAt   = ExtraAt
	arrayIndexAt  = ExtraAt + 4
	arrayNelemsAt = ExtraAt + 8
)

// Sizes of the vlen elements of the kinds defined today, as DefaultLayouts
// has them (a layout section cannot change them: ParseLayouts refuses).
const (
	memberSize  = 12 // btf_member: name_off, type, offset
	paramSize   = 8  // btf_param: name_off, type
	enumSize    = 8  // btf_enum: name_off, val
	enum64Size  = 12 // btf_enum64: name_off, val_lo32, val_hi32
	secinfoSize = 12 // btf_var_secinfo: type, offset, size
	arraySize   = 12 // btf_array: type, index_type, nelems
	extraSize   = 4  // the one word after INT, VAR and DECL_TAG
)

// Record is one type record in host byte order, from its first byte; it
// may run on past the record's end (the rest of a type section). Its
// accessors read the fields at their fixed places and do no bounds
// checks beyond Go's own: the caller has checked that the record is whole
// (for example with Sizes.Iter). Element accessors assume the record's
// kind is the one they are named after.
//
// A Record shorter than the fixed part, such as nil, is void (type id 0):
// the accessors of the fixed part read it as zeros, so void's kind is
// KindUnknown, its name 0 and its vlen 0.
type Record []byte

// IsVoid reports whether r is void: shorter than the fixed part.
func (r Record) IsVoid() bool { return len(r) < TypeSize }

// NameOff returns the record's name_off.
func (r Record) NameOff() uint32 {
	if len(r) < TypeSize {
		return 0
	}
	return Word(r, NameAt)
}

// Info returns the record's info word.
func (r Record) Info() uint32 {
	if len(r) < TypeSize {
		return 0
	}
	return Word(r, InfoAt)
}

// Kind returns the kind stored in the info word.
func (r Record) Kind() Kind { return InfoKind(r.Info()) }

// Vlen returns the vlen stored in the info word.
func (r Record) Vlen() int { return InfoVlen(r.Info()) }

// KindFlag returns the kind flag stored in the info word.
func (r Record) KindFlag() bool { return InfoKindFlag(r.Info()) }

// SizeType returns the third word: a size (INT, ENUM, ENUM64, STRUCT,
// UNION, DATASEC, FLOAT) or a type id (the other kinds that use it).
func (r Record) SizeType() uint32 {
	if len(r) < TypeSize {
		return 0
	}
	return Word(r, SizeTypeAt)
}

// Extra returns the word after the fixed part: an INT's encoding word, a
// VAR's linkage, a DECL_TAG's component index.
func (r Record) Extra() uint32 { return Word(r, ExtraAt) }

// Array returns an ARRAY's element type, index type and length.
func (r Record) Array() (typ, index, nelems uint32) {
	return Word(r, arrayTypeAt), Word(r, arrayIndexAt), Word(r, arrayNelemsAt)
}

// Member returns the i-th btf_member of a STRUCT or UNION: its name
// offset, type, and offset word (see MemberBitOffset).
func (r Record) Member(i int) (name, typ, offset uint32) {
	p := uint32(TypeSize + memberSize*i)
	return Word(r, p), Word(r, p+4), Word(r, p+8)
}

// MemberBits returns the i-th btf_member of a STRUCT or UNION with its
// offset word decoded by the record's kind flag: the bit offset, and the
// bitfield size (0 for a plain member, or without the kind flag).
func (r Record) MemberBits(i int) (name, typ, bitOffset, bitfieldSize uint32) {
	name, typ, off := r.Member(i)
	if r.KindFlag() {
		return name, typ, MemberBitOffset(off), MemberBitfieldSize(off)
	}
	return name, typ, off, 0
}

// MemberType returns the type of the i-th btf_member of a STRUCT or UNION.
func (r Record) MemberType(i int) uint32 { return Word(r, uint32(TypeSize+memberSize*i+4)) }

// Param returns the i-th btf_param of a FUNC_PROTO: name offset and type.
func (r Record) Param(i int) (name, typ uint32) {
	p := uint32(TypeSize + paramSize*i)
	return Word(r, p), Word(r, p+4)
}

// ParamType returns the type of the i-th btf_param of a FUNC_PROTO.
func (r Record) ParamType(i int) uint32 { return Word(r, uint32(TypeSize+paramSize*i+4)) }

// SetParamType overwrites the type of the i-th btf_param of a FUNC_PROTO.
func (r Record) SetParamType(i int, typ uint32) {
	PutWord(r, uint32(TypeSize+paramSize*i+4), typ)
}

// Enum returns the i-th enumerator of an ENUM (its 32 bits, zero extended)
// or ENUM64, as the record's kind says.
func (r Record) Enum(i int) (name uint32, val uint64) {
	if r.Kind() == KindEnum64 {
		p := uint32(TypeSize + enum64Size*i)
		return Word(r, p), uint64(Word(r, p+4)) | uint64(Word(r, p+8))<<32
	}
	p := uint32(TypeSize + enumSize*i)
	return Word(r, p), uint64(Word(r, p+4))
}

// Secinfo returns the i-th btf_var_secinfo of a DATASEC: the variable's
// type, its offset and its size.
func (r Record) Secinfo(i int) (typ, offset, size uint32) {
	p := uint32(TypeSize + secinfoSize*i)
	return Word(r, p), Word(r, p+4), Word(r, p+8)
}

// InfoWord returns the info word of the record at byte offset off of a type
// section, for walks that step from record to record.
func InfoWord(types []byte, off uint32) uint32 { return Word(types, off+InfoAt) }

// AppendFixed appends the fixed part of a record.
func AppendFixed(dst []byte, name, info, sizeType uint32) []byte {
	return AppendWord(AppendWord(AppendWord(dst, name), info), sizeType)
}

// Bitfields of a STRUCT or UNION with the kind flag set keep the bitfield
// size in the top 8 bits of a member's offset word and the bit offset in
// the low 24.
const (
	MaxBitfieldSize = 0xff
	MaxBitOffset    = 0xffffff
)

// MemberOffsetWord packs a member's offset word for a STRUCT or UNION with
// the kind flag set. The caller has checked the limits.
func MemberOffsetWord(bitfieldSize, bitOffset uint32) uint32 {
	return bitfieldSize<<24 | bitOffset&MaxBitOffset
}
