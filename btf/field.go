package btf

import (
	"errors"
	"fmt"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"math"
	"strconv"
	"strings"
)

// Field is a member of a struct or union reached by a path of member names
// and array indexes, as Spec.Field and Type.Field find it: the answer of
// pahole -C for one member, or of bpf_core_field_offset and its siblings.
type Field struct {
	// Type is the field's declared type: typedefs and qualifiers are kept,
	// as in Member.Type. After an array index it is the element type.
	Type Type
	// BitOffset is the field's offset from the start of the type the path
	// starts at, in bits. For a member of an anonymous struct or union it
	// includes the anonymous member's offset.
	BitOffset uint64
	// BitfieldSize is the field's width in bits when it is a bitfield, and
	// 0 otherwise.
	BitfieldSize uint32
	// Size is the size in bytes of the field's type; for a bitfield, that of
	// the integer type it is declared with.
	Size uint32
}

// Offset returns the field's offset in bytes (BitOffset / 8): for a
// bitfield, the byte that holds its first bit; BitOffset % 8 is then the
// bit within that byte.
func (f Field) Offset() uint64 { return f.BitOffset / 8 }

// maxFieldPath bounds the number of steps in a field path, so that a path
// string cannot make a lookup run long; real paths have a handful.
const maxFieldPath = 64

// Field finds a field by a path that starts with a type's name:
// "task_struct.pid", "sk_buff.cb[4]", "sock.__sk_common.skc_family". The
// type is a struct or union of that name, or a typedef of one; the rest of
// the path is as for Type.Field. It searches the whole split chain
// (ScopeAll); several different types of that name give an error wrapping
// ErrMultipleMatches, none one wrapping ErrNotFound.
func (s *Spec) Field(path string) (Field, error) {
	name, rest := path, ""
	if i := strings.IndexAny(path, ".["); i >= 0 {
		name, rest = path[:i], path[i:]
		if rest[0] == '.' {
			if rest = rest[1:]; rest == "" {
				return Field{}, fmt.Errorf("btf: field path %q: ends with a dot", path)
			}
		}
	}
	if name == "" {
		return Field{}, fmt.Errorf("btf: field path %q: no type name before the first member", path)
	}
	t, err := s.compositeNamed(name)
	if err != nil {
		return Field{}, pkgerr.Errorf("btf: field path %q: %w", path, err)
	}
	return t.Field(rest)
}

// compositeNamed returns the struct or union called name: one of those
// kinds, or failing that a typedef that resolves to one. Several distinct
// types are ErrMultipleMatches.
func (s *Spec) compositeNamed(name string) (Type, error) {
	for _, kind := range []Kind{KindStruct, KindUnion, KindTypedef} {
		ts, err := s.Find(name, FindOptions{Kind: kind})
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return Type{}, err
		}
		var found []Type
		for _, t := range ts {
			r, err := s.Resolve(t.ID())
			if err != nil || !r.IsComposite() {
				continue
			}
			if len(found) == 0 || found[0].ID() != r.ID() {
				found = append(found, r)
			}
		}
		switch len(found) {
		case 0:
			continue
		case 1:
			return found[0], nil
		default:
			return Type{}, pkgerr.Errorf("btf: %d structs or unions named %q: %w", len(found), name, ErrMultipleMatches)
		}
	}
	return Type{}, pkgerr.Errorf("btf: no struct or union named %q: %w", name, ErrNotFound)
}

// Field finds a field of t, a struct or union (or a typedef or qualifier of
// one), by a path of member names separated by dots, each optionally
// followed by array indexes: "pid", "se.vruntime", "cb[4]",
// "thread.fpu.fpstate". A name is looked for as C looks it up, also inside
// the members that are anonymous structs and unions, and an index steps into
// an array (a flexible array, of 0 elements, takes any index). A path cannot
// go through a pointer. The empty path is t itself, at offset 0.
//
// The error wraps ErrNotFound when a member does not exist, and names the
// step that failed.
func (t Type) Field(path string) (Field, error) {
	s := t.Spec()
	if s == nil {
		return Field{}, fmt.Errorf("btf: field %q of void", path)
	}
	size, err := s.SizeOf(t.ID())
	if err != nil {
		return Field{}, pkgerr.Errorf("btf: field %q of %s: %w", path, t, err)
	}
	f := Field{Type: t, Size: size}
	steps, err := parseFieldPath(path)
	if err != nil {
		return Field{}, err
	}
	for _, st := range steps {
		if st.index < 0 {
			f, err = f.member(st.name)
		} else {
			f, err = f.element(uint64(st.index))
		}
		if err != nil {
			return Field{}, pkgerr.Errorf("btf: field %q of %s: %w", path, t, err)
		}
	}
	return f, nil
}

// fieldStep is one step of a field path: a member name, or an array index
// (index >= 0).
type fieldStep struct {
	name  string
	index int64
}

