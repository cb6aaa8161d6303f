// Package perfevent reads the kernel's side-band records of symbols that
// come and go at run time, PERF_RECORD_KSYMBOL (BPF programs, trampolines,
// dispatchers, out-of-line code), from one perf event per online CPU:
// PERF_TYPE_SOFTWARE/PERF_COUNT_SW_DUMMY with ksymbol set, each with an
// mmap'd ring buffer read without cgo. PERF_RECORD_LOST says that records
// were dropped because a ring was full; PERF_RECORD_BPF_EVENT (program
// load and unload, with the program's id and tag) is asked for with
// Options.BPFEvents.
//
// The kernel emits a ksymbol record on the CPU where the symbol was
// registered or unregistered, so a program loaded on one CPU may be
// unloaded on another: records carry their time (CLOCK_MONOTONIC, from
// sample_id_all with PERF_SAMPLE_TIME), and Read returns each batch
// sorted by it.
//
// Parse, the decoder of one record, is pure and fuzzed; the rest is Linux
// only. Elsewhere Open returns ErrUnsupported.
//
// # Concurrency
//
// A Reader may be used by one reading goroutine at a time; Close may be
// called from any goroutine and interrupts a blocked Read. The package
// starts no goroutines of its own; Read arranges with context.AfterFunc
// for a done context to wake it.
//
// # Security
//
// A CPU-wide perf event needs CAP_PERFMON (or CAP_SYS_ADMIN) unless
// kernel.perf_event_paranoid is at most 0; Open returns an error matching
// os.ErrPermission otherwise. The records carry kernel addresses, which
// defeat KASLR. Records are bounds-checked: a corrupt ring is reported as
// lost records, never read out of bounds.
package perfevent
