package btf

import "github.com/kmeta-dev/kmeta/internal/wire"

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Kind -linecomment -output=kind_string.go

// Kind is the kind of a BTF type. Its String method spells it as bpftool
// does ("STRUCT", "FUNC_PROTO", ...); kinds beyond those defined today print
// as "Kind(N)".
//
// The kinds are KindUnknown, KindInt, KindPointer, KindArray, KindStruct,
// KindUnion, KindEnum, KindForward, KindTypedef, KindVolatile, KindConst,
// KindRestrict, KindFunc, KindFuncProto, KindVar, KindDatasec, KindFloat,
// KindDeclTag, KindTypeTag and KindEnum64, numbered as in the kernel's
// BTF_KIND_*.
type Kind uint8

// The kinds defined by the kernel today, with the numbers they have in the
// info word of a record (wire's); the comments are their String spellings.
const (
	KindUnknown   Kind = 0  // UNKNOWN
	KindInt       Kind = 1  // INT
	KindPointer   Kind = 2  // PTR
	KindArray     Kind = 3  // ARRAY
	KindStruct    Kind = 4  // STRUCT
	KindUnion     Kind = 5  // UNION
	KindEnum      Kind = 6  // ENUM
	KindForward   Kind = 7  // FWD
	KindTypedef   Kind = 8  // TYPEDEF
	KindVolatile  Kind = 9  // VOLATILE
	KindConst     Kind = 10 // CONST
	KindRestrict  Kind = 11 // RESTRICT
	KindFunc      Kind = 12 // FUNC
	KindFuncProto Kind = 13 // FUNC_PROTO
	KindVar       Kind = 14 // VAR
	KindDatasec   Kind = 15 // DATASEC
	KindFloat     Kind = 16 // FLOAT
	KindDeclTag   Kind = 17 // DECL_TAG
	KindTypeTag   Kind = 18 // TYPE_TAG
	KindEnum64    Kind = 19 // ENUM64
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
