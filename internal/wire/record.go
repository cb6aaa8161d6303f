package wire

import (
	"encoding/binary"
	"fmt"
	"unsafe"
)

// TypeSize is the size of the fixed part of every type record:
// name_off, info, and size or type, 32 bits each.
const TypeSize = 12

// Bits of the info word.
const (
	infoVlenMask  = 0xffff
	infoKindShift = 24
	infoKindMask  = 0x1f
	infoKFlag     = 1 << 31
)

// MaxVlen is the largest vlen the info word can hold.
const MaxVlen = infoVlenMask

// MaxTypeID is the largest type id the kernel accepts (BTF_MAX_TYPE).
const MaxTypeID = 0x000fffff

// MaxNameOffset is the largest string offset the kernel accepts.
const MaxNameOffset = 0x00ffffff

// MaxStrLen is the largest own string section libbpf writes
// (BTF_MAX_STR_OFFSET in libbpf's btf.c, the limit of its strset): past
// MaxNameOffset+1 bytes the kernel refuses the BTF, as it refuses more than
// MaxTypeID types, but libbpf's btf__dedup and btf__add_str still write it.
const MaxStrLen = 0x7fffffff

// Info packs a kind, a vlen and the kind flag into an info word.
func Info(k Kind, vlen int, kflag bool) uint32 {
	w := uint32(k&infoKindMask)<<infoKindShift | uint32(vlen&infoVlenMask)
	if kflag {
		w |= infoKFlag
	}
	return w
}

// InfoKind returns the kind stored in an info word.
func InfoKind(info uint32) Kind { return Kind(info >> infoKindShift & infoKindMask) }

// InfoVlen returns the vlen stored in an info word.
func InfoVlen(info uint32) int { return int(info & infoVlenMask) }

// InfoKindFlag returns the kind flag stored in an info word.
func InfoKindFlag(info uint32) bool { return info&infoKFlag != 0 }

// Word reads the host-order 32-bit word at off. The caller has checked the
// bounds.
func Word(b []byte, off uint32) uint32 { return binary.NativeEndian.Uint32(b[off:]) }

// AppendWord appends a host-order 32-bit word.
func AppendWord(dst []byte, w uint32) []byte { return binary.NativeEndian.AppendUint32(dst, w) }

// INT extra word: encoding in bits 24-27, bit offset in 16-23, bits in 0-7.
const (
	IntSigned = 1 << 0
	IntChar   = 1 << 1
	IntBool   = 1 << 2
)

// IntEncoding, IntOffset and IntBits unpack the word that follows an INT.
func IntEncoding(w uint32) uint8 { return uint8(w >> 24 & 0x0f) }

// IntOffset returns the bit offset stored in an INT's extra word.
func IntOffset(w uint32) uint8 { return uint8(w >> 16) }

// IntBits returns the number of bits stored in an INT's extra word.
func IntBits(w uint32) uint8 { return uint8(w) }

// IntWord packs an INT's extra word.
func IntWord(encoding, offset, bits uint8) uint32 {
	return uint32(encoding&0x0f)<<24 | uint32(offset)<<16 | uint32(bits)
}

// MemberBitfieldSize and MemberBitOffset unpack a struct member's offset
// word when the struct's kind flag is set; without it the word is the bit
// offset and there is no bitfield size.
func MemberBitfieldSize(w uint32) uint32 { return w >> 24 }

// MemberBitOffset returns the bit offset of a member whose struct has the
// kind flag set.
func MemberBitOffset(w uint32) uint32 { return w & MaxBitOffset }

// Linkage values of FUNC (in vlen) and VAR (in the extra word).
const (
	LinkageStatic = 0
	LinkageGlobal = 1
	LinkageExtern = 2
)

// Layout says how many bytes follow the fixed part of a record of one kind:
// InfoSize once, then ElemSize for each of the record's vlen elements.
type Layout struct {
	InfoSize uint8
	ElemSize uint8
	Flags    uint16
	Known    bool // described by this package or by the data's layout section
}

// LayoutEntrySize is the size of one entry of the layout section.
const LayoutEntrySize = 4

// Layouts holds a Layout for every kind number the info word can hold.
type Layouts [MaxKind + 1]Layout

// DefaultLayouts describes the kinds defined today.
var DefaultLayouts = Layouts{
	KindUnknown:   {Known: true},
	KindInt:       {InfoSize: extraSize, Known: true},
	KindPointer:   {Known: true},
	KindArray:     {InfoSize: arraySize, Known: true},
	KindStruct:    {ElemSize: memberSize, Known: true},
	KindUnion:     {ElemSize: memberSize, Known: true},
	KindEnum:      {ElemSize: enumSize, Known: true},
	KindForward:   {Known: true},
	KindTypedef:   {Known: true},
	KindVolatile:  {Known: true},
	KindConst:     {Known: true},
	KindRestrict:  {Known: true},
	KindFunc:      {Known: true},
	KindFuncProto: {ElemSize: paramSize, Known: true},
	KindVar:       {InfoSize: extraSize, Known: true},
	KindDatasec:   {ElemSize: secinfoSize, Known: true},
	KindFloat:     {Known: true},
	KindDeclTag:   {InfoSize: extraSize, Known: true},
	KindTypeTag:   {Known: true},
	KindEnum64:    {ElemSize: enum64Size, Known: true},
}

