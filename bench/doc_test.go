// Package bench compares kmeta with its peers (cilium/ebpf, bpftool, the
// OpenTelemetry profiler's kallsyms) side by side in one run. It is a
// separate Go module so that the peers are dependencies of the benchmarks
// only, never of kmeta itself. See BENCHMARKS.md at the repository root.
package bench
