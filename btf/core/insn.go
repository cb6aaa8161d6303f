package core

import (
	"encoding/binary"
	"fmt"
	"math"
)

// BPF instruction encoding (include/uapi/linux/bpf_common.h).
const (
	insnSize = 8

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

// patch is bpf_core_patch_insn without the writing: it checks that
// instruction idx of insns (one program's) may be relocated with res, and
// says how, or that it is poisoned, or why relocation fails.
func patch(insns []byte, idx int, bo binary.ByteOrder, res *reloRes) (Patch, error) {
	if idx < 0 || (idx+1)*insnSize > len(insns) {
		return Patch{}, fmt.Errorf("%w: instruction #%d outside the program", ErrInvalid, idx)
	}
	if res.poison {
		return Patch{}, nil
	}
	in := decodeInsn(insns[idx*insnSize:], bo)
	switch in.code & 0x07 {
	case classALU, classALU64:
		if in.code&srcX != 0 {
			return Patch{}, fmt.Errorf("%w: insn #%d is not an ALU operation with an immediate", ErrInvalid, idx)
		}
		if res.validate && uint64(int64(in.imm)) != res.orig {
			return Patch{}, fmt.Errorf("%w: unexpected insn #%d (ALU/ALU64) value: got %d, exp %d -> %d", ErrInvalid, idx, in.imm, res.orig, res.val)
		}
		return Patch{Class: "ALU/ALU64", Old: uint64(int64(in.imm))}, nil
	case classLDX, classST, classSTX:
		return patchMem(in, idx, res)
	case classLD:
		return patchLdImm64(insns, idx, in, bo, res)
	}
	return Patch{}, fmt.Errorf("%w: trying to relocate unrecognized insn #%d, code:%#x", ErrInvalid, idx, in.code)
}

func patchMem(in insn, idx int, res *reloRes) (Patch, error) {
	if res.validate && uint64(int64(in.off)) != res.orig {
		return Patch{}, fmt.Errorf("%w: unexpected insn #%d (LDX/ST/STX) value: got %d, exp %d -> %d", ErrInvalid, idx, in.off, res.orig, res.val)
	}
	if res.val > math.MaxInt16 {
		return Patch{}, fmt.Errorf("%w: insn #%d (LDX/ST/STX) value too big: %d", ErrRange, idx, res.val)
	}
	if res.failMemsz {
		res.poison = true
		return Patch{}, nil
	}
	p := Patch{Class: "LDX/ST/STX", Old: uint64(int64(in.off))}
	if res.newSz != res.origSz {
		if got := sizeBytes(in.code); got != res.origSz {
			return Patch{}, fmt.Errorf("%w: insn #%d (LDX/ST/STX) unexpected mem size: got %d, exp %d", ErrInvalid, idx, got, res.origSz)
		}
		switch res.newSz {
		case 1, 2, 4, 8:
		default:
			return Patch{}, fmt.Errorf("%w: insn #%d (LDX/ST/STX) invalid new mem size: %d", ErrInvalid, idx, res.newSz)
		}
		p.MemSize = res.newSz
	}
	return p, nil
}

func patchLdImm64(insns []byte, idx int, in insn, bo binary.ByteOrder, res *reloRes) (Patch, error) {
	if in.code != ldImm64 || in.src != 0 || in.off != 0 || (idx+2)*insnSize > len(insns) {
		return Patch{}, fmt.Errorf("%w: insn #%d (LDIMM64) has unexpected form", ErrInvalid, idx)
	}
	next := decodeInsn(insns[(idx+1)*insnSize:], bo)
	if next.code != 0 || next.dst != 0 || next.src != 0 || next.off != 0 {
		return Patch{}, fmt.Errorf("%w: insn #%d (LDIMM64) has unexpected form", ErrInvalid, idx)
	}
	imm := uint64(uint32(in.imm)) | uint64(uint32(next.imm))<<32
	if res.validate && imm != res.orig {
		return Patch{}, fmt.Errorf("%w: unexpected insn #%d (LDIMM64) value: got %d, exp %d -> %d", ErrInvalid, idx, imm, res.orig, res.val)
	}
	return Patch{Class: "LDIMM64", Old: imm}, nil
}
