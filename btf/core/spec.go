package core

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/ext"
)

// maxSpecLen bounds an access string's length, as libbpf's
// BPF_CORE_SPEC_MAX_LEN.
const maxSpecLen = 64

// Errors of relocation resolution that libbpf reports with an errno; each
// makes libbpf refuse to load the object.
var (
	// ErrInvalid is libbpf's -EINVAL: a malformed relocation, an access
	// string that does not fit the local type, an ambiguous result.
	ErrInvalid = errors.New("core: invalid relocation")
	// ErrTooBig is -E2BIG: nesting deeper than 64, or a bitfield that no
	// 8-byte load covers.
	ErrTooBig = errors.New("core: relocation too big")
	// ErrUnsupported is -EOPNOTSUPP: an unknown kind, or an anonymous
	// local type that needs a candidate search.
	ErrUnsupported = errors.New("core: relocation not supported")
	// ErrRange is -ERANGE: a field offset that a load or store
	// instruction's 16-bit offset cannot hold.
	ErrRange = errors.New("core: relocated value out of range")
)

// accessor is one step of a high-level access spec: a named member
// (name != nil), an array index, or for enum relocations an enumerator.
type accessor struct {
	typeID btf.TypeID // the composite, array element, or enum type
	idx    uint32
	name   []byte
}

// coreSpec is libbpf's struct bpf_core_spec: an access string parsed
// against a type, low-level (raw, one index per step) and high-level
// (named members and array indexes), and the bit offset it reaches.
type coreSpec struct {
	s         *btf.Spec
	root      btf.TypeID
	kind      ext.Kind
	acc       [maxSpecLen]accessor
	n         int
	raw       [maxSpecLen]uint32
	rawLen    int
	bitOffset uint32
}

// parseAccess reads an access string as libbpf's sscanf("%d%n") loop
// does: numbers, each optionally preceded by one ':' (and blanks), none
// negative.
func parseAccess(str []byte, out *[maxSpecLen]uint32) (int, error) {
	n := 0
	for i := 0; i < len(str); {
		if str[i] == ':' {
			i++
		}
		for i < len(str) && isSpace(str[i]) {
			i++
		}
		j := i
		if j < len(str) && (str[j] == '+' || str[j] == '-') {
			j++
		}
		k := j
		for k < len(str) && str[k] >= '0' && str[k] <= '9' {
			k++
		}
		if k == j {
			return 0, fmt.Errorf("%w: access string %q", ErrInvalid, str)
		}
		v, err := strconv.ParseInt(string(str[i:k]), 10, 32)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("%w: access string %q", ErrInvalid, str)
		}
		if n == maxSpecLen {
			return 0, fmt.Errorf("%w: access string %q longer than %d", ErrTooBig, str, maxSpecLen)
		}
		out[n] = uint32(v)
		n++
		i = k
	}
	return n, nil
}

func isSpace(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }

// parseSpec is libbpf's bpf_core_parse_spec: it turns relocation r of the
// object's BTF s into a local spec.
func parseSpec(s *btf.Spec, r ext.CORERelo, spec *coreSpec) error {
	str, ok := ext.String(s, r.AccessStrOff)
	if !ok || len(str) == 0 || str[0] == ':' {
		return fmt.Errorf("%w: empty access string", ErrInvalid)
	}
	*spec = coreSpec{s: s, root: r.TypeID, kind: r.Kind}
	if r.Kind.IsType() {
		if string(str) != "0" {
			return fmt.Errorf("%w: access string %q for a type relocation", ErrInvalid, str)
		}
		return nil
	}
	n, err := parseAccess(str, &spec.raw)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: empty access string", ErrInvalid)
	}
	spec.rawLen = n
	t, err := s.Resolve(r.TypeID)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	idx := spec.raw[0]
	spec.acc[0] = accessor{typeID: t.ID(), idx: idx}
	spec.n = 1
	if r.Kind.IsEnumval() {
		if !isAnyEnum(t) || n > 1 || int(idx) >= t.Vlen() {
			return fmt.Errorf("%w: enumerator %q of %v", ErrInvalid, str, t)
		}
		spec.acc[0].name = t.EnumValue(int(idx)).NameBytes()
		return nil
	}
	if !r.Kind.IsField() {
		return fmt.Errorf("%w: kind %d", ErrInvalid, uint32(r.Kind))
	}
	sz, err := s.SizeOf(t.ID())
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	spec.bitOffset = idx * sz * 8
	return spec.walk(t.ID())
}

