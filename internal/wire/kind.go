package wire

// Kind is the kind of a BTF type record: bits 24-28 of its info word. Its
// names for people, and its String method, are btf.Kind's.
type Kind uint8

// The kinds defined by the kernel today (include/uapi/linux/btf.h).
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
