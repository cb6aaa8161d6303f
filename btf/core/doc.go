// Package core resolves the CO-RE relocations of BPF objects against a
// kernel's BTF as libbpf's loader does, and writes the minimal BTF that
// keeps their results, as bpftool gen min_core_btf does.
//
// Who feeds whom: the package reads no files. An Object is what it takes
// of a BPF program: the object's own BTF, its CO-RE relocation records
// (package btf/ext) and the instructions they point into, as cilium/ebpf's
// CORERelocate takes BTF, relocations and instructions. Package bpfelf,
// above this one, fills an Object from a BPF ELF object (clang -target
// bpf -g): bpfelf.Object.CORE. A Target is the BTF the relocations
// resolve against: a vmlinux BTF, optionally with module BTFs on it,
// opened by the caller (package kernel finds a kernel's). Package
// btf/core/kerneltypes, above both, gives a kernel's minimal BTF for some
// objects.
//
// ResolveEach gives one Result per relocation, to a callback, as it
// resolves them: the value libbpf patches into the instruction, or why
// the relocation fails (the instruction is poisoned, or libbpf refuses
// the object). Resolve returns them all at once. TypesFor gives a
// btf/builder.Builder holding only the target types and members the
// relocations use; marshalled with the default options, its bytes are
// bpftool's.
//
// The rules are libbpf's (relo_core.c, libbpf.c; version 1.8 where it
// differs from 1.1, which only matters for the signedness of non-integer
// fields and the load size of arrays), written anew in Go:
//
//   - candidates are the target types of a compatible kind whose name,
//     without a "___flavor" suffix, is the local type's; module BTFs are
//     searched only when vmlinux has none;
//   - a field access spec matches a candidate when every named member is
//     found (through anonymous members), array indexes are in bounds and
//     the final types are compatible (bpf_core_fields_are_compat);
//     type relocations use bpf_core_types_are_compat, type_matches the
//     stricter __bpf_core_types_match;
//   - all matching candidates must give the same result, else the
//     relocation fails as ambiguous; a type's candidate list is then
//     pruned to the matching ones, for the later relocations of the same
//     object;
//   - no match poisons field and enum-value relocations; existence
//     relocations give 0;
//   - the instruction is checked as bpf_core_patch_insn checks it
//     (btf/core/internal/insn): its current value must be the local one,
//     offsets must fit 16 bits, and a load may change size only for
//     pointers and unsigned integers.
//
// # Concurrency
//
// Every call runs on the caller's goroutine; the package starts none.
// Targets are safe for concurrent use (a Target's candidate cache is
// locked); Objects are only read. Resolve, ResolveEach and TypesFor keep their other
// state in the call, so many objects may be resolved against many targets in
// parallel. The Specs involved must stay open while they run.
//
// # Security
//
// An Object's BTF and records are checked when they are parsed (packages
// btf and btf/ext, and bpfelf for ELF objects); every instruction index is
// checked against its program. Resolution follows
// libbpf's bounds
// (access strings of at most 64 steps, recursion at most 32 deep) and
// bounds every walk libbpf leaves unbounded, so that cyclic BTF gives an
// error, never a hang. Memory is proportional to the object's BTF and a
// few bits per target type, not to its number of relocation records:
// ResolveEach holds one Result, and records that repeat one another are
// calculated once, in a memo of bounded size. FuzzResolve exercises these paths.
package core
