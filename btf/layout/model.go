package layout

import (
	"math/bits"

	"github.com/kmeta-dev/kmeta/btf"
)

// A node is what pahole's BTF loader makes of one type record (its struct
// tag): the kind as pahole sees it and, for structs and unions, the
// members with the offsets and sizes that class__fixup_btf_bitfields
// computes. Integer widths follow dwarves.h, so that values wrap where
// pahole's wrap.
type class struct {
	members []member
	id      btf.TypeID
	size    uint32
	union   bool
	name    []byte // nil when anonymous

	alignment  uint32 // inferred __aligned__ of the type, 0 for none
	loaded     bool
	searched   bool // class__find_holes ran
	nrHoles    uint8
	nrBitHoles uint8
	preHole    uint16
	padding    uint16
	preBitHole uint8
	bitPadding uint8
	nrMembers  uint16
}

// member is pahole's struct class_member for one BTF member.
// It has no name, which memberName reads from the BTF when it prints,
// and no bit size (byteSize*8): every open level of a deep nest keeps its
// members loaded, so each byte here counts (see BENCH.md).
type member struct {
	byteSize       uint64
	typ            btf.TypeID
	bitOffset      uint32
	byteOffset     uint32
	alignment      uint32
	hole           uint16
	bitfieldOffset int8
	bitfieldSize   uint8
	bitHole        uint8
}

// bitSize is pahole's class_member bit_size: byte_size*8, in 32 bits.
func (m *member) bitSize() uint32 { return uint32(m.byteSize * 8) }

// memberName is the name of c's member i (memberNameOf).
func (p *printer) memberName(c *class, i int) []byte {
	return memberNameOf(p.typ(c.id).Member(i))
}

// memberNameOf is m's name as pahole holds it (heldName).
func memberNameOf(m btf.Member) []byte {
	return heldName(m.NameBytes(), m.NameOffset())
}

// heldName is a name as pahole holds it: nil when there is no name offset
// (a member's is printed "(null)", as glibc's printf prints a NULL string,
// and is equal to any name in type__compare; a struct's is anonymous), and
// empty but not nil when the offset leads to an empty string, which pahole
// prints as nothing and compares as a name.
func heldName(name []byte, off uint32) []byte {
	if name != nil || off == 0 {
		return name
	}
	return []byte{}
}

// maxChain bounds walks along typedef, qualifier and array chains that
// lead into a reference loop (corrupt BTF: markLoops finds them). Other
// chains are walked to their end, as pahole walks them: they cannot be
// longer than the types.
const maxChain = 64

// follows reports whether the chain walks go on from a type of kind k to
// its reference (an array's is its element type).
func follows(k btf.Kind) bool {
	switch k {
	case btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag,
		btf.KindPointer, btf.KindArray, btf.KindFuncProto:
		return true
	}
	return false
}

// markLoops sets the loops flag of every node whose chain of references
// (follows) reaches a loop. Each node has one reference, so each is
// walked once: a path is followed until a node already known, or one on
// the path itself, which closes a loop.
func markLoops(nodes []node) {
	const onPath, known = 1, 2
	state := make([]uint8, len(nodes))
	var path []btf.TypeID
	for i := range nodes {
		path = path[:0]
		id := btf.TypeID(i)
		for int(id) < len(nodes) && state[id] == 0 && follows(nodes[id].kind) {
			state[id] = onPath
			path = append(path, id)
			id = nodes[id].ref
		}
		loop := int(id) < len(nodes) && (state[id] == onPath || nodes[id].flags&loops != 0)
		for _, n := range path {
			state[n] = known
			if loop {
				nodes[n].flags |= loops
			}
		}
	}
}

// chain is how many steps a walk along the chain from id may take: the
// number of types, or maxChain from a chain that ends in a loop.
func (p *printer) chain(id btf.TypeID) int { return chainLen(p.nodes, id) }

// chainLen is chain on nodes.
func chainLen(nodes []node, id btf.TypeID) int {
	if int(id) < len(nodes) && nodes[id].flags&loops != 0 {
		return maxChain
	}
	return len(nodes)
}

