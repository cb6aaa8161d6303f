// Package bpfelf reads BPF ELF objects as clang -target bpf -g writes
// them: their own BTF (.BTF, package btf), their .BTF.ext records
// (package btf/ext) and their programs, as libbpf's loader finds them.
// Package bpfobj, by contrast, reads the objects already loaded into the
// running kernel.
//
// Who feeds whom: this package reads files and feeds package btf/core,
// which resolves CO-RE relocations and knows no ELF. Object.CORE gives
// core what it reads of an object (its BTF, relocation records and
// programs' instructions); core.Resolve and core.TypesFor take that.
//
// Open reads an object from a file, also compressed; Parse reads one from
// bytes in memory.
//
// # Concurrency
//
// Every call runs on the caller's goroutine; the package starts none. An
// Object is immutable after opening and safe for concurrent use; Close
// must not run concurrently with other uses.
//
// # Security
//
// Objects are parsed as hostile input: ELF through debug/elf on bytes in
// memory, .BTF by package btf, .BTF.ext by package btf/ext, program
// symbols checked against their sections. A file and what it inflates to
// are bounded by Options.MaxSize. FuzzParse exercises these paths.
package bpfelf
