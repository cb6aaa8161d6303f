package core

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf/core/internal/insn"
)

// Patch says how libbpf rewrites the relocated instruction.
type Patch struct {
	// Class is "ALU/ALU64", "LDX/ST/STX" or "LDIMM64", as libbpf logs it;
	// empty when the instruction is poisoned.
	Class string
	// Old is the value the instruction held (its imm, off or imm64).
	Old uint64
	// MemSize is the new size of a load or store, 0 if it does not
	// change.
	MemSize uint32
}

// patch is bpf_core_patch_insn without the writing (package insn): it
// checks that instruction idx of insns (one program's) may be relocated
// with res, and says how, or that it is poisoned (setting res.poison),
// or why relocation fails.
func patch(insns []byte, idx int, bo binary.ByteOrder, res *reloRes) (Patch, error) {
	p, err := insn.Check(insns, idx, bo, &insn.Reloc{
		Orig: res.orig, Val: res.val, Poison: res.poison, Validate: res.validate,
		FailMemsz: res.failMemsz, OrigSz: res.origSz, NewSz: res.newSz,
	})
	if e := (*insn.Error)(nil); errors.As(err, &e) {
		if e.Range {
			return Patch{}, fmt.Errorf("%w: %s", ErrRange, e.Msg)
		}
		return Patch{}, fmt.Errorf("%w: %s", ErrInvalid, e.Msg)
	}
	if err != nil {
		return Patch{}, err
	}
	if p.Poison {
		res.poison = true
		return Patch{}, nil
	}
	return Patch{Class: p.Class, Old: p.Old, MemSize: p.MemSize}, nil
}
