package layout

import (
	"strconv"

	"github.com/kmeta-dev/kmeta/btf"
)

// conf is pahole's struct conf_fprintf, reduced to what BTF input uses.
// pahole passes it by value; here it is passed by pointer, and copied
// only where a level changes it (typeFprintf, classFprintf, unionFprintf),
// which keeps the stack of a deep nest small (see BENCH.md).
type conf struct {
	indent      int
	typeSpacing int
	nameSpacing int
	suffix      []byte
	hasSuffix   bool
	emitStats   bool
	relOffset   bool
	baseOffset  uint32
	cachelinep  *uint32
	lastMember  bool
	firstMember bool
	unionMember bool
}

// tabs is dwarves_fprintf.c's tabs: indentation stops at 16.
const tabs = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t"

func (p *printer) str(s string)   { p.buf = append(p.buf, s...) }
func (p *printer) bytes(b []byte) { p.buf = append(p.buf, b...) }
func (p *printer) byte(c byte)    { p.buf = append(p.buf, c) }

func (p *printer) tabs(n int) {
	p.buf = append(p.buf, tabs[:min(max(n, 0), len(tabs))]...)
}

// uint prints v as %*u (right-aligned in width w).
func (p *printer) uint(v uint64, w int) {
	var tmp [24]byte
	d := strconv.AppendUint(tmp[:0], v, 10)
	p.pad(w - len(d))
	p.bytes(d)
}

// spaces are appended in blocks by pad. Deep nesting pads its lines with
// tens of kilobytes of spaces (DeepOfWide: most of its output), so the
// block is large: with 64 bytes, pad's loop took 70% of the CPU there
// (BENCH.md). A constant, not strings.Repeat: a package variable made by
// a call runs at every command's start-up (cmd/kmeta's TestStartupFloor).
const (
	spaces64   = "                                                                "
	spaces256  = spaces64 + spaces64 + spaces64 + spaces64
	spaces1024 = spaces256 + spaces256 + spaces256 + spaces256
	spaces     = spaces1024 + spaces1024 + spaces1024 + spaces1024
	_          = uint(len(spaces64) - 64) // and no more than 64:
	_          = uint(64 - len(spaces64))
)

// pad appends n spaces.
func (p *printer) pad(n int) {
	for n > 0 {
		k := min(n, len(spaces))
		p.buf = append(p.buf, spaces[:k]...)
		n -= k
	}
}

// padRight prints s as %-*s: at least |w| bytes, left-justified.
func (p *printer) padRight(s []byte, w int) {
	p.bytes(s)
	p.pad(abs(w) - len(s))
}

// padFrom pads what was printed from start to at least |w| bytes, as
// %-*s does.
func (p *printer) padFrom(start, w int) {
	p.pad(abs(w) - (p.pos() - start))
}

