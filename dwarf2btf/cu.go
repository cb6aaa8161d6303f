package dwarf2btf

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf/builder"
)

// The loader turns one compile unit into the tables pahole 1.24's
// dwarf_loader.c builds (types, tags, functions), in the same order, so
// that the encoder can number types as pahole does: a type's BTF id is its
// index in the CU's type table plus the number of types before the CU.
// Container DIEs enter their table after their children (post-order), as
// pahole adds a tag once die__process_tag has returned.

// maxDepth bounds DIE nesting, so hostile input cannot recurse deeply.
const maxDepth = 512

// typeEntry is one entry of the type table: 32 bytes, a unit of 100,000
// types holds 100,000 of them while it is emitted (BENCH.md, "One big
// compile unit"), so the name is a pointer and a length, the flags are
// bits, DW_AT_type's offset turns into the local id in place, and what few
// types have (decl tags, DW_AT_specification) is listed apart
// (cuData.typeAnns, cuData.specs).
type typeEntry struct {
	namep *byte  // the name (see name), nil if none
	namen uint32 // its length
	// typ is DW_AT_type: the target's .debug_info offset when loaded,
	// its local type id (0 for void) once recoded (recodeType).
	typ   uint32
	size  uint32 // struct/union/typedef: byte size; enum: bits; base: bits
	lo, n int32  // members, enumerators, params, dims or type tags
	tag   uint16
	enc   uint8 // base type: DW_AT_encoding
	flags uint8 // typeDecl, typeSigned, typeUnspec
}

// The entry stays within 32 bytes (28 where pointers have 4).
var _ [32 - unsafe.Sizeof(typeEntry{})]struct{}

// id returns the local type id the entry refers to, once recoded.
func (t *typeEntry) id() int32 { return int32(t.typ) }

// The flags of a typeEntry.
const (
	typeDecl   = 1 << iota // DW_AT_declaration
	typeSigned             // enumeration: underlying type is signed
	typeUnspec             // subroutine type: has "..."
)

// name returns the type's name, nil if it has none.
func (t *typeEntry) name() []byte { return viewOf(t.namep, t.namen) }

// setName sets the type's name to b, a view that must stay valid as long
// as the entry (nil: none).
func (t *typeEntry) setName(b []byte) { t.namep, t.namen = ptrLen(b) }

// is tells whether the type has flag f.
func (t *typeEntry) is(f uint8) bool { return t.flags&f != 0 }

// set sets flag f to v.
func (t *typeEntry) set(f uint8, v bool) {
	if v {
		t.flags |= f
	} else {
		t.flags &^= f
	}
}

// typeAnn lists the decl tags (in cuData.annots) of the type id.
type typeAnn struct{ id, lo, n int32 }

// typeSpec is the DW_AT_specification target of the type id.
type typeSpec struct {
	id   int32
	spec uint32
}

// member is one DW_TAG_member or DW_TAG_inheritance: 40 bytes, a unit's
// members table holds every member of the unit (a struct of 65,535
// members, 2.6 MB), so the name is a pointer and a length, DW_AT_type's
// offset turns into the local id in place, as in typeEntry, and the byte
// size keeps only what cacheByteSize reads of it.
type member struct {
	namep   *byte  // the name (see name), nil if none
	bitSize uint64 // DW_AT_bit_size as the DWARF gives it, for messages
	namen   uint32
	// typ is DW_AT_type: the target's .debug_info offset when loaded,
	// its local type id (0 for void) once recoded (recodeType).
	typ         uint32
	byteSize    uint32 // DW_AT_byte_size, as memberByteSize keeps it
	bitOffset   uint32 // final bit offset
	byteOffset  uint32
	bitfield    uint8 // bitSize's low 8 bits, as pahole keeps it
	dwBitOffset int8  // DW_AT_bit_offset (DWARF 2-4 bitfields)
	flags       uint8 // memberDataBitOffset, memberStatic, memberIsMember
}

