package hostile

import "encoding/binary"

// DWARF9Shape names a DWARF shape of the ninth campaign (issue 37): the
// Variants' families as a compiler's DWARF would carry them (anonymous
// nesting, nesting mixed with width, self-embedding through arrays,
// typedefs and anonymous unions, prototypes' returns) and type cycles
// through several tags at once. BuildDWARF9 makes them, in one compile
// unit of an x86-64 ELF relocatable file.
type DWARF9Shape int

// The shapes.
const (
	D9Nested         DWARF9Shape = iota // n anonymous structs and unions in turn, each the only member "m" of the next, in a struct "outer"
	D9WideOfDeep                        // a struct "wide" of n members, each its own chain of 16 anonymous unions and structs
	D9SelfTypedefArr                    // n copies of an anonymous union { int a; t b; } and a typedef "t" of an array of 2 of it, each under a variable
	D9MixedRing                         // a ring of n DIEs of const, volatile, typedef, pointer, struct (a member) and array in turn, each of the next, the last of the first
	D9ReturnChain                       // n subroutine types, each returning a pointer to the one before and taking it, under a variable
	D9SelfAnonUnions                    // a struct "s" holding n anonymous unions, each the only member of the next, the innermost of "s"
	numDWARF9Shapes
)

// DWARF9Shapes lists every shape.
func DWARF9Shapes() []DWARF9Shape { return upTo(numDWARF9Shapes) }

// String names the shape in lower case with dashes.
func (k DWARF9Shape) String() string {
	return [...]string{"nested", "wide-of-deep", "self-typedef-arr", "mixed-ring", "return-chain", "self-anon-unions"}[k]
}

// The abbreviation codes of ninthAbbrev past dwarfAbbrev's abCU and abInt.
const (
	a9AnonStruct, a9AnonUnion, a9Member, a9Struct, a9Typedef, a9Pointer, a9Const = 60, 61, 62, 63, 64, 65, 66
	a9Volatile, a9Array, a9Subrange, a9Subroutine, a9Param, a9Var                = 67, 68, 69, 70, 71, 72
)

// ninthAbbrev is the .debug_abbrev of the DWARF9 shapes.
func ninthAbbrev() []byte {
	var b []byte
	add := func(code, tag byte, children bool, attrs ...byte) { b = appendAbbrev(b, code, tag, children, attrs...) }
	name, typ, size := []byte{0x03, formString}, []byte{0x49, formRef4}, []byte{0x0b, formData4}
	add(abCU, 0x11, true, 0x03, formString, 0x13, formData2)
	add(abInt, 0x24, false, 0x03, formString, 0x3e, formData1, 0x0b, formData1)
	add(a9AnonStruct, 0x13, true, size...)
	add(a9AnonUnion, 0x17, true, size...)
	add(a9Member, 0x0d, false, 0x03, formString, 0x49, formRef4, 0x38, formData4)
	add(a9Struct, 0x13, true, append(name, size...)...)
	add(a9Typedef, 0x16, false, append(name, typ...)...)
	add(a9Pointer, 0x0f, false, 0x0b, formData1, 0x49, formRef4)
	add(a9Const, 0x26, false, typ...)
	add(a9Volatile, 0x35, false, typ...)
	add(a9Array, 0x01, true, typ...)
	add(a9Subrange, 0x21, false, 0x49, formRef4, 0x2f, formData4)
	add(a9Subroutine, 0x15, true, typ...)
	add(a9Param, 0x05, false, typ...)
	add(a9Var, 0x34, false, append(name, typ...)...)
	return append(b, 0)
}

// die9 appends DIEs to one compile unit that starts at offset 0 of
// .debug_info, so that a DIE's offset is its position in the section.
type die9 struct{ b []byte }

func (d *die9) off() uint32 { return uint32(len(d.b)) }

func (d *die9) u32(v uint32) { d.b = binary.LittleEndian.AppendUint32(d.b, v) }

func (d *die9) str(s string) { d.b = append(append(d.b, s...), 0) }

// record appends an anonymous struct (or union) of size bytes whose
// members are "m" (or "mN" when more than one) of the types refs, at
// offset 0 in a union and 4 bytes apart in a struct, and returns its
// offset.
func (d *die9) record(union bool, name string, size uint32, refs ...uint32) uint32 {
	at := d.off()
	switch {
	case name != "":
		d.b = append(d.b, a9Struct)
		d.str(name)
	case union:
		d.b = append(d.b, a9AnonUnion)
	default:
		d.b = append(d.b, a9AnonStruct)
	}
	d.u32(size)
	for i, r := range refs {
		d.b = append(d.b, a9Member)
		if len(refs) == 1 {
			d.str("m")
		} else {
			d.str("m" + itoa(i))
		}
		d.u32(r)
		if union {
			d.u32(0)
		} else {
			d.u32(uint32(4 * i))
		}
	}
	d.b = append(d.b, 0)
	return at
}