// typ returns the view of id; void (and ids out of range) give the zero
// Type, whose kind is KindUnknown.
func (p *printer) typ(id btf.TypeID) btf.Type {
	if int(id) >= len(p.nodes) {
		return btf.Type{}
	}
	v := &p.views[int(id)%len(p.views)]
	if v.ID() != id {
		*v, _ = p.spec.TypeByID(id) // in range: not an error
	}
	return *v
}

// node caches what the hot paths ask of a type, its kind and reference,
// and holds what pahole keeps in a struct's tag from one struct printed
// to the next (the view is made from the Spec when needed): 8 bytes. What
// a class holds besides is computed again from the record whenever it is
// loaded, so that classes can be dropped (see trim).
type node struct {
	ref     btf.TypeID // Type.Ref; for an anonymous struct or union (which has none), its cost for check; for a named one, its left link and color in printed's tree
	kind    btf.Kind
	flags   uint8  // the node flags below
	natural uint16 // type__natural_alignment of a struct or union, 0 until known
}

// Node flags.
const (
	fwdUnion uint8 = 1 << iota // a FWD of a union
	inferred                   // packed_attributes_inferred (structs), or union__infer_packed_attributes ran
	packed                     // the struct is __packed__
	markOpen                   // graph's walk: on the stack
	markDone                   // graph's walk: walked, no cycle through it
	busy                       // typeNatural is computing it
	natKnown                   // natural is computed
	loops                      // the chain of references from it reaches a loop, see markLoops
)

// has reports whether id's node has flag f.
func (p *printer) has(id btf.TypeID, f uint8) bool {
	return int(id) < len(p.nodes) && p.nodes[id].flags&f != 0
}

// set sets flag f of id's node.
func (p *printer) set(id btf.TypeID, f uint8) {
	if int(id) < len(p.nodes) {
		p.nodes[id].flags |= f
	}
}

// kind returns the kind of id; KindUnknown for void and ids out of range.
func (p *printer) kind(id btf.TypeID) btf.Kind {
	if int(id) < len(p.nodes) {
		return p.nodes[id].kind
	}
	return btf.KindUnknown
}

// ref returns Type.Ref of id.
func (p *printer) ref(id btf.TypeID) btf.TypeID {
	if int(id) < len(p.nodes) {
		return p.nodes[id].ref
	}
	return 0
}

// isTransparent reports whether pahole's loader leaves kind k out of
// tag__strip_typedefs_and_modifiers chains: typedefs and qualifiers.
// TYPE_TAG, which pahole 1.24 cannot read, is skipped like a qualifier.
func isModifier(k btf.Kind) bool {
	switch k {
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag:
		return true
	}
	return false
}

// strip follows typedefs and qualifiers from id (pahole's
// tag__strip_typedefs_and_modifiers applied to a tag of type id).
func (p *printer) strip(id btf.TypeID) btf.Type {
	for range p.chain(id) {
		k := p.kind(id)
		if k != btf.KindTypedef && !isModifier(k) {
			return p.typ(id)
		}
		id = p.ref(id)
	}
	return btf.Type{}
}

// isStructTag reports whether pahole sees t as a struct: a STRUCT, or a FWD
// of a struct.
func (p *printer) isStructTag(id btf.TypeID) bool {
	k := p.kind(id)
	return k == btf.KindStruct || (k == btf.KindForward && !p.has(id, fwdUnion))
}

// isUnionTag is isStructTag for unions.
func (p *printer) isUnionTag(id btf.TypeID) bool {
	k := p.kind(id)
	return k == btf.KindUnion || (k == btf.KindForward && p.has(id, fwdUnion))
}

// isEnumTag reports an ENUM or ENUM64.
func (p *printer) isEnumTag(id btf.TypeID) bool {
	k := p.kind(id)
	return k == btf.KindEnum || k == btf.KindEnum64
}

// enumBits is the size pahole's loader gives an enum, in bits.
func enumBits(t btf.Type) uint32 {
	if t.Size() == 0 {
		return 32
	}
	return t.Size() * 8
}

// baseSize is base_type__size: an INT's bits (not its size) / 8, a FLOAT's
// size.
func baseSize(t btf.Type) uint64 {
	if t.Kind() == btf.KindInt {
		return uint64(t.Int().Bits) / 8
	}
	return uint64(t.Size())
}

