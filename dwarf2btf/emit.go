package dwarf2btf

import (
	"fmt"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

// An encoded unit is what a worker hands to the merge: the records pahole
// would add for one compile unit, with type references local to the unit
// (0 is void, i is the unit's i-th type). The merge numbers them and
// decides what depends on earlier units: the array index type and which
// functions were already emitted.

// refIndex marks an ARRAY's index type, which the merge resolves.
const refIndex = ^uint32(0)

type orec struct {
	kind  btf.Kind
	flag  bool // kind flag: union FWD, signed ENUM/ENUM64
	name  []byte
	a     uint32 // INT/FLOAT/STRUCT/UNION/ENUM size; referenced type
	b     uint32 // INT encoding; ARRAY index; FUNC_PROTO unused
	c     uint32 // ARRAY elements
	lo, n int32  // elements in encoded.elems
}

type oelem struct {
	name []byte
	ref  uint32 // member/param type; enum value low bits
	b    uint32 // member bit offset; enum value high bits
	c    uint32 // member bitfield size
}

type otag struct {
	value     []byte
	target    uint32 // local type id; for functions/vars: unused
	component int32
}

type ofunc struct {
	name        []byte
	proto       orec
	tagLo, tagN int32

	// pahole 1.30's: the ELF function's index in symbols.elf, whether
	// it matched by prefix, whether a parameter is in an unexpected
	// register, and the prototype's description (emitter.sig) in
	// encoded.sigs.
	elf         int32
	prefix      bool
	unexpected  bool
	sigLo, sigN int32
}

type ovar struct {
	name        []byte
	typ         uint32
	linkage     btf.Linkage
	offset      uint32
	size        uint32
	tagLo, tagN int32
}

// encoded is one unit's output.
type encoded struct {
	types     []orec
	elems     []oelem
	tags      []otag // decl tags of types, then of functions and variables
	typeTagN  int32  // how many of tags belong to types
	funcs     []ofunc
	vars      []ovar
	sigs      []byte
	ntypes    uint32 // entries in the unit's type table
	intID     uint32 // local id of the first base type named "int", 0 if none
	hasArrays bool
	skipped   bool   // a unit the encoder leaves out (not C, or no unit)
	locMax    uint64 // how far into .debug_loclists the unit was read
	err       error
	// unit holds types written for the deduplication (emitter.addType), when
	// the encoding goes straight into it.
	unit *dedup.Unit
}

// emitter turns a loaded unit into an encoded one.
type emitter struct {
	cu   *cuData
	obj  *symbols
	opts *Options
	out  *encoded
	// unit, if not nil, is out.unit, which the types are written into
	// as they are emitted, with sc's scratch.
	unit *dedup.Unit
	sc   *recScratch
	// keep says whether out.types keeps every record: the merge reads
	// them when the types do not go straight into the deduplication,
	// and emitter.sig when pahole 1.30's functions are emitted. Else
	// each record is written from rec and dropped.
	keep bool
	rec  orec
}

func (e *emitter) emit() error {
	cu, out := e.cu, e.out
	out.ntypes = uint32(cu.types.len() - 1)
	e.keep = e.unit == nil || e.opts.compat >= CompatPahole130 && len(cu.funcs) > 0
	if e.keep {
		// Every type adds at most one record: sized once, out.types is
		// not copied from array to array as it grows, which on a unit
		// of many types costs more CPU and garbage than the records.
		out.types = slices.Grow(out.types, cu.types.len()-1)
	}
	if e.unit != nil {
		words, records, refs, later, names, size := e.room()
		e.unit.Grow(words, records, refs, later)
		e.unit.GrowNames(names, size)
	}
	for i := 1; i < cu.types.len(); i++ {
		t := cu.types.at(i)
		if out.intID == 0 && t.tag == dwTagBaseType && string(t.name()) == "int" {
			out.intID = uint32(i)
		}
		if err := e.emitType(t); err != nil {
			return err
		}
	}
	for _, a := range cu.typeAnns {
		if e.opts.features&FeatureDeclTag == 0 {
			break
		}
		switch cu.types.at(int(a.id)).tag {
		case dwTagStructureType, dwTagUnionType, dwTagTypedef:
			e.addTags(uint32(a.id), a.lo, a.n)
		}
	}
	out.typeTagN = int32(len(out.tags))
	if e.opts.compat >= CompatPahole130 {
		for i := range cu.funcs {
			if err := e.emitFunc130(&cu.funcs[i]); err != nil {
				return err
			}
		}
		return e.emitVars130()
	}
	for i := range cu.funcs {
		if err := e.emitFunc(&cu.funcs[i]); err != nil {
			return err
		}
	}
	return e.emitVars()
}

// room bounds what emitType writes into the unit for the deduplication:
// words, records, references to the unit's own types, and Deferred ones
// (array index types), by the records' layouts (a struct's inheritance
// counted as a member), and names (a record's and its elements' that are
// not empty: their number and bytes; a prototype's parameters seldom
// have any). Sized once, the unit's buffers are not copied from array to
// array as they grow: on a unit of 100,000 types that was most of what
// the encoding allocated (BENCH.md, "One big compile unit").
func (e *emitter) room() (words, records, refs, later, names, size int) {
	const head = 3 // name, info, size or type
	cu := e.cu
	for i := 1; i < cu.types.len(); i++ {
		t := cu.types.at(i)
		n := int(t.n)
		records++
		names, size = names+named(t.namen), size+int(t.namen)
		switch t.tag {
		case dwTagUnspecType:
			records--
		case dwTagBaseType:
			words += head + 1
		case dwTagStructureType, dwTagUnionType, dwTagClassType:
			words += head
			if !t.is(typeDecl) {
				words, refs, names = words+3*n, refs+n, names+n // members seldom lack a name
				for i := t.lo; i < t.lo+t.n; i++ {
					size += int(cu.members[i].namen)
				}
			}
		case dwTagArrayType:
			words, refs, later = words+head+3, refs+1, later+1
		case dwTagEnumerationType:
			words, names = words+head+3*n, names+n
			for _, v := range cu.enums[t.lo : t.lo+t.n] {
				size += len(v.name)
			}
		case dwTagSubroutineType:
			words, refs = words+head+2*(n+1), refs+1+n
			for _, p := range cu.params[t.lo : t.lo+t.n] {
				names, size = names+named(p.namen), size+int(p.namen)
			}
		default:
			words, refs = words+head, refs+1
		}
	}
	return words, records, refs, later, names, size
}

// named is 1 for a name of n bytes that is not empty, else 0: an empty
// name takes no room (room).
func named(n uint32) int {
	if n == 0 {
		return 0
	}
	return 1
}

func (e *emitter) addTags(target uint32, lo, n int32) {
	for _, a := range e.cu.annots[lo : lo+n] {
		e.out.tags = append(e.out.tags, otag{value: a.value, target: target, component: a.component})
	}
}

// Base type encodings (DW_ATE_*).
const (
	ateBoolean      = 0x02
	ateComplexFloat = 0x03
	ateFloat        = 0x04
	ateSigned       = 0x05
	ateSignedChar   = 0x06
	ateImagFloat    = 0x09
)

func (e *emitter) emitType(t *typeEntry) error {
	out := e.out
	r := orec{name: t.name(), a: uint32(t.id())}
	switch t.tag {
	case dwTagBaseType:
		return e.emitBase(t)
	case dwTagConstType:
		r.kind, r.name = btf.KindConst, nil
	case dwTagPointerType:
		r.kind, r.name = btf.KindPointer, nil
	case dwTagRestrictType:
		r.kind, r.name = btf.KindRestrict, nil
	case dwTagVolatileType:
		r.kind, r.name = btf.KindVolatile, nil
	case dwTagTypedef:
		r.kind = btf.KindTypedef
	case dwTagLLVMAnnotation:
		r.kind = btf.KindTypeTag
	case dwTagStructureType, dwTagUnionType, dwTagClassType:
		if t.is(typeDecl) {
			r = orec{kind: btf.KindForward, name: t.name(), flag: t.tag == dwTagUnionType}
			break
		}
		return e.emitComposite(t)
	case dwTagArrayType:
		out.hasArrays = true
		n := uint32(1)
		for i := int(t.n) - 1; i >= 0; i-- {
			n *= e.cu.dims[int(t.lo)+i]
		}
		r = orec{kind: btf.KindArray, a: uint32(t.id()), b: refIndex, c: n}
	case dwTagEnumerationType:
		return e.emitEnum(t)
	case dwTagUnspecType:
		// Not encoded, but it keeps its place in the numbering, so the
		// references to the types after it are off by one, as pahole's.
		return nil
	case dwTagSubroutineType:
		if !e.keep {
			return e.protoDirect(uint32(t.id()), t.lo, t.n, t.is(typeUnspec))
		}
		p, err := e.proto(uint32(t.id()), t.lo, t.n, t.is(typeUnspec))
		if err != nil {
			return err
		}
		r = p
	default:
		return errUnsupported{t.tag}
	}
	if (r.kind == btf.KindTypedef || r.kind == btf.KindTypeTag || r.kind == btf.KindForward) && len(r.name) == 0 {
		return fmt.Errorf("dwarf2btf: %v without a name", r.kind)
	}
	return e.addType(r)
}

// addType appends a type's record (emitter.keep), and writes it into the
// unit for the deduplication at once when the encoding goes straight into
// it, while its elements are in the cache (writeRec).
func (e *emitter) addType(r orec) error {
	t := &e.rec
	if e.keep {
		e.out.types = append(e.out.types, r)
		if e.unit == nil {
			return nil
		}
		t = &e.out.types[len(e.out.types)-1]
	} else {
		e.rec = r
	}
	if _, err := writeRec(e.unit, e.sc, e.out, t, 0, dedup.Deferred); err != nil {
		return err
	}
	switch t.kind {
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64, btf.KindFuncProto:
		// Nothing reads a type's elements once written (emitter.sig
		// reads the records only): the next type's take their room,
		// which stays in the cache.
		e.out.elems = e.out.elems[:t.lo]
	}
	return nil
}

func (e *emitter) emitBase(t *typeEntry) error {
	bytes := (t.size + 7) / 8
	switch {
	case t.enc == ateSigned || t.enc == ateSignedChar || t.enc == ateBoolean:
	case !e.opts.NoFloats && (t.enc == ateFloat || t.enc == ateComplexFloat || t.enc == ateImagFloat):
		if t.enc != ateFloat {
			return fmt.Errorf("dwarf2btf: complex, interval and imaginary float types are not supported (%q)", t.name())
		}
		return e.addType(orec{kind: btf.KindFloat, name: t.name(), a: bytes})
	}
	enc := uint32(0)
	switch t.enc {
	case ateSigned, ateSignedChar:
		enc = uint32(btf.IntSigned)
	case ateBoolean:
		enc = uint32(btf.IntBool)
	}
	name := t.name()
	if bytes == 0 || bytes&(bytes-1) != 0 {
		name, bytes = []byte("__SANITIZED_FAKE_INT__"), 4
	}
	if len(name) == 0 || bytes > 16 {
		return fmt.Errorf("dwarf2btf: cannot encode base type %q of %d bytes", name, bytes)
	}
	return e.addType(orec{kind: btf.KindInt, name: name, a: bytes, b: enc})
}

func (e *emitter) emitComposite(t *typeEntry) error {
	out := e.out
	k := btf.KindStruct
	if t.tag == dwTagUnionType {
		k = btf.KindUnion
	}
	if !e.keep {
		return e.compositeDirect(t, k)
	}
	r := orec{kind: k, name: t.name(), a: t.size, lo: int32(len(out.elems))}
	out.elems = slices.Grow(out.elems, int(t.n))
	for i := t.lo; i < t.lo+t.n; i++ {
		m := &e.cu.members[i]
		if !m.is(memberIsMember) {
			continue
		}
		bits := uint32(0)
		if !plain(k, m) {
			var err error
			if bits, err = memberBits(k, t, m); err != nil {
				return err
			}
			r.flag = true
		}
		out.elems = append(out.elems, oelem{name: m.name(), ref: m.typ, b: m.bitOffset, c: bits})
	}
	r.n = int32(len(out.elems)) - r.lo
	return e.addType(r)
}

// plain tells whether the member m of a composite of kind k is neither a
// bitfield nor one that memberBits refuses: most members, checked inline.
func plain(k btf.Kind, m *member) bool {
	return m.bitfield == 0 && m.bitOffset%8 == 0 && (k != btf.KindUnion || m.bitOffset == 0)
}

// memberBits checks the member m of t, a composite of kind k, as pahole
// encodes it, and returns its bitfield size; a plain member is size 0.
func memberBits(k btf.Kind, t *typeEntry, m *member) (uint32, error) {
	bits := uint32(m.bitfield)
	if bits == 0 || m.bitOffset > builder.MaxBitOffset {
		return 0, fmt.Errorf("dwarf2btf: %v %q member %q: bitfield size %d at bit %d", k, t.name(), m.name(), m.bitSize, m.bitOffset)
	}
	if k == btf.KindUnion && m.bitOffset != 0 {
		return 0, fmt.Errorf("dwarf2btf: union %q member %q at bit offset %d", t.name(), m.name(), m.bitOffset)
	}
	return bits, nil
}

// compositeDirect writes the STRUCT or UNION t (kind k) into the unit
// straight from the members table, a member at a time: the members are
// neither held a second time in out.elems (40 bytes each) nor a third in
// a slice of builder.Member for an Add method (32 bytes each; a struct of
// 65,535 members, 2.1 MB: BENCH.md, "One big compile unit"). They are
// checked first, so that an error is the same as the records' path's.
func (e *emitter) compositeDirect(t *typeEntry, k btf.Kind) error {
	ms := e.cu.members[t.lo : t.lo+t.n]
	n := 0
	for i := range ms {
		if m := &ms[i]; m.is(memberIsMember) {
			if !plain(k, m) {
				if _, err := memberBits(k, t, m); err != nil {
					return err
				}
			}
			n++
		}
	}
	start := e.unit.StartStruct
	if k == btf.KindUnion {
		start = e.unit.StartUnion
	}
	if _, err := start(view(t.name()), t.size, n); err != nil {
		return err
	}
	for i := range ms {
		if m := &ms[i]; m.is(memberIsMember) {
			mb := builder.Member{Name: view(m.name()), Type: btf.TypeID(m.id()), BitOffset: m.bitOffset, BitfieldSize: uint32(m.bitfield)}
			if err := e.unit.Member(mb); err != nil {
				return err
			}
		}
	}
	_, err := e.unit.Finish()
	return err
}

func (e *emitter) emitEnum(t *typeEntry) error {
	out := e.out
	size := (t.size + 7) / 8
	if size == 0 || size&(size-1) != 0 || size > 8 {
		return fmt.Errorf("dwarf2btf: enum %q of %d bytes", t.name(), size)
	}
	r := orec{kind: btf.KindEnum, name: t.name(), a: size, lo: int32(len(out.elems))}
	// Without the enum64 feature pahole 1.30 writes every enum as ENUM, of
	// its own size, each value cut to its low 32 bits as an unsigned
	// number, so never with the signed kind flag (btf_encoder.c,
	// btf_encoder__add_enum_val).
	noEnum64 := e.opts.features&FeatureEnum64 == 0
	if size > 4 && !noEnum64 {
		r.kind, r.flag = btf.KindEnum64, t.is(typeSigned)
	}
	values := e.cu.enums[t.lo : t.lo+t.n]
	for _, v := range values {
		if len(v.name) == 0 {
			return fmt.Errorf("dwarf2btf: enum %q has a value without a name", t.name())
		}
		if !noEnum64 && r.kind == btf.KindEnum {
			s := int64(v.value)
			if s < -1<<31 || s > 1<<32-1 {
				return fmt.Errorf("dwarf2btf: enum %q value %q = %d does not fit in 32 bits", t.name(), v.name, s)
			}
			r.flag = r.flag || s < 0
		}
	}
	if !e.keep {
		// Straight from the enumerators table into the unit, a value
		// at a time, as compositeDirect writes a struct; an ENUM's
		// values cut to 32 bits, as writeEnum cuts them.
		start, mask := e.unit.StartEnum, uint64(0xffffffff)
		if r.kind == btf.KindEnum64 {
			start, mask = e.unit.StartEnum64, ^uint64(0)
		}
		if _, err := start(view(r.name), r.a, r.flag, len(values)); err != nil {
			return err
		}
		for _, v := range values {
			if err := e.unit.Value(builder.Enumerator{Name: view(v.name), Value: v.value & mask}); err != nil {
				return err
			}
		}
		_, err := e.unit.Finish()
		return err
	}
	out.elems = slices.Grow(out.elems, len(values))
	for _, v := range values {
		value := v.value
		if noEnum64 {
			value &= 0xffffffff
		}
		out.elems = append(out.elems, oelem{name: v.name, ref: uint32(value), b: uint32(value >> 32)})
	}
	r.n = int32(len(out.elems)) - r.lo
	return e.addType(r)
}

// proto builds a FUNC_PROTO record; "..." is a last parameter of type 0.
func (e *emitter) proto(ret uint32, lo, n int32, unspec bool) (orec, error) {
	out := e.out
	r := orec{kind: btf.KindFuncProto, a: e.protoRet(ret), lo: int32(len(out.elems))}
	out.elems = slices.Grow(out.elems, int(n)+1)
	for _, p := range e.cu.params[lo : lo+n] {
		out.elems = append(out.elems, oelem{name: p.name(), ref: uint32(p.typeID)})
	}
	if unspec {
		out.elems = append(out.elems, oelem{})
	}
	r.n = int32(len(out.elems)) - r.lo
	return r, checkProto(int(r.n))
}

// protoDirect writes a FUNC_PROTO into the unit straight from the
// parameters table, a parameter at a time, as compositeDirect a struct.
func (e *emitter) protoDirect(ret uint32, lo, n int32, unspec bool) error {
	total := int(n)
	if unspec {
		total++
	}
	if err := checkProto(total); err != nil {
		return err
	}
	if _, err := e.unit.StartFuncProto(btf.TypeID(e.protoRet(ret)), total); err != nil {
		return err
	}
	for _, p := range e.cu.params[lo : lo+n] {
		if err := e.unit.Param(builder.Param{Name: view(p.name()), Type: btf.TypeID(p.typeID)}); err != nil {
			return err
		}
	}
	if unspec {
		if err := e.unit.Param(builder.Param{}); err != nil {
			return err
		}
	}
	_, err := e.unit.Finish()
	return err
}

// protoRet is a prototype's return type: void for the unit's
// DW_TAG_unspecified_type (see processTag).
func (e *emitter) protoRet(ret uint32) uint32 {
	if e.cu.hasUnspec && ret == uint32(e.cu.unspecID) {
		return 0
	}
	return ret
}

// checkProto refuses a prototype of n parameters ("..." one of them)
// that BTF cannot hold.
func checkProto(n int) error {
	if n > builder.MaxElems {
		return fmt.Errorf("dwarf2btf: function prototype with %d parameters", n)
	}
	return nil
}

// emitFunc applies pahole 1.24's function filter, except the check that
// an earlier unit emitted the same name, which the merge makes.
func (e *emitter) emitFunc(f *function) error {
	if f.decl {
		return nil
	}
	for _, p := range e.cu.params[f.lo : f.lo+f.n] {
		if p.namep == nil {
			return nil
		}
	}
	if e.obj.hasFuncs() {
		if f.name == nil || !e.obj.isFunc(f.name) {
			return nil
		}
	} else if !f.external {
		return nil
	}
	if len(f.name) == 0 {
		return fmt.Errorf("dwarf2btf: function without a name")
	}
	p, err := e.proto(uint32(f.typeID), f.lo, f.n, f.unspec)
	if err != nil {
		return err
	}
	lo := int32(len(e.out.tags))
	e.addTags(0, f.annLo, f.annN)
	e.out.funcs = append(e.out.funcs, ofunc{name: f.name, proto: p, tagLo: lo, tagN: int32(len(e.out.tags)) - lo})
	return nil
}
