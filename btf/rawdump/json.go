package rawdump

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/kmeta-dev/kmeta/btf"
)

// JSONType is one type as WriteJSON prints it. The keys follow bpftool's
// "btf dump -j" output; fields that do not apply to the kind are omitted.
type JSONType struct {
	ID           btf.TypeID   `json:"id"`
	Kind         string       `json:"kind"`
	Name         string       `json:"name"`
	Size         *uint32      `json:"size,omitempty"`
	BitsOffset   *uint8       `json:"bits_offset,omitempty"`
	NrBits       *uint8       `json:"nr_bits,omitempty"`
	Encoding     string       `json:"encoding,omitempty"`
	TypeID       *btf.TypeID  `json:"type_id,omitempty"`
	IndexTypeID  *btf.TypeID  `json:"index_type_id,omitempty"`
	NrElems      *uint32      `json:"nr_elems,omitempty"`
	RetTypeID    *btf.TypeID  `json:"ret_type_id,omitempty"`
	Vlen         *int         `json:"vlen,omitempty"`
	FwdKind      string       `json:"fwd_kind,omitempty"`
	Linkage      string       `json:"linkage,omitempty"`
	ComponentIdx *int32       `json:"component_idx,omitempty"`
	Members      []JSONMember `json:"members,omitzero"`
	Values       []JSONValue  `json:"values,omitzero"`
	Params       []JSONMember `json:"params,omitzero"`
	Vars         []JSONVar    `json:"vars,omitzero"`
}

// JSONMember is a struct or union member, or a function parameter.
type JSONMember struct {
	Name         string     `json:"name"`
	TypeID       btf.TypeID `json:"type_id"`
	BitsOffset   *uint32    `json:"bits_offset,omitempty"`
	BitfieldSize uint32     `json:"bitfield_size,omitempty"`
}

// JSONValue is an enumerator; Val is a signed or unsigned integer.
type JSONValue struct {
	Name string `json:"name"`
	Val  any    `json:"val"`
}

// JSONVar is a variable of a DATASEC.
type JSONVar struct {
	TypeID btf.TypeID `json:"type_id"`
	Offset uint32     `json:"offset"`
	Size   uint32     `json:"size"`
}

// WriteJSON prints the types selected by opts as {"types":[...]}, one
// JSONType per line.
func WriteJSON(w io.Writer, s *btf.Spec, opts Options) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("{\"types\":[")
	first := true
	for _, t := range s.Types(opts.Scope) {
		if !first {
			bw.WriteByte(',')
		}
		first = false
		bw.WriteByte('\n')
		b, err := json.Marshal(ToJSON(t))
		if err != nil {
			return err
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	if _, err := s.TypeByID(0); err != nil {
		return err
	}
	bw.WriteString("\n]}\n")
	return bw.Flush()
}

func ptr[T any](v T) *T { return &v }

func name(off uint32, b []byte) string {
	if off == 0 {
		return "(anon)"
	}
	return string(b)
}

// ToJSON converts one type to its JSON form.
func ToJSON(t btf.Type) JSONType {
	j := JSONType{ID: t.ID(), Kind: kindName(t.Kind()), Name: name(t.NameOffset(), t.NameBytes())}
	switch k := t.Kind(); k {
	case btf.KindInt:
		ii := t.Int()
		j.Size, j.BitsOffset, j.NrBits, j.Encoding = ptr(t.Size()), ptr(ii.Offset), ptr(ii.Bits), intEncoding(ii.Encoding)
	case btf.KindPointer, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
		j.TypeID = ptr(t.Ref())
	case btf.KindArray:
		a := t.Array()
		j.TypeID, j.IndexTypeID, j.NrElems = ptr(a.Type), ptr(a.Index), ptr(a.Nelems)
	case btf.KindStruct, btf.KindUnion:
		j.Size, j.Vlen, j.Members = ptr(t.Size()), ptr(t.Vlen()), []JSONMember{}
		for _, m := range t.Members() {
			j.Members = append(j.Members, JSONMember{name(m.NameOffset(), m.NameBytes()), m.Type, ptr(m.BitOffset), m.BitfieldSize})
		}
	case btf.KindEnum, btf.KindEnum64:
		j.Encoding, j.Size, j.Vlen, j.Values = "UNSIGNED", ptr(t.Size()), ptr(t.Vlen()), []JSONValue{}
		if t.KindFlag() {
			j.Encoding = "SIGNED"
		}
		for _, v := range t.EnumValues() {
			var val any = v.Value
			if v.Signed {
				val = v.Int64()
			}
			j.Values = append(j.Values, JSONValue{name(v.NameOffset(), v.NameBytes()), val})
		}
	case btf.KindForward:
		j.FwdKind = "struct"
		if t.IsUnionForward() {
			j.FwdKind = "union"
		}
	case btf.KindFunc, btf.KindVar:
		j.TypeID, j.Linkage = ptr(t.Ref()), t.Linkage().String()
	case btf.KindFuncProto:
		j.RetTypeID, j.Vlen, j.Params = ptr(t.Ref()), ptr(t.Vlen()), []JSONMember{}
		for _, p := range t.Params() {
			j.Params = append(j.Params, JSONMember{Name: name(p.NameOffset(), p.NameBytes()), TypeID: p.Type})
		}
	case btf.KindDatasec:
		j.Size, j.Vlen, j.Vars = ptr(t.Size()), ptr(t.Vlen()), []JSONVar{}
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
