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
// Open maps raw BTF files and uncompressed ELF files into memory; Parse
// works on bytes the caller owns; Read takes any io.Reader. ELF files, also
// compressed with gzip, xz or zstd (.ko.gz, .ko.xz, .ko.zst), are read
// through their .BTF section.
//
// # Split BTF
//
// A Spec may have a base (ParseSplit, OpenSplit): its ids continue after the
// base's last id and its string offsets after the base's string section, as
// for kernel modules over vmlinux. A split Spec can itself be the base of
// another. Lookups and iteration take a Scope: the whole chain, the Spec's
// own types, or only its bases.
//
// # Low-level access
//
// Four names give the wire bytes behind the views, for code that copies or
// prints every record and would pay for a Type per field: Type.Record (one
// record), Spec.TypeSection (all of a Spec's own records, back to back),
// Spec.StringSection (its own strings and their first offset) and
// StringsRange (where the strings lie in raw BTF, from its header alone).
// The bytes are in host byte order, belong to the Spec, must not be
// modified, and are valid until Close (the first three return nil after
// it). Their layout is the kernel's (Documentation/bpf/btf.rst); kmeta's
// own packages decode it only through btf/internal/wire. Everything else
// should use the views.
//
// # Concurrency
//
// A Spec and the Types from it are safe for concurrent use by any number of
// goroutines; the only state built after opening (the pointer size) is
// computed once under a sync.Once. Close must not run concurrently with
// other uses of the Spec or of Specs built on it: after Close returns,
// lookups return ErrClosed and views return zero values, but a view that
// is reading while Close unmaps the data may fault. The kernel package
// shares Specs between goroutines with reference counting, so that Close
// happens only when nobody uses them.
//
// # Security
//
// Parsing treats its input as hostile. Every length, offset, type id and
// string offset is checked before use; errors are *FormatError values that
// name the section, the byte offset and the type. Allocations are bounded by
// the size of the input (the offset index is one 4-byte word per four
// records), never by a length field. Every input (a file, a stream, what
// compressed data inflates to, a compressed .BTF section) is capped at
// ReadOptions.MaxSize (DefaultMaxSize, 1 GiB), sizes that compressed data
// claims are checked against it before inflating, and inflated data must
// start with a BTF or ELF magic number before more of it is inflated;
// peak memory stays within about 1.125 times the limit (internal/input). Chains of references are followed at most 32 deep, so
// cyclic BTF gives an error rather than a hang. FuzzParse and FuzzParseELF
// exercise these paths. Open maps files: a file that another process
// truncates while a Spec reads it faults (SIGBUS); callers that must
// survive that either read with ReadWith, which copies, or set
// debug.SetPanicOnFault in the goroutines that read, as cmd/kmeta does.
package btf
