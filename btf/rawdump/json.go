package rawdump

import (
	"bufio"
	"io"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// JSONType is one BTF type in kmeta's JSON vocabulary (docs/json.md in the
// repository): the record of "kmeta btf dump --json" and "kmeta btf find
// --json". Keys that do not apply to the type's kind, and the name of an
// anonymous type, are left out; lists that apply are written even when
// empty.
type JSONType struct {
	ID           btf.TypeID   `json:"id"`
	Kind         string       `json:"kind"`
	Name         string       `json:"name,omitempty"`
	Size         *uint32      `json:"size,omitempty"`
	TypeID       *btf.TypeID  `json:"type_id,omitempty"`
	Encoding     string       `json:"encoding,omitempty"`   // int: none, signed, char, bool
	BitOffset    *uint8       `json:"bit_offset,omitempty"` // int
	NrBits       *uint8       `json:"nr_bits,omitempty"`    // int
	Signed       *bool        `json:"signed,omitempty"`     // enum, enum64
	IndexTypeID  *btf.TypeID  `json:"index_type_id,omitempty"`
	NrElems      *uint32      `json:"nr_elems,omitempty"`
	RetTypeID    *btf.TypeID  `json:"ret_type_id,omitempty"`
	FwdKind      string       `json:"fwd_kind,omitempty"` // struct, union
	Linkage      string       `json:"linkage,omitempty"`  // static, global, extern
	ComponentIdx *int32       `json:"component_idx,omitempty"`
	Members      []JSONMember `json:"members,omitzero"`
	Values       []JSONValue  `json:"values,omitzero"`
	Params       []JSONParam  `json:"params,omitzero"`
	Vars         []JSONVar    `json:"vars,omitzero"`
}

// JSONMember is a struct or union member; BitfieldSize is 0 for a member
// that is no bitfield.
type JSONMember struct {
	Name         string     `json:"name,omitempty"`
	TypeID       btf.TypeID `json:"type_id"`
	BitOffset    uint32     `json:"bit_offset"`
	BitfieldSize uint32     `json:"bitfield_size"`
}

// JSONValue is an enumerator: Value is an int64 for a signed enum, a
// uint64 for an unsigned one.
type JSONValue struct {
	Name  string `json:"name,omitempty"`
	Value any    `json:"value"`
}

// JSONParam is a function parameter; the last of a variadic function is
// unnamed, with type id 0.
type JSONParam struct {
	Name   string     `json:"name,omitempty"`
	TypeID btf.TypeID `json:"type_id"`
}

// JSONVar is a variable of a DATASEC: offset and size in bytes.
type JSONVar struct {
	TypeID btf.TypeID `json:"type_id"`
	Offset uint32     `json:"offset"`
	Size   uint32     `json:"size"`
}

// WriteJSON prints the types selected by opts as JSON Lines: one compact
// JSONType a line, with <, > and & not escaped. It returns the first error
// from w, btf.ErrClosed, or the error of a bad record that a lazily opened
// Spec finds on the way.
func WriteJSON(w io.Writer, s *btf.Spec, opts Options) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var werr error
	spill := func(b []byte) []byte {
		if werr == nil {
			_, werr = bw.Write(b)
		}
		return b[:0]
	}
	var line []byte
	for _, t := range s.Types(opts.Scope) {
		j := ToJSON(t)
		line = spill(appendRecord(line[:0], &j, spill))
		if werr != nil {
			return werr
		}
	}
	if _, err := s.TypeByID(0); err != nil {
		return err
	}
	if err := s.Err(); err != nil {
		// A lazy Spec's iteration stopped before a record that fails
		// its check.
		return pkgerr.Errorf("rawdump: %w", err)
	}
	return bw.Flush()
}

func ptr[T any](v T) *T { return &v }

// ToJSON converts one type to its record.
func ToJSON(t btf.Type) JSONType {
	j := JSONType{ID: t.ID(), Kind: strings.ToLower(t.Kind().String()), Name: string(t.NameBytes())}
	switch t.Kind() {
	case btf.KindInt:
		ii := t.Int()
		j.Size, j.BitOffset, j.NrBits, j.Encoding = ptr(t.Size()), ptr(ii.Offset), ptr(ii.Bits), ii.EncodingName()
	case btf.KindPointer, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
		j.TypeID = ptr(t.Ref())
	case btf.KindArray:
		a := t.Array()
		j.TypeID, j.IndexTypeID, j.NrElems = ptr(a.Type), ptr(a.Index), ptr(a.Nelems)
	case btf.KindStruct, btf.KindUnion:
		j.Size, j.Members = ptr(t.Size()), make([]JSONMember, 0, t.Vlen())
		for _, m := range t.Members() {
			j.Members = append(j.Members, JSONMember{string(m.NameBytes()), m.Type, m.BitOffset, m.BitfieldSize})
		}
	case btf.KindEnum, btf.KindEnum64:
		j.Size, j.Signed, j.Values = ptr(t.Size()), ptr(t.KindFlag()), make([]JSONValue, 0, t.Vlen())
		for _, v := range t.EnumValues() {
			var val any = v.Value
			if v.Signed {
				val = v.Int64()
			}
			j.Values = append(j.Values, JSONValue{string(v.NameBytes()), val})
		}
	case btf.KindForward:
		j.FwdKind = "struct"
		if t.IsUnionForward() {
			j.FwdKind = "union"
		}
	case btf.KindFunc, btf.KindVar:
		j.TypeID, j.Linkage = ptr(t.Ref()), t.Linkage().String()
	case btf.KindFuncProto:
		j.RetTypeID, j.Params = ptr(t.Ref()), make([]JSONParam, 0, t.Vlen())
		for _, p := range t.Params() {
			j.Params = append(j.Params, JSONParam{string(p.NameBytes()), p.Type})
		}
	case btf.KindDatasec:
		j.Size, j.Vars = ptr(t.Size()), make([]JSONVar, 0, t.Vlen())
		for _, v := range t.VarSecinfos() {
			j.Vars = append(j.Vars, JSONVar{v.Type, v.Offset, v.Size})
		}
	case btf.KindFloat:
		j.Size = ptr(t.Size())
	case btf.KindDeclTag:
		j.TypeID, j.ComponentIdx = ptr(t.Ref()), ptr(t.ComponentIdx())
	}
	return j
}
