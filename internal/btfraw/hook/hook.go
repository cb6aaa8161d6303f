// Package hook hands the btf package's raw-byte accessors to
// internal/btfraw without exporting them from btf: btf imports this
// package and registers them as it is initialized; btfraw, which imports
// btf, reads them back with btf's types.
package hook

import "context"

// Funcs are btf's raw-byte accessors, instantiated with btf's Type,
// Member, Param, EnumValue and Spec.
type Funcs[Type, Member, Param, EnumValue, Spec any] struct {
	Record        func(Type) []byte
	TypeNameOff   func(Type) uint32
	MemberNameOff func(Member) uint32
	ParamNameOff  func(Param) uint32
	EnumNameOff   func(EnumValue) uint32
	TypeSection   func(*Spec) []byte
	StringSection func(*Spec) ([]byte, uint32)
	HeaderLen     func(*Spec) int
	StringsRange  func(head []byte) (off, n int64, err error)
	Extract       func(ctx context.Context, data []byte, maxSize int64) ([]byte, error)
	ExtractBase   func(ctx context.Context, data []byte, maxSize int64) (raw, distBase []byte, err error)
}

// BTF is the btf package's *Funcs, set during its initialization.
var BTF any
