//go:build !linux

package bpfsys

import "os"

// ProgNameLen is the size of a BPF program's name field (BPF_OBJ_NAME_LEN),
// its terminating NUL included: names are at most 15 bytes.
const ProgNameLen = 16

// LoadSocketFilter returns ErrUnsupported: only Linux has bpf(2).
func LoadSocketFilter(name string) (*os.File, error) { return nil, ErrUnsupported }