// sizeOf is pahole's tag__size, its recursion through arrays a product
// (which wraps as pahole's does).
func (p *printer) sizeOf(id btf.TypeID) uint64 {
	n := uint64(1)
	for range p.chain(id) {
		t := p.typ(id)
		switch p.kind(id) {
		case btf.KindPointer:
			return n * uint64(p.ptrSize)
		case btf.KindInt, btf.KindFloat:
			return n * baseSize(t)
		case btf.KindEnum, btf.KindEnum64:
			return n * uint64(enumBits(t)/8)
		case btf.KindStruct, btf.KindUnion:
			if t.Size() == 1 && t.Vlen() == 0 {
				return 0 // pahole's "empty base optimization trick"
			}
			return n * uint64(t.Size())
		case btf.KindArray:
			a := t.Array()
			n *= uint64(a.Nelems)
			id = a.Type
		case btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag, btf.KindFuncProto:
			if p.ref(id) == 0 {
				return 0
			}
			id = p.ref(id)
		default: // void, FWD
			return 0
		}
	}
	return 0
}

// naturalAlign is pahole's tag__natural_alignment, its recursion
// through arrays a loop.
func (p *printer) naturalAlign(t btf.Type) uint64 {
	for range p.chain(t.ID()) {
		if p.kind(t.ID()) != btf.KindArray {
			break
		}
		if t = p.strip(t.Array().Type); t.IsVoid() {
			return 1
		}
	}
	var a uint64 = 1
	switch {
	case p.kind(t.ID()) == btf.KindPointer:
		a = uint64(p.ptrSize)
	case p.kind(t.ID()) == btf.KindInt || p.kind(t.ID()) == btf.KindFloat:
		a = baseSize(t)
	case p.isEnumTag(t.ID()):
		a = uint64(enumBits(t) / 8)
	case p.kind(t.ID()) == btf.KindStruct || p.kind(t.ID()) == btf.KindUnion:
		a = uint64(p.typeNatural(t.ID()))
	case p.kind(t.ID()) == btf.KindForward:
		a = 0
	}
	if a == 0 {
		return 1
	}
	return a
}

// typeNatural is type__natural_alignment, cached as pahole caches it: the
// largest natural alignment of the members of struct or union id, from
// its record, so that no class need stay loaded for it. The structs and
// unions that the members' alignments need are computed first, without
// recursion, however deep they nest.
func (p *printer) typeNatural(id btf.TypeID) uint16 {
	if k := p.kind(id); k != btf.KindStruct && k != btf.KindUnion {
		return 0
	}
	if p.has(id, natKnown|busy) {
		return p.nodes[id].natural // busy: a struct that holds itself, which check refuses
	}
	w := &p.walk
	base := w.n
	w.push(frame{id: id})
	p.set(id, busy)
	for w.n > base {
		f := w.top()
		t := p.typ(f.id)
		if int(f.next) < t.Vlen() {
			c := p.alignTarget(p.strip(t.Member(int(f.next)).Type))
			f.next++
			if c != 0 && !p.has(c, natKnown|busy) {
				p.set(c, busy)
				w.push(frame{id: c})
			}
			continue
		}
		var natural uint16
		for i := range t.Vlen() {
			if mt := p.strip(t.Member(i).Type); !mt.IsVoid() {
				natural = max(natural, uint16(p.naturalAlign(mt)))
			}
		}
		p.nodes[f.id].natural = natural
		p.nodes[f.id].flags = p.nodes[f.id].flags&^busy | natKnown
		w.pop()
	}
	return p.nodes[id].natural
}

// alignTarget returns the struct or union whose typeNatural
// naturalAlign(t) asks for, if any.
func (p *printer) alignTarget(t btf.Type) btf.TypeID {
	for range p.chain(t.ID()) {
		switch p.kind(t.ID()) {
		case btf.KindStruct, btf.KindUnion:
			return t.ID()
		case btf.KindArray:
			if t = p.strip(t.Array().Type); t.IsVoid() {
				return 0
			}
		default:
			return 0
		}
	}
	return 0
}

