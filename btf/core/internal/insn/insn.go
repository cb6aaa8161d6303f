// Package insn checks a BPF instruction that a CO-RE relocation patches,
// as libbpf's bpf_core_patch_insn does before it writes: the instruction
// must hold the value the local BTF gives, offsets must fit 16 bits, and
// a load may change size only where the relocation allows it. Package
// btf/core maps its errors onto core.ErrInvalid and core.ErrRange.
//
// Check is a pure function on the caller's goroutine; the package has no
// state.
package insn

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Size is the size of one instruction in bytes.
const Size = 8

// BPF instruction encoding (include/uapi/linux/bpf_common.h).
const (
	classLD    = 0x00
	classLDX   = 0x01
	classST    = 0x02
	classSTX   = 0x03
	classALU   = 0x04
	classALU64 = 0x07

	srcX     = 0x08
	sizeMask = 0x18
	modeMask = 0xe0
	sizeW    = 0x00
	sizeH    = 0x08
	sizeB    = 0x10
	sizeDW   = 0x18

	ldImm64 = classLD | sizeDW // BPF_LD | BPF_IMM (0) | BPF_DW
)

// insn is a decoded BPF instruction.
type insn struct {
	code     uint8
	dst, src uint8
	off      int16
	imm      int32
}

func decodeInsn(b []byte, bo binary.ByteOrder) insn {
	in := insn{code: b[0], off: int16(bo.Uint16(b[2:])), imm: int32(bo.Uint32(b[4:]))}
	if bo == binary.ByteOrder(binary.BigEndian) {
		in.dst, in.src = b[1]>>4, b[1]&0xf
	} else {
		in.dst, in.src = b[1]&0xf, b[1]>>4
	}
	return in
}

func sizeBytes(code uint8) uint32 {
	switch code & sizeMask {
	case sizeDW:
		return 8
	case sizeW:
		return 4
	case sizeH:
		return 2
	}
	return 1
}

// Reloc is what the instruction is checked against: libbpf's struct
// bpf_core_relo_res.
type Reloc struct {
	Orig, Val     uint64 // the values for the local BTF and for the target
	Poison        bool   // poisoned already: only the index is checked
	Validate      bool   // Orig must be the instruction's current value
	FailMemsz     bool   // the load size would change unsafely: poison
	OrigSz, NewSz uint32 // the load's size for the local BTF and the target
}

// Patch says how libbpf rewrites the relocated instruction.
type Patch struct {
	// Class is "ALU/ALU64", "LDX/ST/STX" or "LDIMM64", as libbpf logs it;
	// empty when Poison is set.
	Class string
	// Old is the value the instruction held (its imm, off or imm64).
	Old uint64
	// MemSize is the new size of a load or store, 0 if it does not
	// change.
	MemSize uint32
	// Poison says that the instruction is poisoned instead: a load whose
	// size would change unsafely.
	Poison bool
}

// Error is why an instruction cannot be relocated: -ERANGE when Range is
// set, else -EINVAL.
type Error struct {
	Range bool
	Msg   string
}

func (e *Error) Error() string { return e.Msg }

func invalid(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// Check is bpf_core_patch_insn without the writing: it checks that
// instruction idx of insns (one program's, in byte order bo) may be
// relocated with r, and says how, or that it is poisoned, or why
// relocation fails (an *Error).
func Check(insns []byte, idx int, bo binary.ByteOrder, r *Reloc) (Patch, error) {
	if idx < 0 || (idx+1)*Size > len(insns) {
		return Patch{}, invalid("instruction #%d outside the program", idx)
	}
	if r.Poison {
		return Patch{Poison: true}, nil
	}
	in := decodeInsn(insns[idx*Size:], bo)
	switch in.code & 0x07 {
	case classALU, classALU64:
		if in.code&srcX != 0 {
			return Patch{}, invalid("insn #%d is not an ALU operation with an immediate", idx)
		}
		if r.Validate && uint64(int64(in.imm)) != r.Orig {
			return Patch{}, invalid("unexpected insn #%d (ALU/ALU64) value: got %d, exp %d -> %d", idx, in.imm, r.Orig, r.Val)
		}
		return Patch{Class: "ALU/ALU64", Old: uint64(int64(in.imm))}, nil
	case classLDX, classST, classSTX:
		return patchMem(in, idx, r)
	case classLD:
		return patchLdImm64(insns, idx, in, bo, r)
	}
	return Patch{}, invalid("trying to relocate unrecognized insn #%d, code:%#x", idx, in.code)
}

func patchMem(in insn, idx int, r *Reloc) (Patch, error) {
	if r.Validate && uint64(int64(in.off)) != r.Orig {
		return Patch{}, invalid("unexpected insn #%d (LDX/ST/STX) value: got %d, exp %d -> %d", idx, in.off, r.Orig, r.Val)
	}
	if r.Val > math.MaxInt16 {
		return Patch{}, &Error{Range: true, Msg: fmt.Sprintf("insn #%d (LDX/ST/STX) value too big: %d", idx, r.Val)}
	}
	if r.FailMemsz {
		return Patch{Poison: true}, nil
	}
	p := Patch{Class: "LDX/ST/STX", Old: uint64(int64(in.off))}
	if r.NewSz != r.OrigSz {
		if got := sizeBytes(in.code); got != r.OrigSz {
			return Patch{}, invalid("insn #%d (LDX/ST/STX) unexpected mem size: got %d, exp %d", idx, got, r.OrigSz)
		}
		switch r.NewSz {
		case 1, 2, 4, 8:
		default:
			return Patch{}, invalid("insn #%d (LDX/ST/STX) invalid new mem size: %d", idx, r.NewSz)
		}
		p.MemSize = r.NewSz
	}
	return p, nil
}

func patchLdImm64(insns []byte, idx int, in insn, bo binary.ByteOrder, r *Reloc) (Patch, error) {
	if in.code != ldImm64 || in.src != 0 || in.off != 0 || (idx+2)*Size > len(insns) {
		return Patch{}, invalid("insn #%d (LDIMM64) has unexpected form", idx)
	}
	next := decodeInsn(insns[(idx+1)*Size:], bo)
	if next.code != 0 || next.dst != 0 || next.src != 0 || next.off != 0 {
		return Patch{}, invalid("insn #%d (LDIMM64) has unexpected form", idx)
	}
	imm := uint64(uint32(in.imm)) | uint64(uint32(next.imm))<<32
	if r.Validate && imm != r.Orig {
		return Patch{}, invalid("unexpected insn #%d (LDIMM64) value: got %d, exp %d -> %d", idx, imm, r.Orig, r.Val)
	}
	return Patch{Class: "LDIMM64", Old: imm}, nil
}
