// Package kernel finds the BTF of a kernel (vmlinux and its modules) and
// shares it between goroutines and libraries through a Cache that gives the
// memory back when nobody uses it.
//
// OpenVmlinux is the one call for the running kernel's BTF, a *btf.Spec the
// caller closes:
//
//	spec, err := kernel.OpenVmlinux()
//	...
//	defer spec.Close()
//
// vmlinux BTF is read from /sys/kernel/btf/vmlinux (memory-mapped), or, when
// sysfs has none, from the first of the on-disk places libbpf tries for the
// kernel release R that holds usable BTF: /boot/vmlinux-R,
// /lib/modules/R/vmlinux-R, /lib/modules/R/build/vmlinux,
// /usr/lib/modules/R/kernel/vmlinux, /usr/lib/debug/boot/vmlinux-R,
// /usr/lib/debug/boot/vmlinux-R.debug and /usr/lib/debug/lib/modules/R/vmlinux.
// Module BTF is /sys/kernel/btf/MODULE: the directory is listed once, and each
// module is opened on first use as split BTF over the one shared vmlinux
// Spec. Options moves all of these paths under another root directory, so a
// copy of another machine's files can be read as if it were the running
// kernel.
//
// A Cache holds one generation of Specs at a time. Acquire returns a Handle
// on the current generation, opening vmlinux (and listing the module BTF
// directory) if needed; Release gives it
// back. Flush detaches the generation: the next Acquire opens the files
// again, and the detached Specs are closed (unmapped) as soon as the last
// Handle on them is released. Nothing is cached outside a Cache value:
// Default returns a process-wide Cache for the running kernel, which holds
// nothing until it is first used and can be flushed like any other.
//
// Handle.Find searches vmlinux and every module for a name. Each Match names
// the module it comes from (or "vmlinux"); a module whose BTF cannot be read
// is reported as a *ModuleError for that module alone, and every other module
// is still searched. A module is ruled out by its string section when it
// can be, so that a search for a type of one module opens that module only.
// Cache.Find acquires a Handle and searches it in one call; on a Cache that
// holds nothing yet, it screens the modules' string sections while vmlinux
// is being opened, instead of after, when it may use a second goroutine.
//
// # Concurrency
//
// Calls run on the caller's goroutine unless Options.Workers allows more:
// then vmlinux's records are checked on two goroutines, the module
// directory is listed (or the modules screened) on another while vmlinux is
// read, and many modules are read or screened on up to Workers goroutines.
// Default's Cache allows GOMAXPROCS.
//
// Cache and Handle are safe for concurrent use by multiple goroutines. Flush
// never closes a Spec that a live Handle can reach: Specs are closed only
// when their generation has been flushed and its last Handle released.
// Release waits for the calls on that Handle that are in progress. Specs and
// Types obtained through a Handle must not be used after the Handle is
// released: their memory may be unmapped as soon as Release returns (btf
// views used after Close return zero values, but a read that races with the
// unmapping may fault).
//
// # Security
//
// The BTF read here comes from the kernel or from files under the configured
// root, and is parsed as hostile input by package btf: every offset, length
// and reference is checked, and a corrupt module fails only itself. Module
// names, whether listed from the directory or passed by the caller, are used
// as single path elements: names containing a path separator, "." or ".."
// are rejected, so a name cannot reach outside the BTF directory. The kernel
// release is checked the same way before it is put into a path. Only
// regular files are read (a FIFO or device planted under a fake root is
// rejected without blocking), and a module file is read into memory with a
// size limit (MaxModuleSize); screening a module reads at most its first
// 4 KiB and a string section of at most 4 MiB, into reused buffers. The
// package does not follow any path it reads from the files themselves.
package kernel
