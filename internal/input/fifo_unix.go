//go:build unix

package input

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// oNonblock opens FIFOs without waiting for a writer.
const oNonblock = unix.O_NONBLOCK

func newFifoReader(f *os.File) io.Reader { return &fifoReader{f: f} }

// fifoReader reads a FIFO opened with O_NONBLOCK. Such a read returns
// end-of-file at once while no writer has opened the FIFO yet; the first
// time that happens, fifoReader waits for the FIFO to become readable
// instead (data, or a writer that came and went), as a blocking open and
// read would, but interruptibly.
type fifoReader struct {
	f      *os.File
	waited bool
}

func (r *fifoReader) Read(p []byte) (int, error) {
	rc, err := r.f.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, rerr = unix.Read(int(fd), p)
		if rerr == unix.EAGAIN || rerr == unix.EINTR {
			return false
		}
		if n == 0 && rerr == nil && !r.waited && len(p) > 0 {
			r.waited = true
			return false
		}
		r.waited = true
		return true
	})
	if err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, rerr
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}
