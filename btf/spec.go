package btf

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/kmeta-dev/kmeta/internal/faults"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// TypeID identifies a type within a Spec and its bases. Id 0 is void.
type TypeID uint32

// indexShift sets the density of the offset index: one 4-byte offset is kept
// for every 1<<indexShift types, and a lookup by id walks at most
// (1<<indexShift)-1 records from there.
const indexShift = 2

// lazyShift is indexShift for a lazy Spec: one offset for every sixteen
// types. A lazy open serves a few lookups (btf min --obj, a loader's
// kernel types), for which a lookup's walk of up to fifteen records costs
// less than the index's memory, most of what such an open allocates.
const lazyShift = 4

// Spec is a read-only view of BTF data: a validated header, an index of
// record offsets, and accessors that decode records in place. It may sit on a
// base Spec (split BTF): its type ids then continue after the base's last id
// and its string offsets after the base's strings.
//
// A Spec is safe for concurrent use by multiple goroutines, and Close
// may run beside other uses of the Spec (see Close). Use kernel.Cache to
// share Specs whose lifetime is managed.
type Spec struct {
	base     *Spec
	data     []byte // whole BTF blob, host byte order
	types    []byte // type section
	strs     []byte // string section
	layouts  *wire.Layouts
	sizes    wire.Sizes       // from layouts, for walking records
	order    binary.ByteOrder // byte order of the original data
	hdr      wire.Header
	firstID  TypeID   // id of the first own type
	n        uint32   // number of own types
	strStart uint32   // string offset of strs[0]
	index    []uint32 // offset of own type i<<shift within types
	kinds    []uint16 // per index group: bit k&15 set if a type of kind k is in it
	shift    uint8    // indexShift, or lazyShift for a lazy Spec

	closed  atomic.Bool
	closeFn func() error
	mapped  bool // data is a read-only mapping of a file (evict)
	owned   bool // data is anonymous memory the Spec frees (discard)
	// strsMapped says that strs are read in place from a file's
	// mapping (evict, evictStrings): a mapped file's, also when it was
	// byte-swapped (its records then are the Spec's own: owned).
	strsMapped bool
	// swappedFile says that types were swapped in place in a file's
	// private mapping (typesToFile); typesInFile that they were given
	// back to it, in the file's order (typesMapped).
	swappedFile, typesInFile bool
	// lastReader says that the Spec's owner reads none of its own
	// records after the next reader that calls doneReading.
	lastReader bool
	// discarded is how many bytes at the start of the type section
	// discard gave back: they read as zeros, so lookups refuse them.
	discarded uint32
	closeErr  error
	once      sync.Once

	ptrOnce sync.Once
	ptrSize uint32

	halved bool // indexTypes walked the type section in two halves
	// evictWalk is set while indexTypes walks a type section mapped
	// from a file: it releases the pages behind it (evictBehind).
	evictWalk bool

	// lazy is set for a Spec opened with Options.Lazy: the references
	// of a record are checked when a view of it is handed out (see
	// checkOut), and the first failure is kept in lazyErr.
	lazy    bool
	lazyErr atomic.Pointer[error]
	// checked has a bit per own type of a lazy Spec, set once its record
	// passed checkOut, so that a record is checked once however many
	// views of it are handed out (a struct of 65,535 members of its own
	// type would otherwise be checked whole for each member).
	checked []atomic.Uint64
	// checkAll is the result of Check, run once.
	checkAllOnce sync.Once
	checkAllErr  error
	// found holds the types the lazy walk found for Options.Flavors,
	// which FindFlavors reads instead of walking the records again.
	found *foundFlavors
	// fine is a denser index over the groups of index that hold a found
	// type, or nil.
	fine *fineIndex
}

// Parse reads raw BTF from b, which the caller keeps unchanged for as long
// as the Spec is used: b is not copied, unless it is in the byte order
// opposite to the host's, in which case a converted copy is made. It
// validates the header and every record (bounds, kinds, type ids and string
// offsets) in one pass, unless opts.Lazy, and returns a *FormatError for the
// first problem found. With opts.Base, b is split BTF on that base.
func Parse(b []byte, opts Options) (*Spec, error) {
	return opts.parse(context.Background(), b, false)
}

