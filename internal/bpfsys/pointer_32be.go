//go:build linux && mips

package bpfsys

import "unsafe"

// pointer is a __aligned_u64 address field: see pointer_64.go. On 32-bit
// big-endian systems the address is the field's low half, its second word.
type pointer struct {
	_ uint32
	p unsafe.Pointer
}
