package layout

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// maxLevels bounds the levels of anonymous structs and unions that a
// layout prints, and so the printer's depth (a member and its type count
// one each, an array one). Real kernels nest a handful of levels; pahole
// 1.24 and 1.30 print valid BTF nested up to some 5,900-6,400 levels and
// die of SIGSEGV past that (8 MB stack), and the text grows as the square
// of the depth (its widths grow with it): 4,096 levels print 100-400 MB,
// 2 GB when each level has 32 members. Past it, Write fails with
// tooDeepError.
const maxLevels = 4096

// jsonLevels is maxLevels for the JSON forms, whose lines repeat the
// indentation of their depth, a dozen lines a member: 2,049 levels of 32
// members were 2.8 GB and 8 s of indented JSON.
const jsonLevels = 1024

// tooDeepError is the error past levels, which run names the struct for.
// check finds it before printing when the deep types are the struct's own;
// the printer, when they were walked for a struct before.
func tooDeepError(levels int) error {
	return pkgerr.Errorf("layout: anonymous types and arrays nest more than %d levels deep: %w", levels, ErrTooComplex)
}

// protosTooDeepError is tooDeepError for a path through protos function
// prototypes (pointers to prototypes as parameters or return types), which
// the printer spells inline as it does anonymous types: such a chain, and
// not anonymous types, may be what nests (pahole 1.24 and 1.30 die of
// SIGSEGV on 300,000 prototypes each taking a pointer to the one before).
func protosTooDeepError(levels, protos int) error {
	return pkgerr.Errorf("layout: function prototypes nest at least %d deep through pointer parameters and return types (limit %d levels): %w",
		protos, levels, ErrTooComplex)
}

// tooDeep records tooDeepError, or protosTooDeepError when the path is
// half or more prototypes, and reports whether depth is past the printer's
// levels.
func (p *printer) tooDeep(depth int) bool {
	if depth <= 2*p.levels+1 {
		return false
	}
	if p.err == nil {
		p.err = tooDeepError(p.levels)
		if 2*p.protos >= depth {
			p.err = protosTooDeepError(p.levels, p.protos)
		}
	}
	return true
}

// sums are the running totals of __class__fprintf.
type sums struct {
	bytes, bits         uint32
	holes, bitHoles     uint32
	paddings            uint16
	sumPaddings         uint32
	forced, forcedHoles uint16
	sumForcedHoles      uint32
}

// classFprintf is pahole's __class__fprintf for a struct.
func (p *printer) classFprintf(c *class, cf *conf, depth int) {
	p.str("struct")
	if c.name != nil {
		p.byte(' ')
		p.bytes(c.name)
	}
	indent := min(cf.indent, len(tabs))
	cc := *cf
	var cacheline uint32
	if cc.cachelinep == nil {
		cc.cachelinep = &cacheline
	}
	cc.indent = indent + 1
	p.inferPacked(c)
	p.str(" {\n")

	var s sums
	newline := false
	nl := func() {
		if !newline {
			p.byte('\n')
		}
		newline = true
	}
	if c.preBitHole > 0 {
		nl()
		p.holeComment(cc.indent, "", uint64(c.preBitHole), "bit", "\n")
		s.bitHoles += uint32(c.preBitHole)
	}
	if c.preHole > 0 {
		nl()
		p.holeComment(cc.indent, "", uint64(c.preHole), "byte", "\n")
		s.holes += uint32(c.preHole)
	}
	var last *member
	var lastSize uint64
	n := len(c.members)
	for i := range n {
		pos := &c.members[i]
		if i == n-1 && p.releases(c, depth) {
			cur := *pos
			pos = &cur
			if last != nil {
				prev := *last
				last = &prev
			}
			c.members = nil
		}
		if pos.alignment != 0 {
			hole := c.preHole
			if last != nil {
				hole = last.hole
			}
			if hole != 0 {
				s.forcedHoles++
				s.sumForcedHoles += uint32(hole)
			}
			s.forced++
		}
		if last != nil && lastSize != 0 {
			if last.bitHole != 0 && pos.bitfieldSize != 0 {
				p.explicitBitHole(pos, last, &cc, depth)
			}
			if pos.byteOffset < last.byteOffset ||
				(pos.byteOffset == last.byteOffset && last.bitfieldSize == 0 && pos.bitfieldSize != 0) {
				nl()
				p.tabs(cc.indent)
				p.str("/* Bitfield combined with previous fields */\n")
			} else if d := int64(pos.byteOffset) - int64(last.byteOffset); d > 0 && uint64(d) < lastSize {
				nl()
				p.tabs(cc.indent)
				p.str("/* Bitfield combined with next fields */\n")
			}
		}
		if newline {
			p.byte('\n')
			newline = false
		}
		cc.lastMember = i == n-1
		cc.firstMember = last == nil
		size := pos.byteSize
		p.tabs(cc.indent)
		pt := p.typ(pos.typ)
		p.memberFprintf(pos, p.memberName(c, i), false, pt, &cc, depth)
		p.afterMember(pos, pt, &cc, &s, &newline)
		p.byte('\n')
		p.trim()
		p.spill() // the closing lines of deep nesting, too
		if pos.bitfieldSize != 0 {
			s.bits += uint32(pos.bitfieldSize)
		} else {
			s.bytes += uint32(pos.byteSize)
		}
		if last == nil || lastSize == 0 || last.byteOffset != pos.byteOffset {
			lastSize = size
		} else if last.bitfieldSize == 0 && pos.bitfieldSize != 0 {
			lastSize = size
		}
		last = pos
	}
	if cc.emitStats {
		p.stats(c, &cc, &s)
		p.last = s
	}
	p.tabs(indent)
	p.byte('}')
	isPacked := p.has(c.id, packed)
	if isPacked {
		p.str(" __attribute__((__packed__))")
	}
	if cc.hasSuffix {
		p.byte(' ')
		p.bytes(cc.suffix)
	}
	if c.alignment != 0 && !isPacked {
		p.str(" __attribute__((__aligned__(")
		p.uint(uint64(c.alignment), 0)
		p.str(")))")
	}
}

