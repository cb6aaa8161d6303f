package dwarf2btf

import "debug/elf"

// relocKind says what one relocation type does to the bytes it applies to.
type relocKind struct {
	size   uint8 // bytes written: 1, 2, 4 or 8; 0 for a type left alone
	addsub int8  // 0: S + A is stored; 1 or -1: added to or subtracted from the bytes there
}

// relocKindOf returns what relocation type typ of machine m does in a
// debug section, as elfutils' backends (backends/*_symbol.c,
// *_reloc_simple_type, elfutils 0.192, which pahole 1.30 runs on in
// Debian 13) classify it. Only those "simple" types are applied; every
// other type, code relocations and a few data ones that elfutils does not
// know (see below), gets size 0 and is left unapplied, as libdwfl leaves
// it, so that the DWARF read is the DWARF pahole reads.
//
// The sizes are the psABIs' fields for S + A:
//   - x86-64 (System V AMD64 psABI, 4.4.1): R_X86_64_64 word64, _32 and
//     _32S word32, _16 word16, _8 word8.
//   - i386 (System V i386 psABI, 4.4.1, SHT_REL): R_386_32 word32, _16,
//     _8.
//   - AArch64 (ELF for the Arm 64-bit Architecture, 5.7.5, static data
//     relocations): R_AARCH64_ABS64, ABS32, ABS16.
//   - Arm (ELF for the Arm Architecture, 5.6, SHT_REL in practice):
//     R_ARM_ABS32, ABS16, ABS8.
//   - s390x (z/Architecture ELF ABI, 3.5): R_390_64, _32, _16, _8.
//   - ppc64 (64-bit ELF V2 ABI, 3.5.3): R_PPC64_ADDR64, UADDR64 (doubleword),
//     ADDR32, UADDR32 (word32), UADDR16 (half16).
//   - 32-bit PowerPC (SVR4 PowerPC ABI supplement, "Relocation Types",
//     SHT_RELA): R_PPC_ADDR32, UADDR32 (word32), UADDR16 (half16), the
//     ones elfutils' ppc backend takes as simple.
//   - RISC-V (RISC-V ELF psABI, "Relocations"): R_RISCV_64, _32, SET8,
//     SET16, SET32 store S + A; ADD16/32/64 add it to the field and
//     SUB16/32/64 subtract it, the pairs that gcc emits for label
//     differences (DW_AT_high_pc as a length) because linker relaxation
//     moves code. elfutils leaves ADD8, SUB8, SET6, SUB6 and
//     SET_ULEB128/SUB_ULEB128 unapplied; they appear in .debug_frame
//     (DW_CFA_advance_loc) and .eh_frame, which the encoder does not read,
//     and the DWARF pahole sees would not have them applied either.
//   - MIPS (MIPS ELF ABI and its 64-bit supplement, "Relocation"):
//     R_MIPS_64 (T-64), R_MIPS_32 (T-word32), R_MIPS_16 (V-half16), as
//     elfutils' mips backend (mips_reloc_simple_type, added in 2024)
//     takes them once libelf has turned a MIPS64 record's r_info, laid
//     out as r_sym, r_ssym and three types rather than as one
//     Elf64_Xword, into the usual form (relocAt): the first type decides;
//     in debug sections the other two are R_MIPS_NONE. Debian 12 builds
//     mips64el without BTF, and its pahole 1.24 and Debian 13's 1.30,
//     whose libelf reads a MIPS64 r_info as one Elf64_Xword, misread a
//     mips64el module's DWARF (pahole 1.30 stops; 1.24 writes wrong BTF).
func relocKindOf(m elf.Machine, typ uint32) relocKind {
	switch m {
	case elf.EM_X86_64:
		return x86_64Reloc(elf.R_X86_64(typ))
	case elf.EM_386:
		return i386Reloc(elf.R_386(typ))
	case elf.EM_AARCH64:
		return aarch64Reloc(elf.R_AARCH64(typ))
	case elf.EM_ARM:
		return armReloc(elf.R_ARM(typ))
	case elf.EM_S390:
		return s390Reloc(elf.R_390(typ))
	case elf.EM_PPC64:
		return ppc64Reloc(elf.R_PPC64(typ))
	case elf.EM_PPC:
		return ppcReloc(elf.R_PPC(typ))
	case elf.EM_RISCV:
		return riscvReloc(elf.R_RISCV(typ))
	case elf.EM_MIPS:
		return mipsReloc(elf.R_MIPS(typ & 0xff))
	}
	return relocKind{}
}

