// Package dwarf2btf encodes BTF from DWARF, making the same choices as
// the kernel's own build: pahole 1.30 with the flags of Linux 6.12's
// scripts/Makefile.btf (--btf_features=default --lang_exclude=rust, with
// --btf_base vmlinux for modules); from Linux 7.0 on also resolve_btfids
// --btf after it (btf/btfids); and pahole 1.24 run by Linux 6.1's build
// (pahole -J --btf_gen_floats -j --lang_exclude=rust). Options.Compat
// chooses; by default the input's kernel release does (KernelRelease,
// CompatFor): the text of the linux_banner symbol of a vmlinux, the vermagic
// of a module's .modinfo.
//
// pahole 1.30 differs from 1.24 in its functions and variables, not its
// types: it saves each unit's functions and emits them all at the end,
// sorted by their ELF symbol with glibc's merge sort (pahole's comparison
// of names is not a total order, so the algorithm shows); it matches
// functions the compiler renamed (foo.isra.0) by prefix (optimized_func);
// it leaves out those whose prototypes differ between units and those
// with a parameter in another register than the ABI's, which it reads
// from the parameters' DWARF locations (consistent_func); it tags the
// kfuncs that .BTF_ids lists (decl_tag_kfuncs); and it finds per-CPU
// variables by their DWARF address and the ELF sections, not the symbols.
//
// Every architecture's objects are read: 64- and 32-bit ELF, either byte
// order. A module's debug sections are relocated as libdwfl relocates
// them for pahole, with the data relocation types elfutils' backends
// apply (x86-64, i386, arm64, arm, s390x, ppc64, riscv64 with its ADD/SUB
// pairs); other types are left unapplied, as there. pahole writes BTF in
// its input's byte order, which ByteOrder returns for Encode's output.
//
// Compile units are read and encoded by concurrent workers, each into its
// own records with unit-local type ids; a merge appends them to one
// builder.Builder in unit order, carrying the little state pahole carries
// from unit to unit. The result, deduplicated, is the same whatever the
// number of workers, and equals pahole -j1's output. Encode hands each
// merged unit's types straight to the deduplication (btf/dedup) and drops
// them from the Builder, so that a vmlinux's 3.4 million encoded types are
// held once. The deduplication follows libbpf 1.1's rules
// (dedup.CompatLibbpf11), those of the libbpf Debian 12's pahole 1.24 links;
// the libbpf 1.5 that Debian 13's pahole 1.30 links deduplicates the same
// way (its btf__dedup is 1.1's but for comments).
//
// # Concurrency
//
// Encode may be called concurrently on distinct inputs. What runs where
// inside one call:
//
//   - Options.Jobs 1 (pahole -j1): everything on the calling goroutine,
//     one unit after the other: read, encode, merge and deduplicate.
//   - Options.Jobs N > 1: N worker goroutines read and encode units, at
//     most 4N ahead of the merge, sharing only read-only state (the mapped
//     sections and the symbol tables). The merge, which must go in unit
//     order, runs on the calling goroutine, and so does the deduplication.
//     The symbol tables are read by the calling goroutine while the
//     workers load their first units, which wait for them to emit types.
//   - Either way the deduplication, libbpf's ordered algorithm, is
//     pipelined (dedup.Merger.Pipeline): its checks, primitive types and
//     structs run unit by unit as the merge appends them (beside the
//     workers, with more than one job), and the duplicates found are
//     compacted; what is left (forward declarations, reference types,
//     the output) runs after the last unit. With more than one job, and
//     pahole 1.30's saved functions, most of it runs on one more
//     goroutine (dedup.Merger.FinishGraphs) while the merge writes them.
//   - With a Base and no DedupBase, NewBase prepares the Base first, as
//     btf/dedup's NewBase does; a caller encoding many modules prepares it
//     once.
//   - EncodeFile maps its input: a file another process truncates while
//     it is read faults (SIGBUS). A caller that set
//     debug.SetPanicOnFault on its goroutine (as cmd/kmeta does) has the
//     setting taken over by the workers and FinishGraphs' goroutine, and a
//     fault in one of them ends the run and is raised on the caller's
//     goroutine, where its recover sees it.
//
// # Security
//
// The DWARF reader bounds every read by its section, rejects unknown forms
// and abbreviations with a FormatError carrying the offset, limits DIE
// nesting to 512 levels and sizes its per-unit index by the unit's length.
// Decompressed sections are bounded by their header's size, which is
// capped. No input can make it panic or loop.
package dwarf2btf
