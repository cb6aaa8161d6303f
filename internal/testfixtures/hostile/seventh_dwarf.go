package hostile

// DWARFCycle names the route of a ring of DWARF type references that
// BuildDWARFCycle makes: every DIE of the ring refers to the next through
// one attribute pahole follows, the last to the first, and a variable "v"
// refers to the first. No compiler writes them; pahole must not loop.
type DWARFCycle int

// The routes.
const (
	CycleTypedef    DWARFCycle = iota // DW_TAG_typedef's DW_AT_type
	CycleQualifiers                   // const, volatile, restrict and atomic in turn
	CyclePointer                      // DW_TAG_pointer_type's DW_AT_type
	CycleArray                        // an array's element type (its subrange of int)
	CycleSubrange                     // an array of int whose subrange's DW_AT_type is the next
	CycleMember                       // a struct "s" whose member "m" is the next
	CycleEnum                         // an enumeration "e" of one value whose DW_AT_type (its base) is the next
	CycleParam                        // a subroutine type returning int whose one parameter is the next
	CycleReturn                       // a subroutine type returning the next
	CycleInherit                      // a struct "s" that inherits from the next
	CycleTemplate                     // a struct "s" whose template type parameter "T" is the next
	CycleMixed                        // every route above in turn
	numDWARFCycles
)

// DWARFCycles lists every route.
func DWARFCycles() []DWARFCycle { return upTo(numDWARFCycles) }

// String names the route in lower case, as in "typedef".
func (c DWARFCycle) String() string {
	return [...]string{"typedef", "qualifiers", "pointer", "array", "subrange", "member", "enum", "param",
		"return", "inherit", "template", "mixed"}[c]
}

// The abbreviation codes of cycleAbbrev past dwarfAbbrev's abCU and
// abInt, which it shares.
const (
	acTypedef, acConst, acVolatile, acRestrict, acAtomic, acPointer = 10, 11, 12, 13, 14, 15
	acArray, acSubrange, acStruct, acMember, acEnum, acEnumerator   = 16, 17, 18, 19, 20, 21
	acSubroutine, acParam, acInherit, acTemplate, acVar             = 22, 23, 24, 25, 26
)

// cycleAbbrev is the .debug_abbrev section of BuildDWARFCycle.
func cycleAbbrev() []byte {
	var b []byte
	add := func(code, tag byte, children bool, attrs ...byte) { b = appendAbbrev(b, code, tag, children, attrs...) }
	typ := []byte{0x49, formRef4}
	add(abCU, 0x11, true, 0x03, formString, 0x13, formData2)
	add(abInt, 0x24, false, 0x03, formString, 0x3e, formData1, 0x0b, formData1)
	add(acTypedef, 0x16, false, 0x03, formString, 0x49, formRef4)
	add(acConst, 0x26, false, typ...)
	add(acVolatile, 0x35, false, typ...)
	add(acRestrict, 0x37, false, typ...)
	add(acAtomic, 0x47, false, typ...)
	add(acPointer, 0x0f, false, 0x0b, formData1, 0x49, formRef4)
	add(acArray, 0x01, true, typ...)
	add(acSubrange, 0x21, false, 0x49, formRef4, 0x2f, formData1)
	add(acStruct, 0x13, true, 0x03, formString, 0x0b, formData1)
	add(acMember, 0x0d, false, 0x03, formString, 0x49, formRef4, 0x38, formData1)
	add(acEnum, 0x04, true, 0x03, formString, 0x0b, formData1, 0x49, formRef4)
	add(acEnumerator, 0x28, false, 0x03, formString, 0x1c, formData1)
	add(acSubroutine, 0x15, true, typ...)
	add(acParam, 0x05, false, typ...)
	add(acInherit, 0x1c, false, 0x49, formRef4, 0x38, formData1)
	add(acTemplate, 0x2f, false, 0x03, formString, 0x49, formRef4)
	add(acVar, 0x34, false, 0x03, formString, 0x49, formRef4)
	return append(b, 0)
}

// cycleDIE appends the ring's DIE i by route c, referring to next.
func cycleDIE(b []byte, c DWARFCycle, i int, next uint32) []byte {
	if c == CycleMixed {
		c = DWARFCycle(i % int(CycleMixed))
	}
	switch c {
	case CycleTypedef:
		return ref4(append(b, acTypedef, 't', 0), next)
	case CycleQualifiers:
		return ref4(append(b, [...]byte{acConst, acVolatile, acRestrict, acAtomic}[i%4]), next)
	case CyclePointer:
		return ref4(append(b, acPointer, 8), next)
	case CycleArray:
		b = ref4(append(b, acArray), next)
		return append(ref4(append(b, acSubrange), unitIntOff), 3, 0)
	case CycleSubrange:
		b = ref4(append(b, acArray), unitIntOff)
		return append(ref4(append(b, acSubrange), next), 3, 0)
	case CycleMember:
		return append(ref4(append(b, acStruct, 's', 0, 4, acMember, 'm', 0), next), 0, 0)
	case CycleEnum:
		return append(ref4(append(b, acEnum, 'e', 0, 4), next), acEnumerator, 'E', 0, 1, 0)
	case CycleParam:
		return append(ref4(append(ref4(append(b, acSubroutine), unitIntOff), acParam), next), 0)
	case CycleReturn:
		return append(ref4(append(b, acSubroutine), next), 0)
	case CycleInherit:
		return append(ref4(append(b, acStruct, 's', 0, 4, acInherit), next), 0, 0)
	case CycleTemplate:
		return append(ref4(append(b, acStruct, 's', 0, 4, acTemplate, 'T', 0), next), 0)
	}
	panic("hostile: unknown DWARF cycle")
}

// BuildDWARFCycle returns an x86-64 ELF relocatable file of one compile
// unit holding a ring of n (n >= 1) DIEs by route c (n = 1: a DIE that
// refers to itself) and a variable "v" of the first.
func BuildDWARFCycle(c DWARFCycle, n int) []byte { return buildDWARFRing(c, n, false) }

// BuildDWARFChain returns BuildDWARFCycle's ring with its last reference
// bent: the last DIE refers to the unit's int instead of the first, so
// that the n DIEs are a chain, each one level deeper than the next (by
// the member route, n structs "s" that all look alike but for their
// depth: libbpf compares each with every one before it, down to the int,
// cubic in n).
func BuildDWARFChain(c DWARFCycle, n int) []byte { return buildDWARFRing(c, n, true) }

func buildDWARFRing(c DWARFCycle, n int, bent bool) []byte {
	offs := make([]uint32, n)
	ring := func(b []byte) []byte {
		for i := range n {
			offs[i] = uint32(len(b))
			next := offs[(i+1)%n]
			if bent && i == n-1 {
				next = unitIntOff
			}
			b = cycleDIE(b, c, i, next)
		}
		return ref4(append(b, acVar, 'v', 0), offs[0])
	}
	dwarfUnit(nil, ring) // the offsets
	return debugELF(cycleAbbrev(), dwarfUnit(nil, ring))
}
