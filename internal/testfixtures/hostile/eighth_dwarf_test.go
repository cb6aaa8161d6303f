package hostile

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestMutateDWARFNamesItsAttribute checks MutateDWARF's line against Go's
// DWARF reader, which applies the object's relocations: the one field that
// a reference or size mutation changes is the attribute the line names,
// and a size is set to the value it says. In a relocatable object every
// unit's abbreviation offset is a relocation's addend, zero in
// .debug_info's bytes: MutateDWARF read every unit after the first with
// the first one's abbreviations, and named attributes its DIEs do not have
// (multi-x86_64.o, seed 34: "attribute 0x1c (form 0x25) at
// .debug_info+0x144", inside a member's DW_AT_type; encompat's finding,
// session 26). A unit's section bases are relocated too: a mutation of
// one now changes its relocation's addend, which is what a reader sees.
func TestMutateDWARFNamesItsAttribute(t *testing.T) {
	line := regexp.MustCompile(`^attribute (0x[0-9a-f]+) \(form 0x[0-9a-f]+\) at \.debug_info\+0x[0-9a-f]+ (?:points at .* \((0x[0-9a-f]+|0)\)|set to (0x[0-9a-f]+|0))`)
	for _, name := range []string{"dwarf/multi-x86_64.o.gz", "dwarf/multi-arm64-dwarf4.o.gz", "elf/debian-6.1-mips64el/cordic.ko.zst"} {
		seed := testfixtures.Read(t, name)
		before, err := dwarfFields(seed)
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, m := range []DWARFMutation{MutRef, MutHuge, MutLocation} {
			for i := range uint64(20) {
				out, what, ok := MutateDWARF(rand.New(rand.NewPCG(i, 1)), seed, m)
				sub := line.FindStringSubmatch(what)
				if !ok || sub == nil {
					continue
				}
				at, _ := strconv.ParseUint(sub[1], 0, 64)
				after, err := dwarfFields(out)
				if err != nil { // a base offset past its section, which Go's reader refuses
					continue
				}
				changed := changedFields(before, after)
				if i := slices.IndexFunc(changed, func(f dwarf.Field) bool { return f.Attr == dwarf.Attr(at) }); m == MutLocation && i >= 0 {
					changed = changed[i : i+1] // a base: the values read through it change too
				}
				switch {
				case len(changed) == 0: // set to the value it had
					continue
				case len(changed) > 1 || changed[0].Attr != dwarf.Attr(at):
					t.Fatalf("%s, %v seed %d: %q, but the reader sees %v changed", name, m, i, what, changed)
				}
				if sub[3] != "" && changed[0].Class == dwarf.ClassConstant {
					v, _ := strconv.ParseUint(sub[3], 0, 64)
					if got := changed[0].Val.(int64); uint64(got) != v && uint64(got) != v&0xffffffff {
						t.Fatalf("%s, %v seed %d: %q, but the reader sees %#x", name, m, i, what, got)
					}
				}
				checked++
			}
		}
		if checked < 10 {
			t.Errorf("%s: only %d mutations checked", name, checked)
		}
	}
}

// dwarfFields returns every DIE's attributes as Go's debug/dwarf reads
// them (relocations applied), in order.
func dwarfFields(data []byte) ([]dwarf.Field, error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	d, err := f.DWARF()
	if err != nil {
		return nil, err
	}
	var fields []dwarf.Field
	for r := d.Reader(); ; {
		e, err := r.Next()
		if e == nil || err != nil {
			return fields, err
		}
		fields = append(fields, e.Field...)
	}
}

// changedFields returns the fields of after that differ from before's;
// all of them if the two do not line up.
func changedFields(before, after []dwarf.Field) []dwarf.Field {
	if len(before) != len(after) {
		return after
	}
	var c []dwarf.Field
	for i := range before {
		if before[i].Attr != after[i].Attr || fmt.Sprint(before[i].Val) != fmt.Sprint(after[i].Val) {
			c = append(c, after[i])
		}
	}
	return c
}
