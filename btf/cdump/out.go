package cdump

import (
	"io"
	"strconv"
)

// flushAt is the size at which the output buffer is handed to the writer.
const flushAt = 64 << 10

// out is a minimal buffered writer. It appends to buf and writes buf to w
// whenever it holds flushAt bytes; the first error from w is kept in err and
// from then on output is discarded, so that callers check err only where
// stopping early matters (between types, in padding loops).
type out struct {
	w   io.Writer
	buf []byte
	err error
}

func newOut(w io.Writer) out {
	return out{w: w, buf: make([]byte, 0, flushAt+4<<10)}
}

func (o *out) check() {
	if len(o.buf) >= flushAt {
		o.flush()
	}
}

// flush writes the buffer out and returns the first error seen.
func (o *out) flush() error {
	if o.err == nil && len(o.buf) > 0 {
		_, o.err = o.w.Write(o.buf)
	}
	o.buf = o.buf[:0]
	return o.err
}

func (o *out) str(s string) {
	o.buf = append(o.buf, s...)
	o.check()
}

func (o *out) bytes(b []byte) {
	o.buf = append(o.buf, b...)
	o.check()
}

func (o *out) byte(c byte) {
	o.buf = append(o.buf, c)
	o.check()
}

func (o *out) uint(v uint64) {
	o.buf = strconv.AppendUint(o.buf, v, 10)
	o.check()
}

func (o *out) int(v int64) {
	o.buf = strconv.AppendInt(o.buf, v, 10)
	o.check()
}

// tabs is the indentation of libbpf's pfx(): one tab per level, at most 13.
const tabs = "\t\t\t\t\t\t\t\t\t\t\t\t\t"

// nl starts a new line indented to lvl.
func (o *out) nl(lvl int) {
	o.buf = append(o.buf, '\n')
	o.buf = append(o.buf, tabs[:min(max(lvl, 0), len(tabs))]...)
	o.check()
}
