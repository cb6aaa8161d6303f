//go:build linux

package bpfsys

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// btfLoadAttr is the BPF_BTF_LOAD part of union bpf_attr, up to
// btf_log_true_size (Linux 6.4); older kernels see zeros past what they know.
type btfLoadAttr struct {
	btf         pointer
	logBuf      pointer
	size        uint32
	logSize     uint32
	logLevel    uint32
	logTrueSize uint32
}

// LoadBTF loads raw BTF data into the kernel and returns the file
// descriptor of the new BTF object, which the caller closes. If the kernel
// rejects the data, the load is retried with logging on and the error is a
// *LoadError carrying the verifier log. Empty data gives an error without a
// system call.
func LoadBTF(data []byte) (*os.File, error) {
	if len(data) == 0 {
		return nil, &LoadError{Err: unix.EINVAL, Log: "empty BTF data"}
	}
	fd, err := load(data, nil)
	if err == nil {
		return os.NewFile(uintptr(fd), "btf"), nil
	}
	if err == unix.EPERM || err == unix.ENOSYS {
		return nil, &LoadError{Err: err}
	}
	log := make([]byte, MaxLog)
	fd, err2 := load(data, log)
	if err2 == nil { // accepted the second time: report success
		return os.NewFile(uintptr(fd), "btf"), nil
	}
	if i := bytes.IndexByte(log, 0); i >= 0 {
		log = log[:i]
	}
	return nil, &LoadError{Err: err, Log: string(bytes.TrimSpace(log))}
}

func load(data, log []byte) (int, error) {
	attr := btfLoadAttr{
		btf:  pointer{p: unsafe.Pointer(&data[0])},
		size: uint32(len(data)),
	}
	if len(log) > 0 {
		attr.logBuf = pointer{p: unsafe.Pointer(&log[0])}
		attr.logSize = uint32(len(log))
		attr.logLevel = 1
	}
	fd, _, errno := unix.Syscall(unix.SYS_BPF, unix.BPF_BTF_LOAD, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	runtime.KeepAlive(data)
	runtime.KeepAlive(log)
	if errno != 0 {
		return -1, errno
	}
	return int(fd), nil
}

// tiny is the smallest valid BTF: one INT "int" (4 bytes, signed).
var tiny = []byte{
	0x9f, 0xeb, 1, 0, 24, 0, 0, 0, // magic, version, flags, hdr_len
	0, 0, 0, 0, 16, 0, 0, 0, // type_off, type_len
	16, 0, 0, 0, 5, 0, 0, 0, // str_off, str_len
	1, 0, 0, 0, 0, 0, 0, 1, 4, 0, 0, 0, 32, 0, 0, 1, // INT 'int' size 4, 32 bits, signed
	0, 'i', 'n', 't', 0,
}

// Available reports whether BPF_BTF_LOAD works here, by loading a tiny BTF
// blob: nil if it does, otherwise why not (not root, no CAP_BPF, seccomp, an
// old kernel).
func Available() error {
	data := tiny
	if !isLittle() {
		data = swapTiny()
	}
	f, err := LoadBTF(data)
	if err != nil {
		return err
	}
	return f.Close()
}

func isLittle() bool { return binary.NativeEndian.Uint16([]byte{1, 0}) == 1 }

// swapTiny returns tiny in big-endian order: every field but the magic's
// bytes, the version and flags is a 32-bit word (the magic is 16 bits).
func swapTiny() []byte {
	b := bytes.Clone(tiny)
	b[0], b[1] = b[1], b[0]
	for i := 4; i+4 <= 24+16; i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return b
}