// parse is Parse, stopped by ctx (Open's) between parts of the walk; mapped
// says that b is a read-only mapping of a file (see parseSplit).
func (o *Options) parse(ctx context.Context, b []byte, mapped bool) (*Spec, error) {
	if n := o.PointerSize; n != 0 && n != 4 && n != 8 {
		return nil, pkgerr.Errorf("btf: pointer size %d: want 4 or 8", n)
	}
	var s *Spec
	var err error
	if o.Lazy && o.Base == nil {
		s, err = parseLazy(b, o.Flavors)
	} else {
		splitAt := uint32(splitMin)
		if o.Workers < 2 {
			splitAt = noSplit
		}
		s, err = parseSplit(ctx, b, o.Base, splitAt, mapped)
	}
	if err != nil {
		return nil, err
	}
	s.setPointerSize(o.PointerSize)
	return s, nil
}

// parseSplit parses split BTF from b on base (nil: standalone), walking a
// type section of splitAt bytes or more in two halves (see indexTypes);
// tests lower splitAt. mapped says that b is a read-only mapping of a
// file, whose pages the walk releases behind itself (evictWalk).
func parseSplit(ctx context.Context, b []byte, base *Spec, splitAt uint32, mapped bool) (*Spec, error) {
	s, err := newSpec(b, base)
	if err != nil {
		return nil, err
	}
	// A byte-swapped copy (Parse of the other order) is heap memory.
	s.evictWalk = mapped && s.aliases(b)
	if err := s.indexTypes(ctx, splitAt); err != nil {
		return nil, err
	}
	return s, nil
}

// newSpec checks the header and the string section of raw BTF b, on top of
// base, and returns a Spec on them whose records are still to be walked.
func newSpec(b []byte, base *Spec) (*Spec, error) {
	if base != nil && base.closed.Load() {
		return nil, ErrClosed
	}
	order, swapped, hdr, err := parseHeader(b, false)
	if err != nil {
		return nil, err
	}
	if swapped {
		b = wire.Swap(b, hdr) // Open swaps a file's in memory of its own (hostOrder)
	}
	s := &Spec{base: base, data: b, order: order, hdr: hdr, firstID: 1, layouts: &wire.DefaultLayouts, shift: indexShift}
	body := b[hdr.HdrLen:]
	s.types = body[hdr.TypeOff : hdr.TypeOff+hdr.TypeLen]
	s.strs = body[hdr.StrOff : hdr.StrOff+hdr.StrLen]
	if hdr.LayoutLen > 0 {
		l, err := wire.ParseLayouts(body[hdr.LayoutOff : hdr.LayoutOff+hdr.LayoutLen])
		if err != nil {
			return nil, &FormatError{Section: "layout", Offset: -1, Err: err}
		}
		s.layouts = &l
	}
	s.sizes = s.layouts.Sizes()
	if base != nil {
		s.firstID = base.firstID + TypeID(base.n)
		s.strStart = base.strStart + uint32(len(base.strs))
	}
	if err := s.checkStrings(); err != nil {
		return nil, err
	}
	return s, nil
}

// parseHeader reads and checks the header of raw BTF b: its byte order,
// whether that is the opposite of the host's, and the header itself, whose
// sections are known to lie within b unless b is only a prefix of the BTF
// (see wire.ParseHeaderPrefix).
func parseHeader(b []byte, prefix bool) (binary.ByteOrder, bool, wire.Header, error) {
	if len(b) == 0 {
		return nil, false, wire.Header{}, errEmpty() // not "bad magic"
	}
	order, swapped, err := wire.ByteOrderOf(b)
	if err != nil {
		return nil, false, wire.Header{}, &FormatError{Section: "header", Offset: 0, Err: err}
	}
	parse := wire.ParseHeader
	if prefix {
		parse = wire.ParseHeaderPrefix
	}
	hdr, err := parse(b, order)
	if err != nil {
		return nil, false, wire.Header{}, &FormatError{Section: "header", Offset: -1, Err: err}
	}
	return order, swapped, hdr, nil
}

func (s *Spec) checkStrings() error {
	if len(s.strs) == 0 {
		if s.base != nil {
			return nil
		}
		return &FormatError{Section: "string", Offset: -1, Msg: "it is empty, without the empty string"}
	}
	if s.strs[len(s.strs)-1] != 0 {
		return &FormatError{Section: "string", Offset: int64(len(s.strs) - 1), Msg: "not NUL: the last string has no end"}
	}
	if s.base == nil && s.strs[0] != 0 {
		return &FormatError{Section: "string", Offset: 0, Msg: "not NUL: complete BTF's strings start with the empty string"}
	}
	return nil
}

