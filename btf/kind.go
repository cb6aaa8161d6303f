package btf

import "github.com/kmeta-dev/kmeta/btf/internal/wire"

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Kind -linecomment -output=kind_string.go

// Kind is the kind of a BTF type. Its String method spells it as bpftool
// does ("STRUCT", "FUNC_PROTO", ...); kinds beyond those defined today print
// as "Kind(N)".
type Kind uint8

// The kinds defined by the kernel today, with the numbers they have in the
// info word of a record (wire's); the comments are their String spellings.
const (
	KindUnknown   Kind = Kind(wire.KindUnknown)   // UNKNOWN
	KindInt       Kind = Kind(wire.KindInt)       // INT
	KindPointer   Kind = Kind(wire.KindPointer)   // PTR
	KindArray     Kind = Kind(wire.KindArray)     // ARRAY
	KindStruct    Kind = Kind(wire.KindStruct)    // STRUCT
	KindUnion     Kind = Kind(wire.KindUnion)     // UNION
	KindEnum      Kind = Kind(wire.KindEnum)      // ENUM
	KindForward   Kind = Kind(wire.KindForward)   // FWD
	KindTypedef   Kind = Kind(wire.KindTypedef)   // TYPEDEF
	KindVolatile  Kind = Kind(wire.KindVolatile)  // VOLATILE
	KindConst     Kind = Kind(wire.KindConst)     // CONST
	KindRestrict  Kind = Kind(wire.KindRestrict)  // RESTRICT
	KindFunc      Kind = Kind(wire.KindFunc)      // FUNC
	KindFuncProto Kind = Kind(wire.KindFuncProto) // FUNC_PROTO
	KindVar       Kind = Kind(wire.KindVar)       // VAR
	KindDatasec   Kind = Kind(wire.KindDatasec)   // DATASEC
	KindFloat     Kind = Kind(wire.KindFloat)     // FLOAT
	KindDeclTag   Kind = Kind(wire.KindDeclTag)   // DECL_TAG
	KindTypeTag   Kind = Kind(wire.KindTypeTag)   // TYPE_TAG
	KindEnum64    Kind = Kind(wire.KindEnum64)    // ENUM64
)

// ParseKind returns the kind spelled s, as bpftool prints it ("STRUCT") or
// in lower case ("struct", "func_proto"). It also accepts "fwd" and "ptr".
func ParseKind(s string) (Kind, bool) {
	for k := range Kind(wire.NumKinds) {
		if k == KindUnknown {
			continue
		}
		if name := k.String(); equalFoldASCII(name, s) {
			return k, true
		}
	}
	return KindUnknown, false
}

func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range len(a) {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