// releases reports whether classFprintf and unionFprintf let go of the
// members of c, at its last member, before that member's type prints: the
// members of an anonymous struct or union inside another, which is
// printed where it is used, and so nested anonymous types whose last
// member is the level below (DeepOfWide) do not keep every open level's
// members loaded. The class is dropped from the cache, so whoever asks
// for it again (afterMember's padding) loads it anew.
func (p *printer) releases(c *class, depth int) bool {
	if depth == 0 || c.name != nil {
		return false
	}
	p.drop(c.id)
	return true
}

// paddingOf returns the class of struct id for afterMember's padding
// comment: the one that classFprintf just printed and released, if it is
// id's (its holes and padding were found before its members were let
// go), so that an anonymous struct nested in another is not loaded again
// and left in the cache for trim; else the cached or loaded class.
func (p *printer) paddingOf(id btf.TypeID) *class {
	if c := p.released; c != nil {
		p.released = nil
		if c.id == id && c.searched {
			return c
		}
	}
	return p.class(id)
}

// explicitBitHole prints the unnamed bitfield pahole shows where a bitfield
// follows a bit hole.
func (p *printer) explicitBitHole(pos, last *member, cc *conf, depth int) {
	bits := last.bitHole
	if last.byteOffset != pos.byteOffset {
		p.byte('\n')
		p.tabs(cc.indent)
		p.str("/* Force alignment to the next boundary: */\n")
		bits = 0
	}
	p.tabs(cc.indent)
	p.typeFprintf(pos.typ, []byte{}, true, cc, depth+1)
	p.byte(':')
	p.uint(uint64(bits), 0)
	p.str(";\n")
}

// afterMember prints the comments that follow a member: the padding of a
// struct member's type, then the bit hole and the hole after it.
func (p *printer) afterMember(pos *member, pt btf.Type, cc *conf, s *sums, newline *bool) {
	nl := func() {
		if !*newline {
			p.byte('\n')
		}
		*newline = true
	}
	if p.kind(pt.ID()) == btf.KindStruct {
		tc := p.paddingOf(pt.ID())
		p.findHoles(tc)
		p.inferPacked(tc)
		if tc.padding > 0 {
			s.paddings++
			s.sumPaddings += uint32(tc.padding)
			nl()
			p.byte('\n')
			p.tabs(cc.indent)
			p.str("/* XXX last struct has ")
			p.uint(uint64(tc.padding), 0)
			p.str(" byte")
			if tc.padding != 1 {
				p.byte('s')
			}
			p.str(" of padding */")
		}
	}
	if pos.bitHole != 0 {
		nl()
		p.holeComment(cc.indent, "\n", uint64(pos.bitHole), "bit", "")
		s.bitHoles += uint32(pos.bitHole)
	}
	if pos.hole > 0 {
		nl()
		p.holeComment(cc.indent, "\n", uint64(pos.hole), "byte", "")
		s.holes += uint32(pos.hole)
	}
}

