// Package bpfsys loads BTF into the kernel with bpf(BPF_BTF_LOAD), so that
// tests can check what kmeta writes against the kernel's own BTF verifier,
// and reads the kernel's BPF objects: it walks the ids of BTF objects,
// programs and maps (BPF_*_GET_NEXT_ID), opens them by id
// (BPF_*_GET_FD_BY_ID) and reads their information and raw BTF
// (BPF_OBJ_GET_INFO_BY_FD). For tests of kernel symbols it also loads a
// trivial named socket filter (BPF_PROG_LOAD, LoadSocketFilter), whose
// load and unload make the kernel register and unregister a symbol. It is
// the one place in kmeta that makes the bpf system call; package bpfobj
// is the public API over the reading side.
//
// # Concurrency
//
// The functions are safe for concurrent use; they keep no state. An FD
// must not be closed while another goroutine uses it.
//
// # Security
//
// Loading BTF, and reading the kernel's BPF objects, needs CAP_BPF or
// CAP_SYS_ADMIN (or root); the errors for EPERM and EACCES say so. The data is passed to the kernel as
// is; the kernel's verifier checks it. The log buffer is bounded (MaxLog).
package bpfsys

import (
	"errors"
	"fmt"
)

// MaxLog is the size of the buffer that receives the kernel's verifier log
// when a load fails.
const MaxLog = 16 << 20

// ErrUnsupported is returned on systems without the bpf system call.
var ErrUnsupported = errors.New("bpfsys: bpf(2) is not supported on this system")

// LoadError is a failed BPF_BTF_LOAD: the errno and the kernel's verifier
// log (its last part, if it was longer than MaxLog).
type LoadError struct {
	Err error  // the errno, a syscall.Errno
	Log string // the verifier log, without trailing NULs
}

// Error says what the kernel refused, with the end of its verifier log.
func (e *LoadError) Error() string {
	if e.Log == "" {
		return fmt.Sprintf("BPF_BTF_LOAD: %v", e.Err)
	}
	return fmt.Sprintf("BPF_BTF_LOAD: %v: verifier log:\n%s", e.Err, e.Log)
}

// Unwrap returns the errno of the failed bpf(2) call.
func (e *LoadError) Unwrap() error { return e.Err }