// class returns the loaded struct or union id, or nil for other kinds.
// Classes stay loaded until trim drops them.
func (p *printer) class(id btf.TypeID) *class {
	if k := p.kind(id); k != btf.KindStruct && k != btf.KindUnion {
		return nil
	}
	if c := p.classes[id]; c != nil {
		return c
	}
	c := &class{id: id, loaded: true}
	p.classes[id] = c
	p.load(c, p.typ(id))
	p.cached += classCost + len(c.members)*memberCost
	return c
}

// drop forgets the class of id, if loaded.
func (p *printer) drop(id btf.TypeID) {
	if c := p.classes[id]; c != nil {
		p.cached -= classCost + len(c.members)*memberCost
		delete(p.classes, id)
	}
}

// load fills c from the record of t (pahole's create_members and
// class__fixup_btf_bitfields).
func (p *printer) load(c *class, t btf.Type) {
	c.size = t.Size()
	c.union = p.kind(t.ID()) == btf.KindUnion
	c.name = heldName(t.NameBytes(), t.NameOffset())
	n := t.Vlen()
	c.nrMembers = uint16(n)
	if len(p.slab) < n {
		p.slab = make([]member, max(n, slabMembers))
	}
	c.members, p.slab = p.slab[:n:n], p.slab[n:]
	for i := range n {
		m := t.Member(i)
		c.members[i] = member{
			typ:          m.Type,
			bitOffset:    m.BitOffset,
			bitfieldSize: uint8(m.BitfieldSize),
			byteOffset:   m.BitOffset / 8,
		}
	}
	var smallest uint32
	for i := range c.members {
		m := &c.members[i]
		mt := p.strip(m.typ)
		if mt.IsVoid() {
			continue
		}
		a := p.naturalAlign(mt)
		m.bitfieldOffset = 0
		m.byteSize = p.sizeOf(mt.ID())
		if m.byteSize == 0 {
			continue
		}
		k := p.kind(mt.ID())
		if k == btf.KindInt || k == btf.KindFloat || p.isEnumTag(mt.ID()) {
			if m.bitfieldSize != 0 {
				m.byteOffset = m.bitOffset / m.bitSize() * m.bitSize() / 8
				m.bitfieldOffset = int8(m.bitOffset - m.byteOffset*8)
				if m.bitfieldOffset < 0 {
					m.bitfieldOffset += int8(m.bitSize())
					m.byteOffset -= uint32(m.byteSize)
					m.bitOffset = m.byteOffset*8 + uint32(int32(m.bitfieldOffset))
				}
			} else {
				m.byteOffset = m.bitOffset / 8
			}
		}
		m.alignment = p.inferAlignment(m.byteOffset, uint32(a), smallest)
		smallest = m.byteOffset + uint32(m.byteSize)
	}
	c.alignment = p.inferAlignment(c.size, uint32(max(p.typeNatural(c.id), 1)), smallest)
}

// inferAlignment is pahole's class__infer_alignment: an offset further from
// the end of the previous member than natural alignment explains is taken
// for an __attribute__((__aligned__)).
func (p *printer) inferAlignment(byteOffset, natural, smallest uint32) uint32 {
	var alignment uint32
	if delta := byteOffset - smallest; delta != 0 && byteOffset%2 == 0 {
		// 1 << (32 - clz(delta)): x86 masks the shift count to 5 bits.
		alignment = 1 << ((32 - bits.LeadingZeros32(delta)) & 31)
	}
	switch {
	case alignment <= natural || alignment == 1:
		alignment = 0
	case alignment < p.cacheline && p.cacheline%alignment == 0 && byteOffset%p.cacheline == 0:
		alignment = p.cacheline
	}
	return alignment
}

