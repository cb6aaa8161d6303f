// Package dedup deduplicates BTF as libbpf's btf__dedup does, with the same
// result: the same types, in the same order, with the same ids and names.
//
// Deduplication makes every distinct type appear once. Strings are
// deduplicated; integers, enums, floats and forward declarations are merged
// when equal; structs, unions and typedefs are compared as graphs (a
// hypothetical map from canonical to candidate ids, as in libbpf's
// btf_dedup_is_equiv), which also resolves forward declarations to the
// struct or union they declare; the reference kinds (pointers, qualifiers,
// arrays, functions, prototypes, tags) are then made canonical bottom-up;
// what is left is renumbered in its original order. libbpf's src/btf.c (the
// comment above btf__dedup and the btf_dedup_* functions) is the
// specification; where libbpf has a quirk that shows in its output, this
// package has it too, with a comment saying so. libbpf 1.1's rules, where
// they differ (Debian 12's libbpf, which its pahole 1.24 uses), are kept as
// an option (Options.Compat, CompatLibbpf11).
//
// Inputs are appended in order into one BTF and deduplicated once, as
// libbpf's btf__add_btf followed by btf__dedup: standalone BTF, or split BTF
// on one shared base, which then stays unchanged and is referenced by id.
// The base is prepared once by NewBase (its hashes, its string index and its
// forward-resolution names) and can serve any number of deduplications, also
// at the same time.
//
// The API follows libbpf's: a Base (the prepared base BTF, NewBase), a
// Merger (New) to which inputs are added (AddSpec, AddBuilder, as
// btf__add_btf), then one Dedup (btf__dedup); Specs and Marshal do the
// common cases in one call. Options choose the workers and the libbpf
// version reproduced (Compat).
//
// The package imports btf/builder, so Builders can be deduplicated
// (AddBuilder, Marshal); builder itself cannot import dedup, which is why
// deduplicating marshalling is dedup.Marshal and not a builder.Options
// field. AddBuilder reads a Builder's records, unmarshalled; a producer of
// millions of types hands them over in pieces, forgetting each
// (builder.Builder.Forget), so that they are held once. Inputs may hold up
// to 2^31-1 types, as libbpf allows, before deduplication and after: as
// libbpf's, an output of more types than the kernel loads (2^20-1 ids) is
// written, and the kernel refuses it. Strings likewise: an output of
// more than the kernel's 2^24 bytes of strings (with the base's) is
// written, up to libbpf's own 2^31-1 bytes (BTF_MAX_STR_OFFSET), and the
// kernel refuses it.
//
// The algorithm itself lives in kmeta's internal/dedup, which dwarf2btf's
// streaming encoder also drives directly; this package is its public
// face.
//
// # Concurrency
//
// A Base is immutable after NewBase and safe for concurrent use by any
// number of Mergers; its Spec must stay open while it is used. A Merger is
// not safe for concurrent use, except for Prepare, which may run on any
// number of goroutines beside the Merger's other calls: a caller with
// many inputs prepares them in parallel and appends them in order with
// AddPrepared, as kmeta's btf dedup does. Distinct Mergers share nothing
// but their Base. Inputs are copied when added: their Specs may be closed, and their
// Builders reused, once AddSpec or AddBuilder returns. The package has no
// global mutable state.
//
// Calls run on the calling goroutine unless their Options ask for workers
// (NewBase, New): then a Base's signatures and string index, and
// the signatures a deduplication files structs and typedefs under, are
// computed on that many goroutines; what libbpf does in order (the choice
// of canonical types, the output order) stays on the calling one, and the
// result is the same for any number of workers.
//
// # Security
//
// Inputs are btf.Specs, validated when parsed, and Builders, whose records
// are well formed by construction: their sizes are checked as they are
// read, and a reference to an id never added, which a Builder allows until
// it is marshalled, is an error before deduplication starts. Every allocation is bounded
// by the size of the inputs (ids, strings and records are counted before
// they are stored). The steps libbpf takes by recursion (graph comparison,
// reference resolution) keep explicit stacks on the heap, bounded by the
// input, so that graphs nested as deeply as the input allows (a ring of
// 100,000 structs each holding the next) deduplicate as in libbpf, on a
// small goroutine stack; a reference cycle that passes through no struct,
// union or typedef is an error naming a type of the cycle, as in libbpf.
// Where libbpf's comparisons are superlinear (deeply nested records that
// all look alike), deep signatures skip those that must fail, and
// Merger.DedupContext stops within milliseconds of its context. The
// only system calls are for anonymous memory mappings (mmap, mremap,
// munmap), which hold the large arrays outside the Go heap.
package dedup
