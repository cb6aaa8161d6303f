package bpfsys

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// BTFInfo is what the kernel tells of a BTF object (struct bpf_btf_info).
type BTFInfo struct {
	ID      uint32
	Size    uint32 // bytes of raw BTF
	NameLen uint32 // bytes of the name, without its NUL; 0 for BTF loaded by programs
	Kernel  bool   // vmlinux's or a module's BTF
}

// ProgInfo is what kmeta reads of struct bpf_prog_info.
type ProgInfo struct {
	Type  uint32 // enum bpf_prog_type
	ID    uint32
	Tag   [8]byte
	Name  string
	BTFID uint32 // 0 if the program has no BTF
}

// MapInfo is what kmeta reads of struct bpf_map_info.
type MapInfo struct {
	Type                  uint32 // enum bpf_map_type
	ID                    uint32
	Name                  string
	KeySize               uint32
	ValueSize             uint32
	MaxEntries            uint32
	Flags                 uint32
	BTFID                 uint32 // 0 if the map has no BTF
	BTFKeyTypeID          uint32
	BTFValueTypeID        uint32
	BTFVmlinuxValueTypeID uint32
}

// Error is a failed bpf(2) command on a BPF object: the command, the id it
// was given (for the *_BY_ID and *_NEXT_ID commands) and the errno.
type Error struct {
	Op  string // "BPF_BTF_GET_FD_BY_ID", ...
	ID  uint32
	Err error // a syscall.Errno
}

// Error names the command and the errno; for EPERM and EACCES it says
// what is missing.
func (e *Error) Error() string {
	msg := fmt.Sprintf("%s: %v", e.Op, e.Err)
	if IsPermission(e.Err) {
		msg += " (" + needs(e.Op) + ")"
	}
	return msg
}

// needs says what privilege a command needs. The commands that reach
// objects by id need CAP_SYS_ADMIN, whatever the kernel's CAP_BPF allows
// (kernel/bpf/syscall.c: bpf_obj_get_next_id, bpf_prog_get_fd_by_id, ...).
func needs(op string) string {
	if strings.HasSuffix(op, "_GET_NEXT_ID") || strings.HasSuffix(op, "_GET_FD_BY_ID") {
		return "needs root or CAP_SYS_ADMIN"
	}
	return "needs root, or CAP_BPF or CAP_SYS_ADMIN"
}

// Unwrap returns the errno.
func (e *Error) Unwrap() error { return e.Err }

// IsPermission reports whether err is the kernel's refusal for lack of
// privilege: EPERM or EACCES.
func IsPermission(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES)
}

// cString returns b up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
