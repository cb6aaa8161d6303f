// Package btf reads BTF (BPF Type Format) data: the type information of the
// Linux kernel (/sys/kernel/btf/vmlinux), of kernel modules (split BTF on
// top of vmlinux), and of BPF objects.
//
// A Spec is a view over the wire data. Opening one validates the header and
// makes a single pass over the type records, checking each one's bounds,
// kind, type references and string offsets, and recording one 4-byte offset
// for every four types. Nothing else is decoded: a Type is a small value
// whose accessors read its record in place, and reading types allocates
// nothing (Name copies the name it returns; NameBytes does not).
//
// Three calls make a Spec, as debug/elf has Open and NewFile: Open reads a
// file (memory-mapping raw BTF and uncompressed ELF files), Read any
// io.Reader, and Parse bytes the caller owns. All three take Options: the
// base of split BTF, the input size limit, a lazy check, and how many
// goroutines may check a big type section. ELF files, also compressed with
// gzip, xz or zstd (.ko.gz, .ko.xz, .ko.zst), are read through their .BTF
// section. (Kernel images and Debian packages are read by package kimage.)
//
// # Split BTF
//
// A Spec may have a base (Options.Base): its ids continue after the base's
// last id and its string offsets after the base's string section, as for
// kernel modules over vmlinux. A split Spec can itself be the base of
// another. Lookups and iteration take a Scope: the whole chain, the Spec's
// own types, or only its bases.
//
// An external module built with pahole's distilled_base feature has its
// BTF on a small distilled base, its ELF file's .BTF.base section, rather
// than on vmlinux. Open and Read relocate such a module onto Options.Base
// as libbpf's btf__relocate and the kernel do (Relocate does it for Specs
// at hand), and read it on its distilled base when no base is given. A
// base that the module does not fit gives an error matching
// ErrBaseMismatch. Package btf/distill writes such modules.
//
// # The raw view
//
// Beside the views, a Spec hands out the bytes behind them, as debug/elf's
// Section.Data does: Spec.TypeSection and Spec.StringSection, a Type's
// Record, and the string offsets of names (Type.NameOffset and those of
// Member, Param and EnumValue). They are for code that copies or prints
// every record (writers, deduplication, printers): kmeta's own subpackages
// use them, and decode the records with the layout of the kernel's
// Documentation/bpf/btf.rst. The bytes are in host byte order, belong to
// the Spec, must not be modified, and are valid until it is closed.
// ParseHeader reads a header alone, and Extract copies the raw BTF out of
// an ELF file or compressed data without parsing it; ExtractAll also keeps
// the ELF class's pointer size, for Parse's Options.PointerSize.
//
// # Concurrency
//
// Every call runs on the caller's goroutine, except that Open, Read and
// Parse check a big type section (1 MiB or more: a vmlinux's) in two
// halves on two goroutines when Options.Workers is 2 or more.
//
// A Spec and the Types from it are safe for concurrent use by any number of
// goroutines; the only state built after opening (the pointer size) is
// computed once under a sync.Once. Close may run concurrently with other
// uses of the Spec or of Specs built on it: from then on lookups return
// ErrClosed and views zero values. Its memory is given back at once if
// it is a mapping (Open, Read; the range reads as zeros until the GC
// finds the Spec unreachable), and by the GC otherwise (Parse). See
// Spec.Close. The kernel package shares Specs between goroutines with
// reference counting, so that Close happens only when nobody uses them.
//
// # Security
//
// Parsing treats its input as hostile. Every length, offset, type id and
// string offset is checked before use; errors are *FormatError values that
// name the section, the byte offset and the type. Allocations are bounded by
// the size of the input (the offset index is one 4-byte word per four
// records), never by a length field. Every input (a file, a stream, what
// compressed data inflates to, a compressed .BTF section) is capped at
// Options.MaxSize (DefaultMaxSize, 1 GiB), sizes that compressed data
// claims are checked against it before inflating, and inflated data must
// start with a BTF or ELF magic number before more of it is inflated.
// Chains of references are followed at most 32 deep, so cyclic BTF gives
// an error rather than a hang. FuzzParse and FuzzParseELF exercise these
// paths. Open maps files: a file that another process truncates while a
// Spec reads it faults (SIGBUS); callers that must survive that either
// read with Read, which copies, or set debug.SetPanicOnFault in the
// goroutines that read, as cmd/kmeta does: the goroutines a Spec starts
// for such a caller (Open's parallel walk) take the setting over, and a
// fault in one is raised on the caller's goroutine.
package btf
