package kernel

import (
	"errors"
	"strings"
)

// Vmlinux is the name under which vmlinux is listed in /sys/kernel/btf, and
// the Module of a Match found in vmlinux.
const Vmlinux = "vmlinux"

// Sentinel errors, matchable with errors.Is.
var (
	// ErrNoVmlinux is returned by Acquire when no vmlinux BTF can be found.
	ErrNoVmlinux = errors.New("kernel: no vmlinux BTF found")
	// ErrClosed is returned by Acquire after the Cache is closed.
	ErrClosed = errors.New("kernel: cache is closed")
	// ErrReleased is returned by the methods of a Handle after Release.
	ErrReleased = errors.New("kernel: handle is released")
)

// ModuleError reports that the BTF of one module could not be listed,
// opened or parsed. It concerns that module only. Use errors.As to get it
// from an error, and errors.Is on it to test the cause (fs.ErrNotExist for
// an unknown module, a *btf.FormatError for corrupt BTF, ...).
type ModuleError struct {
	Module string // the module's name
	Path   string // the file read for it
	Err    error  // the cause
}

// Error returns "kernel: module NAME: " and the cause, without a "kernel: "
// of its own.
func (e *ModuleError) Error() string {
	return "kernel: module " + e.Module + ": " + strings.TrimPrefix(e.Err.Error(), "kernel: ")
}

// Unwrap returns the cause.
func (e *ModuleError) Unwrap() error { return e.Err }