// indexTypes makes the one pass over the type section: it checks every
// record's bounds and kind, fills the sparse offset index and the per-group
// kind summary, and notes the largest type id and string offset that any
// record refers to. Only if those are out of range does blame make a second
// pass to find the record at fault.
//
// A big type section (vmlinux's) is walked in two halves at once: a second
// goroutine starts at a record boundary found near the middle (see
// splitWalk), and its half is taken if this goroutine's walk lands on that
// boundary; otherwise this goroutine walks on alone. The result is the same
// either way. References are checked in the same walk, not on a second
// goroutine behind it, which would have to walk the ranges again.
func (s *Spec) indexTypes(ctx context.Context, splitAt uint32) error {
	s.alignTypes()
	s.evictWalk = s.evictWalk && s.inMapping(s.types)
	defer func() { s.evictWalk = false }()
	// Room for the smallest records (12 bytes; kernel records average
	// about 26): the index never grows, which would leave the old one as
	// garbage, and what the records do not fill is never touched in a
	// fresh allocation.
	s.shift = indexShift
	s.index = make([]uint32, 0, len(s.types)/(wire.TypeSize<<indexShift)+1)
	s.kinds = make([]uint16, 0, cap(s.index))
	end := uint32(len(s.types))
	wk := walker{id: s.firstID}
	if h := s.splitWalk(ctx, splitAt); h != nil {
		err := s.walk(ctx, &wk, h.start)
		<-h.done
		h.fault.Raise()
		if err == nil && wk.off == h.start && !h.failed && uint64(wk.id)+uint64(h.n) < 1<<31 {
			s.merge(&wk, h)
			s.halved = true
		}
		halves.Put(h)
		if err != nil {
			return err
		}
	}
	if err := s.walk(ctx, &wk, end); err != nil {
		return err
	}
	s.n = uint32(wk.id - s.firstID)
	if wk.maxType <= uint32(s.LastID()) && wk.maxStr < s.strEnd() {
		return s.checkBaseStrings()
	}
	err := s.blame()
	if fe, ok := err.(*FormatError); ok && s.base != nil {
		fe.Msg += wrongBase
	}
	return err
}

// walker is the state of the walk of indexTypes: the next record's offset
// and type id, and the largest type id and string offset referred to.
type walker struct {
	off             uint32
	id              TypeID
	maxType, maxStr uint32
}

// walkPart is how many bytes of records a walk scans between two checks
// of its context: tens of thousands of records, a millisecond or two.
const walkPart = 1 << 20

// walk walks the records from wk.off while it is below stop, adding them
// to the index and the kind summary. It checks ctx between parts of
// walkPart bytes, so that the loop over records stays as it is.
func (s *Spec) walk(ctx context.Context, wk *walker, stop uint32) error {
	part, behind := s.walkStep(), wk.off
	for ok := true; ok; {
		if wk.off >= stop {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return pkgerr.Errorf("btf: %w", err)
		}
		ok = s.scan(wk, wk.off+min(stop-wk.off, part), nil)
		behind = s.evictBehind(behind, wk.off)
	}
	end := uint32(len(s.types))
	if end-wk.off < wire.TypeSize {
		return typeErr(wk.id, wk.off, "record header truncated: %d bytes left", end-wk.off)
	}
	info := wire.InfoWord(s.types, wk.off)
	fixed, elem := s.sizes.Parts(wire.InfoKind(info))
	return recordError(wk.id, wk.off, end, info, fixed, fixed+elem*uint32(wire.InfoVlen(info)))
}

// evictStep is the fewest bytes of records the walks of a mapped type
// section read between two releases of the pages behind them: a
// sixteenth of the section, at least 256 KB, as WriteCopy's reads of
// the records release them (btf/builder/BENCH.md). The section is never
// resident whole, only what each walk reads; each release is a system
// call and a TLB flush on every CPU the process runs on.
const evictStep = 256 << 10

// walkStep is how many bytes of records a walk scans in one part, and
// with evictWalk between two releases.
func (s *Spec) walkStep() uint32 {
	if s.evictWalk {
		return max(evictStep, uint32(len(s.types))/16)
	}
	return walkPart
}

