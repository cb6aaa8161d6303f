package kallsyms

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"

	"github.com/kmeta-dev/kmeta/internal/workpool"
)

// A builder keeps, per entry, a meta byte: its low 7 bits are the length of
// the encoded name in blob, or lenEscape when a uvarint length precedes
// the name there (names of 127 encoded bytes or more); pfxBit says
// the entry has a hidden __pfx_ symbol.
const (
	pfxBit    = 0x80
	lenMask   = 0x7f
	lenEscape = 0x7f
)

// builder collects the symbols of one module while the input is parsed and
// turns them into a table. It is used by one goroutine.
type builder struct {
	codec  *codec // names(), once per builder rather than per name
	name   string
	data   bool // keep type letters
	addrs  chunks[uint64]
	meta   []uint8
	blocks []blockStart // where each block of the table starts (see table)
	nbytes int          // bytes of names pushed, without uvarint lengths
	blob   chunks[byte]
	name1  []byte // scratch for one encoded name
	types  []byte
	hidden int
	sorted bool

	blockStart uint64 // the address where the last block starts

	// A __pfx_ symbol is held back until the next line shows whether it
	// can be hidden in front of its function.
	pend     bool
	pendAddr uint64
	pendType byte
	pendName []byte // the full name, "__pfx_" included

	text textEnds // where runs of text end, without Options.Data (textend.go)
	// parallel lets fill lay out a big table on two goroutines
	// (Options.Workers).
	parallel bool
	arena    *tableArena // where fill puts a small table, or nil
}

// Pools of the builders' storage, reused by the next load: pieces (see
// chunks), and the meta and blocks slices.
var addrPieces, blobPieces, metas, blockStarts sync.Pool

func newBuilder(name string, data bool) *builder {
	b := &builder{codec: names(), name: name, data: data, sorted: true,
		addrs: newChunks[uint64](12, &addrPieces), blob: newChunks[byte](16, &blobPieces)}
	b.text.stops = newChunks[uint64](12, &addrPieces)
	b.text.named = name == Vmlinux && !data
	if p, ok := metas.Get().(*[]uint8); ok {
		b.meta = (*p)[:0]
	}
	if p, ok := blockStarts.Get().(*[]blockStart); ok {
		b.blocks = (*p)[:0]
	}
	return b
}

// reset makes b a new builder of module name, keeping its storage: it
// may be reset once its table is finished.
func (b *builder) reset(name string) {
	b.addrs.truncate()
	b.blob.truncate()
	b.text.stops.truncate()
	*b = builder{codec: b.codec, name: name, data: b.data, sorted: true,
		addrs: b.addrs, blob: b.blob, meta: b.meta[:0], blocks: b.blocks[:0],
		name1: b.name1[:0], types: b.types[:0], pendName: b.pendName[:0], arena: b.arena,
		text: textEnds{stops: b.text.stops, named: name == Vmlinux && !b.data}}
}

// release gives the builder's storage back to the pools, once its table
// is finished; the builder must not be used again.
func (b *builder) release() {
	b.addrs.release()
	b.blob.release()
	b.text.stops.release()
	if m := b.meta[:0]; cap(m) > 0 {
		metas.Put(&m)
	}
	if bs := b.blocks[:0]; cap(bs) > 0 {
		blockStarts.Put(&bs)
	}
	b.meta, b.blocks = nil, nil
}

// add records one symbol, in file order: a text symbol, or with
// Options.Data any symbol. name is not retained.
func (b *builder) add(addr uint64, typ byte, name []byte) {
	if b.text.pend && addr >= b.text.stopAt {
		b.endRun(addr)
	}
	b.text.seen(addr)
	if b.pend {
		suffix := b.pendName[len(pfxPrefix):]
		if addr == b.pendAddr+pfxGap && typ == b.pendType && bytes.Equal(name, suffix) &&
			(b.addrs.len() == 0 || b.addrs.last() < b.pendAddr) {
			b.pend = false
			b.text.next = b.text.named && isTextEnd(name)
			b.text.ended = b.text.next
			b.push(addr, typ, name, pfxBit)
			b.hidden++
			return
		}
		b.flush()
	}
	if bytes.HasPrefix(name, []byte(pfxPrefix)) {
		b.pend, b.pendAddr, b.pendType = true, addr, typ
		b.pendName = append(b.pendName[:0], name...)
		return
	}
	if b.text.named && isTextEnd(name) {
		b.pushNamedEnd(addr, typ, name)
		return
	}
	b.push(addr, typ, name, 0)
}

