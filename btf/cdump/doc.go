// Package cdump prints BTF as a C header: the vmlinux.h that CO-RE BPF
// programs include.
//
// Write's output is byte for byte what Debian's bpftool 7.1 prints for
// "bpftool btf dump file FILE format c" (and, for split BTF, "bpftool -B BASE
// btf dump file FILE format c"): bpftool 7.1 embeds libbpf 1.1, whose
// btf_dump.c decides the order of the definitions, the forward declarations,
// the "___N" suffixes that keep clashing names apart, the explicit bitfield
// padding and the inferred __attribute__((packed)). This package follows the
// same rules, written anew in Go; comments name the libbpf function that each
// part mirrors, for readers comparing the two.
//
// Debian builds bpftool from the Linux 6.1 tree, whose libbpf differs from
// the v1.1.0 release in two visible ways, both followed here: prototypes
// without parameters print as "(void)" (a later fix, backported to 6.1), and
// enums of 1 or 8 bytes get no __attribute__((mode(byte))) or mode(word)
// (added to libbpf after 6.1). Type tags always print as btf_type_tag, even
// with their kind flag set.
//
// # Mini headers
//
// With Options.Types, Write prints only the named types and the types they
// need to compile: every type they embed is defined, types only reached
// through pointers are forward declared. This is what libbpf does when it is
// asked to dump a list of root types (btf_dump__dump_type), so the style is
// the same as the full header's, and the result compiles on its own.
//
// # Streaming
//
// The header is written through a fixed-size buffer to the io.Writer as it is
// produced; it is never assembled in memory. The state kept while printing
// is a few bytes per type of the Spec, plus one counter per distinct name.
//
// # Hostile input
//
// Write accepts any Spec that btf.Parse accepts. Where libbpf would loop
// forever or run out of stack on cyclic BTF, Write returns an error wrapping
// ErrTypeCycle, and on types that nest deeper than 2048 levels without a
// cycle, one wrapping ErrTooDeep; it never panics.
package cdump
