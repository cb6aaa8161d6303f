package dedup

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// basePages holds the base records that deduplications read, copied out
// of the file's mapping a page at a time into an anonymous mapping of the
// type section's size, whose pages never copied cost nothing.
//
// A record read in the file's mapping faults in the pages around it too
// (the kernel's fault-around, 64 KB on x86-64 Linux): a split input that
// compares a few hundred scattered base records had the vmlinux's whole
// type section resident (2.4 MB for Debian 6.1's, 36 of its 37 blocks of
// 64 KB, for 216 pages of 4 KB read: base-copies-1000, BENCH.md). Each
// page copied here has the file's pages around it given back at once.
//
// Safe for concurrent use: a page is copied under mu, and its bit set
// after it, so a reader that sees the bit reads the copy.
type basePages struct {
	spec   *btf.Spec
	file   []uint32 // the records, in the file's mapping
	copy   []uint32 // the same words, where copied
	copied []atomic.Uint32
	// swapped says that the file's words are in the other byte order:
	// the Spec swapped its records in place, then gave them back to the
	// file (btfmem.DoneReading), and each page is swapped as it is
	// copied.
	swapped bool
	n       atomic.Int64 // pages copied
	mu      sync.Mutex
}

// pageWords is the words of a page copied at a time.
const pageWords = 1 << 10

// faultAround is how far around a page read in a file's mapping the
// kernel may map others: Linux's fault_around_bytes, 64 KB by default.
const faultAround = 64 << 10

// newBasePages returns the basePages of records w, if they are the type
// section of spec read in place from a file's mapping, or swapped in
// place in one (a file in the other byte order, whose records the Spec
// then gives back to the file, if its owner reads none of them
// afterwards: btfmem.LastReader, DoneReading); otherwise nil
// (copied, or in memory of the Spec's own, a copy would double them).
// The copy is in *g.
func newBasePages(spec *btf.Spec, w []uint32, g **mmap.Region) *basePages {
	sec := spec.TypeSection()
	if len(w) == 0 || len(sec) < 4*len(w) || unsafe.Pointer(&w[0]) != unsafe.Pointer(&sec[0]) {
		return nil
	}
	mapped := btfmem.TypesMapped(spec)
	c := makeMapped[uint32](len(w), g)
	if *g == nil {
		return nil
	}
	swapped := !mapped && btfmem.DoneReading(spec)
	if !mapped && !swapped {
		mmap.Free(g)
		return nil
	}
	// Nothing reads the file's pages any more: those the Base's
	// construction left go now, not beside the copies.
	btfmem.EvictTypes(spec, 0, len(sec))
	return &basePages{spec: spec, file: w, copy: c, copied: make([]atomic.Uint32, (len(w)/pageWords+32)/32), swapped: swapped}
}

// words returns words start..end-1 of the records, copied.
func (p *basePages) words(start, end uint32) record {
	for pg := start / pageWords; pg <= (end-1)/pageWords; pg++ {
		if p.copied[pg/32].Load()&(1<<(pg%32)) == 0 {
			p.fill(pg)
		}
	}
	return p.copy[start:end:end]
}

// fill copies page pg, unless another goroutine did, and gives back the
// file's pages that reading it mapped.
func (p *basePages) fill(pg uint32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	bit := uint32(1) << (pg % 32)
	if p.copied[pg/32].Load()&bit != 0 {
		return
	}
	lo := int(pg) * pageWords
	hi := min(lo+pageWords, len(p.file))
	copy(p.copy[lo:hi], p.file[lo:hi])
	if p.swapped {
		for i, w := range p.copy[lo:hi] {
			p.copy[lo+i] = bits.ReverseBytes32(w)
		}
	}
	btfmem.EvictTypes(p.spec, 4*lo-faultAround, 4*hi+faultAround)
	p.copied[pg/32].Or(bit)
	p.n.Add(1)
}

// held returns the bytes of the pages copied.
func (p *basePages) held() int { return int(p.n.Load()) * 4 * pageWords }

// drop gives back every page copied: they read as zeros until copied
// again. Nothing may read the records meanwhile.
func (p *basePages) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.copied {
		p.copied[i].Store(0)
	}
	p.n.Store(0)
	mmap.Release(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(p.copy))), 4*len(p.copy)))
}

// PagesHeld returns the bytes of base records the deduplications on b
// have had copied out of the file's mapping (basePages) since NewBase or
// the last DropPages; 0 if b reads its records elsewhere.
func (b *Base) PagesHeld() int {
	if b.pages == nil {
		return 0
	}
	return b.pages.held()
}

// DropPages gives back the base records copied for deduplications
// (PagesHeld): a loop of many, each reading its own few records (btf
// dedup --each), would otherwise hold every record any of them read. No
// deduplication on b may run meanwhile.
func (b *Base) DropPages() {
	if b.pages != nil {
		b.pages.drop()
	}
}