// The member stays within 40 bytes.
var _ [40 - unsafe.Sizeof(member{})]struct{}

// The flags of a member.
const (
	memberDataBitOffset = 1 << iota // DW_AT_data_bit_offset present
	memberStatic                    // no DW_AT_data_member_location, outside a union
	memberIsMember                  // DW_TAG_member, not DW_TAG_inheritance
)

// name returns the member's name, nil if it has none.
func (m *member) name() []byte { return viewOf(m.namep, m.namen) }

// id returns the local type id of the member's type, once recoded.
func (m *member) id() int32 { return int32(m.typ) }

// is tells whether the member has flag f.
func (m *member) is(f uint8) bool { return m.flags&f != 0 }

// memberByteSize keeps of a member's DW_AT_byte_size v what
// cacheByteSize reads: whether it is 0, and v*8 modulo 256 (v modulo 32),
// which is all of v when it fits in 32 bits.
func memberByteSize(v uint64) uint32 {
	if v>>32 != 0 {
		return 1<<31 | uint32(v&31)
	}
	return uint32(v)
}

// viewOf is the name at p of n bytes, nil if p is nil (typeEntry, member).
func viewOf(p *byte, n uint32) []byte {
	if p == nil {
		return nil
	}
	return unsafe.Slice(p, n)
}

// ptrLen is the pointer and length of a name b that viewOf gives back.
func ptrLen(b []byte) (*byte, uint32) {
	if b == nil {
		return nil, 0
	}
	return unsafe.SliceData(b), uint32(len(b))
}

type enumerator struct {
	name  []byte
	value uint64
}

// param is one DW_TAG_formal_parameter: 32 bytes (the name a pointer and
// a length, as member's), a unit's parameters table holds them all.
type param struct {
	namep   *byte // the name (see name), nil if none
	namen   uint32
	off     uint32
	typeRef uint32
	origin  uint32
	typeID  int32
	// unexpected is pahole 1.30's parameter.unexpected_reg (location.go).
	unexpected bool
}

// The param stays within 32 bytes.
var _ [32 - unsafe.Sizeof(param{})]struct{}

// newParam is the parameter DIE c, read by r.
func newParam(r *unitReader, c *die) param {
	p := param{off: c.off, typeRef: ref(c, slotType), origin: ref(c, slotAbstractOrigin)}
	p.namep, p.namen = ptrLen(r.str(c, slotName))
	return p
}

// name returns the parameter's name, nil if it has none.
func (p *param) name() []byte { return viewOf(p.namep, p.namen) }

type annot struct {
	value     []byte
	component int32
}

type function struct {
	name      []byte
	decl      bool
	external  bool
	hasOrigin bool
	origin    uint32
	spec      uint32
	// unexpectedReg is pahole 1.30's ftype.unexpected_reg: a parameter
	// lives in another register than the ABI's, and none is a struct.
	unexpectedReg bool
	typeRef       uint32
	typeID        int32
	lo, n         int32 // params
	unspec        bool
	annLo         int32
	annN          int32
	lexLo         int32 // variables of its lexical blocks in cu.lexVars
	lexN          int32
}

// Variable scopes, as pahole's enum vscope.
const (
	scopeUnknown = iota
	scopeGlobal
	scopeOther
)

type variable struct {
	name       []byte
	typeRef    uint32
	origin     uint32
	spec       uint32
	hasSpec    bool
	specIdx    int32 // recoded spec: index in cu.vars, -1 if none
	typeID     int32
	decl       bool
	external   bool
	topLevel   bool // a child of the unit's DIE
	artificial bool
	scope      uint8
	addr       uint64
	annLo      int32
	annN       int32
}

// Kinds of entries in the offset index.
const (
	idxType = iota + 1
	idxParam
	idxVar
	idxFunc
	idxOther
)

