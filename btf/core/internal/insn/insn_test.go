package insn_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf/core/internal/insn"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzCheck checks instructions of any bytes at any index: no panic, an
// *Error or a patch of a known class, and a poisoned relocation or a
// failed load resize gives a poisoned patch. Seeds: the programs of a
// committed object.
func FuzzCheck(f *testing.F) {
	obj, err := bpfelf.Parse(testfixtures.Read(f, "elf/prog.bpf.o.gz"))
	if err != nil {
		f.Fatal(err)
	}
	defer obj.Close()
	for _, p := range obj.Programs() {
		f.Add(obj.Insns(p), 0, uint64(0), uint64(8), uint8(1), uint32(4), uint32(8))
	}
	f.Fuzz(func(t *testing.T, insns []byte, idx int, orig, val uint64, flags uint8, origSz, newSz uint32) {
		r := insn.Reloc{Orig: orig, Val: val, Validate: flags&1 != 0, Poison: flags&2 != 0,
			FailMemsz: flags&4 != 0, OrigSz: origSz, NewSz: newSz}
		for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			p, err := insn.Check(insns, idx, bo, &r)
			if err != nil {
				if e := (*insn.Error)(nil); !errors.As(err, &e) || e.Msg == "" {
					t.Fatalf("error %v of type %T", err, err)
				}
				continue
			}
			switch p.Class {
			case "":
				if !p.Poison {
					t.Fatalf("patch %+v: neither a class nor poisoned", p)
				}
			case "ALU/ALU64", "LDX/ST/STX", "LDIMM64":
				if p.Poison || r.Poison {
					t.Fatalf("patch %+v of a poisoned relocation %+v", p, r)
				}
			default:
				t.Fatalf("patch %+v: unknown class", p)
			}
		}
	})
}