// padLeft prints s as %*s: right-justified in w bytes, or left-justified in
// -w bytes when w is negative, as printf takes a negative width.
func (p *printer) padLeft(s string, w int) {
	if w < 0 {
		p.padRight([]byte(s), w)
		return
	}
	p.pad(w - len(s))
	p.str(s)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// nameOrNull is how printf's %s prints a NULL name in glibc.
func nameOrNull(name []byte, ok bool) []byte {
	if !ok {
		return []byte("(null)")
	}
	return name
}

// typeFprintf is pahole's type__fprintf for a member (or array element) of
// type id named name (hasName false for NULL).
func (p *printer) typeFprintf(id btf.TypeID, name []byte, hasName bool, cf *conf, depth int) {
	if p.tooDeep(depth) {
		return
	}
	t := p.typ(id)
	tc := *cf // this level's copy, as pahole's; callees below take &tc
	if p.isStructTag(t.ID()) || p.isUnionTag(t.ID()) || p.isEnumTag(t.ID()) {
		tc.innerStruct(name, hasName)
	}
	for range p.chain(t.ID()) {
		switch p.kind(t.ID()) {
		case btf.KindPointer:
			if p.ref(t.ID()) != 0 {
				pt := p.typ(p.ref(t.ID()))
				if p.kind(pt.ID()) == btf.KindFuncProto {
					p.ftype(pt, name, hasName, true, tc.typeSpacing, depth+1)
					return
				}
				if (p.isStructTag(pt.ID()) || p.isUnionTag(pt.ID()) || p.isEnumTag(pt.ID())) && pt.NameOffset() == 0 {
					n := append([]byte("* "), name[:min(len(name), 255)]...)
					name, hasName = n, true
					tc.relOffset = true
					t = pt
					tc.typeSpacing -= 8
					tc.innerStruct(name, hasName)
					continue
				}
			}
			p.printDefault(t, name, hasName, &tc)
		case btf.KindFuncProto:
			p.ftype(t, name, hasName, false, tc.typeSpacing, depth+1)
		case btf.KindConst:
			p.str("const ")
			tc.typeSpacing -= 6
			if p.ref(t.ID()) != 0 {
				t = p.typ(p.ref(t.ID()))
				continue
			}
			p.printDefault(t, name, hasName, &tc)
		case btf.KindArray:
			p.arrayFprintf(t, name, hasName, &tc, depth+1)
		case btf.KindStruct, btf.KindUnion, btf.KindForward:
			if p.compositeName(t, name, tc.typeSpacing) {
				return
			}
			// The definition of an anonymous struct or union, called from
			// here rather than from compositeName to keep a level's
			// frames few (see BENCH.md).
			c := p.class(t.ID())
			tc.typeSpacing -= 8
			if c.union {
				p.unionFprintf(c, &tc, depth+1)
				return
			}
			p.findHoles(c)
			p.classFprintf(c, &tc, depth+1)
			if c.members == nil && c.nrMembers != 0 {
				p.released = c // for the caller's afterMember
			}
		case btf.KindEnum, btf.KindEnum64:
			if t.NameOffset() != 0 {
				p.str("enum ")
				p.padRight(t.NameBytes(), tc.typeSpacing-5)
				p.byte(' ')
				p.bytes(name)
			} else {
				p.enumFprintf(t, &tc)
			}
		default:
			p.printDefault(t, name, hasName, &tc)
		}
		return
	}
}

// innerStruct is the set-up of type__fprintf's inner_struct label.
func (c *conf) innerStruct(name []byte, hasName bool) {
	c.suffix, c.hasSuffix = name, hasName
	c.emitStats = false
}

// printDefault is "%-*s %s" of the type's pahole name and the member name.
func (p *printer) printDefault(t btf.Type, name []byte, hasName bool, tc *conf) {
	start := p.pos()
	p.buf = p.appendTagName(p.buf, t.ID(), bufTypeName, 0)
	p.padFrom(start, tc.typeSpacing)
	p.byte(' ')
	p.bytes(nameOrNull(name, hasName))
}

// compositeName prints a named struct or union type, or a forward, as
// pahole's type__fprintf does, and reports whether t was one; the
// definition of an anonymous one is typeFprintf's.
func (p *printer) compositeName(t btf.Type, name []byte, typeSpacing int) bool {
	if t.NameOffset() == 0 && p.kind(t.ID()) != btf.KindForward {
		return false
	}
	word, spacing := "struct ", typeSpacing-7
	if p.isUnionTag(t.ID()) {
		word, spacing = "union ", typeSpacing-6
	}
	p.str(word)
	p.padRight(t.NameBytes(), spacing)
	p.byte(' ')
	p.bytes(name)
	return true
}

// arrayFprintf is array_type__fprintf: the element, then "[n]", or "[]" for
// a flexible array that is the last of several members outside a union.
func (p *printer) arrayFprintf(t btf.Type, name []byte, hasName bool, cf *conf, depth int) {
	a := t.Array()
	elem := a.Type
	if a.Nelems == 0 {
		if e := p.typ(elem); p.kind(e.ID()) == btf.KindConst {
			elem = e.Ref()
		}
	}
	p.typeFprintf(elem, name, hasName, cf, depth)
	single := cf.lastMember && cf.firstMember
	if a.Nelems != 0 || !cf.lastMember || single || cf.unionMember {
		p.byte('[')
		p.uint(uint64(a.Nelems), 0)
		p.byte(']')
	} else {
		p.str("[]")
	}
}

// ftype is ftype__fprintf with is_prototype set: "ret (*name)(params)".
func (p *printer) ftype(t btf.Type, name []byte, hasName bool, isPointer bool, typeSpacing int, depth int) {
	p.protos++
	start := p.pos()
	p.buf = p.appendTagName(p.buf, p.ref(t.ID()), bufTypeName, depth)
	p.padFrom(start, typeSpacing)
	p.str(" (")
	if isPointer {
		p.byte('*')
	}
	if hasName {
		p.bytes(name)
	}
	p.byte(')')
	p.ftypeParms(t, depth)
	p.protos--
}

// ftypeParms is ftype__fprintf_parms on one line. pahole's loader drops
// the void parameter that ends a variadic list and remembers it.
func (p *printer) ftypeParms(t btf.Type, depth int) {
	p.byte('(')
	first, unspec := true, false
	for i := range t.Vlen() {
		prm := t.Param(i)
		if prm.Type == 0 {
			unspec = true
			continue
		}
		if !first {
			p.str(", ")
		}
		first = false
		name, hasName := prm.NameBytes(), prm.NameOffset() != 0
		pt := p.typ(prm.Type)
		if p.kind(pt.ID()) == btf.KindPointer && p.ref(pt.ID()) != 0 {
			if ft := p.typ(p.ref(pt.ID())); p.kind(ft.ID()) == btf.KindFuncProto {
				if p.tooDeep(depth) {
					return
				}
				p.ftype(ft, name, hasName, true, 0, depth+1)
				continue
			}
		}
		p.buf = p.appendTagName(p.buf, prm.Type, bufTypeName, depth)
		if hasName {
			p.byte(' ')
			p.bytes(name)
		}
	}
	switch {
	case first:
		p.str("void)")
	case unspec:
		p.str(", ...)")
	default:
		p.byte(')')
	}
}

// enumFprintf is enumeration__fprintf for an anonymous enum defined in a
// member. BTF input gives pahole unsigned values only.
func (p *printer) enumFprintf(t btf.Type, cf *conf) {
	indent := min(cf.indent, len(tabs))
	p.str("enum")
	if t.NameOffset() != 0 {
		p.byte(' ')
		p.bytes(t.NameBytes())
	}
	n := t.Vlen()
	if n == 0 {
		return
	}
	p.str(" {\n")
	maxLen := 0
	for i := range n {
		maxLen = max(maxLen, len(t.EnumValue(i).NameBytes()))
	}
	maxLen = int(uint16(maxLen))
	for i := range n {
		v := t.EnumValue(i)
		p.tabs(indent)
		p.byte('\t')
		p.padRight(v.NameBytes(), maxLen)
		p.str(" = ")
		val := v.Value
		if p.kind(t.ID()) == btf.KindEnum {
			val = uint64(uint32(val))
		}
		p.uint(val, 0)
		p.str(",\n")
	}
	p.tabs(indent)
	p.byte('}')
	if enumBits(t)/8 != 4 {
		p.str(" __attribute__((__packed__))")
	}
	if cf.hasSuffix {
		p.byte(' ')
		p.bytes(cf.suffix)
	}
}

// cachelineBoundary is class__fprintf_cacheline_boundary.
func (p *printer) cachelineBoundary(cf *conf, offset uint32) {
	line := offset / p.cacheline
	if line <= *cf.cachelinep {
		return
	}
	pos := offset % p.cacheline
	p.str("/* --- cacheline ")
	p.uint(uint64(line), 0)
	p.str(" boundary (")
	p.uint(uint64(offset-pos), 0)
	p.str(" bytes) ")
	if pos != 0 {
		p.str("was ")
		p.uint(uint64(pos), 0)
		p.str(" byte")
		if pos > 1 {
			p.byte('s')
		}
		p.str(" ago ")
	}
	p.str("--- */\n")
	p.tabs(cf.indent)
	*cf.cachelinep = line
}
