//go:build !linux

package bpfsys

import "os"

// LoadBTF returns ErrUnsupported: only Linux has bpf(2).
func LoadBTF(data []byte) (*os.File, error) { return nil, ErrUnsupported }

// Available returns ErrUnsupported: only Linux has bpf(2).
func Available() error { return ErrUnsupported }
