package btf

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// ErrBaseMismatch matches (errors.Is) the error of Relocate, and of Open
// with a base, for a module whose distilled base does not fit the base it
// is given: a type it needs is missing there, differs in kind, size or
// encoding, or has several equal candidates. The kernel refuses to load
// such a module.
var ErrBaseMismatch = errors.New("btf: module does not fit the base")

// Relocate returns split, a module's BTF on its distilled base (the
// .BTF.base section that pahole's distilled_base feature writes), moved
// onto base, the full BTF of the kernel it is loaded into: as libbpf's
// btf__relocate and the kernel's kernel/bpf/btf_relocate.c do, each type
// of the distilled base is matched by name (and by size and kind where
// they must agree) to a type of base, the module's references to it and
// to its name are rewritten, and the module's own ids and strings follow
// base's last ones. The result is split BTF on base, in split's byte
// order, owning its data; split and its distilled base may be closed
// after.
//
// Both split's base and base must be standalone BTF. A distilled type with
// no match, or with several equally good ones, gives an error that names
// it and matches ErrBaseMismatch. Embedded structs and unions (a member of
// a module's struct that is a base struct, not a pointer to one) must also
// agree in size: libbpf 1.5 checked that for only part of the module's
// types, later libbpf and kernels for all, as here.
func Relocate(split, base *Spec) (*Spec, error) {
	raw, err := relocate(split, base)
	if err != nil {
		return nil, err
	}
	s, err := relocated(raw, split, base)
	if err != nil {
		return nil, pkgerr.Errorf("btf: relocated module: %w", err)
	}
	s.order = split.order
	return s, nil
}

// relocated returns the Spec on base of raw, split's records as rewrite
// left them. Those have split's kinds and sizes, so the walk that parsed
// split holds for them: its index and kind summary are taken over rather
// than made by a second walk. Their references are in range by
// construction (split's were, and every id of split and of its distilled
// base has a new one), and so are their name offsets, of which only those
// rewrite took from the base's records needed checking (baseName). A
// split that was not parsed whole (lazy) is parsed again.
func relocated(raw []byte, split, base *Spec) (*Spec, error) {
	if split.shift != indexShift || split.lazy {
		return parseSplit(context.Background(), raw, base, noSplit, false)
	}
	s, err := newSpec(raw, base, false)
	if err != nil {
		return nil, err
	}
	s.alignTypes()
	s.n = split.n
	s.index = slices.Clone(split.index)
	s.kinds = slices.Clone(split.kinds)
	return s, nil
}

// relocator holds the state of one relocation: the distilled base, the
// full base, and the maps from distilled ids and name offsets to base's.
type relocator struct {
	dist, base *Spec
	nDist      uint32   // types of the distilled base, void included
	idMap      []uint32 // distilled base and split ids to their new ids
	strMap     []uint32 // distilled base name offsets to base's
	embedded   []bool   // distilled structs that a split struct embeds
	// nameErr is the first name rewrite took from base that lands inside
	// one of base's strings, reported if nothing else fails.
	nameErr error
	// names holds the names of the distilled types, which most of
	// base's names are not: those skip the search of the sorted ones.
	names nameFilter
}

// nameFilter is a set of names that may answer yes for a name it does not
// hold (one time in sixteen), never no for one it holds: one bit per
// hash, sixteen bits per name.
type nameFilter struct {
	seed maphash.Seed
	bits []uint64
}

// newNameFilter returns an empty nameFilter sized for n names.
func newNameFilter(n int) nameFilter {
	size := 1024
	for size < 16*n {
		size *= 2
	}
	return nameFilter{seed: maphash.MakeSeed(), bits: make([]uint64, size/64)}
}

// bit returns the word and the bit of name.
func (f *nameFilter) bit(name []byte) (int, uint64) {
	h := maphash.Bytes(f.seed, name) & uint64(len(f.bits)*64-1)
	return int(h / 64), 1 << (h % 64)
}

// add adds name.
func (f *nameFilter) add(name []byte) {
	w, b := f.bit(name)
	f.bits[w] |= b
}

// has reports whether name may be in the set.
func (f *nameFilter) has(name []byte) bool {
	w, b := f.bit(name)
	return f.bits[w]&b != 0
}

// distInfo is a distilled type in the order its names are searched. It
// holds no pointer (its name is where it lies in the distilled base's
// strings), so that sorting a module's worth of them sets off no write
// barriers, and the collector has nothing in them to scan.
type distInfo struct {
	nameOff, nameLen uint32
	size, id         uint32
}

