package builder

import (
	"errors"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/recenc"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Builder accumulates BTF types and their strings, to be written with
// Marshal or MarshalELF. Types are added one at a time with the Add methods,
// or copied from a btf.Spec with Copy, CopyTypes and CopyAll.
//
// A Builder made by NewSplit writes split BTF on a base Spec: its ids
// continue after the base's last id, its types may refer to base types by
// their ids, and names found in the base's strings are referenced there.
//
// A Builder is not safe for concurrent use; distinct Builders are
// independent. It keeps a pointer to every Spec it copied from, so that
// later copies find earlier ones, but reads those Specs only during Copy
// calls; the base Spec is read while adding strings and in Marshal. The
// Specs must stay open for those calls only.
type Builder struct {
	base    *btf.Spec
	firstID btf.TypeID
	types   []byte // records, host byte order, ids and name offsets final
	n       uint32 // number of own types
	maxRef  btf.TypeID
	strs    strTable
	inPlace *inPlace              // WriteCopy's strings when they are its input's own
	refs    *refStrings           // WriteCopy's strings, as offsets of its input's
	recent  *recentNames          // WriteCopy's names met lately; nil outside it
	srcs    map[*btf.Spec]*source // Specs copied from, see copy.go
	many    bool                  // AllowManyTypes was called
	forgot  uint32                // types dropped by Forget, the first ones
	enc     encoder               // the Add methods' (see sink)
}

// view returns the bytes of s without copying them, for reading only: the
// string table hashes them and copies them into its own section, so that
// names cost no conversion (a DWARF encoder adds tens of millions).
func view(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// New returns an empty Builder for standalone BTF: its first type gets id 1.
func New() *Builder {
	return newBuilder(&Builder{firstID: 1, strs: newStrTable(nil, strtab.Options{})})
}

func newBuilder(b *Builder) *Builder {
	b.enc.Init((*sink)(b), recenc.Options{})
	return b
}

// NewSplit returns an empty Builder for split BTF on base (module BTF on
// vmlinux): its first type gets id base.LastID()+1. A nil base makes it New.
// The base must stay open while the Builder is used; a closed base gives
// btf.ErrClosed.
func NewSplit(base *btf.Spec) (*Builder, error) {
	if base == nil {
		return New(), nil
	}
	if _, err := base.TypeByID(0); err != nil {
		return nil, err
	}
	return newBuilder(&Builder{base: base, firstID: base.LastID() + 1, strs: newStrTable(base, strtab.Options{})}), nil
}

// Base returns the base Spec of a split Builder, or nil.
func (b *Builder) Base() *btf.Spec { return b.base }

// FirstID returns the id of the Builder's first type: 1, or the id after
// the base's last for split BTF.
func (b *Builder) FirstID() btf.TypeID { return b.firstID }

// NumTypes returns the number of types added so far (excluding void and
// the base's types).
func (b *Builder) NumTypes() int { return int(b.n) }

// NextID returns the id the next added type will get. Types may refer to ids
// not added yet (a pointer to a struct added later); Marshal checks that
// every referenced id exists by then.
func (b *Builder) NextID() btf.TypeID { return b.firstID + btf.TypeID(b.n) }

// LastID returns the id of the last type added: NextID()-1.
func (b *Builder) LastID() btf.TypeID { return b.NextID() - 1 }

// Limits of what a record can hold: elements (members, parameters,
// enumerators, variables) per type, and for a bitfield member its size
// and bit offset. Add* returns an error beyond them; producers that check
// ahead (dwarf2btf) compare with these.
const (
	MaxElems        = wire.MaxVlen
	MaxBitfieldSize = wire.MaxBitfieldSize
	MaxBitOffset    = wire.MaxBitOffset
)

// ErrTooManyTypes is returned when a Builder would hold more types than the
// kernel accepts (wire.MaxTypeID, about a million).
var ErrTooManyTypes = errors.New("builder: too many types")

// Member is a member of a STRUCT or UNION to add.
type Member struct {
	Name      string
	Type      btf.TypeID
	BitOffset uint32 // from the start of the composite, in bits
	// BitfieldSize is the width of a bitfield member, 0 for a plain member.
	// A composite with any bitfield member is written with the kind flag,
	// which limits BitOffset to 24 bits and BitfieldSize to 8.
	BitfieldSize uint32
}

// Param is a parameter of a FUNC_PROTO to add. Type 0 with no name is the
// "..." of a variadic function.
type Param struct {
	Name string
	Type btf.TypeID
}

// Enumerator is a value of an ENUM or ENUM64 to add. Value holds the raw
// bits; for ENUM it must fit in 32 bits, signed or unsigned.
type Enumerator struct {
	Name  string
	Value uint64
}

// encoder is the record encoder of Builders (and of dedup's Units).
type encoder = recenc.Encoder[Member, Param, Enumerator]

// sink is a Builder as the Sink of its encoder: each record is written
// into the encoder's words, then copied to the type section.
type sink Builder

func (b *sink) Str(s string) (uint32, bool, error) {
	off, err := b.strs.add(view(s))
	return off, false, err
}

func (b *sink) Begin() (btf.TypeID, error) {
	// An error leaves no partial record: the words start empty.
	b.enc.Reset(1)
	id := (*Builder)(b).NextID()
	if uint64(id) > (*Builder)(b).lastID() {
		return 0, ErrTooManyTypes
	}
	return id, nil
}

func (b *sink) End() {
	for _, w := range b.enc.W {
		b.types = wire.AppendWord(b.types, w)
	}
	b.n++
	b.maxRef = max(b.maxRef, btf.TypeID(b.enc.MaxRef))
}

func (b *sink) Fail(err error) error { return pkgerr.Errorf("builder: %w", err) }

// AddInt adds an INT of size bytes. An error is returned when the Builder
// is full or the name contains a NUL byte, as for every Add method.
func (b *Builder) AddInt(name string, size uint32, info btf.IntInfo) (btf.TypeID, error) {
	return b.enc.AddInt(name, size, info)
}

// AddPointer adds a PTR to target (0 for void *).
func (b *Builder) AddPointer(target btf.TypeID) (btf.TypeID, error) {
	return b.enc.AddPointer(target)
}

// AddArray adds an ARRAY.
func (b *Builder) AddArray(a btf.ArrayInfo) (btf.TypeID, error) {
	return b.enc.AddArray(a)
}

// AddStruct adds a STRUCT of size bytes; an empty name makes it anonymous.
func (b *Builder) AddStruct(name string, size uint32, members []Member) (btf.TypeID, error) {
	return b.enc.AddStruct(name, size, members)
}

// AddUnion adds a UNION of size bytes; an empty name makes it anonymous.
func (b *Builder) AddUnion(name string, size uint32, members []Member) (btf.TypeID, error) {
	return b.enc.AddUnion(name, size, members)
}

// AddEnum adds a 32-bit ENUM of size bytes (1, 2, 4 or 8 as the compiler
// chose); signed sets the kind flag that marks signed values. A value that
// does not fit in 32 bits gives an error.
func (b *Builder) AddEnum(name string, size uint32, signed bool, values []Enumerator) (btf.TypeID, error) {
	return b.enc.AddEnum(name, size, signed, values)
}

// AddEnum64 adds an ENUM64 of size bytes; signed sets the kind flag.
func (b *Builder) AddEnum64(name string, size uint32, signed bool, values []Enumerator) (btf.TypeID, error) {
	return b.enc.AddEnum64(name, size, signed, values)
}

// AddForward adds a FWD: a declaration of a struct, or with union set of a
// union, defined elsewhere. The kernel requires a name.
func (b *Builder) AddForward(name string, union bool) (btf.TypeID, error) {
	return b.enc.AddForward(name, union)
}

// AddTypedef adds a TYPEDEF of target named name.
func (b *Builder) AddTypedef(name string, target btf.TypeID) (btf.TypeID, error) {
	return b.enc.AddTypedef(name, target)
}

// AddVolatile adds a VOLATILE qualifier of target.
func (b *Builder) AddVolatile(target btf.TypeID) (btf.TypeID, error) {
	return b.enc.AddVolatile(target)
}

// AddConst adds a CONST qualifier of target.
func (b *Builder) AddConst(target btf.TypeID) (btf.TypeID, error) {
	return b.enc.AddConst(target)
}

// AddRestrict adds a RESTRICT qualifier of target.
func (b *Builder) AddRestrict(target btf.TypeID) (btf.TypeID, error) {
	return b.enc.AddRestrict(target)
}

// AddTypeTag adds a TYPE_TAG with the given value on target. attr sets the
// kind flag, which marks the value as an __attribute__ rather than a
// btf_type_tag (kernels before 6.13 reject it).
func (b *Builder) AddTypeTag(value string, target btf.TypeID, attr bool) (btf.TypeID, error) {
	return b.enc.AddTypeTag(value, target, attr)
}

// AddFunc adds a FUNC named name with prototype proto (a FUNC_PROTO).
func (b *Builder) AddFunc(name string, proto btf.TypeID, linkage btf.Linkage) (btf.TypeID, error) {
	return b.enc.AddFunc(name, proto, linkage)
}

// AddFuncProto adds an anonymous FUNC_PROTO returning ret (0 for void).
func (b *Builder) AddFuncProto(ret btf.TypeID, params []Param) (btf.TypeID, error) {
	return b.enc.AddFuncProto(ret, params)
}

// AddVar adds a VAR named name of type typ.
func (b *Builder) AddVar(name string, typ btf.TypeID, linkage btf.Linkage) (btf.TypeID, error) {
	return b.enc.AddVar(name, typ, linkage)
}

// AddDatasec adds a DATASEC of size bytes holding the given variables.
func (b *Builder) AddDatasec(name string, size uint32, vars []btf.VarSecinfo) (btf.TypeID, error) {
	return b.enc.AddDatasec(name, size, vars)
}

// AddFloat adds a FLOAT of size bytes.
func (b *Builder) AddFloat(name string, size uint32) (btf.TypeID, error) {
	return b.enc.AddFloat(name, size)
}

// AddDeclTag adds a DECL_TAG with the given value on target: on the type
// itself when componentIdx is -1, else on its member or parameter of that
// index. attr sets the kind flag (an __attribute__, kernel 6.13 and later).
func (b *Builder) AddDeclTag(value string, target btf.TypeID, componentIdx int32, attr bool) (btf.TypeID, error) {
	return b.enc.AddDeclTag(value, target, componentIdx, attr)
}