// cuData is one loaded compile unit. A worker reuses one for every unit.
type cuData struct {
	language uint64
	addrSize uint8

	types   typeTable // entry 0 is void
	members []member
	enums   []enumerator
	params  []param
	dims    []uint32
	chain   []int32 // type tags of pointers, local ids in DIE order
	// signedDIEs lists, by increasing offset, the unit's DIEs of any tag
	// whose DW_AT_encoding is DW_ATE_signed or DW_ATE_signed_char: an
	// enumeration is signed when its DW_AT_type names one of them.
	signedDIEs []uint32
	annots     []annot
	// typeAnns lists the types that have decl tags, by increasing id.
	typeAnns []typeAnn
	// specs lists the types that have a DW_AT_specification, by id.
	specs   []typeSpec
	funcs   []function
	vars    []variable
	lexVars []int32 // indices in vars

	hasUnspec bool  // the unit has a DW_TAG_unspecified_type
	unspecID  int32 // local id of its last top-level one

	idx dieIndex // kind<<28 | index+1 by offset (build once loaded)
}

func (cu *cuData) reset(u unitHeader) {
	cu.types.reset(typeEntry{})
	cu.members, cu.enums, cu.params, cu.dims = cu.members[:0], cu.enums[:0], cu.params[:0], cu.dims[:0]
	cu.chain, cu.annots, cu.funcs, cu.vars, cu.lexVars = cu.chain[:0], cu.annots[:0], cu.funcs[:0], cu.vars[:0], cu.lexVars[:0]
	cu.typeAnns, cu.specs, cu.signedDIEs = cu.typeAnns[:0], cu.specs[:0], cu.signedDIEs[:0]
	cu.hasUnspec, cu.unspecID = false, 0
	cu.idx.reset(u.off, u.end-u.off)
	cu.addrSize = u.addrSize
}

// indexParams indexes the n parameters at lo of cu.params, a
// subroutine's or function's, each reserved when read.
func (cu *cuData) indexParams(lo, n int32) {
	for i := lo; i < lo+n; i++ {
		cu.index(cu.params[i].off, idxParam, int(i))
	}
}

func (cu *cuData) index(off uint32, kind int32, i int) {
	if i+1 < 1<<28 {
		cu.idx.add(off, kind<<28|int32(i+1))
	}
}

// lookup returns the index of the entry of the given kind at off, once
// the unit is loaded (recode builds the index).
func (cu *cuData) lookup(off uint32, kind int32) (int, bool) {
	v := cu.idx.get(off)
	if v == 0 || v>>28 != kind {
		return 0, false
	}
	return int(v&(1<<28-1)) - 1, true
}

// loader walks one unit's DIEs into a cuData.
type loader struct {
	r  *unitReader
	cu *cuData
	// stack holds the DIE being read at each depth, allocated when a
	// depth is first reached (slot): units nest a few levels deep, and
	// a whole stack of DIEs is 460 KB of live, scanned heap.
	stack [maxDepth + 1]*die
	// Scratch stacks of the elements of the composites and subroutines
	// being read: a nested one pushes after its parent's and pops its own
	// before the parent goes on. A loader is reused from unit to unit.
	mems []member
	anns []annot
	ps   []param
	lex  []int32 // variables of a function's lexical blocks
	tmp  *die    // what countRun counts with
	// counted is where the last count stopped reading: a run nested in
	// a container counted already is not counted again, so that no DIE
	// is read by more than one count (nested wide types would read
	// theirs once for each container around them).
	counted uint64
	// countReads is how many DIEs the counts read since the loader was
	// made: at most the units' own once more (TestCountRunNested).
	countReads int
}

var errImportedUnit = errors.New("dwarf2btf: DW_TAG_imported_unit is not supported")

