package layout_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestEmptyNames compares, with pahole 1.24's output, names whose offset is
// not 0 but leads to an empty string (the terminator of another name). The
// Builder cannot make them; a hand-made file can. pahole holds such a name
// as "", not as NULL: a member of that name is printed with no name (not
// "(null)") and compares as a name, not as a wildcard, in its tree of
// printed structs, and a struct of that name is printed ("struct  {"),
// not skipped as an anonymous one is.
func TestEmptyNames(t *testing.T) {
	// Offsets in emptyNameStrings: 1 "s", 2 "" (the end of "s"), 3 "a",
	// 5 "b", 7 "int".
	a := []emptyNameMember{{3, 0}, {2, 32}} // s { int a; int ""; }
	b := []emptyNameMember{{3, 0}, {5, 32}} // s { int a; int b; }
	anon := emptyNameStruct{name: 2, members: b}
	matchGoldens(t, "names", []golden{
		{"empty-member-name-first", buildEmptyNames(emptyNameStruct{1, a}, emptyNameStruct{1, b})},
		{"empty-member-name-last", buildEmptyNames(emptyNameStruct{1, b}, emptyNameStruct{1, a})},
		{"empty-member-name-twice", buildEmptyNames(emptyNameStruct{1, a}, emptyNameStruct{1, a})},
		// Two structs named "", then "s" { struct "" a; } (type 2).
		{"empty-struct-name", buildEmptyNames(anon, anon, emptyNameStruct{1, []emptyNameMember{{3, 0}}})},
	})
}

const emptyNameStrings = "\x00s\x00a\x00b\x00int\x00"

type emptyNameMember struct{ name, bitOffset uint32 }

type emptyNameStruct struct {
	name    uint32
	members []emptyNameMember
}

// buildEmptyNames writes a BTF file (little-endian, version 1) of an INT
// "int" (type 1) and structs of 8 bytes; a member of a one-member struct
// has the first struct's type (2), the others are ints.
func buildEmptyNames(structs ...emptyNameStruct) func() ([]byte, error) {
	return func() ([]byte, error) {
		le := binary.LittleEndian
		var types []byte
		// INT: name, info (kind 1), size 4, then signed 32 bits.
		types = le.AppendUint32(types, 7)
		types = le.AppendUint32(types, 1<<24)
		types = le.AppendUint32(types, 4)
		types = le.AppendUint32(types, 1<<24|32)
		for _, s := range structs {
			types = le.AppendUint32(types, s.name)
			types = le.AppendUint32(types, 4<<24|uint32(len(s.members))) // STRUCT
			types = le.AppendUint32(types, 8)
			typ := uint32(1)
			if len(s.members) == 1 {
				typ = 2
			}
			for _, m := range s.members {
				types = le.AppendUint32(types, m.name)
				types = le.AppendUint32(types, typ)
				types = le.AppendUint32(types, m.bitOffset)
			}
		}
		// Header: magic, version 1, flags 0, its length, then the type
		// and string sections' offsets and lengths.
		raw := le.AppendUint16(nil, 0xeb9f)
		raw = append(raw, 1, 0)
		for _, v := range []uint32{24, 0, uint32(len(types)), uint32(len(types)), uint32(len(emptyNameStrings))} {
			raw = le.AppendUint32(raw, v)
		}
		raw = append(raw, types...)
		return append(raw, emptyNameStrings...), nil
	}
}

// TestSpentLimitMessage: when the structs printed before spent the
// input's limit, the refusal names the limit, not a negative budget (the
// twelfth red team: one anonymous struct of 65,535 members held by 64
// structs, in JSON).
func TestSpentLimitMessage(t *testing.T) {
	raw, err := hostile.BuildVariant12(hostile.SharedAnonWide, 64)
	s := parseBuilt(t, raw, err)
	err = layout.WriteJSON(context.Background(), io.Discard, s, layout.Options{})
	if !errors.Is(err, layout.ErrTooComplex) {
		t.Fatalf("got %v, want ErrTooComplex", err)
	}
	if strings.Contains(err.Error(), "more than -") {
		t.Fatalf("a negative budget: %v", err)
	}
}