// evictBehind releases, on a walk with evictWalk set, the pages of the
// type section that lie wholly in from..to, which the walk has read, and
// returns where the next release starts: the start of the page that
// holds to, which the walk reads on. Without evictWalk it returns from.
func (s *Spec) evictBehind(from, to uint32) uint32 {
	if !s.evictWalk || to <= from {
		return from
	}
	mmap.Release(s.types[from:to])
	page := uint32(os.Getpagesize())
	at := uint32(uintptr(unsafe.Pointer(unsafe.SliceData(s.types)))+uintptr(to)) & (page - 1)
	return max(from, to-at)
}

// scan is the one loop over records of both walks: from wk.off while it is
// below stop, it checks each record's bounds and kind, adds it to the
// index and the kind summary (or, for the second half h of a split walk,
// to h's checkpoints and kinds), and keeps the largest type id and
// string offset referred to. It reports false, with wk at the record, for one
// that is truncated, of no known kind or has too big an id, which walk
// then describes.
//
// The references are taken as two maxima kept in registers; the masks of
// wire.Shapes spare a switch on the kind, which mispredicts on kernel BTF.
// The two walks share this loop rather than a function for the
// references: such a function does not inline, and a call per record is
// what this pass cannot afford (BENCH.md).
func (s *Spec) scan(wk *walker, stop uint32, h *half) bool {
	index := h == nil
	w := newWords(s.types)
	end := uint32(len(s.types))
	off, id, maxType, maxStr := wk.off, wk.id, wk.maxType, wk.maxStr
	ok := true
	for ; off < stop; id++ {
		if index && uint32(id-s.firstID)&(1<<indexShift-1) == 0 {
			s.index = append(s.index, off)
			s.kinds = append(s.kinds, 0)
		}
		if end-off < wire.TypeSize {
			ok = false
			break
		}
		info := w.at(off + wire.InfoAt)
		kind := wire.InfoKind(info)
		fixed, elem := s.sizes.Parts(kind)
		size := fixed + elem*uint32(wire.InfoVlen(info))
		if fixed == 0 || size > end-off || uint64(id) >= 1<<31 {
			ok = false
			break
		}
		if index {
			s.kinds[len(s.kinds)-1] |= kindBit(Kind(kind))
		} else {
			if id&(1<<indexShift-1) == 0 {
				h.cps = append(h.cps, off)
			}
			h.kinds = append(h.kinds, uint8(kind))
		}
		sh := &wire.Shapes[kind]
		maxStr = max(maxStr, w.at(off+wire.NameAt))
		maxType = max(maxType, w.at(off+sh.Ref0At)&sh.Ref0Mask, w.at(off+sh.Ref1At)&sh.Ref1Mask)
		if sh.ElemSize != 0 {
			for e := off + sh.ElemStart; e < off+size; e += sh.ElemSize {
				maxStr = max(maxStr, w.at(e+sh.ElemNameAt)&sh.ElemNameMask)
				maxType = max(maxType, w.at(e+sh.ElemTypeAt)&sh.ElemTypeMask)
			}
		}
		off += size
	}
	wk.off, wk.id, wk.maxType, wk.maxStr = off, id, maxType, maxStr
	return ok
}

// splitMin is the size of type section from which indexTypes walks it in
// two halves: vmlinux's is 2.5-3 MB, a module's a few KB to a few hundred.
const splitMin = 1 << 20

// noSplit is a splitAt that no type section reaches: one walk, on the
// caller's goroutine.
const noSplit = ^uint32(0)

// half is the second half of a split walk: from start, the number of
// records n, the offset of every fourth record (cps), every record's kind,
// and the largest type id and string offset referred to. failed is set if a
// record was out of bounds or of no known kind; done is closed when the
// walk is over. Which records start the index's groups depends on the id
// of the first, known only when the first walk ends: merge finds each from
// the checkpoint before it. Both lists are reserved once, for a section of
// the smallest records, so that they never grow (btf/BENCH.md).
type half struct {
	start, n        uint32
	cps             []uint32
	kinds           []uint8
	maxType, maxStr uint32
	failed          bool
	done            chan struct{}
	fault           faults.Carrier // a fault of the walk, for the caller to raise
}

// halves recycles the buffers of split walks: a process that parses BTF
// again and again (kernel.Cache, a server) reuses them, since allocating
// them each time would cost more than the second goroutine saves.
var halves = sync.Pool{New: func() any { return new(half) }}

