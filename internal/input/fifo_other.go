//go:build !unix

package input

import (
	"io"
	"os"
)

// oNonblock is 0 where O_NONBLOCK does not exist: opening a FIFO there is
// whatever the system does.
const oNonblock = 0

func newFifoReader(f *os.File) io.Reader { return f }
