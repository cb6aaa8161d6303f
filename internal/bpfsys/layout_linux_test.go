//go:build linux

package bpfsys

import (
	"testing"
	"unsafe"
)

// TestLayout checks the Go structs against the offsets and sizes of the
// kernel's (include/uapi/linux/bpf.h, Linux 6.1), on every GOARCH: the
// kernel's __aligned_u64 fields are 8-aligned where Go aligns uint64 to 4.
func TestLayout(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(bpf_btf_info)", unsafe.Sizeof(btfInfo{}), 32},
		{"bpf_btf_info.name", unsafe.Offsetof(btfInfo{}.name), 16},
		{"bpf_btf_info.kernel_btf", unsafe.Offsetof(btfInfo{}.kernelBTF), 28},
		{"sizeof(bpf_prog_info) up to btf_id", unsafe.Sizeof(progInfo{}), 136},
		{"bpf_prog_info.map_ids", unsafe.Offsetof(progInfo{}.mapIDs), 56},
		{"bpf_prog_info.name", unsafe.Offsetof(progInfo{}.name), 64},
		{"bpf_prog_info.netns_dev", unsafe.Offsetof(progInfo{}.netnsDev), 88},
		{"bpf_prog_info.btf_id", unsafe.Offsetof(progInfo{}.btfID), 128},
		{"sizeof(bpf_map_info)", unsafe.Sizeof(mapInfo{}), 88},
		{"bpf_map_info.netns_dev", unsafe.Offsetof(mapInfo{}.netnsDev), 48},
		{"bpf_map_info.btf_id", unsafe.Offsetof(mapInfo{}.btfID), 64},
		{"bpf_map_info.map_extra", unsafe.Offsetof(mapInfo{}.mapExtra), 80},
		{"sizeof(info attr)", unsafe.Sizeof(infoAttr{}), 16},
		{"sizeof(get id attr)", unsafe.Sizeof(getIDAttr{}), 12},
	} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
