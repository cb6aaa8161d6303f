//go:build !unix

package kernel

import (
	"errors"
	"runtime"

	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// Off Unix there is no running Linux kernel to read: every system call of
// the package fails with errUnsupported, so that the package builds and
// reports why it cannot work.

var errUnsupported = pkgerr.Errorf("kernel: not supported on %s: %w", runtime.GOOS, errors.ErrUnsupported)

const atFDCWD = -100

func openRead(int, string) (int, error)     { return -1, errUnsupported }
func openDir(string) (int, error)           { return -1, errUnsupported }
func closeFD(int)                           {}
func fileSize(int) (int64, bool, error)     { return 0, false, errUnsupported }
func pread(int, []byte, int64) (int, error) { return 0, errUnsupported }
func read(int, []byte) (int, error)         { return 0, errUnsupported }
func runningRelease() (string, error)       { return "", errUnsupported }