// parseFieldPath splits "a.b[3][4].c" into its steps.
func parseFieldPath(path string) ([]fieldStep, error) {
	var steps []fieldStep
	bad := func(why string) ([]fieldStep, error) {
		return nil, fmt.Errorf("btf: field path %q: %s", path, why)
	}
	rest := path
	for rest != "" {
		if len(steps) >= maxFieldPath {
			return bad(fmt.Sprintf("more than %d steps", maxFieldPath))
		}
		if rest[0] == '[' {
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return bad("unclosed [")
			}
			n, err := strconv.ParseInt(rest[1:end], 10, 64)
			if err != nil || n < 0 {
				return bad(fmt.Sprintf("index %q is not a number of 0 or more", rest[1:end]))
			}
			steps = append(steps, fieldStep{index: n})
			rest = rest[end+1:]
			if strings.HasPrefix(rest, ".") {
				rest = rest[1:]
				if rest == "" {
					return bad("ends with a dot")
				}
			}
			continue
		}
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			return bad("empty member name")
		}
		steps = append(steps, fieldStep{name: rest[:end], index: -1})
		rest = rest[end:]
		if strings.HasPrefix(rest, ".") {
			rest = rest[1:]
			if rest == "" {
				return bad("ends with a dot")
			}
		}
	}
	return steps, nil
}

// member steps from f, which must be a struct or union, to its member name.
func (f Field) member(name string) (Field, error) {
	if f.BitfieldSize != 0 {
		return Field{}, fmt.Errorf("btf: member %q: the field before it is a bitfield", name)
	}
	s := f.Type.Spec()
	c, err := s.Resolve(f.Type.ID())
	if err != nil {
		return Field{}, err
	}
	if !c.IsComposite() {
		return Field{}, fmt.Errorf("btf: member %q: %s is not a struct or union", name, c)
	}
	seen := map[TypeID]bool{}
	m, off, ok, err := findMember(s, c, name, seen)
	if err != nil {
		return Field{}, err
	}
	if !ok {
		return Field{}, pkgerr.Errorf("btf: no member %q in %s: %w", name, c, ErrNotFound)
	}
	mt, err := s.TypeByID(m.Type)
	if err != nil {
		return Field{}, err
	}
	size, err := s.SizeOf(m.Type)
	if err != nil {
		return Field{}, pkgerr.Errorf("btf: member %q: %w", name, err)
	}
	return Field{Type: mt, BitOffset: f.BitOffset + off, BitfieldSize: m.BitfieldSize, Size: size}, nil
}

// errFieldDepth is returned when anonymous members nest deeper than
// maxChain, which only corrupt BTF does.
var errFieldDepth = errors.New("btf: anonymous members nest too deep or in a cycle")

// findMember looks for name among c's members, and depth first in its
// anonymous struct and union members, in declaration order, as C's name
// lookup sees them. It returns the member and its bit offset within c.
// seen holds the anonymous composites already searched in vain, so that
// each is searched once whatever the BTF's shape: the search is linear in
// the members.
func findMember(s *Spec, c Type, name string, seen map[TypeID]bool) (Member, uint64, bool, error) {
	if len(seen) > maxChain*maxChain {
		return Member{}, 0, false, errFieldDepth
	}
	for _, m := range c.Members() {
		if m.Name() == name {
			return m, uint64(m.BitOffset), true, nil
		}
		if len(m.NameBytes()) != 0 {
			continue
		}
		inner, err := s.Resolve(m.Type)
		if err != nil {
			return Member{}, 0, false, err
		}
		if !inner.IsComposite() || seen[inner.ID()] {
			continue
		}
		seen[inner.ID()] = true
		im, off, ok, err := findMember(s, inner, name, seen)
		if err != nil || ok {
			return im, uint64(m.BitOffset) + off, ok, err
		}
	}
	return Member{}, 0, false, nil
}

// element steps from f, which must be an array, to its element i.
func (f Field) element(i uint64) (Field, error) {
	s := f.Type.Spec()
	a, err := s.Resolve(f.Type.ID())
	if err != nil {
		return Field{}, err
	}
	if a.Kind() != KindArray {
		return Field{}, fmt.Errorf("btf: index [%d]: %s is not an array", i, a)
	}
	info := a.Array()
	if info.Nelems != 0 && i >= uint64(info.Nelems) {
		return Field{}, fmt.Errorf("btf: index [%d] past the %d elements of %s", i, info.Nelems, a)
	}
	et, err := s.TypeByID(info.Type)
	if err != nil {
		return Field{}, err
	}
	size, err := s.SizeOf(info.Type)
	if err != nil {
		return Field{}, pkgerr.Errorf("btf: index [%d]: %w", i, err)
	}
	if size != 0 && i > (math.MaxUint64-f.BitOffset)/8/uint64(size) {
		return Field{}, fmt.Errorf("btf: index [%d]: offset overflows", i)
	}
	return Field{Type: et, BitOffset: f.BitOffset + i*uint64(size)*8, Size: size}, nil
}
