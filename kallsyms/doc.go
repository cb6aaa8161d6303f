// Package kallsyms reads the kernel's symbol table (/proc/kallsyms) into
// compact, immutable per-module tables, and resolves addresses to
// module!symbol+offset. Package kallsyms/live keeps such tables current
// while modules and BPF programs come and go.
//
// # Reading
//
// Parse and ReadFile build an immutable Snapshot: one table per module
// (Vmlinux for the kernel image, pseudo-modules such as "bpf" and
// "__builtin__ftrace" too). Text symbols are kept by default, data symbols
// with Options.Data. The ftrace-cloned init symbols that the kernel lists
// after all modules join their module's table. Names up to MaxNameLen
// bytes are kept whole.
//
// Tables are compact: symbols are grouped in blocks of up to twelve, each
// described by one 64-byte header (a cache line) that holds the block's
// start, a 16-bit address lane and a 16-bit name bound per symbol and a
// flag bit each, with an index of about four address buckets per block
// that names the block of nearly every address, so that a lookup reads
// the index, one header and the name. Names lie back to back, as 16-bit
// codes of a static dictionary of 4,096 single bytes and words of kernel
// names ("sched_", "x64_"), about four codes a name. The __pfx_ padding
// symbols that precede most functions on 6.2+ kernels cost one flag bit:
// they resolve and list like other symbols but store neither a name nor an
// address. On a 6.18 kernel this is about 8 bytes per symbol.
//
// ReadModules reads /sys/module/*/{sections/.text,coresize,initstate,
// notes/.note.gnu.build-id}; with that metadata an address inside a module
// whose symbols are not (yet) listed resolves to the module and an offset.
// Input whose addresses are all zero (kernel.kptr_restrict) is refused with
// ErrRestricted: the package never returns wrong symbols.
//
// # Lookups
//
// Snapshot.Lookup resolves an address; a symbol ends where the next one
// of its module starts. Without Options.Data, text also ends at vmlinux's
// _etext and _einittext and at the first data symbol above a text symbol:
// an address from there to the next text symbol (rodata, say) returns
// ErrNotText, never the text symbol below it. LookupAppend does the same
// without allocating, filling the caller's Symbol and decoding the name
// into the caller's buffer: with a reused buffer it is the fast path for
// profilers. LookupNameSeq yields the symbols of a name with a linear scan
// over the compressed names, holding none of them (LookupName collects
// them in a slice). Modules lists modules with their address ranges
// and build IDs.
//
// # Following a kernel
//
// A Snapshot never changes. Package kallsyms/live keeps one current
// while modules and BPF programs come and go: it rereads kallsyms with
// Options.Reuse, so that unchanged modules share their tables with the
// previous snapshot, and in between derives snapshots from the last one
// with WithModule, Without and WithSymbols, which build only what
// changed.
//
// # Concurrency
//
// Snapshot is immutable and safe for concurrent use; so are the package's
// functions.
//
// Goroutines: Parse and ReadFile run on the caller's goroutine unless
// Options.Workers is 2 or more: then they read their input on a goroutine
// of their own until it ends, and lay out a big table on two. Every other
// call runs on the caller's goroutine. The package has no mutable
// package-level state: its only package-level values are the read-only
// name dictionary (built on first use) and sentinel errors.
//
// # Security
//
// /proc/kallsyms shows real addresses only to readers with CAP_SYSLOG
// (depending on kernel.kptr_restrict); sysfs section addresses likewise.
// Snapshots hold kernel addresses, which defeat KASLR: do not expose them
// to less privileged parties.
//
// Parsing treats its input as untrusted: lines, names (MaxNameLen) and
// module names are bounded, malformed lines return a *ParseError with the
// line number, and memory grows only with the input. Sysfs attributes are
// read with a size limit and ELF notes are bounds-checked.
package kallsyms