// nameKey is what distilled types are searched by: a name and a size.
type nameKey struct {
	name []byte
	size uint32
}

// key returns the name and size of distilled type d.
func (r *relocator) key(d distInfo) nameKey {
	return nameKey{r.dist.strs[d.nameOff:][:d.nameLen], d.size}
}

// relocate returns the raw BTF (host byte order) of Relocate's result.
func relocate(split, base *Spec) ([]byte, error) {
	dist := split.base
	switch {
	case dist == nil:
		return nil, errors.New("btf: relocate: the module has no distilled base")
	case dist.base != nil || base == nil || base.base != nil:
		return nil, errors.New("btf: relocate: the distilled base and the base must be standalone BTF")
	case !split.alive() || !base.alive():
		return nil, ErrClosed
	case !split.intact() || !base.intact():
		return nil, errDiscarded
	}
	r := &relocator{dist: dist, base: base, nDist: dist.n + 1}
	if err := r.validate(); err != nil {
		return nil, err
	}
	r.idMap = make([]uint32, r.nDist+split.n)
	for i := range split.n {
		r.idMap[r.nDist+i] = base.n + 1 + i
	}
	r.strMap = make([]uint32, len(dist.strs))
	r.markEmbedded(split)
	if err := r.match(); err != nil {
		return nil, err
	}
	return r.rewrite(split)
}

// distRecord returns the record of distilled type id.
func (r *relocator) distRecord(id uint32) wire.Record {
	return wire.Record(r.dist.types[r.dist.offsetOf(TypeID(id)):])
}

// distName returns the name of the distilled type of record rec.
func (r *relocator) distName(rec wire.Record) []byte {
	name, _ := r.dist.str(rec.NameOff())
	return name
}

// validate checks that the distilled base holds only named INT, FLOAT,
// ENUM, STRUCT, UNION and FWD types, as btf__distill_base writes it.
func (r *relocator) validate() error {
	for id := uint32(1); id < r.nDist; id++ {
		rec := r.distRecord(id)
		switch Kind(rec.Kind()) {
		case KindInt, KindFloat, KindEnum, KindStruct, KindUnion, KindForward:
			if rec.NameOff() == 0 {
				return fmt.Errorf("btf: distilled base type %d: anonymous %s", id, Kind(rec.Kind()))
			}
		default:
			return fmt.Errorf("btf: distilled base type %d: kind %s cannot be in a distilled base", id, Kind(rec.Kind()))
		}
	}
	return nil
}

// markEmbedded marks the distilled structs and unions that a member of a
// split struct or union holds by value (through typedefs, qualifiers,
// type tags and arrays, not pointers): those must match in size too.
func (r *relocator) markEmbedded(split *Spec) {
	r.embedded = make([]bool, r.nDist)
	split.eachRecord(split.types, func(_ uint32, rec wire.Record) bool {
		if k := Kind(rec.Kind()); k == KindStruct || k == KindUnion {
			for i := range rec.Vlen() {
				r.markChain(split, rec.MemberType(i))
			}
		}
		return true
	})
}

// eachRecord calls f with the offset and the record of each of s's types
// in turn, read from types (s's type section, or a copy of it), until f
// returns false. s was parsed, so its records are sound and fill the
// section. It serves the walks of a relocation rather than wire.Iter,
// whose Next is not inlined: its store of the record into the Iter is a
// write barrier per record while the collector runs (BENCH.md).
func (s *Spec) eachRecord(types []byte, f func(off uint32, rec wire.Record) bool) {
	for off, end := uint32(0), uint32(len(types)); off < end; {
		size := s.sizes.Of(wire.InfoWord(types, off))
		if size == 0 || !f(off, wire.Record(types[off:off+size:off+size])) {
			return
		}
		off += size
	}
}

// markChain follows one member's type to the struct or union it holds.
// It reads the records themselves, not Types: this runs for every member
// of the module. A distilled type ends the chain, as validate allows no
// kind there that refers to another.
func (r *relocator) markChain(split *Spec, id uint32) {
	for n := 0; id != 0 && n <= maxChain; n++ {
		if id < r.nDist {
			if k := Kind(r.distRecord(id).Kind()); k == KindStruct || k == KindUnion {
				r.embedded[id] = true
			}
			return
		}
		if id > uint32(split.LastID()) {
			return
		}
		rec := wire.Record(split.types[split.offsetOf(TypeID(id)):])
		switch Kind(rec.Kind()) {
		case KindConst, KindRestrict, KindVolatile, KindTypedef, KindTypeTag:
			id = rec.SizeType()
		case KindArray:
			id, _, _ = rec.Array()
		default:
			return
		}
	}
}