// ref appends a DIE of code abbrev whose one attribute is a reference to
// to, and returns its offset.
func (d *die9) ref(abbrev byte, to uint32) uint32 {
	at := d.off()
	d.b = append(d.b, abbrev)
	switch abbrev {
	case a9Pointer:
		d.b = append(d.b, 8)
	case a9Typedef, a9Var:
		d.str("t")
	}
	d.u32(to)
	return at
}

// array appends an array of n of elem and returns its offset.
func (d *die9) array(elem, n uint32) uint32 {
	at := d.ref(a9Array, elem)
	d.b = append(d.b, a9Subrange)
	d.u32(unitIntOff)
	d.u32(n - 1)
	d.b = append(d.b, 0)
	return at
}

// chain appends depth anonymous unions and structs in turn, each of the
// one before, the first of inner, and returns the last's offset.
func (d *die9) chain(inner uint32, depth int) uint32 {
	for i := range depth {
		inner = d.record(i%2 == 0, "", 4, inner)
	}
	return inner
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var s []byte
	for ; i > 0; i /= 10 {
		s = append([]byte{byte('0' + i%10)}, s...)
	}
	return string(s)
}

// BuildDWARF9 returns the shape k with n (n >= 1) as its size.
func BuildDWARF9(k DWARF9Shape, n int) []byte {
	info := dwarfUnit(nil, func(b []byte) []byte {
		d := &die9{b: b}
		switch k {
		case D9Nested:
			d.record(false, "outer", 4, d.chain(unitIntOff, n))
		case D9WideOfDeep:
			refs := make([]uint32, n)
			for i := range refs {
				refs[i] = d.chain(unitIntOff, 16)
			}
			d.record(false, "wide", uint32(4*n), refs...)
		case D9SelfTypedefArr:
			for range n {
				// union at u: its member b is the typedef after the array.
				u := d.off()
				ulen := uint32(1 + 4 + (1 + 2 + 4 + 4) + (1 + 3 + 4 + 4) + 1)
				alen := uint32(1 + 4 + 1 + 4 + 4 + 1)
				d.b = append(d.b, a9AnonUnion)
				d.u32(4)
				d.b = append(d.b, a9Member)
				d.str("a")
				d.u32(unitIntOff)
				d.u32(0)
				d.b = append(d.b, a9Member)
				d.str("b1")
				d.u32(u + ulen + alen)
				d.u32(0)
				d.b = append(d.b, 0)
				d.array(u, 2)
				d.ref(a9Var, d.ref(a9Typedef, u+ulen))
			}
		case D9MixedRing:
			// Each DIE's size is known ahead: const, volatile 5 bytes,
			// typedef 7, pointer 6, struct 1+4+(1+2+4+4)+1 = 17, array
			// 1+4+(1+4+4)+1 = 15.
			lens := []uint32{5, 5, 7, 6, 17, 15}
			first := d.off()
			offs := make([]uint32, n+1)
			for i := range n {
				offs[i+1] = offs[i] + lens[i%6]
			}
			for i := range n {
				next := first + offs[(i+1)%n]
				if i == n-1 {
					next = first
				}
				switch i % 6 {
				case 0:
					d.ref(a9Const, next)
				case 1:
					d.ref(a9Volatile, next)
				case 2:
					d.ref(a9Typedef, next)
				case 3:
					d.ref(a9Pointer, next)
				case 4:
					d.record(false, "", 4, next)
				case 5:
					d.array(next, 1)
				}
			}
			d.ref(a9Var, first)
		case D9ReturnChain:
			prev := uint32(unitIntOff)
			for range n {
				p := d.ref(a9Pointer, prev)
				prev = d.ref(a9Subroutine, p)
				d.b = append(d.b, a9Param)
				d.u32(p)
				d.b = append(d.b, 0)
			}
			d.ref(a9Var, d.ref(a9Pointer, prev))
		case D9SelfAnonUnions:
			// s at first: 1+2+4 bytes, members m0 and m1 (1+3+4+4
			// each), end; each union of the chain 1+4+11+1.
			first := d.off()
			slen := uint32(1+2+4) + 12 + 12 + 1
			d.record(false, "s", 8, unitIntOff, first+slen+uint32(n-1)*(1+4+11+1))
			d.chain(first, n)
		}
		return d.b
	})
	return debugELF(ninthAbbrev(), info)
}
