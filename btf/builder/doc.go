// Package builder writes BTF: a Builder collects types, added one by one or
// copied from a btf.Spec with everything they reference, and marshals them
// to raw BTF (either byte order, optionally with the 32-byte header and a
// layout section), to split BTF on a base Spec, or to an ELF object's .BTF
// section. Minimal builds the smallest standalone BTF that holds named types
// and their dependencies. WriteAsIs writes a Spec back as it is, as libbpf
// writes back BTF it parsed: its records, ids and string section unchanged.
//
// The Builder is the write side of kmeta's BTF support; the read side is the
// btf package, whose Specs are views over wire data. The two share the wire
// package, the only place that knows the byte layout.
//
// Output is deterministic: it depends only on the calls made, never on map
// order, hash seeds or the machine (beyond the default byte order).
//
// # Concurrency
//
// Every call runs on the caller's goroutine; the package starts none.
// A Builder is not safe for concurrent use: one goroutine fills it and
// marshals it. Distinct Builders share nothing and may be used in parallel,
// also when they copy from the same Spec, since Specs are safe for
// concurrent reading. Marshal does not modify the Builder. The package has
// no global mutable state.
//
// # Security
//
// Copying reads Specs that the btf package has validated, and walks their
// references with an explicit stack and a visited set, so cyclic or deeply
// nested input cannot recurse without bound or loop. Every output size is
// bounded by the input: a copy writes one record per source type at most
// and one string per distinct source string. Limits of the format (about a
// million types, 65535 members, libbpf's 2^31-1 bytes of own strings)
// give errors, never truncated output; string sections past the kernel's
// 2^24 bytes are written, as libbpf's btf__add_str writes them, and the
// kernel refuses them; WriteAsIs, which renumbers nothing, writes as many
// types as its input holds, as libbpf does, and the kernel refuses more
// than its limit. The package makes no system calls; loading its output
// into the kernel (bpf(BPF_BTF_LOAD)) is internal/bpfsys's job.
package builder