// splitWalk starts walking the second half of a big type section on a new
// goroutine, from a record boundary found near its middle, and returns it;
// nil if the section is small, GOMAXPROCS is 1, or no boundary is found.
// The boundary is a guess (an offset from which 64 records in a row look
// sound); indexTypes uses the half only if its own walk lands on it.
func (s *Spec) splitWalk(ctx context.Context, splitAt uint32) *half {
	end := uint32(len(s.types))
	if end < splitAt || runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	w := newWords(s.types)
	mid := end / 2 &^ 3
	for c := mid; c < end && c-mid < 64<<10; c += 4 {
		if s.plausible(w, c, 64) {
			h := halves.Get().(*half)
			most := int(end-c)/wire.TypeSize + 1
			*h = half{start: c, cps: slices.Grow(h.cps[:0], most>>indexShift+1), kinds: slices.Grow(h.kinds[:0], most), done: make(chan struct{}), fault: faults.New()}
			go s.walkHalf(ctx, h)
			return h
		}
	}
	return nil
}

// plausible reports whether n records in a row from off (or all up to the
// section's end) look sound: known kind, zero unused info bits, within the
// section, a name offset below the strings' end.
func (s *Spec) plausible(w words, off uint32, n int) bool {
	end := uint32(len(s.types))
	for range n {
		if off == end {
			return true
		}
		info, size, ok := s.recordAt(w, off, end)
		if !ok || info&wire.InfoUnused != 0 || w.at(off) >= s.strEnd() {
			return false
		}
		off += size
	}
	return true
}

// walkHalf walks the records from h.start to the end of the section,
// counting them in h, and closes h.done. It gives up, as failed, once ctx
// is done: the first walk then returns ctx's error.
func (s *Spec) walkHalf(ctx context.Context, h *half) {
	defer close(h.done)
	if !h.fault.Run(func() { s.walkHalfRecords(ctx, h) }) {
		h.failed = true
	}
}

// walkHalfRecords is walkHalf's walk: under the caller's panic-on-fault
// setting, so that a file truncated under the mapping faults as it would
// on the caller's goroutine (see package faults).
func (s *Spec) walkHalfRecords(ctx context.Context, h *half) {
	wk := walker{off: h.start}
	end := uint32(len(s.types))
	part, behind := s.walkStep(), h.start
	for !h.failed && wk.off < end {
		h.failed = ctx.Err() != nil || !s.scan(&wk, wk.off+min(end-wk.off, part), h)
		behind = s.evictBehind(behind, wk.off)
	}
	h.n, h.maxType, h.maxStr = uint32(wk.id), wk.maxType, wk.maxStr
}

// merge adds the h.n records of the second half h, whose first record is
// the next of the walk wk, to the index and the kind summary, and moves wk
// to the end of the section. The index grows once, to its final length. A
// group's first record is the checkpoint's or up to three records after
// it, whose sizes h checked.
func (s *Spec) merge(wk *walker, h *half) {
	first := uint32(wk.id - s.firstID)
	groups := (uint64(first) + uint64(h.n) + 1<<indexShift - 1) >> indexShift
	s.index = slices.Grow(s.index, int(groups)-len(s.index))
	s.kinds = slices.Grow(s.kinds, cap(s.index)-len(s.kinds))
	w := newWords(s.types)
	behind, step := h.start, s.walkStep()
	// j is the half's number of the record that starts the next group.
	for j := -first & (1<<indexShift - 1); j < h.n; j += 1 << indexShift {
		off := h.cps[j>>indexShift]
		for range j & (1<<indexShift - 1) {
			off += s.sizes.Of(w.at(off + wire.InfoAt))
		}
		s.index = append(s.index, off)
		s.kinds = append(s.kinds, 0)
		if off-behind >= step {
			behind = s.evictBehind(behind, off)
		}
	}
	s.evictBehind(behind, uint32(len(s.types)))
	for j, k := range h.kinds[:h.n] {
		s.kinds[(first+uint32(j))>>indexShift] |= kindBit(Kind(k))
	}
	wk.off, wk.id = uint32(len(s.types)), wk.id+TypeID(h.n)
	wk.maxType, wk.maxStr = max(wk.maxType, h.maxType), max(wk.maxStr, h.maxStr)
}

