//go:build linux && (386 || arm || mipsle)

package bpfsys

import "unsafe"

// pointer is a __aligned_u64 address field: see pointer_64.go. On 32-bit
// little-endian systems the address is the field's low half.
type pointer struct {
	p unsafe.Pointer
	_ uint32
}
