// Package dwarf2btf encodes BTF from DWARF, making the same choices as
// pahole 1.24 run by Linux 6.1's build (pahole -J --btf_gen_floats -j
// --lang_exclude=rust, with --btf_base vmlinux for modules).
//
// Compile units are read and encoded by concurrent workers, each into its
// own records with unit-local type ids; a merge appends them to one
// builder.Builder in unit order, carrying the little state pahole carries
// from unit to unit. The result, deduplicated, is the same whatever the
// number of workers, and equals pahole -j1's output. Dedup hands each
// merged unit's types straight to the deduplication (btf/dedup) and drops
// them from the Builder, so that a vmlinux's 3.4 million encoded types are
// held once. The deduplication follows libbpf 1.1's rules
// (dedup.Libbpf11), those of the libbpf Debian 12's pahole 1.24 links.
//
// # Concurrency
//
// Encode may be called concurrently on distinct inputs. Inside one call,
// workers share only read-only state (the mapped sections and the symbol
// tables); the merge runs on the calling goroutine.
//
// # Security
//
// The DWARF reader bounds every read by its section, rejects unknown forms
// and abbreviations with a FormatError carrying the offset, limits DIE
// nesting to 512 levels and sizes its per-unit index by the unit's length.
// Decompressed sections are bounded by their header's size, which is
// capped. No input can make it panic or loop.
package dwarf2btf
