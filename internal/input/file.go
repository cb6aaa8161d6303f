package input

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// OpenFile opens path for reading without blocking: with O_NONBLOCK, so
// that opening a FIFO does not wait for a writer. It accepts regular
// files, FIFOs and character devices, and refuses anything else (a
// directory, a socket) with an error that says what it is.
func OpenFile(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	switch m := fi.Mode(); {
	case m.IsRegular(), m&os.ModeNamedPipe != 0, m&os.ModeCharDevice != 0:
		return f, fi, nil
	default:
		f.Close()
		return nil, nil, fmt.Errorf("%s: %s, not a file or a pipe", path, describeMode(m))
	}
}

// describeMode names the type of file m describes, for errors: "is a
// directory". (os.FileMode's String prints the type and permission bits
// of the mode given to it, and m.Type() has no permission bits:
// "d---------".)
func describeMode(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "is a directory"
	case m&os.ModeSocket != 0:
		return "is a socket"
	case m&os.ModeDevice != 0:
		return "is a block device"
	case m&os.ModeSymlink != 0:
		return "is a symbolic link"
	}
	return "is not a regular file (mode " + m.String() + ")"
}

// File reads the file at path under o: a regular file of known size is
// mapped (read-only, private) if it can be, or read; a FIFO or a file
// without a size (procfs) is read until its end. Opening never blocks, and
// reading stops when ctx is done (ctx may be nil). o.What defaults to
// path.
func File(ctx context.Context, path string, o Options) (*Data, error) {
	f, fi, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if o.What == "" {
		o.What = path
	}
	limit := o.limit()
	if fi.Mode().IsRegular() && fi.Size() > 0 {
		if fi.Size() > limit {
			return nil, &TooLargeError{What: o.What, Limit: limit, Size: fi.Size()}
		}
		if mem, err := mmap.File(f, fi.Size()); err == nil {
			b := mem.Bytes()
			d := &Data{b: b, mem: mem, Mapped: true}
			if o.Check != nil {
				if err := o.Check(b[:min(len(b), o.CheckLen)]); err != nil {
					d.Release()
					return nil, err
				}
			}
			return d, nil
		}
		o.Claim = fi.Size() // sysfs before Linux 6.16 cannot be mapped
	}
	r := FileReader(f, fi)
	if ctx != nil {
		// The file is non-blocking and so in Go's poller: a deadline
		// interrupts a read that waits.
		stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Unix(1, 0)) })
		defer stop()
	}
	d, err := ReadAll(ctx, r, o)
	if err != nil && ctx != nil && ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	return d, err
}

// FileReader returns a reader of f, which OpenFile opened and fi
// describes: f itself, or for a FIFO, a reader that waits for a writer
// (interruptibly, by a read deadline on f) instead of seeing end-of-file
// while none has opened it yet.
func FileReader(f *os.File, fi os.FileInfo) io.Reader {
	if fi.Mode()&os.ModeNamedPipe != 0 {
		return newFifoReader(f)
	}
	return f
}
