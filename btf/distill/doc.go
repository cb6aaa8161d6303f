// Package distill makes the distilled base of a module's BTF, as libbpf's
// btf__distill_base (libbpf 1.5 and later) does and as pahole's
// --btf_features=distilled_base writes it into an external module's
// .BTF.base section.
//
// A module's BTF is split BTF on its kernel's vmlinux BTF: its type ids
// and string offsets continue after vmlinux's, so it fits that one kernel
// build only. Distill turns it into split BTF on a small "distilled" base
// that holds only what the module names of vmlinux: named integers,
// floats and forward declarations as they are, named structs, unions and
// enums as empty shells of the same size (an ENUM64 becomes an 8-byte
// ENUM), and nothing else. The pointers, arrays, typedefs, qualifiers,
// function prototypes and anonymous structs, unions and enums of vmlinux
// that the module reaches move into the module's own BTF. Such a module
// loads on any kernel whose BTF has types of those names, kinds and
// encodings, and of the same sizes where the module holds them by value.
//
// The reverse, relocating a module's BTF from its distilled base onto a
// full base, is btf.Relocate, which btf.Open also applies to an ELF file
// with a .BTF.base section when Options.Base is set: it lives in package
// btf so that every reader of modules gets it.
//
// # Concurrency
//
// Distill runs on the caller's goroutine and shares nothing between calls:
// any number may run at once, also on the same Spec. It evicts the pages
// of a base mapped from a file once it has copied the records it needs
// (they leave its resident memory): other readers of the base, then or later, read them
// again from the page cache, with the same contents. As for any use, the
// Specs must not be closed while Distill runs.
//
// # Security
//
// Distill reads Specs that package btf has validated. It walks references
// with an explicit stack and a visited set, so cyclic input cannot loop,
// and its output holds at most one record per input type and one copy of
// each input string, so its memory is bounded by the input's.
package distill
