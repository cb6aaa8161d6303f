package btf

import (
	mathbits "math/bits"
	"slices"
	"sync/atomic"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// This file is the lazy open of Options.Lazy: one walk over the
// records that checks only what locating them needs, and makes a
// FindFlavors search on the way; the references of a record are checked
// when a view of it is handed out.

// FlavorQuery is a FindFlavors search: names (without flavor suffixes) and
// kinds.
type FlavorQuery struct {
	// Names are the names looked for, without flavor suffixes; a type
	// whose name is one of them, flavored or not, matches.
	Names []string
	// Kinds are the kinds a match may have.
	Kinds []Kind
}

func (q FlavorQuery) filter() *flavorFilter {
	f := new(flavorFilter)
	for _, k := range q.Kinds {
		f.groups |= kindBit(k)
		f.kinds |= 1 << (k & 31)
	}
	for _, n := range q.Names {
		if n != "" {
			f.first[n[0]] = append(f.first[n[0]], n)
		}
	}
	return f
}

// covers reports whether every kind and name that g looks for, f does too.
func (f *flavorFilter) covers(g *flavorFilter) bool {
	if g.kinds&^f.kinds != 0 {
		return false
	}
	for b, names := range g.first {
		for _, n := range names {
			if !slices.Contains(f.first[b], n) {
				return false
			}
		}
	}
	return true
}

// foundFlavors is what the lazy walk found for a FlavorQuery: each type's
// id and record offset, in id order, in segments of foundSeg that never
// move once full, so that a name that hundreds of thousands of types
// share (CO-RE flavors) costs 8 bytes a type and no copies while the
// list grows.
type foundFlavors struct {
	f    *flavorFilter
	segs [][]foundType
}

// foundType is a type that the lazy walk found: its id and the offset of
// its record.
type foundType struct {
	id  TypeID
	off uint32
}

// foundSeg is the number of types in each full segment of foundFlavors.
const foundSeg = 1 << 12

// add appends the type id whose record is at off.
func (ff *foundFlavors) add(id TypeID, off uint32) {
	if len(ff.segs) == 0 || len(ff.segs[len(ff.segs)-1]) == foundSeg {
		c := 0
		if len(ff.segs) > 0 {
			c = foundSeg
		}
		ff.segs = append(ff.segs, make([]foundType, 0, c))
	}
	last := &ff.segs[len(ff.segs)-1]
	*last = append(*last, foundType{id, off})
}

// fineIndex is a denser offset index over the groups of a lazy Spec's
// index (one offset for each 1<<lazyShift types) that hold a type the
// lazy walk found: the offsets of every 1<<indexShift-th type in them, so
// that a lookup of a found type walks as few records as in an eager
// Spec. Found types are CO-RE candidates, each looked up many times while
// a relocation is matched against it, where hundreds of thousands of
// them may share a name (hostile.Flavors): a walk of up to fifteen
// records for each lookup made matching half again as slow. The groups
// without a found type keep the sparse index alone.
type fineIndex struct {
	marked []uint64 // a bit per group of the sparse index: it has offsets here
	rank   []uint32 // the marked groups before each word of marked
	offs   []uint32 // fineSteps offsets for each marked group, in order
}

// fineSteps is the number of offsets a fineIndex keeps for a group.
const fineSteps = 1<<(lazyShift-indexShift) - 1

// fineIndex returns the fineIndex of the groups of s that hold a type of
// ff; nil if ff has none.
func (ff *foundFlavors) fineIndex(s *Spec) *fineIndex {
	if ff == nil || len(ff.segs) == 0 {
		return nil
	}
	words := (len(s.index) + 63) / 64
	fi := &fineIndex{marked: make([]uint64, words), rank: make([]uint32, words)}
	groups := 0
	for _, seg := range ff.segs {
		for _, t := range seg {
			g := uint32(t.id-s.firstID) >> lazyShift
			if fi.marked[g/64]&(1<<(g%64)) == 0 {
				fi.marked[g/64] |= 1 << (g % 64)
				groups++
			}
		}
	}
	fi.offs = make([]uint32, 0, groups*fineSteps)
	n := uint32(0)
	for w, bits := range fi.marked {
		fi.rank[w] = n
		n += uint32(mathbits.OnesCount64(bits))
		for ; bits != 0; bits &= bits - 1 {
			fi.offs = s.appendFine(fi.offs, uint32(w*64+mathbits.TrailingZeros64(bits)))
		}
	}
	return fi
}

// appendFine appends to offs the offsets of every 1<<indexShift-th type
// of group g of the sparse index after its first, fineSteps of them (an
// offset past the last type repeats the one before).
func (s *Spec) appendFine(offs []uint32, g uint32) []uint32 {
	off, first := s.index[g], g<<lazyShift
	for i := uint32(1); i < 1<<lazyShift; i++ {
		if first+i < s.n {
			off += s.sizes.Of(wire.InfoWord(s.types, off))
		}
		if i&(1<<indexShift-1) == 0 {
			offs = append(offs, off)
		}
	}
	return offs
}

// at returns where a lookup of own type i, which the sparse index would
// walk n records to from off, starts its walk instead.
func (fi *fineIndex) at(i, off, n uint32) (uint32, uint32) {
	g := i >> lazyShift
	bits, bit := fi.marked[g/64], uint64(1)<<(g%64)
	if bits&bit == 0 {
		return off, n
	}
	r := fi.rank[g/64] + uint32(mathbits.OnesCount64(bits&(bit-1)))
	return fi.offs[r*fineSteps+n>>indexShift-1], n & (1<<indexShift - 1)
}

// parseLazy is Parse for Options.Lazy, finding the types of q on the
// way.
func parseLazy(b []byte, q FlavorQuery) (*Spec, error) {
	s, err := newSpec(b, nil, false)
	if err != nil {
		return nil, err
	}
	s.lazy = true
	if len(q.Names) > 0 {
		s.found = &foundFlavors{f: q.filter()}
	}
	if err := s.indexLazy(); err != nil {
		return nil, err
	}
	s.fine = s.found.fineIndex(s)
	s.checked = make([]atomic.Uint64, (s.n+63)/64)
	return s, nil
}

// indexLazy is indexTypes for a lazy Spec: it checks every record's kind
// and bounds, fills the offset index and the kind summary, and collects
// the types s.found asks for, without reading the references.
//
// It walks the records in one chain, on one goroutine: a lazy open is
// usually a fresh process's, whose walk waits on the faults of the file's
// mapping, where a second chain's offsets would be fresh memory to fault
// in too (BENCH.md).
func (s *Spec) indexLazy() error {
	s.alignTypes()
	s.shift = lazyShift
	s.index = make([]uint32, 0, len(s.types)/(24<<lazyShift)+1)
	s.kinds = make([]uint16, 0, cap(s.index))
	var f *flavorFilter
	if s.found != nil {
		f = s.found.f
	}
	w := newWords(s.types)
	end := uint32(len(s.types))
	id := s.firstID
	for off := uint32(0); off < end; id++ {
		if uint32(id-s.firstID)&(1<<lazyShift-1) == 0 {
			s.index = append(s.index, off)
			s.kinds = append(s.kinds, 0)
		}
		info, size, ok := s.recordAt(w, off, end)
		if !ok || uint64(id) >= 1<<31 {
			return s.recordErr(w, id, off)
		}
		kind := wire.InfoKind(info)
		s.kinds[len(s.kinds)-1] |= kindBit(Kind(kind))
		if f != nil && f.kinds&(1<<(kind&31)) != 0 && s.nameHasEssential(w.at(off+wire.NameAt), f) {
			s.found.add(id, off)
		}
		off += size
	}
	s.n = uint32(id - s.firstID)
	return nil
}

// recordAt returns the info word and the size of the record at off, and
// whether it is sound: a known kind, within the first end bytes of the
// type section.
func (s *Spec) recordAt(w words, off, end uint32) (info, size uint32, ok bool) {
	if end-off < wire.TypeSize {
		return 0, 0, false
	}
	info = w.at(off + wire.InfoAt)
	size = s.sizes.Of(info)
	return info, size, size != 0 && size <= end-off
}

// recordErr is the error for the record of type id at off, which is not
// sound (recordAt) or whose id is too big.
func (s *Spec) recordErr(w words, id TypeID, off uint32) error {
	end := uint32(len(s.types))
	if end-off < wire.TypeSize {
		return typeErr(id, off, "record header truncated: %d bytes left", end-off)
	}
	info := w.at(off + wire.InfoAt)
	fixed, elem := s.sizes.Parts(wire.InfoKind(info))
	return recordError(id, off, end, info, fixed, fixed+elem*uint32(wire.InfoVlen(info)))
}

// checkOut checks, for a lazy Spec, the references of the record of type
// id at off before a view of it is handed out, and keeps the first failure
// for Err.
func (s *Spec) checkOut(id TypeID, off uint32) error {
	i := uint32(id - s.firstID)
	word, bit := &s.checked[i/64], uint64(1)<<(i%64)
	if word.Load()&bit != 0 {
		return nil
	}
	v := s.newValidator()
	v.last = uint32(s.LastID())
	if err := v.check(id, off); err != nil {
		s.keepLazyErr(err)
		return err
	}
	word.Or(bit)
	return nil
}

// keepLazyErr keeps err for Err if no failure was kept before. It is a
// function of its own so that only a failing check moves an error to the
// heap: checkOut runs for every record handed out.
func (s *Spec) keepLazyErr(err error) {
	s.lazyErr.CompareAndSwap(nil, &err)
}

// Check checks every record of a lazy Spec, and of a lazy base under a
// Spec, as an eager open does (the type ids and string offsets it refers
// to), and returns the first failure, which Err then returns too; it checks
// each Spec once, and returns nil at once for Specs opened eagerly, which
// were checked whole when opened. Code that reads the records of a Spec in
// bulk rather than through its views (btf/dedup, the Builder's copy, the
// C dumper) calls it first, so that a lazy Spec is as safe as an eager
// one.
func (s *Spec) Check() error {
	for o := s; o != nil; o = o.base {
		if !o.lazy {
			continue
		}
		o.checkAllOnce.Do(func() { o.checkAllErr = o.checkAll() })
		if o.checkAllErr != nil {
			return o.checkAllErr
		}
	}
	return nil
}

// checkAll checks every record of a lazy Spec, whose bounds the lazy walk
// checked, and marks them all checked. As an eager open does, it first
// compares the largest type id and string offset referred to with the
// limits; only if one is out of range does it run checkOut record by
// record, for the first failure and its error.
func (s *Spec) checkAll() error {
	if !s.alive() {
		return ErrClosed
	}
	maxType, maxStr := s.maxRefs()
	if maxType <= uint32(s.LastID()) && maxStr < s.strEnd() {
		for i := range s.checked {
			s.checked[i].Store(^uint64(0))
		}
		return nil
	}
	w := newWords(s.types)
	id := s.firstID
	for off := uint32(0); off < uint32(len(s.types)); id++ {
		if err := s.checkOut(id, off); err != nil {
			return err
		}
		off += s.sizes.Of(w.at(off + wire.InfoAt))
	}
	return nil
}

// maxRefs returns the largest type id and string offset that the records
// of a lazy Spec refer to, taken as Spec.scan takes them (whose loop keeps
// the same lines inline: a function for them would not inline there).
func (s *Spec) maxRefs() (maxType, maxStr uint32) {
	w := newWords(s.types)
	for off := uint32(0); off < uint32(len(s.types)); {
		info := w.at(off + wire.InfoAt)
		sh := &wire.Shapes[wire.InfoKind(info)]
		size := s.sizes.Of(info)
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
	return maxType, maxStr
}

// yieldType hands the type id at off to yield, after checkOut for a lazy
// Spec; it returns false if yield did, or if the check failed.
func (s *Spec) yieldType(id TypeID, off uint32, yield func(Type) bool) bool {
	if s.lazy && s.checkOut(id, off) != nil {
		return false
	}
	return yield(Type{spec: s, id: id, off: off})
}

// Err returns, for a Spec opened with Options.Lazy or on such a base,
// the error of the first record that failed its check when a view of it
// was to be handed out, and nil if none has. Code that iterates over a
// lazy Spec, or that takes a failed TypeByID for void, checks Err when
// done. For other Specs it returns nil.
func (s *Spec) Err() error {
	for o := s; o != nil; o = o.base {
		if p := o.lazyErr.Load(); p != nil {
			return *p
		}
	}
	return nil
}
