package main

import (
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/input"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// rawBufs are buffers that btf dedup reads its inputs into, reused from
// input to input. A module's BTF is a few kilobytes: mapping it (btf.Open)
// and unmapping it cost more than reading it, since unmapping a file from
// a process running on several cores flushes the other cores' TLBs. A
// lone input has no next input to reuse a buffer for: it is mapped (a nil
// *rawBufs), so that its pages leave once Prepare has copied it, where a
// buffer would stay on the heap to the end, beside the deduplication.
type rawBufs struct {
	mu   sync.Mutex
	free [][]byte
}

func (r *rawBufs) get() []byte {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.free); n > 0 {
		b := r.free[n-1]
		r.free = r.free[:n-1]
		return b
	}
	return nil
}

func (r *rawBufs) put(b []byte) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.free = append(r.free, b)
}

// openReused opens the BTF input at path on base, as openOne does, and
// calls use with it; the Spec is closed when use returns. A regular file
// of raw BTF in host byte order is read into one of bufs (no mapping);
// anything else, an input that fails to parse, or any input when bufs is
// nil, goes through openOne, whose errors the command reports.
func (c *cli) openReused(bufs *rawBufs, path string, base *btf.Spec, use func(*btf.Spec) error) error {
	buf := bufs.get()
	defer func() { bufs.put(buf) }()
	var s *btf.Spec
	var ok bool
	if path != "-" && bufs != nil {
		buf, ok = readRaw(path, c.maxInput, buf)
	}
	if ok {
		hostOrder(buf)
		var err error
		if s, err = btf.Parse(buf, c.readOptions(base)); err != nil {
			s = nil
		}
	}
	if s == nil {
		var err error
		if s, err = c.openOne(path, base); err != nil {
			return err
		}
		freeOpenGarbage(path, s)
	}
	defer s.Close()
	return use(s)
}

// freeOpenGarbage gives back to the system the heap that opening the
// large input s, from the file at path, left as garbage when it was
// inflated (its BTF is larger than the file): a decompressor's window and
// buffers, 8 MB and more, which would otherwise stay resident beside the
// copy Prepare makes of s. A collection then costs little: little of the
// heap is live. A raw or plain ELF file is mapped and left no garbage;
// forcing the collection there costs the heap's pages faulted back in.
// A split input's size is its own: with its base's, every split file
// looked inflated (a collection of 19 M instructions, an eighth of a
// small split input's deduplication on the Debian 6.1 vmlinux).
func freeOpenGarbage(path string, s *btf.Spec) {
	if n := ownBTFSize(s); n >= rawReadMax {
		if fi, err := os.Stat(path); err == nil && fi.Size() < n {
			debug.FreeOSMemory()
		}
	}
}

// rawReadMax is the largest input read into a buffer. A larger one (a
// vmlinux's BTF) is mapped instead, and unmapped once Prepare has copied
// it: a buffer, kept for the next input, would hold its size to the end.
const rawReadMax = 1 << 20

// readRaw reads the regular file at path into buf (grown if needed) if it
// holds at most limit bytes (0: btf.DefaultMaxSize) and starts with a
// BTF header. It reports false, and buf with its capacity,
// for anything else.
func readRaw(path string, limit int64, buf []byte) ([]byte, bool) {
	if limit <= 0 {
		limit = btf.DefaultMaxSize
	}
	f, fi, err := input.OpenFile(path)
	if err != nil {
		return buf[:0], false
	}
	defer f.Close()
	size := fi.Size()
	if !fi.Mode().IsRegular() || size < 4 || size > min(limit, rawReadMax) {
		return buf[:0], false
	}
	if int64(cap(buf)) < size {
		buf = make([]byte, size)
	}
	buf = buf[:size]
	n, err := io.ReadFull(f, buf)
	if err != nil {
		return buf[:n], false
	}
	if _, err := btf.ParseHeader(buf[:min(n, 256)]); err != nil {
		return buf, false // not raw BTF: openOne sniffs it
	}
	// A file that grew while read is read again by openOne.
	var one [1]byte
	if m, _ := f.Read(one[:]); m != 0 {
		return buf, false
	}
	return buf, true
}

// hostOrder swaps raw BTF b of the other byte order into the host's, in
// place: b is the command's own buffer, and btf.Parse would copy it to
// swap it, a copy left as garbage for every input. The Spec then reports
// the host's order, which btf dedup does not read (its output takes
// BASE's, or the host's).
func hostOrder(b []byte) {
	order, swapped, err := wire.ByteOrderOf(b)
	if err != nil || !swapped {
		return
	}
	if h, err := wire.ParseHeader(b, order); err == nil {
		wire.SwapInPlace(b, h)
	}
}