// load reads the unit into cu. A unit that is not a compile unit (a
// partial or skeleton unit) leaves cu empty, as pahole skips it.
func (l *loader) load() error {
	l.lex, l.counted = l.lex[:0], 0
	x := l.slot(0)
	if !l.r.next(x) {
		if l.r.c.err != nil {
			return l.r.c.err
		}
		return nil
	}
	if x.tag != dwTagCompileUnit && x.tag != dwTagTypeUnit {
		return nil
	}
	l.cu.language = numeric(x, slotLanguage)
	// Both bases are DW_FORM_sec_offset (clang writes them; gcc 12's
	// units use neither DW_FORM_strx nor DW_FORM_addrx).
	if v, ok := secOffset(x, slotStrOffsetsBase); ok {
		l.r.strOffsetsBase = v
	} else if l.r.u.version >= 5 {
		l.r.strOffsetsBase = 8
	}
	if v, ok := secOffset(x, slotAddrBase); ok {
		l.r.addrBase = v
	}
	if v, ok := secOffset(x, slotLoclistsBase); ok {
		l.r.loclistsBase = v
	}
	if !x.children {
		return nil
	}
	return l.children(0, func(c *die, depth int) error { return l.processTag(c, depth) })
}

// slot returns the stack's DIE at depth.
func (l *loader) slot(depth int) *die {
	if l.stack[depth] == nil {
		l.stack[depth] = new(die)
	}
	return l.stack[depth]
}

// children calls fn for each child of the DIE at depth-1 (whose children
// follow in the stream), each decoded into the stack slot at depth. fn
// must consume the child's own children.
func (l *loader) children(depth int, fn func(c *die, depth int) error) error {
	depth++
	if depth > maxDepth {
		return errFormat(uint64(l.r.c.pos), "DIEs nested deeper than %d", maxDepth)
	}
	c := l.slot(depth)
	for l.r.next(c) {
		if c.present(slotEncoding) {
			if enc := numeric(c, slotEncoding); enc == ateSigned || enc == ateSignedChar {
				l.cu.signedDIEs = append(l.cu.signedDIEs, c.off)
			}
		}
		if err := fn(c, depth); err != nil {
			return err
		}
	}
	return l.r.c.err
}

// skip consumes the children of x.
func (l *loader) skip(x *die, depth int) error {
	if !x.children {
		return nil
	}
	return l.children(depth, func(c *die, d int) error { return l.skip(c, d) })
}

// processTag is pahole's die__process_tag followed by adding the tag to
// its table.
func (l *loader) processTag(x *die, depth int) error {
	switch x.tag {
	case dwTagImportedUnit:
		return errImportedUnit
	case dwTagArrayType:
		return l.newArray(x, depth)
	case dwTagUnspecType:
		// Debian's pahole 1.24-4 carries upstream's 1.25 change that
		// turns functions returning DW_TAG_unspecified_type (GNU as
		// 2.40 emits it for assembly routines) into void ones.
		id := l.addType(x)
		l.cu.hasUnspec = true
		if depth == 1 {
			l.cu.unspecID = int32(id)
		}
		return l.skip(x, depth)
	case dwTagStringType, dwTagBaseType, dwTagConstType, dwTagReferenceType, dwTagRestrictType,
		dwTagVolatileType, dwTagPtrToMember:
		l.addType(x)
		return l.skip(x, depth)
	case dwTagImportedDecl, dwTagImportedModule:
		l.cu.index(x.off, idxOther, 0)
		return l.skip(x, depth)
	case dwTagPointerType:
		return l.newPointer(x, depth)
	case dwTagEnumerationType:
		return l.newEnum(x, depth)
	case dwTagNamespace:
		off := x.off
		l.cu.idx.reserve(off)
		if err := l.skipOrEach(x, depth, l.processTag); err != nil {
			return err
		}
		l.cu.index(off, idxOther, 0)
		return nil
	case dwTagClassType, dwTagInterfaceType, dwTagStructureType, dwTagUnionType:
		return l.newComposite(x, depth)
	case dwTagSubprogram:
		return l.newFunction(x, depth)
	case dwTagSubroutineType:
		return l.newSubroutine(x, depth)
	case dwTagRvalueRefType, dwTagTypedef:
		return l.newTypedef(x, depth)
	case dwTagVariable:
		_, err := l.newVariable(x, depth)
		return err
	}
	return l.skip(x, depth) // unsupported: neither it nor its children count
}

