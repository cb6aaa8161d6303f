package wire

//go:generate go tool stringer -type=Kind -linecomment -output=kind_string.go

// Kind is the kind of a BTF type record: bits 24-28 of its info word.
type Kind uint8

// The kinds defined by the kernel today, spelled as bpftool prints them.
const (
	KindUnknown   Kind = iota // UNKNOWN
	KindInt                   // INT
	KindPointer               // PTR
	KindArray                 // ARRAY
	KindStruct                // STRUCT
	KindUnion                 // UNION
	KindEnum                  // ENUM
	KindForward               // FWD
	KindTypedef               // TYPEDEF
	KindVolatile              // VOLATILE
	KindConst                 // CONST
	KindRestrict              // RESTRICT
	KindFunc                  // FUNC
	KindFuncProto             // FUNC_PROTO
	KindVar                   // VAR
	KindDatasec               // DATASEC
	KindFloat                 // FLOAT
	KindDeclTag               // DECL_TAG
	KindTypeTag               // TYPE_TAG
	KindEnum64                // ENUM64
)

// NumKinds is one more than the largest kind this package knows.
const NumKinds = int(KindEnum64) + 1

// MaxKind is the largest kind number the info word can hold (5 bits).
const MaxKind = 0x1f
