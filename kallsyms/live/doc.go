// Package live keeps a kallsyms.Snapshot of the running kernel current
// while modules and BPF programs come and go. Package kallsyms reads,
// stores and looks up symbols; this package decides when to read them
// again, and follows the kernel between two reads.
//
// # Reloading
//
// A Symbolizer (NewSymbolizer) follows a kernel: it holds the current
// kallsyms.Snapshot in an atomic pointer. Reload builds a new snapshot beside the
// old one, reusing the tables of modules whose symbols did not change
// (kallsyms.Options.Reuse), and swaps it in; a failed reload keeps the
// old snapshot. RequestReload throttles: requests within Options.Coalesce
// share one reload, and reloads start at least Options.MinInterval apart.
// Symbolizer.Watch listens for module uevents (package uevent) and
// requests reloads; on a module's add event it first publishes the
// module's range from sysfs (kallsyms.Snapshot.WithModule), so that its
// addresses resolve to the module and an offset before kallsyms lists
// its symbols.
//
// BPF programs, trampolines and dispatchers send no uevent. A Symbolizer
// of the running kernel follows the kernel's ksymbol events instead
// (PERF_RECORD_KSYMBOL, from one perf event per CPU): each symbol
// registered or unregistered patches the BPF pseudo-module's table into a
// new snapshot (kallsyms.Snapshot.WithSymbols), with the symbol's exact
// length, without rereading /proc/kallsyms; lost events cause one
// throttled reload. Where perf events are unavailable (no CAP_PERFMON,
// kernel.perf_event_paranoid, not Linux), Symbolizer.KsymEventsErr says
// why, and the BPF table is as current as the last reload.
//
// # Concurrency
//
// Symbolizer is safe for concurrent use: readers never block, reloads and
// patches are serialized. The snapshots it hands out are immutable.
//
// Goroutines: NewSymbolizer starts one goroutine for throttled reloads
// and, when it follows ksymbol events, one that reads and applies them;
// both end at Close. When Options.Workers is 2 or more, a reload reads
// sysfs on a second goroutine, and parses as kallsyms.Parse does with
// kallsyms.Options.Workers. Watch runs on the caller's goroutine, with a
// helper that closes its socket at Close. Callbacks (OnReload, OnKsym, OnEvent) run on
// those goroutines. Every other call runs on the caller's goroutine. The
// package has no mutable package-level state.
//
// # Security
//
// /proc/kallsyms shows real addresses only to readers with CAP_SYSLOG
// (depending on kernel.kptr_restrict): see package kallsyms.
//
// Following ksymbol events needs a CPU-wide perf event on every CPU:
// CAP_PERFMON (or CAP_SYS_ADMIN) unless kernel.perf_event_paranoid is at
// most 0. The events come from the kernel only; their records are
// bounds-checked (internal/perfevent), names are bounded, and a corrupt
// ring is treated as lost events, which cause a reload of the kernel's
// own files.
//
// Uevents on NETLINK_KOBJECT_UEVENT can be sent by any process with
// CAP_NET_ADMIN in the network namespace. Watch acts only on messages
// whose sender port id is 0 (the kernel) unless told to trust other port
// ids (uevent.Options.TrustPortIDs, for tests); a forged event can at most
// cause a throttled reload, which re-reads the kernel's own files.
package live
