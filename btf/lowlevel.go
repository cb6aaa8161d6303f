package btf

import (
	"github.com/kmeta-dev/kmeta/internal/btfraw/hook"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// The wire bytes behind the views, for kmeta's own packages that copy or
// print every record: internal/btfraw hands them out, so that they are not
// part of this package's API.
func init() {
	hook.BTF = &hook.Funcs[Type, Member, Param, EnumValue, Spec]{
		Record:        Type.rawRecord,
		TypeNameOff:   Type.nameOff,
		MemberNameOff: func(m Member) uint32 { return m.nameOff },
		ParamNameOff:  func(p Param) uint32 { return p.nameOff },
		EnumNameOff:   func(v EnumValue) uint32 { return v.nameOff },
		TypeSection:   (*Spec).typeSection,
		StringSection: (*Spec).stringSection,
		HeaderLen:     func(s *Spec) int { return int(s.hdr.HdrLen) },
		StringsRange:  stringsRange,
		Extract:       extract,
		ExtractBase:   extractBase,
	}
}

// rawRecord returns the bytes of t's type record, in host byte order: the
// 12-byte fixed part and what follows it; nil for void and once the Spec
// is closed.
func (t Type) rawRecord() []byte {
	r := t.rec()
	if r == nil {
		return nil
	}
	size, _ := t.spec.layouts.RecordSize(wire.Record(r).Info())
	return r[:size:size]
}

// typeSection returns the Spec's own type section, nil once it is closed.
func (s *Spec) typeSection() []byte {
	if !s.alive() {
		return nil
	}
	return s.types
}

// stringSection returns the Spec's own string section and the string
// offset of its first byte; nil and that offset once it is closed.
func (s *Spec) stringSection() (data []byte, start uint32) {
	if !s.alive() {
		return nil, s.strStart
	}
	return s.strs, s.strStart
}

// stringsRange returns the offset and length of the string section of raw
// BTF from its header, which head holds.
func stringsRange(head []byte) (off, n int64, err error) {
	_, _, hdr, err := parseHeader(head, true)
	if err != nil {
		return 0, 0, err
	}
	return int64(hdr.HdrLen) + int64(hdr.StrOff), int64(hdr.StrLen), nil
}
