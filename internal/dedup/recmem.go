package dedup

import (
	"unsafe"

	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// recMem keeps a Merger's records outside the Go heap, in anonymous
// mappings that grow in place (mmap.Region: mremap moves page tables,
// not words). A DWARF encoder appends a vmlinux's millions of types, a
// hundred megabytes and more of records; grown by copying on the heap,
// they would leave the earlier copies resident until the collector's
// scavenger returned them, raising the encoder's peak, and count twice in
// the collector's pacing (BENCH.md). The mappings are freed by free, when
// the Merger deduplicates, or by a cleanup if it is dropped before.
type recMem struct {
	w, off *mmap.Region
	// The records are populated ahead of the appends (mmap.Cover): the
	// appending goroutine's first writes to them took page faults.
}

// plain lists the element types kept in mappings: none holds a pointer,
// which the collector would not see there.
type plain interface {
	uint16 | uint32 | uint64 | byte | slot | entry | refSlot | fent | fwdName
}

// growMapped is mmap.Append for the element types kept in mappings.
func growMapped[T plain](s []T, n int, g **mmap.Region) []T { return mmap.Append(s, n, g) }

// growReused is mmap.AppendMapped for the element types kept in
// mappings: for Prepared's buffers, reused from input to input and given
// back when the Merger deduplicates, which on the heap would stay live to
// the end (BENCH.md, "Prepared's buffers mapped from the first growth").
func growReused[T plain](s []T, n int, g **mmap.Region) []T { return mmap.AppendMapped(s, n, g) }

// makeMapped is mmap.Make for the element types kept in mappings.
func makeMapped[T plain](n int, g **mmap.Region) []T { return mmap.Make[T](n, g) }

// makePopulated is mmap.MakePopulated for the element types kept in
// mappings.
func makePopulated[T plain](n int, g **mmap.Region) []T { return mmap.MakePopulated[T](n, g) }

// free unmaps the records' memory; the records must not be used after.
func (m *recMem) free() {
	m.w.Free()
	m.off.Free()
	m.w, m.off = nil, nil
}

// adopt makes w, the records of an input held from the start of the
// mapping *g, the Merger's records without a copy, if none were appended
// before; it reports whether it did. The mapping is the records' then,
// and *g nil. A lone input, a vmlinux's BTF deduplicated alone, is then
// held once at its append, not twice (BENCH.md).
func (rs *records) adopt(w []uint32, g **mmap.Region) bool {
	if len(rs.w) != 0 || rs.mem == nil || g == nil || *g == nil || len(w) == 0 {
		return false
	}
	// Guard against a slice that left the mapping (a failed mapping
	// falls back to the heap).
	if b := (*g).Bytes(); len(b) < 4*cap(w) || unsafe.Pointer(unsafe.SliceData(w)) != unsafe.Pointer(unsafe.SliceData(b)) {
		return false
	}
	rs.mem.w.Free()
	rs.mem.w, *g = *g, nil
	rs.w = w
	return true
}
