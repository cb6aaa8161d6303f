package main

import (
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
)

// typeJSON is one BTF type in the JSON vocabulary (docs/json.md): the
// record of btf dump --json and btf find --json. Keys that do not apply to
// the type's kind, and the name of an anonymous type, are left out.
type typeJSON struct {
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
	Members      []memberJSON `json:"members,omitzero"`
	Values       []valueJSON  `json:"values,omitzero"`
	Params       []paramJSON  `json:"params,omitzero"`
	Vars         []varJSON    `json:"vars,omitzero"`
}

// memberJSON is a struct or union member.
type memberJSON struct {
	Name         string     `json:"name,omitempty"`
	TypeID       btf.TypeID `json:"type_id"`
	BitOffset    uint32     `json:"bit_offset"`
	BitfieldSize uint32     `json:"bitfield_size"`
}

// valueJSON is an enumerator: Value is an int64 for a signed enum, a
// uint64 for an unsigned one.
type valueJSON struct {
	Name  string `json:"name,omitempty"`
	Value any    `json:"value"`
}

// paramJSON is a function parameter; the last of a variadic function is
// unnamed, with type id 0.
type paramJSON struct {
	Name   string     `json:"name,omitempty"`
	TypeID btf.TypeID `json:"type_id"`
}

// varJSON is a variable of a DATASEC: offset and size in bytes.
type varJSON struct {
	TypeID btf.TypeID `json:"type_id"`
	Offset uint32     `json:"offset"`
	Size   uint32     `json:"size"`
}

func ptr[T any](v T) *T { return &v }

// kindJSON is the vocabulary's name of a kind: bpftool's, in lower case.
func kindJSON(k btf.Kind) string { return strings.ToLower(k.String()) }

// newTypeJSON converts t into its record.
func newTypeJSON(t btf.Type) typeJSON {
	j := typeJSON{ID: t.ID(), Kind: kindJSON(t.Kind()), Name: string(t.NameBytes())}
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
		j.Size, j.Members = ptr(t.Size()), []memberJSON{}
		for _, m := range t.Members() {
			j.Members = append(j.Members, memberJSON{string(m.NameBytes()), m.Type, m.BitOffset, m.BitfieldSize})
		}
	case btf.KindEnum, btf.KindEnum64:
		j.Size, j.Signed, j.Values = ptr(t.Size()), ptr(t.KindFlag()), []valueJSON{}
		for _, v := range t.EnumValues() {
			var val any = v.Value
			if v.Signed {
				val = v.Int64()
			}
			j.Values = append(j.Values, valueJSON{string(v.NameBytes()), val})
		}
	case btf.KindForward:
		j.FwdKind = "struct"
		if t.IsUnionForward() {
			j.FwdKind = "union"
		}
	case btf.KindFunc, btf.KindVar:
		j.TypeID, j.Linkage = ptr(t.Ref()), t.Linkage().String()
	case btf.KindFuncProto:
		j.RetTypeID, j.Params = ptr(t.Ref()), []paramJSON{}
		for _, p := range t.Params() {
			j.Params = append(j.Params, paramJSON{string(p.NameBytes()), p.Type})
		}
	case btf.KindDatasec:
		j.Size, j.Vars = ptr(t.Size()), []varJSON{}
		for _, v := range t.VarSecinfos() {
			j.Vars = append(j.Vars, varJSON{v.Type, v.Offset, v.Size})
		}
	case btf.KindFloat:
		j.Size = ptr(t.Size())
	case btf.KindDeclTag:
		j.TypeID, j.ComponentIdx = ptr(t.Ref()), ptr(t.ComponentIdx())
	}
	return j
}