// flush stores a held-back __pfx_ symbol as an ordinary entry.
func (b *builder) flush() {
	if b.pend {
		b.pend = false
		b.push(b.pendAddr, b.pendType, b.pendName, 0)
	}
}

// push stores one entry. Its encoded name goes straight into the blob; a
// uvarint length is inserted before it only for long names.
// It also decides where the table's blocks start (see table).
func (b *builder) push(addr uint64, typ byte, name []byte, flags uint8) {
	n := b.addrs.len()
	if n > 0 && addr < b.addrs.last() {
		b.sorted = false
	}
	enc := b.codec.appendTo(b.name1[:0], name)
	b.name1 = enc
	// A block ends after markStride entries, before an entry too far from
	// its start for a lane, and before its names would overflow their
	// 16-bit bounds. A pfx entry's lane is thus >= pfxGap: the block
	// starts at its __pfx_ symbol, or an earlier entry lies below that
	// symbol (see add). An end of text starts a block too (see endFlag).
	// Unsorted input is laid out again by resorted, which needs the blocks
	// only to find names in the blob: past the first address out of order,
	// an address below its block's start no longer starts one (on
	// descending addresses every entry would).
	if cur := len(b.blocks) - 1; cur < 0 || n-int(b.blocks[cur].entry) == markStride ||
		(addr-b.blockStart > laneMax && (b.sorted || addr > b.blockStart)) || b.nbytes+len(enc)-int(b.blocks[cur].names) > blockNames || b.text.next {
		b.blockStart = addr
		if flags&pfxBit != 0 {
			b.blockStart -= pfxGap
		}
		b.blocks = append(b.blocks, blockStart{entry: uint32(n), blob: uint32(b.blob.len()), names: uint32(b.nbytes), end: b.text.next})
		b.text.next = false
	}
	if l := len(enc); l < lenEscape {
		flags |= uint8(l)
	} else {
		var hdr [binary.MaxVarintLen64]byte
		b.blob.addAll(hdr[:binary.PutUvarint(hdr[:], uint64(l))])
		flags |= lenEscape
	}
	b.blob.addAll(enc)
	b.nbytes += len(enc)
	b.addrs.add(addr)
	b.meta = append(grow(b.meta, 1), flags)
	if b.data {
		b.types = append(grow(b.types, 1), typ)
	}
}

// blockStart is where a block starts in the builder: its first entry, the
// blob offset of that entry's name, and the bytes of names before it; end
// is set when that entry is an end of text (see endFlag).
type blockStart struct {
	entry, blob, names uint32
	end                bool
}

// grow makes room for n more elements in s, doubling its capacity when it
// must grow: append's 1.25x growth of large slices would allocate and copy
// about five times the final size while a big module is parsed.
func grow[T any](s []T, n int) []T {
	if len(s)+n <= cap(s) {
		return s
	}
	return slices.Grow(s, max(n, len(s), 256))
}

// finish returns the module's table. The builder must not be used again.
func (b *builder) finish() *table {
	b.flush()
	b.closeText()
	if !b.sorted || b.text.late {
		return b.resorted()
	}
	n := b.addrs.len()
	t := &table{name: b.name, hidden: int32(b.hidden), n: n, anon: int32(b.text.anon)}
	if b.data {
		t.rare().types = slices.Clone(b.types)
	}
	if n == 0 {
		return t
	}
	t.base = b.addrs.at(0)
	if b.meta[0]&pfxBit != 0 {
		t.base -= pfxGap
	}
	if b.addrs.last()-t.base >= padAddr {
		t.rare().wide = b.addrs.flat()
	}
	b.fill(t)
	if t.wide() == nil {
		t.narrow = padAddr
		t.buildIndex()
	}
	return t
}

// fill lays out t's blocks (see table): each header, and the block's names
// copied from the blob without their uvarint lengths. Blocks are
// independent, so a big table is laid out on two goroutines when the
// options allow it (b.parallel), since loading does this after the
// kernel's last read and nothing else can run meanwhile.
func (b *builder) fill(t *table) {
	nb := len(b.blocks)
	t.hdrs = b.arena.headers(nb)
	t.names = b.arena.namesOf(b.nbytes)
	layout := func(from, to int) {
		for k := from; k < to; k++ {
			b.writeBlock(t, k)
		}
	}
	if nb < parallelBlocks || !b.parallel {
		layout(0, nb)
		return
	}
	workpool.Chunks(2, nb, nb-nb/2, func(_, lo, hi int) { layout(lo, hi) })
}