// recordError checks the kind and bounds of the record of type id at off.
func recordError(id TypeID, off, end, info, fixed, size uint32) error {
	switch {
	case fixed == 0 && wire.InfoKind(info) == wire.KindUnknown:
		return typeErr(id, off, "kind 0 (UNKN) is not a type record (libbpf and the kernel reject it)")
	case fixed == 0:
		return typeErr(id, off, "unknown kind %d", wire.InfoKind(info))
	case size > end-off:
		return typeErr(id, off, "%v record of %d bytes (vlen %d) runs past the type section end",
			Kind(wire.InfoKind(info)), size, wire.InfoVlen(info))
	case uint64(id) >= 1<<31:
		return typeErr(id, off, "too many types")
	}
	return nil
}

// kindBit is a kind's bit in Spec.kinds. Kinds 16 and up share bits with
// lower ones, which only makes a lookup visit a group it need not.
func kindBit(k Kind) uint16 { return 1 << (k & 15) }

// alignTypes makes sure the type section starts at a 4-byte boundary, as
// words requires: mappings and heap buffers do; a .BTF section at an odd
// offset of an ELF file is copied.
func (s *Spec) alignTypes() {
	if len(s.types) == 0 || uintptr(unsafe.Pointer(unsafe.SliceData(s.types)))%4 == 0 {
		return
	}
	buf := make([]uint32, len(s.types)/4)
	aligned := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), len(s.types))
	copy(aligned, s.types)
	s.types = aligned
}

// blame finds the first record that refers to a type id or string offset
// out of range, after indexTypes has found that one does.
func (s *Spec) blame() error {
	v := s.newValidator()
	v.last = uint32(s.LastID())
	it := s.sizes.Iter(s.types)
	for id := s.firstID; it.Next(); id++ {
		if err := v.check(id, it.Off); err != nil {
			return err
		}
	}
	return typeErr(0, 0, "reference out of range") // not reached: refs and v agree
}

// Base returns the base Spec of split BTF, or nil.
func (s *Spec) Base() *Spec { return s.base }

// FirstID returns the id of the Spec's first own type: 1, or for split BTF
// the id after its base's last type.
func (s *Spec) FirstID() TypeID { return s.firstID }

// NumTypes returns how many types the Spec itself holds, excluding its base
// and the implicit void type.
func (s *Spec) NumTypes() int { return int(s.n) }

// LastID returns the largest valid type id: FirstID()+NumTypes()-1.
func (s *Spec) LastID() TypeID { return s.firstID + TypeID(s.n) - 1 }

// ByteOrder returns the byte order of the data the Spec was read from.
func (s *Spec) ByteOrder() binary.ByteOrder { return s.order }

// StringsLen returns the size of the Spec's own string section.
func (s *Spec) StringsLen() int { return len(s.strs) }

// Close releases the memory mapping or file behind the Spec, if any. Strings
// returned by the Spec earlier stay valid; views used afterwards return zero
// values and lookups return ErrClosed. Close is idempotent. It does not close
// the base Spec.
//
// Close may run while other goroutines use the Spec or Specs built on
// it: they see ErrClosed from their next lookup and zero values from
// their next view, and the consumers in kmeta's packages then return an
// error or an answer, never panic or hang (lazyfuzz's TestCloseWhileUsed).
// A Spec that Parse made reads memory of Go's (the caller's bytes, or a
// copy on the heap): Close only marks it closed (an atomic flag) and
// keeps its slices, and the GC frees them once the last user drops the
// Spec. A Spec that Open or Read made may read a memory mapping (a
// file's, or anonymous memory holding what was inflated, read or
// byte-swapped): Close gives its memory back at once, but leaves its
// range mapped to pages that read as zeros, unmapped only when the GC
// finds the Spec unreachable, so that a reader does not fault. Slices
// of the raw view (TypeSection, NameBytes, ...) kept without the Spec
// are valid until Close, as before: after Close, once the Spec itself is
// dropped, reading them may fault.
func (s *Spec) Close() error {
	s.once.Do(func() {
		s.closed.Store(true)
		if s.closeFn != nil {
			s.closeErr = s.closeFn()
		}
	})
	return s.closeErr
}