// walk follows the local spec's raw indexes after the first, through
// members and array elements, recording the named steps.
func (spec *coreSpec) walk(id btf.TypeID) error {
	s := spec.s
	for i := 1; i < spec.rawLen; i++ {
		t, err := s.Resolve(id)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrInvalid, err)
		}
		id = t.ID()
		idx := spec.raw[i]
		switch {
		case t.IsComposite():
			if int(idx) >= t.Vlen() {
				return fmt.Errorf("%w: member %d of %v", ErrInvalid, idx, t)
			}
			m := t.Member(int(idx))
			spec.bitOffset += m.BitOffset
			if m.NameOffset() != 0 {
				name := m.NameBytes()
				if len(name) == 0 {
					return fmt.Errorf("%w: member %d of %v", ErrInvalid, idx, t)
				}
				spec.acc[spec.n] = accessor{typeID: id, idx: idx, name: name}
				spec.n++
			}
			id = m.Type
		case t.Kind() == btf.KindArray:
			a := t.Array()
			et, err := s.Resolve(a.Type)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrInvalid, err)
			}
			id = et.ID()
			if !isFlexArray(s, spec.acc[spec.n-1], a) && idx >= a.Nelems {
				return fmt.Errorf("%w: index %d of %v", ErrInvalid, idx, t)
			}
			spec.acc[spec.n] = accessor{typeID: id, idx: idx}
			spec.n++
			sz, err := s.SizeOf(id)
			if err != nil {
				return fmt.Errorf("%w: %w", ErrInvalid, err)
			}
			spec.bitOffset += idx * sz * 8
		default:
			return fmt.Errorf("%w: step %d reaches %v", ErrInvalid, i, t)
		}
	}
	return nil
}

// isFlexArray is libbpf's is_flex_arr: a zero-length array that is the
// last member of the struct the previous accessor named.
func isFlexArray(s *btf.Spec, prev accessor, a btf.ArrayInfo) bool {
	if prev.name == nil || a.Nelems > 0 {
		return false
	}
	t, err := s.TypeByID(prev.typeID)
	return err == nil && int(prev.idx) == t.Vlen()-1
}

func isAnyEnum(t btf.Type) bool {
	return t.Kind() == btf.KindEnum || t.Kind() == btf.KindEnum64
}

// kindStr is libbpf's btf_kind_str.
func kindStr(k btf.Kind) string {
	switch k {
	case btf.KindUnknown:
		return "void"
	case btf.KindPointer:
		return "ptr"
	case btf.KindForward:
		return "fwd"
	}
	if k > btf.KindEnum64 {
		return "unknown"
	}
	return strings.ToLower(k.String())
}

// format writes the spec as libbpf's bpf_core_format_spec does, without
// the leading "<kind> ": "[13] struct task_struct.tgid (0:93 @ offset
// 1268)", "[317] enum bpf_map_type::BPF_MAP_TYPE_RINGBUF = 27".
func (spec *coreSpec) format() string {
	var b strings.Builder
	t, _ := spec.s.TypeByID(spec.root)
	name := t.Name()
	if name == "" {
		name = "<anon>"
	}
	fmt.Fprintf(&b, "[%d] %s %s", spec.root, kindStr(t.Kind()), name)
	switch {
	case spec.kind.IsType():
	case spec.kind.IsEnumval():
		et, _ := spec.s.Resolve(spec.root)
		v := et.EnumValue(int(spec.raw[0]))
		switch {
		case !v.Is64 && v.Signed:
			fmt.Fprintf(&b, "::%s = %d", v.NameBytes(), int32(v.Value))
		case v.Signed:
			fmt.Fprintf(&b, "::%s = %d", v.NameBytes(), int64(v.Value))
		default:
			fmt.Fprintf(&b, "::%s = %d", v.NameBytes(), v.Value)
		}
	case spec.kind.IsField():
		for i := range spec.n {
			a := spec.acc[i]
			if a.name != nil {
				fmt.Fprintf(&b, ".%s", a.name)
			} else if i > 0 || a.idx > 0 {
				fmt.Fprintf(&b, "[%d]", a.idx)
			}
		}
		b.WriteString(" (")
		for i := range spec.rawLen {
			if i > 0 {
				b.WriteByte(':')
			}
			fmt.Fprintf(&b, "%d", spec.raw[i])
		}
		if spec.bitOffset%8 != 0 {
			fmt.Fprintf(&b, " @ offset %d.%d)", spec.bitOffset/8, spec.bitOffset%8)
		} else {
			fmt.Fprintf(&b, " @ offset %d)", spec.bitOffset/8)
		}
	}
	return b.String()
}
