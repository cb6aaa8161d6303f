package ext

//go:generate go run golang.org/x/tools/cmd/stringer@v0.52.0 -type=Kind -linecomment -output=kind_string.go

// Kind is the kind of a CO-RE relocation (the kernel's enum
// bpf_core_relo_kind). String spells it as libbpf does.
//
// Its values are FieldByteOffset, FieldByteSize, FieldExists,
// FieldSigned, FieldLShiftU64, FieldRShiftU64, TypeIDLocal, TypeIDTarget,
// TypeExists, TypeSize, EnumvalExists, EnumvalValue and TypeMatches.
type Kind uint32

// The relocation kinds, with their numbers in the record.
const (
	FieldByteOffset Kind = 0  // byte_off
	FieldByteSize   Kind = 1  // byte_sz
	FieldExists     Kind = 2  // field_exists
	FieldSigned     Kind = 3  // signed
	FieldLShiftU64  Kind = 4  // lshift_u64
	FieldRShiftU64  Kind = 5  // rshift_u64
	TypeIDLocal     Kind = 6  // local_type_id
	TypeIDTarget    Kind = 7  // target_type_id
	TypeExists      Kind = 8  // type_exists
	TypeSize        Kind = 9  // type_size
	EnumvalExists   Kind = 10 // enumval_exists
	EnumvalValue    Kind = 11 // enumval_value
	TypeMatches     Kind = 12 // type_matches
)

// IsField reports whether k relocates a field access (kinds 0-5).
func (k Kind) IsField() bool { return k <= FieldRShiftU64 }

// IsType reports whether k is about a whole type (local or target id,
// existence, size, match).
func (k Kind) IsType() bool {
	switch k {
	case TypeIDLocal, TypeIDTarget, TypeExists, TypeSize, TypeMatches:
		return true
	}
	return false
}

// IsEnumval reports whether k is about an enumerator.
func (k Kind) IsEnumval() bool { return k == EnumvalExists || k == EnumvalValue }

// Known reports whether k is one of the kinds above.
func (k Kind) Known() bool { return k <= TypeMatches }

// ParseKind returns the kind that String spells s ("byte_off", ...).
func ParseKind(s string) (Kind, bool) {
	for k := FieldByteOffset; k <= TypeMatches; k++ {
		if k.String() == s {
			return k, true
		}
	}
	return 0, false
}