// evict lets the system take back the memory of the Spec's own sections
// when the Spec reads them in place from a memory-mapped file: the pages
// read so far leave the process's resident memory, and are read again
// from the file (the page cache) when next touched, with the same
// contents. A Spec held in memory (read from standard input, inflated,
// byte-swapped by Parse) is left as it is, and so are its bases; a file
// that Open byte-swapped gives back its strings, still the file's pages,
// and keeps its records, which are the Spec's own. A writer that
// reads a large Spec in order, once or twice (builder.WriteCopy), calls
// it as it goes (through internal/btfmem), so that the whole input is
// never resident at once. It may run beside other uses of the Spec: a
// read-only private mapping of a file reads, after the release, the same
// bytes from the page cache (dedup evicts a shared Base's pages while
// other Mergers read it), and memory of the Spec's own is left alone;
// beside Close too, which leaves the range mapped, reading zeros, while
// the Spec is reachable.
func (s *Spec) evict() {
	if !s.alive() {
		return
	}
	if s.typesMapped() {
		mmap.Release(s.types)
	}
	s.evictStrings()
}

// inMapping reports whether sec lies in the Spec's data: a section copied
// out of the mapping (alignTypes) is heap memory, whose pages must stay.
func (s *Spec) inMapping(sec []byte) bool {
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(s.data)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(sec)))
	return p >= lo && p+uintptr(len(sec)) <= lo+uintptr(len(s.data))
}

// evictTypes is evict for the bytes from..to of the Spec's own type
// section alone. A reader of the records in order calls it behind the
// record it reads, more often than evict: the records behind it are not
// read again, while the strings, which it reads in no order, would be
// faulted back at once.
func (s *Spec) evictTypes(from, to int) {
	if !s.typesMapped() {
		return
	}
	to = min(to, len(s.types))
	if from = max(from, 0); from < to {
		mmap.Release(s.types[from:to])
	}
}

// typesMapped reports whether the Spec reads its own type section in
// place from a file's mapping, whose pages evictTypes gives back.
func (s *Spec) typesMapped() bool {
	return (s.mapped || s.typesInFile) && s.alive() && s.inMapping(s.types)
}

// typesToFile gives back the pages of the Spec's own type section when
// Open swapped it in place in a file's private mapping (swappedFile):
// released, the pages read as the file again, in its byte order, and
// are file pages from then on, which evictTypes gives back. The records
// at the section's two ends share a page with the header or the strings,
// which stays the process's own: they are swapped back, so that the whole
// section reads in the file's order. From then on lookups of the Spec's
// own types fail (errDiscarded), their Type views read zero values, and
// walks over them yield nothing, as after discard; a Spec split on it
// still walks its own types (its split inputs are parsed on it). It
// reports whether it did. Like Close, it must not run concurrently with other uses of the
// Spec.
func (s *Spec) typesToFile() bool {
	if !s.swappedFile || s.lazy || !s.alive() || len(s.types) == 0 {
		return false
	}
	s.swappedFile = false
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s.types)))
	lo := int((start+page-1)&^(page-1) - start)
	hi := int((start+uintptr(len(s.types)))&^(page-1) - start)
	if hi <= lo { // no whole page: all of it is swapped back
		lo, hi = len(s.types), len(s.types)
	}
	lo, hi = min(lo, len(s.types)), max(hi, lo)
	mmap.Release(s.types[lo:hi])
	wire.SwapWords(s.types[:lo&^3])
	wire.SwapWords(s.types[hi&^3:])
	s.typesInFile = true
	return true
}

// markLastReader marks the Spec as one whose owner reads none of its own
// records once the next reader is done with them (doneReading).
func (s *Spec) markLastReader() { s.lastReader = true }

// doneReading is what a reader calls once it reads none of the Spec's
// own records any more (btf/distill, when it has copied those it needs).
// If the owner marked the Spec as read by that reader last
// (markLastReader), a big-endian file's swapped records go back to the
// file (typesToFile), rather than staying resident, the process's own,
// to the end: nobody reads them again. Otherwise it does nothing: the
// owner may still read them. It reports whether the records went back.
// Like Close, it must not run concurrently
// with other uses of the Spec.
func (s *Spec) doneReading() bool {
	return s.lastReader && s.typesToFile()
}

// evictStrings is evict for the Spec's own string section alone: a
// reader that has indexed the strings (dedup's Base) and then reads them
// only now and then, to compare a probe's bytes.
func (s *Spec) evictStrings() {
	if s.strsMapped && s.alive() && s.inMapping(s.strs) {
		mmap.Release(s.strs)
	}
}

// recordSizes returns the sizes the Spec walks its own records by.
func (s *Spec) recordSizes() *wire.Sizes { return &s.sizes }

