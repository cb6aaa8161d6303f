// Package btfraw gives kmeta's own packages the wire bytes behind btf's
// views, for code that copies or prints every record and would pay for a
// Type per field (writers, dedup, printers, the kernel package's string
// screening). The layout of those bytes is the kernel's
// (Documentation/bpf/btf.rst), and only btf/internal/wire decodes it.
//
// The bytes are in host byte order, belong to the Spec, must not be
// modified, and are valid until the Spec is closed; the accessors of a
// closed Spec return nil.
package btfraw

import (
	"context"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfraw/hook"
)

var f = hook.BTF.(*hook.Funcs[btf.Type, btf.Member, btf.Param, btf.EnumValue, btf.Spec])

// Record returns the bytes of t's type record: the 12-byte fixed part and
// what follows it, as the Spec's layouts size it; nil for void and once
// the Spec is closed.
func Record(t btf.Type) []byte { return f.Record(t) }

// NameOff returns the offset of t's name in the string section of its Spec
// chain.
func NameOff(t btf.Type) uint32 { return f.TypeNameOff(t) }

// MemberNameOff returns the string offset of a member's name.
func MemberNameOff(m btf.Member) uint32 { return f.MemberNameOff(m) }

// ParamNameOff returns the string offset of a parameter's name.
func ParamNameOff(p btf.Param) uint32 { return f.ParamNameOff(p) }

// EnumNameOff returns the string offset of an enumerator's name.
func EnumNameOff(v btf.EnumValue) uint32 { return f.EnumNameOff(v) }

// TypeSection returns the Spec's own type section: the records of its
// types FirstID to LastID, one after the other.
func TypeSection(s *btf.Spec) []byte { return f.TypeSection(s) }

// StringSection returns the Spec's own string section and the string
// offset of its first byte: 0 for standalone BTF, the end of the base's
// strings for split BTF.
func StringSection(s *btf.Spec) (data []byte, start uint32) { return f.StringSection(s) }

// HeaderLen returns the length of the header the Spec was read with.
func HeaderLen(s *btf.Spec) int { return f.HeaderLen(s) }

// StringsRange returns where the string section of raw BTF lies: its
// offset from the start of the BTF and its length. head holds the first
// bytes of the BTF, at least its whole header (256 bytes are always
// enough). It checks the header as btf.Parse does, except that it cannot
// check that the sections lie within the BTF, whose size it is not given.
// Every name of the BTF's types is a NUL-terminated suffix of a string in
// this section (or its base's), which lets a caller rule out, by reading
// the strings alone, BTF that cannot hold a name.
func StringsRange(head []byte) (off, n int64, err error) { return f.StringsRange(head) }

// Extract returns a copy of the raw BTF in data, without parsing it: data
// itself if it is raw BTF, the .BTF section of an ELF file (inflated if
// the section is compressed), after inflating gzip, xz or zstd data. Split
// BTF whose base is not at hand yet (a module met before its kernel in a
// package) is kept this way. maxSize bounds what is inflated (0:
// btf.DefaultMaxSize).
func Extract(ctx context.Context, data []byte, maxSize int64) ([]byte, error) {
	return f.Extract(ctx, data, maxSize)
}

// ExtractBase is Extract that also returns a copy of the .BTF.base section
// of an ELF file that has one: a module whose .BTF is split BTF on that
// distilled base (see btf.Relocate); nil otherwise.
func ExtractBase(ctx context.Context, data []byte, maxSize int64) (raw, distBase []byte, err error) {
	return f.ExtractBase(ctx, data, maxSize)
}
