package btf

import "github.com/kmeta-dev/kmeta/btf/internal/wire"

// Kind is the kind of a BTF type. Its String method spells it as bpftool
// does ("STRUCT", "FUNC_PROTO", ...).
type Kind = wire.Kind

// The kinds defined by the kernel today.
const (
	KindUnknown   = wire.KindUnknown // void, or "any kind" in lookups
	KindInt       = wire.KindInt
	KindPointer   = wire.KindPointer
	KindArray     = wire.KindArray
	KindStruct    = wire.KindStruct
	KindUnion     = wire.KindUnion
	KindEnum      = wire.KindEnum
	KindForward   = wire.KindForward
	KindTypedef   = wire.KindTypedef
	KindVolatile  = wire.KindVolatile
	KindConst     = wire.KindConst
	KindRestrict  = wire.KindRestrict
	KindFunc      = wire.KindFunc
	KindFuncProto = wire.KindFuncProto
	KindVar       = wire.KindVar
	KindDatasec   = wire.KindDatasec
	KindFloat     = wire.KindFloat
	KindDeclTag   = wire.KindDeclTag
	KindTypeTag   = wire.KindTypeTag
	KindEnum64    = wire.KindEnum64
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
