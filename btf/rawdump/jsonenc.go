package rawdump

import (
	"strconv"

	"github.com/kmeta-dev/kmeta/internal/jsonenc"
)

// appendRecord appends j as encoding/json writes it (keys in the struct's
// order, its omitempty and omitzero rules, HTML not escaped) and a
// newline: the JSON Lines of WriteJSON without reflection, which took
// most of its time. spill takes what a long list has appended so far and
// returns the buffer to go on with, so that a record of 65,535 members
// does not grow it to its whole length.
func appendRecord(b []byte, j *JSONType, spill func([]byte) []byte) []byte {
	b = strconv.AppendUint(append(b, `{"id":`...), uint64(j.ID), 10)
	b = jsonenc.AppendString(append(b, `,"kind":`...), j.Kind)
	if j.Name != "" {
		b = jsonenc.AppendString(append(b, `,"name":`...), j.Name)
	}
	b = appendUint(b, `,"size":`, j.Size)
	b = appendUint(b, `,"type_id":`, j.TypeID)
	if j.Encoding != "" {
		b = jsonenc.AppendString(append(b, `,"encoding":`...), j.Encoding)
	}
	b = appendUint(b, `,"bit_offset":`, j.BitOffset)
	b = appendUint(b, `,"nr_bits":`, j.NrBits)
	if j.Signed != nil {
		b = strconv.AppendBool(append(b, `,"signed":`...), *j.Signed)
	}
	b = appendUint(b, `,"index_type_id":`, j.IndexTypeID)
	b = appendUint(b, `,"nr_elems":`, j.NrElems)
	b = appendUint(b, `,"ret_type_id":`, j.RetTypeID)
	if j.FwdKind != "" {
		b = jsonenc.AppendString(append(b, `,"fwd_kind":`...), j.FwdKind)
	}
	if j.Linkage != "" {
		b = jsonenc.AppendString(append(b, `,"linkage":`...), j.Linkage)
	}
	if j.ComponentIdx != nil {
		b = strconv.AppendInt(append(b, `,"component_idx":`...), int64(*j.ComponentIdx), 10)
	}
	b = appendList(b, `,"members":`, j.Members, appendMember, spill)
	b = appendList(b, `,"values":`, j.Values, appendValue, spill)
	b = appendList(b, `,"params":`, j.Params, appendParam, spill)
	b = appendList(b, `,"vars":`, j.Vars, appendVar, spill)
	return append(b, "}\n"...)
}

// appendUint appends key and *v, if v is not nil.
func appendUint[T ~uint8 | ~uint32](b []byte, key string, v *T) []byte {
	if v == nil {
		return b
	}
	return strconv.AppendUint(append(b, key...), uint64(*v), 10)
}

// appendList appends key and the elements of s as a JSON array, if s is
// not nil (omitzero: an empty list that applies is written), handing b to
// spill whenever it passes spillAt bytes.
func appendList[T any](b []byte, key string, s []T, elem func([]byte, *T) []byte, spill func([]byte) []byte) []byte {
	if s == nil {
		return b
	}
	b = append(append(b, key...), '[')
	for i := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, &s[i])
		if len(b) >= spillAt {
			b = spill(b)
		}
	}
	return append(b, ']')
}

// spillAt is the length past which appendList hands its buffer on.
const spillAt = 32 << 10

func appendMember(b []byte, m *JSONMember) []byte {
	b = appendName(append(b, '{'), m.Name)
	b = strconv.AppendUint(append(b, `"type_id":`...), uint64(m.TypeID), 10)
	b = strconv.AppendUint(append(b, `,"bit_offset":`...), uint64(m.BitOffset), 10)
	b = strconv.AppendUint(append(b, `,"bitfield_size":`...), uint64(m.BitfieldSize), 10)
	return append(b, '}')
}

func appendValue(b []byte, v *JSONValue) []byte {
	b = appendName(append(b, '{'), v.Name)
	b = append(b, `"value":`...)
	switch x := v.Value.(type) {
	case int64:
		b = strconv.AppendInt(b, x, 10)
	case uint64:
		b = strconv.AppendUint(b, x, 10)
	}
	return append(b, '}')
}

func appendParam(b []byte, p *JSONParam) []byte {
	b = appendName(append(b, '{'), p.Name)
	b = strconv.AppendUint(append(b, `"type_id":`...), uint64(p.TypeID), 10)
	return append(b, '}')
}

func appendVar(b []byte, v *JSONVar) []byte {
	b = strconv.AppendUint(append(b, `{"type_id":`...), uint64(v.TypeID), 10)
	b = strconv.AppendUint(append(b, `,"offset":`...), uint64(v.Offset), 10)
	b = strconv.AppendUint(append(b, `,"size":`...), uint64(v.Size), 10)
	return append(b, '}')
}

// appendName appends a leading "name" key and a comma, if name is not
// empty.
func appendName(b []byte, name string) []byte {
	if name == "" {
		return b
	}
	return append(jsonenc.AppendString(append(b, `"name":`...), name), ',')
}
