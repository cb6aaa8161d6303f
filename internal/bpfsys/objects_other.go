//go:build !linux

package bpfsys

// FD is a file descriptor of a BPF object; off Linux there are none.
type FD struct{}

// Close does nothing off Linux.
func (f *FD) Close() error { return nil }

// NextBTFID returns ErrUnsupported: only Linux has bpf(2).
func NextBTFID(start uint32) (uint32, error) { return 0, ErrUnsupported }

// NextProgID returns ErrUnsupported: only Linux has bpf(2).
func NextProgID(start uint32) (uint32, error) { return 0, ErrUnsupported }

// NextMapID returns ErrUnsupported: only Linux has bpf(2).
func NextMapID(start uint32) (uint32, error) { return 0, ErrUnsupported }

// BTFByID returns ErrUnsupported: only Linux has bpf(2).
func BTFByID(id uint32) (*FD, error) { return nil, ErrUnsupported }

// ProgByID returns ErrUnsupported: only Linux has bpf(2).
func ProgByID(id uint32) (*FD, error) { return nil, ErrUnsupported }

// MapByID returns ErrUnsupported: only Linux has bpf(2).
func MapByID(id uint32) (*FD, error) { return nil, ErrUnsupported }

// BTFInfo returns ErrUnsupported: only Linux has bpf(2).
func (f *FD) BTFInfo(data, name []byte) (BTFInfo, error) { return BTFInfo{}, ErrUnsupported }

// ProgInfo returns ErrUnsupported: only Linux has bpf(2).
func (f *FD) ProgInfo() (ProgInfo, error) { return ProgInfo{}, ErrUnsupported }

// MapInfo returns ErrUnsupported: only Linux has bpf(2).
func (f *FD) MapInfo() (MapInfo, error) { return MapInfo{}, ErrUnsupported }