// knowsRelocs reports whether relocKindOf knows machine m's relocation
// types (keep the two in step). Another machine's SHT_RELA relocations of
// a debug section are refused (relocate): their addends are not in the
// section's bytes, so left unapplied every string offset and reference
// they hold would read as 0 and the output would name every type with
// .debug_str's first string (32-bit PowerPC before EM_PPC was known: the
// thirteenth red team). Its SHT_REL relocations keep their addends in
// place, which against section symbols (value 0 in a relocatable object)
// are the offsets themselves: BPF objects encode as pahole's.
func knowsRelocs(m elf.Machine) bool {
	switch m {
	case elf.EM_X86_64, elf.EM_386, elf.EM_AARCH64, elf.EM_ARM, elf.EM_S390,
		elf.EM_PPC64, elf.EM_PPC, elf.EM_RISCV, elf.EM_MIPS:
		return true
	}
	return false
}

func x86_64Reloc(t elf.R_X86_64) relocKind {
	switch t {
	case elf.R_X86_64_64:
		return relocKind{size: 8}
	case elf.R_X86_64_32, elf.R_X86_64_32S:
		return relocKind{size: 4}
	case elf.R_X86_64_16:
		return relocKind{size: 2}
	case elf.R_X86_64_8:
		return relocKind{size: 1}
	}
	return relocKind{}
}

func i386Reloc(t elf.R_386) relocKind {
	switch t {
	case elf.R_386_32:
		return relocKind{size: 4}
	case elf.R_386_16:
		return relocKind{size: 2}
	case elf.R_386_8:
		return relocKind{size: 1}
	}
	return relocKind{}
}

func aarch64Reloc(t elf.R_AARCH64) relocKind {
	switch t {
	case elf.R_AARCH64_ABS64:
		return relocKind{size: 8}
	case elf.R_AARCH64_ABS32:
		return relocKind{size: 4}
	case elf.R_AARCH64_ABS16:
		return relocKind{size: 2}
	}
	return relocKind{}
}

func armReloc(t elf.R_ARM) relocKind {
	switch t {
	case elf.R_ARM_ABS32:
		return relocKind{size: 4}
	case elf.R_ARM_ABS16:
		return relocKind{size: 2}
	case elf.R_ARM_ABS8:
		return relocKind{size: 1}
	}
	return relocKind{}
}

func s390Reloc(t elf.R_390) relocKind {
	switch t {
	case elf.R_390_64:
		return relocKind{size: 8}
	case elf.R_390_32:
		return relocKind{size: 4}
	case elf.R_390_16:
		return relocKind{size: 2}
	case elf.R_390_8:
		return relocKind{size: 1}
	}
	return relocKind{}
}

func ppc64Reloc(t elf.R_PPC64) relocKind {
	switch t {
	case elf.R_PPC64_ADDR64, elf.R_PPC64_UADDR64:
		return relocKind{size: 8}
	case elf.R_PPC64_ADDR32, elf.R_PPC64_UADDR32:
		return relocKind{size: 4}
	case elf.R_PPC64_UADDR16:
		return relocKind{size: 2}
	}
	return relocKind{}
}

func ppcReloc(t elf.R_PPC) relocKind {
	switch t {
	case elf.R_PPC_ADDR32, elf.R_PPC_UADDR32:
		return relocKind{size: 4}
	case elf.R_PPC_UADDR16:
		return relocKind{size: 2}
	}
	return relocKind{}
}

func riscvReloc(t elf.R_RISCV) relocKind {
	switch t {
	case elf.R_RISCV_64:
		return relocKind{size: 8}
	case elf.R_RISCV_32, elf.R_RISCV_SET32:
		return relocKind{size: 4}
	case elf.R_RISCV_SET16:
		return relocKind{size: 2}
	case elf.R_RISCV_SET8:
		return relocKind{size: 1}
	case elf.R_RISCV_ADD64:
		return relocKind{size: 8, addsub: 1}
	case elf.R_RISCV_ADD32:
		return relocKind{size: 4, addsub: 1}
	case elf.R_RISCV_ADD16:
		return relocKind{size: 2, addsub: 1}
	case elf.R_RISCV_SUB64:
		return relocKind{size: 8, addsub: -1}
	case elf.R_RISCV_SUB32:
		return relocKind{size: 4, addsub: -1}
	case elf.R_RISCV_SUB16:
		return relocKind{size: 2, addsub: -1}
	}
	return relocKind{}
}

func mipsReloc(t elf.R_MIPS) relocKind {
	switch t {
	case elf.R_MIPS_64:
		return relocKind{size: 8}
	case elf.R_MIPS_32:
		return relocKind{size: 4}
	case elf.R_MIPS_16:
		return relocKind{size: 2}
	}
	return relocKind{}
}