// parallelBlocks is the number of blocks from which fill uses two
// goroutines: vmlinux has thousands, most modules a few dozen.
const parallelBlocks = 1024

// writeBlock writes block k of t: its header, and its entries' names.
//
// Loading builds vmlinux's table after the kernel's last read.
func (b *builder) writeBlock(t *table, k int) {
	bs := b.blocks[k]
	first, last := int(bs.entry), b.addrs.len()
	end := b.blob.len() // blob offset after the block's last name
	if k+1 < len(b.blocks) {
		last, end = int(b.blocks[k+1].entry), int(b.blocks[k+1].blob)
	}
	h := t.hdr(k)
	var start uint32
	if t.wide() == nil {
		start = uint32(b.addrs.at(first) - t.base)
		if b.meta[first]&pfxBit != 0 {
			start -= pfxGap
		}
	}
	binary.NativeEndian.PutUint32(h[startOff:], start)
	binary.NativeEndian.PutUint32(h[namesOff:], bs.names)
	binary.NativeEndian.PutUint32(h[entryOff:], uint32(first))
	var flags uint16
	if first > 0 && b.addrs.at(first) == b.addrs.at(first-1) {
		flags |= dupFlag
	}
	if bs.end {
		flags |= endFlag
	}
	names := t.names[bs.names:bs.names] // appended to in place, within t.names
	off := int(bs.blob)                 // blob offset of the block's first name
	// The names stored without a uvarint length lie back to back in the
	// blob: when the block has no other, they are copied at once.
	short := true
	for _, m := range b.meta[first:last] {
		short = short && m&lenMask != lenEscape
	}
	if short {
		names = b.blob.appendRange(names, off, end)
	}
	var buf [markStride]uint64
	addrs := b.addrs.appendRange(buf[:0], first, last)
	bound := 0 // the end of the names so far, relative to the first
	for s := range markStride {
		i, lane := first+s, uint32(lanePad)
		if i < last {
			if t.wide() == nil {
				if lane = uint32(addrs[s]-t.base) - start; lane > laneMax {
					panic("kallsyms: block too wide") // see push
				}
			}
			l := int(b.meta[i] & lenMask)
			if !short {
				p := off
				if l == lenEscape {
					v, w := b.uvarintAt(p)
					p, l = p+w, int(v)
				}
				names = b.blob.appendRange(names, p, p+l)
				off = p + l
			}
			bound += l
			if b.meta[i]&pfxBit != 0 {
				flags |= 1 << s
			}
		}
		binary.NativeEndian.PutUint16(h[lanesOff+2*s:], uint16(lane))
		binary.NativeEndian.PutUint16(h[boundsOff+2*s+2:], uint16(bound))
	}
	binary.NativeEndian.PutUint16(h[flagsOff:], flags)
	if bound != len(names) || bound > blockNames {
		panic("kallsyms: block names mislaid")
	}
}

// uvarintAt reads the uvarint at blob offset p.
func (b *builder) uvarintAt(p int) (uint64, int) {
	var buf [binary.MaxVarintLen64]byte
	for i := range min(len(buf), b.blob.len()-p) {
		buf[i] = b.blob.at(p + i)
	}
	return binary.Uvarint(buf[:])
}

// buildIndex adds a bucket index to a table of more than four blocks, with
// about four buckets per block, so that nearly every lookup goes straight
// from its bucket to its block (see the index entry's constants). Tables
// whose blocks cannot be numbered in 16 bits, or so sparse that buckets
// of maxShift bits would outnumber their blocks 16 to 1, have none.
func (t *table) buildIndex() {
	nb := t.nblocks()
	if nb <= 4 || nb > blockMask {
		return
	}
	span := t.addr(t.n-1) - t.base
	var shift uint8
	for span>>shift >= uint64(4*nb) && shift < maxShift {
		shift++
	}
	nk := int(span>>shift) + 1
	if nk > 16*nb {
		return
	}
	first := func(b int) uint64 { return uint64(t.hdr(b).start()) }
	t.shift = shift
	t.index = make([]uint32, nk)
	b := 0 // the last block whose start is <= k<<shift
	for k := range nk {
		lo := uint64(k) << shift
		for b+1 < nb && first(b+1) <= lo {
			b++
		}
		e := uint32(b) | noSplit<<splitOff
		if b+1 < nb && (k+1 == nk || first(b+1) < lo+1<<shift) {
			e = uint32(b) | uint32(first(b+1)-lo)<<splitOff
			if b+2 < nb && (k+1 == nk || first(b+2) < lo+1<<shift) {
				e |= denseBit
			}
		}
		t.index[k] = e
	}
}
