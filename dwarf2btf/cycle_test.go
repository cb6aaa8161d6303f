package dwarf2btf_test

import (
	"bytes"
	"context"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// typeRef is one DW_AT_type of kinds-x86_64.o: the DIE that has it, the
// DIE it names, and the file offset of its DW_FORM_ref4 value.
type typeRef struct {
	die, target dwarf.Offset
	tag         dwarf.Tag
	at          int
}

// typeRefs lists the DW_AT_type attributes of an object of one unit (at
// .debug_info offset 0) whose 4-byte value can be found unambiguously in
// the bytes of its DIE.
func typeRefs(tb testing.TB, data []byte) map[dwarf.Offset]typeRef {
	tb.Helper()
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		tb.Fatal(err)
	}
	info := f.Section(".debug_info")
	d, err := f.DWARF()
	if err != nil {
		tb.Fatal(err)
	}
	var entries []*dwarf.Entry
	for r := d.Reader(); ; {
		e, err := r.Next()
		if err != nil {
			tb.Fatal(err)
		}
		if e == nil {
			break
		}
		if e.Tag != 0 { // not the end of a list of children
			entries = append(entries, e)
		}
	}
	refs := map[dwarf.Offset]typeRef{}
	for i, e := range entries {
		target, ok := e.Val(dwarf.AttrType).(dwarf.Offset)
		if !ok {
			continue
		}
		end := info.Size
		if i+1 < len(entries) {
			end = uint64(entries[i+1].Offset)
		}
		raw := data[info.Offset+uint64(e.Offset) : info.Offset+end]
		want := binary.LittleEndian.AppendUint32(nil, uint32(target))
		if bytes.Count(raw, want) != 1 {
			continue
		}
		refs[e.Offset] = typeRef{die: e.Offset, target: target, tag: e.Tag, at: int(info.Offset) + int(e.Offset) + bytes.Index(raw, want)}
	}
	return refs
}

// TestTypeCycles encodes kinds-x86_64.o with every DW_AT_type made to
// point at its own DIE (a 2-byte edit), and, for every type whose
// DW_AT_type names another type that has one, with that other type's
// pointing back (a cycle of two). The encoder must return BTF that parses
// or an error, for pahole 1.24's rules and 1.30's, never overflow its
// stack: a DW_TAG_subroutine_type whose type is itself once recursed in
// (*emitter).sig until the Go runtime died.
func TestTypeCycles(t *testing.T) {
	tags := map[dwarf.Tag]bool{}
	for _, name := range []string{"kinds-x86_64", "quirks-x86_64"} {
		data := testfixtures.Read(t, "dwarf/"+name+".o.gz")
		for _, r := range typeRefs(t, data) {
			tags[r.tag] = true
			encodeEdited(t, data, fmt.Sprintf("%s: %v at %#x to itself", name, r.tag, r.die), r.at, r.die)
		}
		refs := typeRefs(t, data)
		for _, r := range refs {
			if back, ok := refs[r.target]; ok && r.target != r.die {
				encodeEdited(t, data, fmt.Sprintf("%s: %v at %#x and %v at %#x", name, r.tag, r.die, back.tag, back.die), back.at, r.die)
			}
		}
	}
	for _, tag := range []dwarf.Tag{dwarf.TagSubroutineType, dwarf.TagPointerType, dwarf.TagTypedef, dwarf.TagConstType,
		dwarf.TagRestrictType, dwarf.TagAtomicType, dwarf.TagArrayType, dwarf.TagMember, dwarf.TagFormalParameter,
		dwarf.TagSubprogram, dwarf.TagVariable} {
		if !tags[tag] {
			t.Errorf("no %v with a DW_AT_type to edit", tag)
		}
	}
}

// encodeEdited encodes data with the 4 bytes at at set to ref, by pahole
// 1.24's rules and 1.30's: an error or BTF that parses.
func encodeEdited(t *testing.T, data []byte, name string, at int, ref dwarf.Offset) {
	t.Helper()
	mod := bytes.Clone(data)
	binary.LittleEndian.PutUint32(mod[at:], uint32(ref))
	for _, like := range []dwarf2btf.Compat{dwarf2btf.CompatPahole124, dwarf2btf.CompatPahole130} {
		raw, err := dwarf2btf.Encode(context.Background(), mod, dwarf2btf.Options{Jobs: 1, Compat: like}, builder.Options{})
		if err != nil {
			continue
		}
		if _, err := btf.Parse(raw, btf.Options{}); err != nil {
			t.Errorf("%s, like %v: output does not parse: %v", name, like, err)
		}
	}
}
