package cdump

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// emitStructDef prints the definition of a struct or union, its members
// indented to lvl+1 (libbpf's btf_dump_emit_struct_def). Gaps that C's
// alignment rules would not leave are filled with unnamed bitfields, and a
// struct whose layout is not naturally aligned gets
// __attribute__((packed)).
func (d *dumper) emitStructDef(id btf.TypeID, t wire.Record, lvl int) {
	isStruct := t.Kind() == wire.KindStruct
	align := d.alignOf(id)
	packed := isStruct && d.isPacked(t)
	d.emitStructFwd(id, t)
	d.o.str(" {")

	vlen := t.Vlen()
	var off int64
	prevBitfield := false
	for i := range vlen {
		name, tw, bitOff, bitSize := t.MemberBits(i)
		typ := btf.TypeID(tw)
		mOff, mBits := int64(bitOff), int64(bitSize)
		mAlign := int64(1)
		if !packed {
			mAlign = d.alignOf(typ)
		}
		if !d.padSane(id, off, mOff) {
			return
		}
		d.emitBitPadding(off, mOff, mAlign, prevBitfield && mBits != 0, lvl+1)
		d.o.nl(lvl + 1)
		d.emitTypeDecl(typ, d.strs.name(name), lvl+1)
		if mBits != 0 {
			d.o.str(": ")
			d.o.int(mBits)
			off = mOff + mBits
			prevBitfield = true
		} else {
			off = mOff + max(0, d.resolveSize(typ))*8
			prevBitfield = false
		}
		d.o.byte(';')
		if d.err != nil {
			return
		}
	}
	if isStruct {
		if !d.padSane(id, off, int64(t.SizeType())*8) {
			return
		}
		d.emitBitPadding(off, int64(t.SizeType())*8, align, false, lvl+1)
	}
	// An empty struct stays on one line: "struct empty {}".
	if vlen > 0 || t.SizeType() > 0 {
		d.o.nl(lvl)
	}
	d.o.byte('}')
	if packed {
		d.o.str(" __attribute__((packed))")
	}
}

// maxPadding bounds the padding between two members, or after the last,
// that Write prints: bpftool prints a "long: 64;" line for every 8 bytes
// of it, 6.4 GB of output for a struct that claims 4 GiB. Kernel structs
// pad at most a page (page-aligned members).
const maxPadding = 1 << 20

// padSane reports whether the padding from bit cur to bit next of struct
// id is small enough to print, and records ErrHugePadding if it is not.
func (d *dumper) padSane(id btf.TypeID, cur, next int64) bool {
	if n := (next - cur) / 8; n > maxPadding && d.err == nil {
		d.err = pkgerr.Errorf("cdump: %s: %d bytes of padding, more than %d (bpftool would print %d lines of it): %w",
			d.describe(id), n, maxPadding, n/8, ErrHugePadding)
	}
	return d.err == nil
}

// isPacked reports whether a struct's layout needs
// __attribute__((packed)): a non-bitfield member that is not naturally
// aligned, or a size that is not a multiple of the alignment (libbpf's
// btf_is_struct_packed).
func (d *dumper) isPacked(t wire.Record) bool {
	maxAlign := int64(1)
	for i := range t.Vlen() {
		_, typ, off, bits := t.MemberBits(i)
		align := d.alignOf(btf.TypeID(typ))
		if align != 0 && bits == 0 && int64(off)%(8*align) != 0 {
			return true
		}
		maxAlign = max(maxAlign, align)
	}
	return int64(t.SizeType())%maxAlign != 0
}

// padTypes are the types of padding bitfields, widest first; "long" is as
// wide as a pointer.
var padTypes = [...]string{"long", "int", "short", "char"}

func (d *dumper) padBits(i int) int64 {
	switch i {
	case 0:
		return d.ptrSize * 8
	case 1:
		return 32
	case 2:
		return 16
	}
	return 8
}

// emitBitPadding fills the gap from bit cur to bit next, where the next
// member (of alignment nextAlign bytes) starts, with unnamed bitfields
// (libbpf's btf_dump_emit_bit_padding).
//
// It picks the widest of long, int, short and char whose alignment boundary
// after cur is not past next. If the compiler would not reach that boundary
// by itself (inside a run of bitfields, or when next's own alignment is
// smaller, or when the padding after it would fit in the hole) it writes
// "type: 0" (or, inside bitfields, the exact bit count); then it fills the
// rest with whole "type: bits" and a last, smallest fitting one.
func (d *dumper) emitBitPadding(cur, next, nextAlign int64, inBitfield bool, lvl int) {
	if cur >= next {
		return
	}
	var newOff, bits int64
	var i int
	for i = range padTypes {
		bits = d.padBits(i)
		newOff = roundUp(cur, bits)
		if newOff <= next {
			break
		}
	}
	if newOff > cur && newOff <= next {
		if inBitfield ||
			(newOff == next && roundUp(cur, nextAlign*8) != newOff) ||
			(newOff != next && next-newOff <= newOff-cur) {
			d.padLine(padTypes[i], newOff-cur, inBitfield, lvl)
		}
		cur = newOff
	}
	for cur != next && d.o.err == nil {
		n := min(next-cur, bits)
		if n == bits {
			d.padLine(padTypes[i], bits, true, lvl)
			cur += bits
			continue
		}
		// The remainder: the narrowest type that holds it.
		for i = len(padTypes) - 1; i >= 0; i-- {
			bits = d.padBits(i)
			if bits >= n {
				d.padLine(padTypes[i], n, true, lvl)
				cur += n
				break
			}
		}
		if i < 0 {
			return // cannot happen: "long" holds any remainder
		}
	}
}