// ParseLayouts reads a layout section (host byte order) and merges it with
// DefaultLayouts. A kind this package knows must be described as it knows
// it; a kind it does not know becomes skippable.
func ParseLayouts(sec []byte) (Layouts, error) {
	l := DefaultLayouts
	if len(sec)%LayoutEntrySize != 0 {
		return l, fmt.Errorf("layout section: length %d is not a multiple of %d", len(sec), LayoutEntrySize)
	}
	n := len(sec) / LayoutEntrySize
	if n > MaxKind+1 {
		return l, fmt.Errorf("layout section: %d entries, at most %d kinds exist", n, MaxKind+1)
	}
	for k := range n {
		e := sec[k*LayoutEntrySize:]
		got := Layout{InfoSize: e[0], ElemSize: e[1], Flags: binary.NativeEndian.Uint16(e[2:]), Known: true}
		if k == int(KindUnknown) {
			continue
		}
		if k < NumKinds {
			want := DefaultLayouts[k]
			if got.InfoSize != want.InfoSize || got.ElemSize != want.ElemSize {
				return l, fmt.Errorf("layout section: kind %d described with info %d, elem %d; want %d, %d",
					k, got.InfoSize, got.ElemSize, want.InfoSize, want.ElemSize)
			}
		}
		if got.InfoSize%4 != 0 || got.ElemSize%4 != 0 {
			return l, fmt.Errorf("layout section: kind %d sizes %d, %d are not multiples of 4", k, got.InfoSize, got.ElemSize)
		}
		l[k] = got
	}
	return l, nil
}

// AppendLayouts appends a layout section describing the kinds known today.
func AppendLayouts(dst []byte, bo binary.AppendByteOrder) []byte {
	for k := range NumKinds {
		l := DefaultLayouts[k]
		dst = append(dst, l.InfoSize, l.ElemSize)
		dst = bo.AppendUint16(dst, l.Flags)
	}
	return dst
}

// RecordSize returns the size in bytes of a record with the given info word,
// and false if its kind is not described by l.
func (l *Layouts) RecordSize(info uint32) (uint32, bool) {
	e := &l[InfoKind(info)]
	return TypeSize + uint32(e.InfoSize) + uint32(e.ElemSize)*uint32(InfoVlen(info)), e.Known
}

// Sizes is Layouts reduced to what walking records needs, for the hot loops
// of the reader: per kind, the fixed size (0 for an undescribed kind) and
// the size of one vlen element.
type Sizes struct {
	fixed [MaxKind + 1]uint32
	elem  [MaxKind + 1]uint32
}

// Sizes returns the Sizes of l.
// DefaultSizes is DefaultLayouts.Sizes(), made once, at start-up: the
// Builder's copy sizes its records with it, and wire is one of the few
// packages whose initialization runs at start-up (cmd/kmeta's
// TestStartupFloor).
var DefaultSizes = DefaultLayouts.Sizes()

func (l *Layouts) Sizes() Sizes {
	var s Sizes
	for k, e := range l {
		// Kind 0 is void, never a record: libbpf and the kernel reject
		// it, and a zero fixed size makes walkers reject it too.
		if e.Known && k != int(KindUnknown) {
			s.fixed[k] = TypeSize + uint32(e.InfoSize)
			s.elem[k] = uint32(e.ElemSize)
		}
	}
	return s
}

// Parts returns the fixed size of a record of kind k (0 if the kind is not
// described, or is kind 0) and the size of one of its vlen elements.
func (s *Sizes) Parts(k Kind) (fixed, elem uint32) {
	return s.fixed[k&infoKindMask], s.elem[k&infoKindMask]
}

// Elem returns the offset of the i-th vlen element within a record of kind
// k.
func (s *Sizes) Elem(k Kind, i uint32) uint32 {
	return s.fixed[k&infoKindMask] + s.elem[k&infoKindMask]*i
}

// Of returns the size of a record with the given info word; 0 if its kind is
// not described.
func (s *Sizes) Of(info uint32) uint32 {
	k := info >> infoKindShift & infoKindMask
	f := s.fixed[k]
	if f == 0 {
		return 0
	}
	return f + s.elem[k]*(info&infoVlenMask)
}

// InfoUnused are the bits of an info word that no kind uses.
const InfoUnused = ^uint32(infoVlenMask | infoKindMask<<infoKindShift | infoKFlag)

// Words returns b as host-order 32-bit words, sharing b's memory, if b's
// length is a multiple of 4 and its first byte is 4-byte aligned; otherwise
// nil and false. A type section in host byte order (btf.Spec.TypeSection)
// is such a run of words, whatever its records.
func Words(b []byte) ([]uint32, bool) {
	if len(b) == 0 || len(b)%4 != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 != 0 {
		return nil, false
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/4), true
}

// Iter walks the records of a type section in host byte order, checking
// each one's bounds and kind once; the accessors of the Record it yields
// may then read any of its fields.
//
//	for it := sizes.Iter(types); it.Next(); {
//		use(it.Off, it.Rec)
//	}
//	if !it.Done() { ... the record at it.Off is truncated or of no known kind }
type Iter struct {
	types []byte
	sizes *Sizes
	next  uint32
	Off   uint32 // offset of Rec within the section
	Rec   Record // the current record, exactly as long as it is
}

// Iter returns an Iter over the records of types, sized by s.
func (s *Sizes) Iter(types []byte) Iter { return Iter{types: types, sizes: s} }

// Next moves to the next record and reports whether there is a sound one:
// false at the end of the section, and at a record that is truncated or of
// a kind s does not describe (Done tells them apart).
func (it *Iter) Next() bool {
	off, end := it.next, uint32(len(it.types))
	it.Off, it.Rec = off, nil
	if end-off < TypeSize {
		return false
	}
	size := it.sizes.Of(Word(it.types, off+InfoAt))
	if size == 0 || size > end-off {
		return false
	}
	it.Rec = Record(it.types[off : off+size : off+size])
	it.next = off + size
	return true
}

// Done reports whether the walk reached the end of the section, rather
// than a record it could not size.
func (it *Iter) Done() bool { return it.Off == uint32(len(it.types)) }