// sortedDist returns the distilled types sorted by name, then by size,
// largest first, as btf_relocate.c sorts them.
func (r *relocator) sortedDist() []distInfo {
	infos := make([]distInfo, r.nDist)
	for id := range r.nDist {
		if id == 0 {
			continue // void: no name, size 0
		}
		rec := r.distRecord(id)
		infos[id] = distInfo{nameOff: rec.NameOff(), nameLen: uint32(len(r.distName(rec))), size: rec.SizeType() & 0x7fffffff, id: id}
	}
	r.names = newNameFilter(len(infos))
	for _, d := range infos {
		r.names.add(r.key(d).name)
	}
	// Ties keep id order, as a stable sort would, without its cost.
	slices.SortFunc(infos, func(a, b distInfo) int {
		if c := compareKey(r.key(a), r.key(b), true); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	return infos
}

// compareKey orders distilled types by name, and when sized by size,
// largest first.
func compareKey(a, b nameKey, sized bool) int {
	if c := bytes.Compare(a.name, b.name); c != 0 || !sized {
		return c
	}
	return cmp.Compare(b.size, a.size)
}

// match maps every distilled type to the type of base that has its name
// (and kind, and size where it counts), walking base once.
func (r *relocator) match() error {
	infos := r.sortedDist()
	dupNames := r.baseCompositeNames()
	b := r.base
	id := uint32(0)
	var err error
	b.eachRecord(b.types, func(_ uint32, rec wire.Record) bool {
		id++
		if rec.NameOff() == 0 {
			return true
		}
		// Set only on failure: a store of an interface is a write
		// barrier while the collector runs.
		if e := r.matchName(id, rec, infos, dupNames); e != nil {
			err = e
			return false
		}
		return true
	})
	if err != nil {
		return err
	}
	for id := uint32(1); id < r.nDist; id++ {
		if r.idMap[id] == 0 {
			rec := r.distRecord(id)
			return fmt.Errorf("%w: %s %q (%d bytes, distilled base type %d) is not in the base",
				ErrBaseMismatch, Kind(rec.Kind()), r.distName(rec), rec.SizeType(), id)
		}
	}
	return nil
}

// matchName matches base type id, of record rec, to the distilled types
// of its name, sorted in infos; dupNames is baseCompositeNames.
func (r *relocator) matchName(id uint32, rec wire.Record, infos []distInfo, dupNames map[uint32]uint8) error {
	k := Kind(rec.Kind())
	switch k {
	case KindInt, KindFloat, KindEnum, KindEnum64, KindForward, KindStruct, KindUnion:
	default:
		return nil
	}
	name, _ := r.base.str(rec.NameOff())
	if !r.names.has(name) {
		return nil
	}
	key := nameKey{name: name, size: rec.SizeType() & 0x7fffffff}
	sized := k != KindForward && (k != KindStruct && k != KindUnion || dupNames[rec.NameOff()] > 1)
	cmpKey := func(d distInfo) int { return compareKey(key, r.key(d), sized) }
	i, _ := slices.BinarySearchFunc(infos, key, func(d distInfo, _ nameKey) int { return -cmpKey(d) })
	for ; i < len(infos) && cmpKey(infos[i]) == 0; i++ {
		if err := r.matchOne(id, rec, infos[i].id); err != nil {
			return err
		}
	}
	return nil
}

// baseCompositeNames counts the named structs and unions of base by name
// offset (up to 255), to tell which names need a size to match.
func (r *relocator) baseCompositeNames() map[uint32]uint8 {
	b := r.base
	n := make(map[uint32]uint8)
	b.eachRecord(b.types, func(_ uint32, rec wire.Record) bool {
		if k := Kind(rec.Kind()); (k == KindStruct || k == KindUnion) && rec.NameOff() != 0 && n[rec.NameOff()] < 255 {
			n[rec.NameOff()]++
		}
		return true
	})
	return n
}

// matchOne maps distilled type d to base type id, whose record is rec, if
// their kinds agree; two base types for one distilled type is an error.
func (r *relocator) matchOne(id uint32, rec wire.Record, d uint32) error {
	if d == 0 {
		return fmt.Errorf("%w: base type %d has an empty name", ErrBaseMismatch, id)
	}
	drec := r.distRecord(d)
	bk, dk := Kind(rec.Kind()), Kind(drec.Kind())
	switch dk {
	case KindForward:
		ok := bk == KindForward && rec.KindFlag() == drec.KindFlag() ||
			bk == KindStruct && !rec.KindFlag() || bk == KindUnion && rec.KindFlag()
		if !ok {
			return nil
		}
	case KindInt:
		if bk != dk || wire.IntEncoding(rec.Extra()) != wire.IntEncoding(drec.Extra()) {
			return nil
		}
	case KindFloat:
		if bk != dk {
			return nil
		}
	case KindEnum:
		if bk != dk && bk != KindEnum64 {
			return nil
		}
	case KindStruct, KindUnion:
		if r.embedded[d] && rec.SizeType() != drec.SizeType() {
			return nil
		}
	default:
		return nil
	}
	if prev := r.idMap[d]; prev != 0 {
		return fmt.Errorf("%w: %s %q (%d bytes, distilled base type %d) has two candidates in the base, types %d and %d",
			ErrBaseMismatch, dk, r.distName(drec), rec.SizeType(), d, prev, id)
	}
	r.idMap[d] = id
	r.strMap[drec.NameOff()] = rec.NameOff()
	return nil
}

// rewrite returns a copy of split's raw BTF whose type ids and name
// offsets point into base.
func (r *relocator) rewrite(split *Spec) ([]byte, error) {
	raw := bytes.Clone(split.data)
	types := raw[int(split.hdr.HdrLen)+int(split.hdr.TypeOff):][:len(split.types)]
	// The fields of each record are reached through wire.Shapes, as
	// Spec.scan reaches them, rather than through Record's visitors: a
	// closure call per field was a third of a relocation (BENCH.md).
	id := r.nDist
	var err error
	split.eachRecord(types, func(off uint32, rec wire.Record) bool {
		if e := r.rewriteOne(id, off, rec); e != nil {
			err = e // set only on failure, as in match
			return false
		}
		id++
		return true
	})
	if err != nil {
		return nil, err
	}
	if r.nameErr != nil {
		return nil, pkgerr.Errorf("btf: relocated module: %w", r.nameErr)
	}
	return raw, nil
}

// rewriteOne rewrites the ids and names of rec, split type id (in the
// distilled numbering) at off.
func (r *relocator) rewriteOne(id, off uint32, rec wire.Record) error {
	sh := &wire.Shapes[rec.Kind()]
	end := uint32(len(rec))
	r.remap(rec, sh.Ref0At, sh.Ref0Mask)
	r.remap(rec, sh.Ref1At, sh.Ref1Mask)
	if sh.ElemTypeMask != 0 {
		for at := sh.ElemStart + sh.ElemTypeAt; at < end; at += sh.ElemSize {
			r.remap(rec, at, sh.ElemTypeMask)
		}
	}
	if err := r.rename(rec, wire.NameAt, id, off); err != nil {
		return err
	}
	if sh.ElemNameMask != 0 {
		for at := sh.ElemStart + sh.ElemNameAt; at < end; at += sh.ElemSize {
			if err := r.rename(rec, at, id, off); err != nil {
				return err
			}
		}
	}
	return nil
}

// remap replaces the type id at byte at of rec, if mask says the record
// has one there, by its new id.
func (r *relocator) remap(rec wire.Record, at, mask uint32) {
	if mask != 0 {
		wire.PutWord(rec, at, r.idMap[wire.Word(rec, at)])
	}
}

// rename replaces the name offset at byte at of rec, the record of split
// type id (in the distilled numbering) at off, by its offset on base.
func (r *relocator) rename(rec wire.Record, at, id, off uint32) error {
	name := wire.Word(rec, at)
	distLen := uint32(len(r.dist.strs))
	switch {
	case name == 0:
	case name >= distLen:
		wire.PutWord(rec, at, name+uint32(len(r.base.strs))-distLen)
	case r.strMap[name] != 0:
		to := r.strMap[name]
		if r.nameErr == nil && r.base.strs[to-1] != 0 {
			// The check that the split's parse makes of such offsets
			// (checkBaseStrings), which relocated skips.
			r.nameErr = midStringErr(TypeID(r.idMap[id]), off, to)
		}
		wire.PutWord(rec, at, to)
	default:
		s, _ := r.dist.str(name)
		return fmt.Errorf("%w: type %d: name %q (offset %d) is not the name of a distilled base type",
			ErrBaseMismatch, id, s, name)
	}
	return nil
}
