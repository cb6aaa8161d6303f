package layout

import (
	"github.com/kmeta-dev/kmeta/btf"
)

// pahole spells types with its own rules (dwarves_fprintf.c's __tag__name),
// not with the C dumper's: "struct list_head * *", "const char  *", and
// function types as "int ()(void *)". Each name is built into a buffer of
// the size pahole gives it and cut as snprintf cuts it, since long
// prototypes are visibly truncated in pahole's output.
//
// These spellings are pahole's only; btf/cdump's declarations give the C
// spelling of a type (cdump.TypeName).

// Buffer sizes of dwarves_fprintf.c.
const (
	bufTypeName  = 128  // type__fprintf's tbf, ftype__fprintf's sbf
	bufQualifier = 128  // the tmpbf of const and volatile in __tag__name
	bufPointer   = 1024 // the tmpbf of tag__ptr_name
	bufBase      = 64   // base_type__name's bf2
)

// cut truncates dst, to which a name was appended from start, as snprintf
// leaves it in a buffer of n bytes.
func cut(dst []byte, start, n int) []byte {
	if len(dst)-start >= n {
		return dst[:start+n-1]
	}
	return dst
}

// appendTagName appends __tag__name(id) as it fits a buffer of n bytes.
func (p *printer) appendTagName(dst []byte, id btf.TypeID, n int, depth int) []byte {
	start := len(dst)
	if depth > maxChain || !p.step() {
		return cut(append(dst, "<ERROR: type loop>"...), start, n)
	}
	t := p.typ(id)
	switch k := p.kind(t.ID()); k {
	case btf.KindUnknown:
		dst = append(dst, "void"...)
	case btf.KindInt, btf.KindFloat:
		dst = cut(p.appendBaseName(dst, t), start, bufBase)
	case btf.KindPointer:
		dst = p.appendPtrName(dst, t, depth)
	case btf.KindTypeTag:
		return p.appendTagName(dst, p.ref(t.ID()), n, depth+1)
	case btf.KindConst, btf.KindVolatile, btf.KindRestrict:
		switch k {
		case btf.KindVolatile:
			dst = append(dst, "volatile "...)
		case btf.KindConst:
			dst = append(dst, "const "...)
		}
		dst = p.appendTagName(dst, p.ref(t.ID()), bufQualifier, depth+1)
		if k == btf.KindRestrict {
			dst = append(dst, " restrict"...)
		}
		dst = append(dst, ' ')
	case btf.KindArray:
		return p.appendTagName(dst, t.Array().Type, n, depth+1)
	case btf.KindFuncProto:
		saved := p.buf
		p.buf = dst
		p.ftype(t, nil, false, false, 0, depth+1)
		dst, p.buf = p.buf, saved
	case btf.KindFunc:
		dst = append(dst, t.NameBytes()...)
	default:
		dst = append(dst, p.prefix(t)...)
		dst = append(dst, t.NameBytes()...)
	}
	return cut(dst, start, n)
}

// prefix is pahole's tag__prefix for the kinds named by a tag.
func (p *printer) prefix(t btf.Type) string {
	switch {
	case p.isEnumTag(t.ID()):
		return "enum "
	case p.isStructTag(t.ID()):
		return "struct "
	case p.isUnionTag(t.ID()):
		return "union "
	}
	return ""
}

// appendBaseName is base_type__name: "bool " before a boolean INT's name,
// the floating point class before a FLOAT's.
func (p *printer) appendBaseName(dst []byte, t btf.Type) []byte {
	if p.kind(t.ID()) == btf.KindFloat {
		dst = append(dst, "single "...)
	} else if t.Int().Encoding&btf.IntBool != 0 {
		dst = append(dst, "bool "...)
	}
	return append(dst, t.NameBytes()...)
}

// appendPtrName is tag__ptr_name with the suffix "*".
func (p *printer) appendPtrName(dst []byte, t btf.Type, depth int) []byte {
	if p.ref(t.ID()) == 0 {
		return append(dst, "void *"...)
	}
	target := p.typ(p.ref(t.ID()))
	constPtr := ""
	if p.kind(target.ID()) == btf.KindConst {
		if next := p.typ(p.ref(target.ID())); p.kind(next.ID()) == btf.KindPointer {
			constPtr = "const "
			target = next
		}
	}
	dst = p.appendTagName(dst, target.ID(), bufPointer, depth+1)
	dst = append(dst, ' ')
	dst = append(dst, constPtr...)
	return append(dst, '*')
}