// discard gives back to the system, for good, the memory that holds the
// first n bytes of the Spec's type section, when the Spec reads them in
// place from anonymous memory of its own: what compressed input inflated
// to, or a stream read whole. It is for a consumer that reads the Spec's
// records once, in order (Types), and then closes it, calling discard
// behind the record it reads (dedup's PrepareClose, through
// internal/btfmem), so that an inflated input and its copy are not held
// whole at once.
//
// What was given back is never read again. Once discard has given
// memory back, TypeByID of a type whose record lies in it, or whose
// lookup walks from one that does (a few records past n), returns an
// error wrapping errDiscarded; the later types are still found. A new
// walk over the whole type section (Types, All, Find, Matches,
// FindFlavors) yields nothing, and Find returns errDiscarded; the walk
// that called discard goes on with the records past n. A Type view of a
// discarded record reads zero values, as after Close.
//
// A Spec mapped from a file (see evict), on the heap, in a caller's
// memory or opened lazily is left as it is, and so are its bases. Like
// Close, discard must not run concurrently with other uses of the Spec.
func (s *Spec) discard(n int) {
	if !s.owned || s.lazy || !s.alive() {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(s.data)))
	t := s.types[:min(max(n, 0), len(s.types))]
	if p := uintptr(unsafe.Pointer(unsafe.SliceData(t))); p >= lo && p+uintptr(len(t)) <= lo+uintptr(len(s.data)) {
		mmap.Release(t)
		s.discarded = max(s.discarded, uint32(len(t)))
	}
}

// discardedID reports whether a lookup of one of s's own types would read
// a record that discard gave back (its own, or one its walk starts
// from), or one in the file's order (typesToFile).
func (s *Spec) discardedID(id TypeID) bool {
	if s.typesInFile {
		return true
	}
	if s.discarded == 0 {
		return false
	}
	i := uint32(id - s.firstID)
	if s.shift == indexShift {
		return s.index[i>>indexShift] < s.discarded
	}
	return s.index[i>>lazyShift] < s.discarded
}

// intact reports whether the Spec and all its bases are open and have all
// their records, and the Spec's own are in the host's order (not given
// back to a file in the other: typesToFile): what a walk over the whole
// type section needs.
func (s *Spec) intact() bool {
	if s.typesInFile {
		return false
	}
	for ; s != nil; s = s.base {
		if s.closed.Load() || s.discarded != 0 {
			return false
		}
	}
	return true
}

// alive reports whether the Spec and all its bases are open.
func (s *Spec) alive() bool {
	for ; s != nil; s = s.base {
		if s.closed.Load() {
			return false
		}
	}
	return true
}

// owner returns the Spec in the chain that holds id's record, or nil.
func (s *Spec) owner(id TypeID) *Spec {
	for ; s != nil; s = s.base {
		if id >= s.firstID {
			if id-s.firstID < TypeID(s.n) {
				return s
			}
			return nil
		}
	}
	return nil
}

// offsetOf returns the record offset of one of s's own types.
func (s *Spec) offsetOf(id TypeID) uint32 {
	i := uint32(id - s.firstID)
	// Constant shifts: a lookup is a few nanoseconds, and a shift by a
	// field cost one of them.
	var off, n uint32
	if s.shift == indexShift {
		off, n = s.index[i>>indexShift], i&(1<<indexShift-1)
	} else {
		off, n = s.lazyIndexed(i)
	}
	for range n {
		off += s.sizes.Of(wire.InfoWord(s.types, off))
	}
	return off
}

// lazyIndexed returns, for a lazy Spec, the offset that its indexes keep
// nearest before own type i, and how many records lie between it and i's.
func (s *Spec) lazyIndexed(i uint32) (off, n uint32) {
	off, n = s.index[i>>lazyShift], i&(1<<lazyShift-1)
	if n > 1<<indexShift-1 && s.fine != nil {
		return s.fine.at(i, off, n)
	}
	return off, n
}

// str returns the NUL-terminated string at offset off of the Spec's string
// space (which includes its bases'), without the NUL. ok is false for an
// offset outside the string sections.
func (s *Spec) str(off uint32) (b []byte, ok bool) {
	for ; s != nil; s = s.base {
		if off >= s.strStart {
			off -= s.strStart
			if off >= uint32(len(s.strs)) {
				return nil, false
			}
			rest := s.strs[off:]
			return rest[:bytes.IndexByte(rest, 0)], true
		}
	}
	return nil, false
}

// strEnd is the first string offset past the Spec's string space.
func (s *Spec) strEnd() uint32 { return s.strStart + uint32(len(s.strs)) }
