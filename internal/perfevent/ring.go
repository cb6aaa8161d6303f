package perfevent

import (
	"encoding/binary"
	"fmt"
)

// drain calls fn with every record in the ring buffer data between the
// positions tail and head (free-running byte counts; len(data) is a power
// of two), copying a record that wraps around the end of data into
// *scratch, and returns the new tail: head. fn must not keep the slice.
// A header that claims less than a header or more than the bytes left, or
// a head more than len(data) ahead of tail, means the ring cannot be
// trusted: drain stops there and returns head with an error, so the caller
// skips the rest (and should treat it as lost records).
func drain(data []byte, tail, head uint64, scratch *[]byte, fn func([]byte)) (uint64, error) {
	size := uint64(len(data))
	if head-tail > size {
		return head, fmt.Errorf("perfevent: ring head %d is %d bytes ahead of tail %d, more than the ring's %d", head, head-tail, tail, size)
	}
	for tail < head {
		left := head - tail
		if left < headerSize {
			return head, fmt.Errorf("perfevent: %d bytes left in the ring, less than a header", left)
		}
		var hdr [headerSize]byte
		copyRing(hdr[:], data, tail)
		n := uint64(binary.NativeEndian.Uint16(hdr[6:]))
		if n < headerSize || n > left {
			return head, fmt.Errorf("perfevent: record of %d bytes at ring position %d with %d bytes left", n, tail, left)
		}
		off := tail & (size - 1)
		if off+n <= size {
			fn(data[off : off+n])
		} else {
			if uint64(cap(*scratch)) < n {
				*scratch = make([]byte, n, 1<<16)
			}
			rec := (*scratch)[:n]
			copyRing(rec, data, tail)
			fn(rec)
		}
		tail += n
	}
	return head, nil
}

// copyRing copies len(dst) bytes from the ring data at position pos,
// wrapping around its end.
func copyRing(dst, data []byte, pos uint64) {
	off := int(pos & uint64(len(data)-1))
	n := copy(dst, data[off:])
	copy(dst[n:], data)
}
