//go:build linux && !(386 || arm || mips || mipsle)

package bpfsys

import "unsafe"

// pointer is a __aligned_u64 field of union bpf_attr or of an info struct
// that holds an address. It is an unsafe.Pointer, not an integer, so that
// the garbage collector keeps what it points to alive and the runtime
// updates it when the goroutine's stack moves: an address kept as an
// integer would go stale if the stack grew between taking it and the
// system call.
type pointer struct{ p unsafe.Pointer }