// findHoles is pahole's class__find_holes (structs only).
func (p *printer) findHoles(c *class) {
	if c.union || c.searched {
		return
	}
	c.nrHoles, c.nrBitHoles = 0, 0
	curBitfieldEnd, curBitfieldSize := c.size*8, uint32(0)
	var lastSeen uint32
	inBitfield := false
	var last *member
	for i := range c.members {
		pos := &c.members[i]
		pos.bitHole, pos.hole = 0, 0
		bitStart := pos.bitOffset
		var bitEnd uint32
		if pos.bitfieldSize != 0 {
			bitEnd = bitStart + uint32(pos.bitfieldSize)
		} else {
			bitEnd = bitStart + uint32(pos.byteSize*8)
		}
		bitHoles, byteHoles := int32(0), int32(0)
		if inBitfield {
			end := min(bitStart, curBitfieldEnd)
			bitHoles = int32(end - lastSeen)
			lastSeen = end
		}
		if pos.bitfieldSize != 0 {
			alignedStart := pos.byteOffset * 8
			if lastSeen < alignedStart && alignedStart <= bitStart {
				byteHoles = int32(pos.byteOffset - lastSeen/8)
				lastSeen = alignedStart
			}
			bitHoles += int32(bitStart - lastSeen)
		} else {
			byteHoles = int32(bitStart/8 - lastSeen/8)
		}
		lastSeen = bitEnd
		if pos.bitfieldSize != 0 {
			inBitfield = true
			if bitEnd > curBitfieldEnd || pos.bitSize() > curBitfieldSize {
				curBitfieldSize = pos.bitSize()
				curBitfieldEnd = pos.byteOffset*8 + curBitfieldSize
				if bitEnd > curBitfieldEnd {
					curBitfieldEnd += curBitfieldSize
				}
			}
		} else {
			inBitfield = false
			curBitfieldSize = 0
			curBitfieldEnd = bitEnd
		}
		if last != nil {
			last.hole = uint16(byteHoles)
			last.bitHole = uint8(bitHoles)
		} else {
			c.preHole = uint16(byteHoles)
			c.preBitHole = uint8(bitHoles)
		}
		if bitHoles != 0 {
			c.nrBitHoles++
		}
		if byteHoles != 0 {
			c.nrHoles++
		}
		last = pos
	}
	if inBitfield {
		end := min(c.size*8, curBitfieldEnd)
		c.bitPadding = uint8(end - lastSeen)
		lastSeen = end
	} else {
		c.bitPadding = 0
	}
	c.padding = uint16(c.size - lastSeen/8)
	c.searched = true
}

// inferPacked is pahole's class__infer_packed_attributes (structs only).
func (p *printer) inferPacked(c *class) bool {
	if c.union {
		return false
	}
	if p.has(c.id, inferred) {
		return p.has(c.id, packed)
	}
	p.findHoles(c)
	p.set(c.id, inferred)
	if c.padding != 0 || c.nrHoles != 0 {
		p.markUnnatural(c)
		return false
	}
	var maxNatural uint64 = 1
	for i := range c.members {
		pos := &c.members[i]
		mt := p.strip(pos.typ)
		natural := p.naturalAlign(mt)
		if natural == 1 {
			continue
		}
		maxNatural = max(maxNatural, natural)
		if uint64(pos.byteOffset)%natural != 0 {
			p.set(c.id, packed)
			return true
		}
	}
	if (maxNatural != 1 && c.alignment == 1) || uint64(c.size)%maxNatural != 0 {
		p.set(c.id, packed)
	}
	return p.has(c.id, packed)
}

// markUnnatural is type__check_structs_at_unnatural_alignments: a struct
// member at an offset its alignment does not allow must be packed.
func (p *printer) markUnnatural(c *class) {
	for i := range c.members {
		pos := &c.members[i]
		mt := p.strip(pos.typ)
		if p.kind(mt.ID()) != btf.KindStruct {
			continue
		}
		if uint64(pos.byteOffset)%p.naturalAlign(mt) != 0 {
			p.forcePacked(mt.ID())
		}
	}
}

// forcePacked marks struct id packed, its inference done.
func (p *printer) forcePacked(id btf.TypeID) {
	if k := p.kind(id); k == btf.KindStruct || k == btf.KindUnion {
		p.set(id, packed|inferred)
	}
}

// inferUnionPacked is union__infer_packed_attributes: a struct member whose
// alignment does not divide the union's size must be packed.
func (p *printer) inferUnionPacked(c *class) {
	if p.has(c.id, inferred) {
		return
	}
	for i := range c.members {
		mt := p.strip(c.members[i].typ)
		if p.kind(mt.ID()) != btf.KindStruct {
			continue
		}
		if uint64(c.size)%p.naturalAlign(mt) != 0 {
			p.forcePacked(mt.ID())
		}
	}
	p.set(c.id, inferred)
}