// padLine prints "type: bits;", or "type: 0;" when !explicit.
func (d *dumper) padLine(typ string, bits int64, explicit bool, lvl int) {
	d.o.nl(lvl)
	d.o.str(typ)
	d.o.str(": ")
	if explicit {
		d.o.int(bits)
	} else {
		d.o.byte('0')
	}
	d.o.byte(';')
}

// roundUp rounds x up to a multiple of y; y == 0 (the alignment of a type
// without one, in corrupt BTF) leaves x unchanged instead of dividing by 0.
func roundUp(x, y int64) int64 {
	if y == 0 {
		return x
	}
	return (x + y - 1) / y * y
}

// alignOf returns the alignment of type id as libbpf's btf__align_of
// computes it, 0 for a type without one. Results are memoized.
func (d *dumper) alignOf(id btf.TypeID) int64 {
	return d.alignOfDepth(id, 0)
}

func (d *dumper) alignOfDepth(id btf.TypeID, depth int) int64 {
	st := d.state(id)
	if st.align != 0 {
		return int64(st.align - 1)
	}
	if depth > maxDepth {
		return 0
	}
	t := d.typ(id)
	var a int64
	switch t.Kind() {
	case wire.KindInt, wire.KindEnum, wire.KindEnum64, wire.KindFloat:
		a = min(d.ptrSize, int64(t.SizeType()))
	case wire.KindPointer:
		a = d.ptrSize
	case wire.KindTypedef, wire.KindVolatile, wire.KindConst, wire.KindRestrict, wire.KindTypeTag:
		a = d.alignOfDepth(btf.TypeID(t.SizeType()), depth+1)
	case wire.KindArray:
		elem, _, _ := t.Array()
		a = d.alignOfDepth(btf.TypeID(elem), depth+1)
	case wire.KindStruct, wire.KindUnion:
		a = d.compositeAlign(t, depth)
	}
	st.align = uint8(a + 1)
	return a
}

// compositeAlign is the largest alignment of a struct's members, or 1 for
// a packed layout, or 0 if a member has no alignment.
func (d *dumper) compositeAlign(t wire.Record, depth int) int64 {
	maxAlign := int64(1)
	for i := range t.Vlen() {
		_, typ, off, bits := t.MemberBits(i)
		a := d.alignOfDepth(btf.TypeID(typ), depth+1)
		if a <= 0 {
			return 0
		}
		maxAlign = max(maxAlign, a)
		if bits == 0 && int64(off)%(8*a) != 0 {
			return 1
		}
	}
	if int64(t.SizeType())%maxAlign != 0 {
		return 1
	}
	return maxAlign
}

// resolveSize returns the size of type id as libbpf's btf__resolve_size
// does, or -1 if it has none.
func (d *dumper) resolveSize(id btf.TypeID) int64 {
	const maxResolveDepth = 32
	nelems := uint64(1)
	size := int64(-1)
	for range maxResolveDepth {
		if id == 0 {
			break
		}
		t := d.typ(id)
		switch t.Kind() {
		case wire.KindInt, wire.KindStruct, wire.KindUnion, wire.KindEnum, wire.KindEnum64,
			wire.KindDatasec, wire.KindFloat:
			size = int64(t.SizeType())
		case wire.KindPointer:
			size = d.ptrSize
		case wire.KindTypedef, wire.KindVolatile, wire.KindConst, wire.KindRestrict,
			wire.KindVar, wire.KindDeclTag, wire.KindTypeTag:
			id = btf.TypeID(t.SizeType())
			continue
		case wire.KindArray:
			elem, _, n := t.Array()
			if nelems != 0 && uint64(n) > (1<<32-1)/nelems {
				return -1
			}
			nelems *= uint64(n)
			id = btf.TypeID(elem)
			continue
		default:
			return -1
		}
		break
	}
	if size < 0 || (nelems != 0 && uint64(size) > (1<<32-1)/nelems) {
		return -1
	}
	return int64(nelems) * size
}