func (l *loader) skipOrEach(x *die, depth int, fn func(c *die, depth int) error) error {
	if !x.children {
		return nil
	}
	return l.children(depth, fn)
}

// addType appends x to the type table with the attributes every type
// reads, and indexes it.
func (l *loader) addType(x *die) int {
	t := typeEntry{tag: x.tag, typ: ref(x, slotType)}
	t.setName(l.r.str(x, slotName))
	spec := uint32(0)
	switch x.tag {
	case dwTagBaseType:
		t.size = uint32(uint16(numeric(x, slotByteSize) * 8))
		t.enc = uint8(numeric(x, slotEncoding))
	case dwTagStructureType, dwTagClassType, dwTagInterfaceType, dwTagUnionType, dwTagTypedef, dwTagRvalueRefType, dwTagEnumerationType:
		t.size = uint32(numeric(x, slotByteSize))
		t.set(typeDecl, numeric(x, slotDeclaration)&1 != 0)
		spec = ref(x, slotSpecification)
	}
	id := l.appendType(x.off, t)
	l.cu.typeSpec(id, spec)
	return id
}

// typeSpec lists spec, if not 0, as the type id's DW_AT_specification.
func (cu *cuData) typeSpec(id int, spec uint32) {
	if spec != 0 {
		cu.specs = append(cu.specs, typeSpec{int32(id), spec})
	}
}

// typeAnn lists the n decl tags at lo of cu.annots as the type id's.
func (cu *cuData) typeAnn(id int, lo, n int32) {
	if n > 0 {
		cu.typeAnns = append(cu.typeAnns, typeAnn{int32(id), lo, n})
	}
}

func (l *loader) appendType(off uint32, t typeEntry) int {
	id := l.cu.types.add(t)
	l.cu.index(off, idxType, id)
	return id
}

// annotations collects the btf_decl_tag annotations among x's direct
// children (pahole's add_child_llvm_annotations), consuming them.
func (l *loader) annotations(x *die, depth int, component int32) (lo, n int32, err error) {
	lo = int32(len(l.cu.annots))
	err = l.skipOrEach(x, depth, func(c *die, d int) error {
		if c.tag == dwTagLLVMAnnotation {
			l.addAnnot(c, component)
		}
		return l.skip(c, d)
	})
	return lo, int32(len(l.cu.annots)) - lo, err
}

func (l *loader) addAnnot(c *die, component int32) {
	if string(l.r.str(c, slotName)) != "btf_decl_tag" {
		return
	}
	l.cu.annots = append(l.cu.annots, annot{value: l.r.str(c, slotConstValue), component: component})
}

func (l *loader) newArray(x *die, depth int) error {
	off := x.off
	l.cu.idx.reserve(off)
	t := typeEntry{tag: x.tag, typ: ref(x, slotType), lo: int32(len(l.cu.dims))}
	err := l.skipOrEach(x, depth, func(c *die, d int) error {
		if c.tag == dwTagSubrangeType && len(l.cu.dims)-int(t.lo) < 64 {
			l.cu.dims = appendTable(l.cu.dims, upperBound(c))
		}
		return l.skip(c, d)
	})
	t.n = int32(len(l.cu.dims)) - t.lo
	l.appendType(off, t)
	return err
}

// upperBound is pahole's attr_upper_bound, truncated to 32 bits.
func upperBound(x *die) uint32 {
	if x.present(slotUpperBound) {
		v, ok := udata(x, slotUpperBound)
		if !ok {
			return 0
		}
		return uint32(v + 1)
	}
	if v, ok := udata(x, slotCount); ok {
		return uint32(v)
	}
	return 0
}

