// Package kerneltypes gives the minimal BTF of a kernel for the CO-RE
// relocations of BPF objects: "which kernel types do these programs
// need", as a BPF loader that takes the kernel's types as an input wants
// them (cilium/ebpf's ProgramOptions.KernelTypes and
// ExtraRelocationTargets, libbpf's btf_custom_path), instead of the whole
// vmlinux and module BTF.
//
// Who feeds whom: package kernel finds and opens the kernel's BTF
// (vmlinux, and module BTF through its Cache), package btf/core resolves
// the relocations of core.Objects (from package bpfelf, say) against it
// and marks the types they use, and this package joins the two. It lives
// above kernel, not in btf/core, because it needs kernel's finding of
// module BTF: btf/core itself works on BTF handed to it and reads no
// files.
//
// # Concurrency
//
// Minimal runs on the caller's goroutine, and on up to
// kernel.Options.Workers more while the kernel's BTF is read. Calls may
// run at once, also on the same objects: each opens the kernel's BTF for
// itself. The returned Types hold no reference to the kernel's files.
//
// # Security
//
// The kernel's BTF is found and read by package kernel, and parsed as
// hostile input by package btf; resolution follows btf/core's bounds.
package kerneltypes