// holeComment prints "/* XXX n bytes hole, try to pack */".
func (p *printer) holeComment(indent int, before string, n uint64, unit, after string) {
	p.str(before)
	p.tabs(indent)
	p.str("/* XXX ")
	p.uint(n, 0)
	p.byte(' ')
	p.str(unit)
	if n != 1 {
		p.byte('s')
	}
	p.str(" hole, try to pack */")
	p.str(after)
}

// stats prints the summary comments of a top-level struct.
func (p *printer) stats(c *class, cc *conf, s *sums) {
	p.str("\n")
	p.tabs(cc.indent)
	p.str("/* size: ")
	p.int(int64(int32(c.size))) // pahole's %d: a struct of 2^32-1 bytes is -1
	p.str(", cachelines: ")
	size := uint64(c.size)
	if c.size == 1 && c.nrMembers == 0 {
		size = 0
	}
	p.uint((size+uint64(p.cacheline)-1)/uint64(p.cacheline), 0)
	p.str(", members: ")
	p.uint(uint64(c.nrMembers), 0)
	p.str(" */\n")
	if s.holes > 0 || s.bitHoles > 0 {
		if s.bytes > 0 {
			p.tabs(cc.indent)
			p.str("/* sum members: ")
			p.uint(uint64(s.bytes), 0)
			if s.holes > 0 {
				p.str(", holes: ")
				p.uint(uint64(c.nrHoles), 0)
				p.str(", sum holes: ")
				p.uint(uint64(s.holes), 0)
			}
			p.str(" */\n")
		}
		if s.bits > 0 {
			p.tabs(cc.indent)
			p.str("/* sum bitfield members: ")
			p.uint(uint64(s.bits), 0)
			p.str(" bits")
			if s.bitHoles > 0 {
				p.str(", bit holes: ")
				p.uint(uint64(c.nrBitHoles), 0)
				p.str(", sum bit holes: ")
				p.uint(uint64(s.bitHoles), 0)
				p.str(" bits")
			} else {
				p.str(" (")
				p.uint(uint64(s.bits/8), 0)
				p.str(" bytes)")
			}
			p.str(" */\n")
		}
	}
	p.statLine(cc.indent, "padding: ", uint64(c.padding), c.padding > 0)
	if s.paddings > 0 {
		p.tabs(cc.indent)
		p.str("/* paddings: ")
		p.uint(uint64(s.paddings), 0)
		p.str(", sum paddings: ")
		p.uint(uint64(s.sumPaddings), 0)
		p.str(" */\n")
	}
	if c.bitPadding > 0 {
		p.tabs(cc.indent)
		p.str("/* bit_padding: ")
		p.uint(uint64(c.bitPadding), 0)
		p.str(" bits */\n")
	}
	if s.forced != 0 {
		p.tabs(cc.indent)
		p.str("/* forced alignments: ")
		p.uint(uint64(s.forced), 0)
		if s.forcedHoles != 0 {
			p.str(", forced holes: ")
			p.uint(uint64(s.forcedHoles), 0)
			p.str(", sum forced holes: ")
			p.uint(uint64(s.sumForcedHoles), 0)
		}
		p.str(" */\n")
	}
	if last := (cc.baseOffset + c.size) % p.cacheline; last != 0 {
		p.tabs(cc.indent)
		p.str("/* last cacheline: ")
		p.uint(uint64(last), 0)
		p.str(" bytes */\n")
	}
	p.brainFart(c, cc, s)
}

// statLine prints "/* what: n */" when show is set.
func (p *printer) statLine(indent int, what string, n uint64, show bool) {
	if !show {
		return
	}
	p.tabs(indent)
	p.str("/* ")
	p.str(what)
	p.uint(n, 0)
	p.str(" */\n")
}

// brainFart prints pahole's warning for a struct whose members, holes and
// padding do not add up to its size.
func (p *printer) brainFart(c *class, cc *conf, s *sums) {
	diff := int32(c.size*8 - (s.bytes*8 + s.bits + s.holes*8 + s.bitHoles +
		uint32(c.padding)*8 + uint32(c.bitPadding)))
	if diff == 0 || c.nrMembers == 0 {
		return
	}
	p.byte('\n')
	p.tabs(cc.indent)
	p.str("/* BRAIN FART ALERT! ")
	p.int(int64(int32(c.size)))
	p.str(" bytes != ")
	p.uint(uint64(s.bytes), 0)
	p.str(" (member bytes) + ")
	p.uint(uint64(s.bits), 0)
	p.str(" (member bits) + ")
	p.uint(uint64(s.holes), 0)
	p.str(" (byte holes) + ")
	p.uint(uint64(s.bitHoles), 0)
	p.str(" (bit holes), diff = ")
	p.int(int64(diff))
	p.str(" bits */\n")
}

