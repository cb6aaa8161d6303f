// Package wire is the only place in kmeta that knows the byte layout of BTF:
// the header, the kind numbers, the fixed and variable parts of each type
// record, and the optional layout section that describes them.
//
// All functions work on bytes in the host's byte order; data in the other
// order is converted once with Swap. Nothing here allocates per type.
//
// The format is described in the kernel's Documentation/bpf/btf.rst and
// include/uapi/linux/btf.h.
package wire