func (l *loader) newPointer(x *die, depth int) error {
	off := x.off
	l.cu.idx.reserve(off)
	t := typeEntry{tag: x.tag, typ: ref(x, slotType), lo: int32(len(l.cu.chain))}
	err := l.skipOrEach(x, depth, func(c *die, d int) error {
		if c.tag == dwTagLLVMAnnotation && string(l.r.str(c, slotName)) == "btf_type_tag" {
			tag := typeEntry{tag: dwTagLLVMAnnotation}
			tag.setName(l.r.str(c, slotConstValue))
			id := l.appendType(c.off, tag)
			l.cu.chain = appendTable(l.cu.chain, int32(id))
		}
		return l.skip(c, d)
	})
	t.n = int32(len(l.cu.chain)) - t.lo
	l.appendType(off, t)
	return err
}

func (l *loader) newEnum(x *die, depth int) error {
	off := x.off
	l.cu.idx.reserve(off)
	t := typeEntry{tag: x.tag}
	spec := ref(x, slotSpecification)
	t.setName(l.r.str(x, slotName))
	t.set(typeDecl, numeric(x, slotDeclaration)&1 != 0)
	t.size = uint32(numeric(x, slotByteSize)) * 8
	if t.size == 0 {
		t.size = 32
	}
	t.typ = ref(x, slotType)
	t.lo = int32(len(l.cu.enums))
	run := startRun(l.cu.enums) // never moved: an enumerator holds no type
	err := l.skipOrEach(x, depth, func(c *die, d int) error {
		if c.tag == dwTagEnumerator {
			if counts(l, l.cu.enums, &run) {
				n, _ := l.countRun(&run, c, dwTagEnumerator, 0)
				if have := run.end - run.lo; n+have > builder.MaxElems {
					return tooWide("enum", t.name(), n+have, "values")
				}
				growExact(&l.cu.enums, n)
			}
			l.cu.enums = appendTable(l.cu.enums, enumerator{name: l.r.str(c, slotName), value: numeric(c, slotConstValue)})
			run.end++
		}
		return l.skip(c, d)
	})
	t.n = int32(len(l.cu.enums)) - t.lo
	l.cu.typeSpec(l.appendType(off, t), spec)
	return err
}

func (l *loader) newTypedef(x *die, depth int) error {
	id := l.addType(x)
	lo, n, err := l.annotations(x, depth, -1)
	l.cu.typeAnn(id, lo, n)
	return err
}

func (l *loader) newComposite(x *die, depth int) error {
	off := x.off
	l.cu.idx.reserve(off)
	t := typeEntry{tag: x.tag, size: uint32(numeric(x, slotByteSize))}
	t.setName(l.r.str(x, slotName))
	t.set(typeDecl, numeric(x, slotDeclaration)&1 != 0)
	spec := ref(x, slotSpecification)
	isUnion := x.tag == dwTagUnionType
	run, annLo := startRun(l.cu.members), len(l.anns)
	idx := int32(0)
	err := l.skipOrEach(x, depth, func(c *die, d int) error {
		switch c.tag {
		case dwTagSubrangeType, 0x33, 0x2f, 0x30, 0x4107, 0x4108, 0x4106: // variant_part, template params
			return l.skip(c, d)
		case dwTagInheritance, dwTagMember:
			if counts(l, l.cu.members, &run) {
				ahead, other := l.countRun(&run, c, dwTagMember, dwTagInheritance)
				n := ahead
				for _, m := range l.cu.members[run.lo:run.end] { // and those read
					if m.is(memberIsMember) {
						n++
					}
				}
				if n > builder.MaxElems && !t.is(typeDecl) {
					return tooWide(compositeKind(t.tag), t.name(), n, "members")
				}
				growExact(&l.cu.members, ahead+other)
			}
			m := pushDirect(&run, &l.cu.members)
			if m == nil {
				m = push(&run, &l.cu.members, &l.mems)
			}
			newMember(m, l.r, c, isUnion)
			var err error
			if c.children { // annotations
				lo := len(l.cu.annots)
				_, _, err = l.annotations(c, d, idx)
				l.anns = append(l.anns, l.cu.annots[lo:]...)
				l.cu.annots = l.cu.annots[:lo]
			}
			idx++
			return err
		case dwTagLLVMAnnotation:
			if string(l.r.str(c, slotName)) == "btf_decl_tag" {
				l.anns = append(l.anns, annot{value: l.r.str(c, slotConstValue), component: -1})
			}
			return l.skip(c, d)
		}
		return l.processTag(c, d)
	})
	anns := l.anns[annLo:]
	t.lo, t.n = finish(&run, &l.cu.members, &l.mems)
	annLo32 := int32(len(l.cu.annots))
	l.cu.annots = append(l.cu.annots, anns...)
	l.anns = l.anns[:annLo]
	id := l.appendType(off, t)
	l.cu.typeAnn(id, annLo32, int32(len(anns)))
	l.cu.typeSpec(id, spec)
	return err
}

