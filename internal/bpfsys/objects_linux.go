//go:build linux

package bpfsys

import (
	"math"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// getIDAttr is the part of union bpf_attr used by BPF_*_GET_NEXT_ID and
// BPF_*_GET_FD_BY_ID.
type getIDAttr struct {
	id        uint32 // start_id, or prog_id / map_id / btf_id
	nextID    uint32
	openFlags uint32
}

// infoAttr is the part of union bpf_attr used by BPF_OBJ_GET_INFO_BY_FD.
type infoAttr struct {
	fd      uint32
	infoLen uint32
	info    pointer
}

func bpf(cmd int, attr unsafe.Pointer, size uintptr) (uintptr, error) {
	r, _, errno := unix.Syscall(unix.SYS_BPF, uintptr(cmd), uintptr(attr), size)
	if errno != 0 {
		return 0, errno
	}
	return r, nil
}

// nextID runs one of the BPF_*_GET_NEXT_ID commands.
func nextID(cmd int, start uint32) (uint32, error) {
	attr := getIDAttr{id: start}
	if _, err := bpf(cmd, unsafe.Pointer(&attr), unsafe.Sizeof(attr)); err != nil {
		return 0, &Error{Op: cmdName(cmd), ID: start, Err: err}
	}
	return attr.nextID, nil
}

// fdByID runs one of the BPF_*_GET_FD_BY_ID commands.
func fdByID(cmd int, id uint32) (*FD, error) {
	attr := getIDAttr{id: id}
	r, err := bpf(cmd, unsafe.Pointer(&attr), unsafe.Sizeof(attr))
	if err != nil {
		return nil, &Error{Op: cmdName(cmd), ID: id, Err: err}
	}
	return newFD(int(r)), nil
}

// NextBTFID returns the id of the kernel's next BTF object after start
// (BPF_BTF_GET_NEXT_ID). After the last one the error wraps unix.ENOENT.
func NextBTFID(start uint32) (uint32, error) { return nextID(unix.BPF_BTF_GET_NEXT_ID, start) }

// NextProgID returns the id of the next loaded BPF program after start
// (BPF_PROG_GET_NEXT_ID). After the last one the error wraps unix.ENOENT.
func NextProgID(start uint32) (uint32, error) { return nextID(unix.BPF_PROG_GET_NEXT_ID, start) }

// NextMapID returns the id of the next BPF map after start
// (BPF_MAP_GET_NEXT_ID). After the last one the error wraps unix.ENOENT.
func NextMapID(start uint32) (uint32, error) { return nextID(unix.BPF_MAP_GET_NEXT_ID, start) }

// BTFByID opens the BTF object id (BPF_BTF_GET_FD_BY_ID); the caller closes
// the FD. A missing id gives an error wrapping unix.ENOENT.
func BTFByID(id uint32) (*FD, error) { return fdByID(unix.BPF_BTF_GET_FD_BY_ID, id) }

// ProgByID opens the BPF program id (BPF_PROG_GET_FD_BY_ID).
func ProgByID(id uint32) (*FD, error) { return fdByID(unix.BPF_PROG_GET_FD_BY_ID, id) }

// MapByID opens the BPF map id (BPF_MAP_GET_FD_BY_ID).
func MapByID(id uint32) (*FD, error) { return fdByID(unix.BPF_MAP_GET_FD_BY_ID, id) }

// objInfo runs BPF_OBJ_GET_INFO_BY_FD into the n bytes at info.
func (f *FD) objInfo(info unsafe.Pointer, n uintptr) error {
	if f == nil || f.fd < 0 {
		return &Error{Op: "BPF_OBJ_GET_INFO_BY_FD", Err: unix.EBADF}
	}
	attr := infoAttr{fd: uint32(f.fd), infoLen: uint32(n), info: pointer{p: info}}
	_, err := bpf(unix.BPF_OBJ_GET_INFO_BY_FD, unsafe.Pointer(&attr), unsafe.Sizeof(attr))
	runtime.KeepAlive(f)
	if err != nil {
		return &Error{Op: "BPF_OBJ_GET_INFO_BY_FD", Err: err}
	}
	return nil
}

// btfInfo is struct bpf_btf_info.
type btfInfo struct {
	btf       pointer
	btfSize   uint32
	id        uint32
	name      pointer
	nameLen   uint32
	kernelBTF uint32
}

// BTFInfo returns the information of the BTF object f and, if data and
// name are long enough (see BTFInfo.Size and NameLen), copies its raw BTF
// into data and its name into name. Call it once with nil buffers to learn
// the sizes: with a buffer too short the kernel fails with ENOSPC.
func (f *FD) BTFInfo(data, name []byte) (BTFInfo, error) {
	var in btfInfo
	if len(data) > 0 {
		in.btf = pointer{p: unsafe.Pointer(&data[0])}
		in.btfSize = uint32(min(uint64(len(data)), math.MaxUint32))
	}
	if len(name) > 0 {
		in.name = pointer{p: unsafe.Pointer(&name[0])}
		in.nameLen = uint32(min(uint64(len(name)), math.MaxUint32))
	}
	err := f.objInfo(unsafe.Pointer(&in), unsafe.Sizeof(in))
	runtime.KeepAlive(data)
	runtime.KeepAlive(name)
	if err != nil {
		return BTFInfo{}, err
	}
	return BTFInfo{ID: in.id, Size: in.btfSize, NameLen: in.nameLen, Kernel: in.kernelBTF != 0}, nil
}

// progInfo is struct bpf_prog_info as of Linux 6.1, whose fields after
// btf_id kmeta does not read.
type progInfo struct {
	typ             uint32
	id              uint32
	tag             [8]byte
	jitedProgLen    uint32
	xlatedProgLen   uint32
	jitedProgInsns  pointer
	xlatedProgInsns pointer
	loadTime        uint64
	createdByUID    uint32
	nrMapIDs        uint32
	mapIDs          pointer
	name            [16]byte
	ifindex         uint32
	gplCompatible   uint32
	netnsDev        uint64
	netnsIno        uint64
	nrJitedKsyms    uint32
	nrJitedFuncLens uint32
	jitedKsyms      pointer
	jitedFuncLens   pointer
	btfID           uint32
	_               uint32
}

// ProgInfo returns the information of the BPF program f.
func (f *FD) ProgInfo() (ProgInfo, error) {
	var in progInfo
	if err := f.objInfo(unsafe.Pointer(&in), unsafe.Sizeof(in)); err != nil {
		return ProgInfo{}, err
	}
	return ProgInfo{Type: in.typ, ID: in.id, Tag: in.tag, Name: cString(in.name[:]), BTFID: in.btfID}, nil
}

// mapInfo is struct bpf_map_info as of Linux 6.1.
type mapInfo struct {
	typ                   uint32
	id                    uint32
	keySize               uint32
	valueSize             uint32
	maxEntries            uint32
	mapFlags              uint32
	name                  [16]byte
	ifindex               uint32
	btfVmlinuxValueTypeID uint32
	netnsDev              uint64
	netnsIno              uint64
	btfID                 uint32
	btfKeyTypeID          uint32
	btfValueTypeID        uint32
	_                     uint32
	mapExtra              uint64
}

// MapInfo returns the information of the BPF map f.
func (f *FD) MapInfo() (MapInfo, error) {
	var in mapInfo
	if err := f.objInfo(unsafe.Pointer(&in), unsafe.Sizeof(in)); err != nil {
		return MapInfo{}, err
	}
	return MapInfo{
		Type: in.typ, ID: in.id, Name: cString(in.name[:]),
		KeySize: in.keySize, ValueSize: in.valueSize, MaxEntries: in.maxEntries, Flags: in.mapFlags,
		BTFID: in.btfID, BTFKeyTypeID: in.btfKeyTypeID, BTFValueTypeID: in.btfValueTypeID,
		BTFVmlinuxValueTypeID: in.btfVmlinuxValueTypeID,
	}, nil
}

// FD is a file descriptor of a BPF object (a program, map or BTF). It is
// not closed for the caller: Close it.
type FD struct{ fd int }

func newFD(fd int) *FD { return &FD{fd: fd} }

// Close closes the file descriptor. Closing twice, or a nil FD, does nothing.
func (f *FD) Close() error {
	if f == nil || f.fd < 0 {
		return nil
	}
	fd := f.fd
	f.fd = -1
	return unix.Close(fd)
}

func cmdName(cmd int) string {
	switch cmd {
	case unix.BPF_BTF_GET_NEXT_ID:
		return "BPF_BTF_GET_NEXT_ID"
	case unix.BPF_PROG_GET_NEXT_ID:
		return "BPF_PROG_GET_NEXT_ID"
	case unix.BPF_MAP_GET_NEXT_ID:
		return "BPF_MAP_GET_NEXT_ID"
	case unix.BPF_BTF_GET_FD_BY_ID:
		return "BPF_BTF_GET_FD_BY_ID"
	case unix.BPF_PROG_GET_FD_BY_ID:
		return "BPF_PROG_GET_FD_BY_ID"
	case unix.BPF_MAP_GET_FD_BY_ID:
		return "BPF_MAP_GET_FD_BY_ID"
	}
	return "bpf"
}
