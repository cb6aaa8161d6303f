// Package elfwrite puts a section (".BTF", ".BTF.base") into an ELF file
// the way pahole 1.30 does when it encodes BTF with -J, so that the file
// is byte for byte what pahole leaves:
//
//   - When the file has no section of that name, pahole writes the data to
//     a temporary file and runs "$LLVM_OBJCOPY --add-section NAME=TMP FILE"
//     through the shell (llvm-objcopy when LLVM_OBJCOPY is unset; the
//     kernel's build sets it to its $(OBJCOPY)). Write does the same.
//   - When it has one, pahole replaces the section's data through libelf
//     (elfutils) and lets elf_update lay the file out again: every section
//     in index order at the next offset its alignment allows, the section
//     header table after them, the gaps between sections that moved zeroed
//     (pahole's btf_encoder__write_elf; elfutils' elf32_updatenull.c and
//     elf32_updatefile.c). Write computes that layout.
//
// Write chains the two for several sections (pahole writes ".BTF"
// and then ".BTF.base" for a distilled module) on a temporary copy, which
// replaces the file only when every step succeeded: unlike pahole, which
// writes the file in place, a failure leaves the file as it was.
//
// # Security
//
// The ELF headers are parsed as hostile input, in place from a read-only
// mapping of the file, through internal/elfscan (the module's one reader
// of section header tables): every offset and size is checked against the
// file before it is used, and nothing is allocated from a count the file
// gives beyond its own size.
package elfwrite