// countFrom is how long a run of a container's elements grows, one by
// one, before the table it is appended to counts the container's
// elements still to come and grows once to hold them all (counts).
const countFrom = 1024

// counts tells, before the next element joins the run r at the end of
// table, whether the run is to be counted (loader.countRun): the table
// is full, the run countFrom elements long, and the DIEs ahead not read
// by a count already (see loader.counted). Grown by doubling, a table
// of one struct of 65,535 members was allocated about twice its final
// size, the last copy beside the one before it, which on a unit of one
// wide type was its loading's peak (BENCH.md, "One big compile unit").
// A run is counted at most once, and only once it is long and its table
// full: the DIEs it reads again are few beside those the unit reads
// once. Inlined: every element of every run asks.
func counts[E any](l *loader, table []E, r *elemRun) bool {
	// A run moved to the scratch stack no longer ends the table.
	return len(table) == cap(table) && !r.counted && r.end == len(table) && r.end-r.lo >= countFrom && l.r.c.pos >= l.counted
}

// countRun counts the siblings of c of tag t1 and of tag t2, c included
// (unitReader.countAhead), for the caller to refuse a type wider than BTF
// allows before reading the rest of it, or to grow its table once to
// hold them (growExact).
func (l *loader) countRun(r *elemRun, c *die, t1, t2 uint16) (n1, n2 int) {
	r.counted = true
	if l.tmp == nil {
		l.tmp = new(die)
	}
	n1, n2, read, end := l.r.countAhead(c, l.tmp, t1, t2)
	l.counted, l.countReads = end, l.countReads+read
	if c.tag == t1 {
		n1++
	} else {
		n2++
	}
	return n1, n2
}

// growExact makes room for n more elements in table, exactly.
func growExact[E any](table *[]E, n int) {
	grown := make([]E, len(*table), len(*table)+n)
	copy(grown, *table)
	*table = grown
}

// compositeKind names a composite's tag in tooWide's error.
func compositeKind(tag uint16) string {
	switch tag {
	case dwTagUnionType:
		return "union"
	case dwTagClassType:
		return "class"
	}
	return "struct"
}

// tooWide is the error of a type that holds more elements, n, than a BTF
// record can: refused once counted (loader.countRun), before they are read.
func tooWide(kind string, name []byte, n int, what string) error {
	return fmt.Errorf("dwarf2btf: %s %q with %d %s, more than BTF's %d", kind, name, n, what, builder.MaxElems)
}

// newMember is pahole's class_member__new, into m, a zero member (in
// place: a member is large to copy).
func newMember(m *member, r *unitReader, c *die, inUnion bool) {
	m.namep, m.namen = ptrLen(r.str(c, slotName))
	m.typ = ref(c, slotType)
	if c.tag == dwTagMember {
		m.flags |= memberIsMember
	}
	if c.present(slotDataBitOffset) {
		m.flags |= memberDataBitOffset
		m.bitOffset = uint32(memberOffset(c, slotDataBitOffset))
	} else {
		if c.present(slotMemberLocation) {
			m.byteOffset = uint32(memberOffset(c, slotMemberLocation))
		} else if !inUnion {
			m.flags |= memberStatic
		}
		m.bitOffset = m.byteOffset * 8
		m.dwBitOffset = int8(numeric(c, slotBitOffset))
	}
	m.byteSize = memberByteSize(numeric(c, slotByteSize))
	m.bitSize = numeric(c, slotBitSize)
	m.bitfield = uint8(m.bitSize)
}

