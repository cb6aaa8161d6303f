// Package cdump prints BTF as a C header: the vmlinux.h that CO-RE BPF
// programs include.
//
// Write's output is byte for byte what Debian 13's bpftool 7.5
// (7.5.0+6.12.118-1, built from Linux 6.12 with the libbpf 1.5 of that
// tree) prints for "bpftool btf dump file FILE format c" (and, for split
// BTF, "bpftool -B BASE btf dump file FILE format c"), but for one type, see
// below. libbpf's btf_dump.c decides the order of the definitions, the
// forward declarations, the "___N" suffixes that keep clashing names apart,
// the explicit bitfield padding and the inferred __attribute__((packed));
// bpftool's dump_btf_c adds the rest. This package follows the same rules,
// written anew in Go; comments name the libbpf or bpftool function that
// each part mirrors, for readers comparing the two.
//
// What bpftool 7.5 prints, beyond the types:
//
//   - the types in a sorted order rather than by id: by a rank (anonymous
//     enums, named enums, integers and floats, named structs and unions,
//     named prototypes, the rest), a name, the type's own name, a hash of
//     the names inside it, and the id (see sort.go);
//   - a block of "#define __ksym" and "#define __weak" after the header;
//   - __attribute__((mode(byte))) after 1-byte enums, and mode(word) after
//     8-byte enums whose values all fit in 32 bits (libbpf commit e6e0e3fd);
//   - before the footer, a "BPF kfuncs" block: "extern PROTOTYPE __weak
//     __ksym;" for every function that a DECL_TAG "bpf_kfunc" marks, in the
//     order of the tags (bpftool 7.5 does not sort them by name, later
//     versions do).
//
// Options.Unsorted prints the types in id order, as "format c unsorted"
// does; everything else stays. Options.Compat = CompatBpftool71 prints what
// Debian 12's bpftool 7.1 prints (Options.Compat's zero value,
// CompatBpftool75, is bpftool 7.5): types in id order and none of the four additions. Debian builds that
// bpftool from the Linux 6.1 tree, whose libbpf differs from the v1.1.0
// release in two visible ways, both followed: prototypes without parameters
// print as "(void)" (a later fix, backported to 6.1), and enums of 1 or 8
// bytes get no mode attribute. Type tags always print as btf_type_tag, even
// with their kind flag set, in both modes.
//
// # The type bpftool 7.5 leaves out
//
// bpftool 7.5 sorts every type, void included, then prints the sorted array
// from index 1, as if index 0 were still void: the type that sorts first is
// never printed, unless another type needs it. In every kernel tried that
// type is an anonymous enum of constants that nothing refers to
// (AAFS_LOADDATA_ABI of AppArmor in Debian's 6.1, 6.12 and 7.3 kernels,
// ACOMP_WALK_SLEEP in 6.18.44), so bpftool's header lacks those constants.
// Write does not copy this bug: it prints that type first, where the sort
// puts it. Its header is bpftool's with that one declaration added after
// the macros. (If the type that sorts first shared a name with later types,
// bpftool's "___N" suffixes of those would also be one lower than Write's.)
// Unsorted output and CompatBpftool71 are not affected.
//
// # Mini headers
//
// With Options.Types, Write prints only the named types and the types they
// need to compile: every type they embed is defined, types only reached
// through pointers are forward declared. This is what libbpf does when it is
// asked to dump a list of root types (btf_dump__dump_type), so the style is
// the same as the full header's, and the result compiles on its own. Mini
// headers follow the order of Options.Types and, as bpftool's headers of a
// map's key and value types, have the macros but no kfunc block.
//
// # Streaming
//
// The header is written through a fixed-size buffer to the io.Writer as it is
// produced; it is never assembled in memory. The state kept while printing
// is a few bytes per type of the Spec, plus one counter per distinct name;
// the sort adds 40 bytes per type, and about 21 more while it runs.
//
// # Hostile input
//
// Write accepts any Spec that btf.Parse accepts. Where libbpf would loop
// forever or run out of stack on cyclic BTF, Write returns an error wrapping
// ErrTypeCycle, and on types that nest deeper than 2048 levels without a
// cycle, one wrapping ErrTooDeep; it never panics. These errors, and
// ErrTooComplex's, are one line naming the top-level type whose printing
// is refused (the one Write was printing, sorting or declaring; for a
// Namer, the type asked for), not the type deep inside where a limit ran
// out.
//
// # Concurrency
//
// Every call runs on the caller's goroutine; the package starts none.
package cdump
