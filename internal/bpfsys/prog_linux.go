//go:build linux

package bpfsys

import (
	"fmt"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// progLoadAttr is the BPF_PROG_LOAD part of union bpf_attr, up to
// expected_attach_type (Linux 4.17); newer fields stay zero.
type progLoadAttr struct {
	progType           uint32
	insnCnt            uint32
	insns              uint64
	license            uint64
	logLevel           uint32
	logSize            uint32
	logBuf             uint64
	kernVersion        uint32
	progFlags          uint32
	progName           [ProgNameLen]byte
	progIfindex        uint32
	expectedAttachType uint32
}

// ProgNameLen is the size of a BPF program's name field (BPF_OBJ_NAME_LEN),
// its terminating NUL included: names are at most 15 bytes.
const ProgNameLen = 16

// trivialFilter is the socket filter "r0 = 0; exit": BPF_ALU64|BPF_MOV|BPF_K
// into r0, then BPF_JMP|BPF_EXIT. It accepts no packet.
var trivialFilter = [2]uint64{
	0xb7, // code 0xb7, dst r0, src 0, off 0, imm 0 (little-endian layout)
	0x95,
}

var gpl = []byte("GPL\x00")

// LoadSocketFilter loads the trivial socket filter "r0 = 0; exit" under
// the given name (at most 15 bytes of [A-Za-z0-9_.]) and returns the
// program's file descriptor; closing it unloads the program. Tests use it
// to make the kernel register and unregister a BPF program symbol. It
// needs CAP_BPF (or root) and a kernel with bpf(2).
func LoadSocketFilter(name string) (*os.File, error) {
	if len(name) >= ProgNameLen {
		return nil, fmt.Errorf("bpfsys: program name %q is longer than %d bytes", name, ProgNameLen-1)
	}
	insns := trivialFilter
	if !isLittle() { // the register nibbles are all zero: only the code byte moves
		insns[0], insns[1] = 0xb7<<56, 0x95<<56
	}
	attr := progLoadAttr{
		progType: unix.BPF_PROG_TYPE_SOCKET_FILTER,
		insnCnt:  uint32(len(insns)),
		insns:    uint64(uintptr(unsafe.Pointer(&insns[0]))),
		license:  uint64(uintptr(unsafe.Pointer(&gpl[0]))),
	}
	copy(attr.progName[:], name)
	// The verifier gives up with EAGAIN when a signal is pending, and Go's
	// runtime signals its threads to preempt goroutines: retry, as libbpf
	// does (sys_bpf_prog_load).
	var fd uintptr
	var errno unix.Errno
	for range 10 {
		fd, _, errno = unix.Syscall(unix.SYS_BPF, unix.BPF_PROG_LOAD, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
		if errno != unix.EAGAIN {
			break
		}
	}
	runtime.KeepAlive(&insns)
	if errno != 0 {
		return nil, fmt.Errorf("bpfsys: BPF_PROG_LOAD %q: %w", name, errno)
	}
	return os.NewFile(fd, "bpf-prog:"+name), nil
}