func (l *loader) newSubroutine(x *die, depth int) error {
	off := x.off
	l.cu.idx.reserve(off)
	t := typeEntry{tag: x.tag, typ: ref(x, slotType)}
	run := startRun(l.cu.params)
	err := l.skipOrEach(x, depth, func(c *die, d int) error {
		switch c.tag {
		case dwTagSubrangeType:
			return l.skip(c, d)
		case dwTagFormalParameter:
			l.cu.idx.reserve(c.off)
			if counts(l, l.cu.params, &run) {
				n, _ := l.countRun(&run, c, dwTagFormalParameter, 0)
				if have := run.end - run.lo; n+have > builder.MaxElems {
					return tooWide("function prototype", nil, n+have, "parameters")
				}
				growExact(&l.cu.params, n)
			}
			p := pushDirect(&run, &l.cu.params)
			if p == nil {
				p = push(&run, &l.cu.params, &l.ps)
			}
			*p = newParam(l.r, c)
			return l.skip(c, d)
		case dwTagUnspecParams:
			t.set(typeUnspec, true)
			return l.skip(c, d)
		}
		return l.processTag(c, d)
	})
	t.lo, t.n = finish(&run, &l.cu.params, &l.ps)
	l.cu.indexParams(t.lo, t.n)
	l.appendType(off, t)
	return err
}

func (l *loader) newVariable(x *die, depth int) (int, error) {
	v := variable{name: l.r.str(x, slotName), typeRef: ref(x, slotType), origin: ref(x, slotAbstractOrigin), specIdx: -1}
	v.external = x.present(slotExternal)
	v.decl = x.present(slotDeclaration)
	v.topLevel = depth == 1
	v.artificial = x.present(slotArtificial)
	v.hasSpec = x.present(slotSpecification)
	v.spec = ref(x, slotSpecification)
	if !v.decl {
		v.scope, v.addr = l.location(x)
	}
	off := x.off
	i := len(l.cu.vars)
	l.cu.vars = appendTable(l.cu.vars, v)
	l.cu.index(off, idxVar, i)
	lo, n, err := l.annotations(x, depth, -1)
	l.cu.vars[i].annLo, l.cu.vars[i].annN = lo, n
	return i, err
}

// location is pahole's dwarf__location: whether the variable lives at a
// fixed address, and that address.
func (l *loader) location(x *die) (uint8, uint64) {
	if !x.present(slotLocation) {
		return scopeOther, 0
	}
	v := &x.attrs[slotLocation]
	if v.class != classBlock {
		return scopeOther, 0
	}
	if len(v.b) == 0 {
		return scopeUnknown, 0
	}
	c := cursor{b: v.b, pos: 1, order: l.r.d.order}
	switch op := v.b[0]; {
	case op == 0x03: // DW_OP_addr
		var a uint64
		if l.r.u.addrSize == 8 {
			a = c.u64()
		} else {
			a = uint64(c.u32())
		}
		return scopeGlobal, a
	case op == 0xa1: // DW_OP_addrx
		a, _ := l.r.addrx(c.uleb())
		return scopeGlobal, a
	}
	return scopeOther, 0
}

// errUnsupported reports a DWARF construct pahole 1.24 refuses to encode.
type errUnsupported struct{ tag uint16 }

func (e errUnsupported) Error() string {
	return fmt.Sprintf("dwarf2btf: unsupported DW_TAG %#x", e.tag)
}
