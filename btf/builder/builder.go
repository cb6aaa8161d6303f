package builder

import (
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
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
	srcs    map[*btf.Spec]*source // Specs copied from, see copy.go
	many    bool                  // AllowManyTypes was called
	forgot  uint32                // types dropped by Forget, the first ones
	offs    []uint32              // names' scratch
}

// view returns the bytes of s without copying them, for reading only: the
// string table hashes them and copies them into its own section, so that
// names cost no conversion (a DWARF encoder adds tens of millions).
func view(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// New returns an empty Builder for standalone BTF: its first type gets id 1.
func New() *Builder {
	return &Builder{firstID: 1, strs: newStrTable(nil)}
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
	return &Builder{base: base, firstID: base.LastID() + 1, strs: newStrTable(base)}, nil
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

// KindFlag reports whether a STRUCT or UNION of members is written with
// the kind flag (some member is a bitfield), and then checks that every
// member's bitfield size and offset fit the packed offset word. Writers
// of records with the Builder's arguments (dedup.Unit) share it.
func KindFlag(members []Member) (bool, error) {
	kflag := false
	for _, m := range members {
		kflag = kflag || m.BitfieldSize != 0
	}
	if kflag {
		for _, m := range members {
			if m.BitfieldSize > wire.MaxBitfieldSize || m.BitOffset > wire.MaxBitOffset {
				return true, fmt.Errorf("member %q: bitfield size %d or offset %d too large", m.Name, m.BitfieldSize, m.BitOffset)
			}
		}
	}
	return kflag, nil
}

// CheckEnum32 reports an error for the first of values that does not fit
// a 32-bit ENUM's values, signed or not.
func CheckEnum32(values []Enumerator) error {
	for _, v := range values {
		if fits := v.Value <= 0xffffffff || int64(v.Value) >= -1<<31 && int64(v.Value) < 0; !fits {
			return fmt.Errorf("value %q = %#x does not fit in 32 bits", v.Name, v.Value)
		}
	}
	return nil
}

// begin checks that one more type fits and writes its fixed part.
func (b *Builder) begin(name []byte, k btf.Kind, vlen int, kflag bool, sizeType uint32) (btf.TypeID, error) {
	if vlen < 0 || vlen > wire.MaxVlen {
		return 0, fmt.Errorf("builder: %v with %d elements, at most %d", k, vlen, wire.MaxVlen)
	}
	id := b.NextID()
	if id > wire.MaxTypeID && (!b.many || id >= 1<<31) {
		return 0, ErrTooManyTypes
	}
	off, err := b.strs.add(name)
	if err != nil {
		return 0, fmt.Errorf("builder: %v name: %w", k, err)
	}
	b.types = wire.AppendFixed(b.types, off, wire.Info(wire.Kind(k), vlen, kflag), sizeType)
	b.n++
	return id, nil
}

func (b *Builder) word(w uint32) { b.types = wire.AppendWord(b.types, w) }

func (b *Builder) ref(id btf.TypeID) uint32 {
	b.maxRef = max(b.maxRef, id)
	return uint32(id)
}

// addRef adds a kind whose record is a name and one type id.
func (b *Builder) addRef(name string, k btf.Kind, vlen int, kflag bool, target btf.TypeID) (btf.TypeID, error) {
	return b.begin(view(name), k, vlen, kflag, b.ref(target))
}

// AddInt adds an INT of size bytes. An error is returned when the Builder
// is full or the name contains a NUL byte, as for every Add method.
func (b *Builder) AddInt(name string, size uint32, info btf.IntInfo) (btf.TypeID, error) {
	id, err := b.begin(view(name), btf.KindInt, 0, false, size)
	if err == nil {
		b.word(wire.IntWord(info.Encoding, info.Offset, info.Bits))
	}
	return id, err
}

// AddPointer adds a PTR to target (0 for void *).
func (b *Builder) AddPointer(target btf.TypeID) (btf.TypeID, error) {
	return b.addRef("", btf.KindPointer, 0, false, target)
}

// AddArray adds an ARRAY.
func (b *Builder) AddArray(a btf.ArrayInfo) (btf.TypeID, error) {
	id, err := b.begin(nil, btf.KindArray, 0, false, 0)
	if err == nil {
		b.word(b.ref(a.Type))
		b.word(b.ref(a.Index))
		b.word(a.Nelems)
	}
	return id, err
}

// AddStruct adds a STRUCT of size bytes; an empty name makes it anonymous.
func (b *Builder) AddStruct(name string, size uint32, members []Member) (btf.TypeID, error) {
	return b.addComposite(name, btf.KindStruct, size, members)
}

// AddUnion adds a UNION of size bytes; an empty name makes it anonymous.
func (b *Builder) AddUnion(name string, size uint32, members []Member) (btf.TypeID, error) {
	return b.addComposite(name, btf.KindUnion, size, members)
}

func (b *Builder) addComposite(name string, k btf.Kind, size uint32, members []Member) (btf.TypeID, error) {
	kflag, err := KindFlag(members)
	if err != nil {
		return 0, fmt.Errorf("builder: %v %q %w", k, name, err)
	}
	offs, err := b.names(len(members), func(i int) string { return members[i].Name })
	if err != nil {
		return 0, err
	}
	id, err := b.begin(view(name), k, len(members), kflag, size)
	if err != nil {
		return 0, err
	}
	for i, m := range members {
		b.word(offs[i])
		b.word(b.ref(m.Type))
		if kflag {
			b.word(wire.MemberOffsetWord(m.BitfieldSize, m.BitOffset))
		} else {
			b.word(m.BitOffset)
		}
	}
	return id, nil
}

// names interns the names of a record's elements before the record is
// started, so that an error leaves no partial record. The offsets are in
// b.offs, valid until the next call.
func (b *Builder) names(n int, name func(int) string) ([]uint32, error) {
	if n > wire.MaxVlen {
		return nil, fmt.Errorf("builder: %d elements, at most %d", n, wire.MaxVlen)
	}
	offs := slices.Grow(b.offs[:0], n)[:n]
	b.offs = offs
	for i := range offs {
		off, err := b.strs.add(view(name(i)))
		if err != nil {
			return nil, fmt.Errorf("builder: element %d: %w", i, err)
		}
		offs[i] = off
	}
	return offs, nil
}

// AddEnum adds a 32-bit ENUM of size bytes (1, 2, 4 or 8 as the compiler
// chose); signed sets the kind flag that marks signed values. A value that
// does not fit in 32 bits gives an error.
func (b *Builder) AddEnum(name string, size uint32, signed bool, values []Enumerator) (btf.TypeID, error) {
	if err := CheckEnum32(values); err != nil {
		return 0, fmt.Errorf("builder: ENUM %q %w", name, err)
	}
	offs, err := b.names(len(values), func(i int) string { return values[i].Name })
	if err != nil {
		return 0, err
	}
	id, err := b.begin(view(name), btf.KindEnum, len(values), signed, size)
	if err != nil {
		return 0, err
	}
	for i, v := range values {
		b.word(offs[i])
		b.word(uint32(v.Value))
	}
	return id, nil
}

// AddEnum64 adds an ENUM64 of size bytes; signed sets the kind flag.
func (b *Builder) AddEnum64(name string, size uint32, signed bool, values []Enumerator) (btf.TypeID, error) {
	offs, err := b.names(len(values), func(i int) string { return values[i].Name })
	if err != nil {
		return 0, err
	}
	id, err := b.begin(view(name), btf.KindEnum64, len(values), signed, size)
	if err != nil {
		return 0, err
	}
	for i, v := range values {
		b.word(offs[i])
		b.word(uint32(v.Value))
		b.word(uint32(v.Value >> 32))
	}
	return id, nil
}

// AddForward adds a FWD: a declaration of a struct, or with union set of a
// union, defined elsewhere. The kernel requires a name.
func (b *Builder) AddForward(name string, union bool) (btf.TypeID, error) {
	return b.begin(view(name), btf.KindForward, 0, union, 0)
}

// AddTypedef adds a TYPEDEF of target named name.
func (b *Builder) AddTypedef(name string, target btf.TypeID) (btf.TypeID, error) {
	return b.addRef(name, btf.KindTypedef, 0, false, target)
}

// AddVolatile adds a VOLATILE qualifier of target.
func (b *Builder) AddVolatile(target btf.TypeID) (btf.TypeID, error) {
	return b.addRef("", btf.KindVolatile, 0, false, target)
}

// AddConst adds a CONST qualifier of target.
func (b *Builder) AddConst(target btf.TypeID) (btf.TypeID, error) {
	return b.addRef("", btf.KindConst, 0, false, target)
}

// AddRestrict adds a RESTRICT qualifier of target.
func (b *Builder) AddRestrict(target btf.TypeID) (btf.TypeID, error) {
	return b.addRef("", btf.KindRestrict, 0, false, target)
}

// AddTypeTag adds a TYPE_TAG with the given value on target. attr sets the
// kind flag, which marks the value as an __attribute__ rather than a
// btf_type_tag (kernels before 6.13 reject it).
func (b *Builder) AddTypeTag(value string, target btf.TypeID, attr bool) (btf.TypeID, error) {
	return b.addRef(value, btf.KindTypeTag, 0, attr, target)
}

// AddFunc adds a FUNC named name with prototype proto (a FUNC_PROTO).
func (b *Builder) AddFunc(name string, proto btf.TypeID, linkage btf.Linkage) (btf.TypeID, error) {
	return b.addRef(name, btf.KindFunc, int(linkage), false, proto)
}

// AddFuncProto adds an anonymous FUNC_PROTO returning ret (0 for void).
func (b *Builder) AddFuncProto(ret btf.TypeID, params []Param) (btf.TypeID, error) {
	offs, err := b.names(len(params), func(i int) string { return params[i].Name })
	if err != nil {
		return 0, err
	}
	id, err := b.begin(nil, btf.KindFuncProto, len(params), false, b.ref(ret))
	if err != nil {
		return 0, err
	}
	for i, p := range params {
		b.word(offs[i])
		b.word(b.ref(p.Type))
	}
	return id, nil
}

// AddVar adds a VAR named name of type typ.
func (b *Builder) AddVar(name string, typ btf.TypeID, linkage btf.Linkage) (btf.TypeID, error) {
	id, err := b.addRef(name, btf.KindVar, 0, false, typ)
	if err == nil {
		b.word(uint32(linkage))
	}
	return id, err
}

// AddDatasec adds a DATASEC of size bytes holding the given variables.
func (b *Builder) AddDatasec(name string, size uint32, vars []btf.VarSecinfo) (btf.TypeID, error) {
	id, err := b.begin(view(name), btf.KindDatasec, len(vars), false, size)
	if err != nil {
		return 0, err
	}
	for _, v := range vars {
		b.word(b.ref(v.Type))
		b.word(v.Offset)
		b.word(v.Size)
	}
	return id, nil
}

// AddFloat adds a FLOAT of size bytes.
func (b *Builder) AddFloat(name string, size uint32) (btf.TypeID, error) {
	return b.begin(view(name), btf.KindFloat, 0, false, size)
}

// AddDeclTag adds a DECL_TAG with the given value on target: on the type
// itself when componentIdx is -1, else on its member or parameter of that
// index. attr sets the kind flag (an __attribute__, kernel 6.13 and later).
func (b *Builder) AddDeclTag(value string, target btf.TypeID, componentIdx int32, attr bool) (btf.TypeID, error) {
	id, err := b.addRef(value, btf.KindDeclTag, 0, attr, target)
	if err == nil {
		b.word(uint32(componentIdx))
	}
	return id, err
}