func (p *printer) int(v int64) {
	if v < 0 {
		p.byte('-')
		p.uint(uint64(-v), 0)
		return
	}
	p.uint(uint64(v), 0)
}

// unionFprintf is pahole's union__fprintf.
func (p *printer) unionFprintf(c *class, cf *conf, depth int) {
	indent := min(cf.indent, len(tabs))
	p.str("union")
	if c.name != nil {
		p.byte(' ')
		p.bytes(c.name)
	}
	p.str(" {\n")
	uc := *cf
	uc.indent = indent + 1
	p.last = sums{}
	p.inferUnionPacked(c)
	var cacheline uint32
	if uc.cachelinep == nil {
		uc.cachelinep = &cacheline
	}
	initial := *uc.cachelinep
	n := len(c.members)
	for i := range n {
		pos := &c.members[i]
		if i == n-1 && p.releases(c, depth) {
			cur := *pos
			pos = &cur
			c.members = nil
		}
		uc.unionMember = true
		p.tabs(uc.indent)
		p.memberFprintf(pos, p.memberName(c, i), true, p.typ(pos.typ), &uc, depth)
		p.byte('\n')
		p.trim()
		p.spill()
		*uc.cachelinep = initial
	}
	p.tabs(indent)
	p.byte('}')
	if cf.hasSuffix {
		p.byte(' ')
		p.bytes(cf.suffix)
	}
}

// memberFprintf is class_member__fprintf: the member's declaration and its
// "/* offset size */" comment. name is the member's, nil when anonymous.
func (p *printer) memberFprintf(m *member, name []byte, unionMember bool, t btf.Type, cf *conf, depth int) {
	if p.spill(); p.err != nil || !p.step() {
		return
	}
	// The member's type prints with the base offset of a struct member;
	// *cf is the caller's level, so it is set back after.
	base := cf.baseOffset
	defer func() { cf.baseOffset = base }()
	offset := m.byteOffset
	if !cf.relOffset {
		offset += cf.baseOffset
		if !unionMember {
			cf.baseOffset = offset
		}
	}
	if m.bitfieldOffset < 0 {
		offset += uint32(m.byteSize)
	}
	p.cachelineBoundary(cf, offset)
	start := p.pos()
	hasName := name != nil
	composite := p.isStructTag(t.ID()) || p.isUnionTag(t.ID()) || p.isEnumTag(t.ID())
	if composite {
		p.typeFprintf(t.ID(), nil, false, cf, depth+1)
		if hasName {
			if t.NameOffset() == 0 {
				p.byte(' ')
			}
			p.bytes(name)
		}
	} else {
		p.typeFprintf(t.ID(), name, hasName, cf, depth+1)
	}
	if m.bitfieldSize != 0 {
		p.byte(':')
		p.uint(uint64(m.bitfieldSize), 0)
	}
	alignLen := 0
	if m.alignment != 0 {
		a := p.pos()
		p.str(" __attribute__((__aligned__(")
		p.uint(uint64(m.alignment), 0)
		p.str(")))")
		alignLen = p.pos() - a
	}
	p.byte(';')
	if composite && t.NameOffset() == 0 {
		slen := alignLen - 1
		if hasName {
			slen = alignLen + len(name)
		}
		if p.kind(t.ID()) == btf.KindStruct && p.has(t.ID(), packed) {
			// An anonymous FWD is a struct tag without a class.
			slen += len("__attribute__((__packed__))") + 1
		}
		p.padLeft(" ", cf.typeSpacing+cf.nameSpacing-slen-3)
	} else {
		p.padLeft(" ", max(cf.typeSpacing+cf.nameSpacing-(p.pos()-start), 0))
	}
	p.str("/* ")
	p.uint(uint64(offset), 5)
	sizeSpacing := 5
	if m.bitfieldSize != 0 {
		p.byte(':')
		bo := uint32(int32(m.bitfieldOffset))
		if m.bitfieldOffset < 0 {
			bo = uint32(m.byteSize*8) + uint32(int32(m.bitfieldOffset))
		}
		p.uint(uint64(bo), 2)
		sizeSpacing -= 3
	}
	p.byte(' ')
	// pahole prints a member's size in 32 bits: an array of 2^32-1 ints
	// is 4294967292 bytes, one of 2^32-1 structs of 2^32-1 bytes is 1.
	p.uint(uint64(uint32(m.byteSize)), sizeSpacing)
	p.str(" */")
}
