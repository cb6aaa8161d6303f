package dedup

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Base is a base BTF (vmlinux, for module BTF) prepared for deduplicating
// split BTF on it: its records, the hashes of its types (what libbpf's
// btf_dedup_prep computes again for every split BTF), its string index and
// the names that forward declarations resolve to. It is computed once by
// NewBase, never changes afterwards, and is safe for concurrent use by any
// number of Mergers.
//
// Deduplication against a Base never changes the base: split types equal to
// base types are replaced by references to them.
type Base struct {
	spec  *btf.Spec
	last  uint32 // last base id
	recs  records
	kinds []uint8 // by id, 0 (void) included
	strs  baseStrings
	table *table
	names map[uint32]uint32 // struct/union name -> id, 0 if ambiguous
	sigs  baseSigs          // see basesig.go
	enums enumIndex
	pool  sync.Pool // of *baseScratch
	mem   *baseMem
	// odd: a base type refers to a VAR, DATASEC or DECL_TAG (refersOdd).
	odd bool
	// whole holds the split chains whole (wholeChain), made once.
	whole     map[uint64][]fent
	wholeOnce sync.Once
	// holdsOdd: a base type is a VAR, DATASEC or DECL_TAG (oddKind),
	// which split types may refer to (checkTypes).
	holdsOdd bool
	// pages, if not nil, holds the records deduplications read
	// (basepages.go): rec reads them there once the Base is built.
	pages *basePages
}

// baseMem is what a Base holds in mappings (see makeMapped): given back
// when the Base is collected.
type baseMem struct {
	tables []*table
	strs   *strset
	sigs   [sigDepth + 1]*mmap.Region
	top    *mmap.Region
	pages  *mmap.Region
}

func (m *baseMem) free() {
	for _, t := range m.tables {
		t.free()
	}
	if m.strs != nil {
		m.strs.Free()
	}
	for k := range m.sigs {
		mmap.Free(&m.sigs[k])
	}
	mmap.Free(&m.top)
	mmap.Free(&m.pages)
}

// NewBase prepares spec, and the bases below it if any, as the base of split
// deduplications. The Spec must stay open while the Base is used: the Base
// reads its records and strings where the Spec holds them. A kind that
// deduplication does not know gives an error, as in libbpf.
// NewBase works on the calling goroutine.
func NewBase(spec *btf.Spec, opts Options) (*Base, error) {
	return newBase(spec, true)
}

// newBase is NewBase; inPlace false copies the records even where
// they could be read in place (for tests).
func newBase(spec *btf.Spec, inPlace bool) (*Base, error) {
	if spec == nil {
		return nil, fmt.Errorf("dedup: nil base")
	}
	if _, err := spec.TypeByID(0); err != nil {
		return nil, fmt.Errorf("dedup: base: %w", err)
	}
	if err := spec.Check(); err != nil { // a lazy Spec's references
		return nil, fmt.Errorf("dedup: base: %w", err)
	}
	b := &Base{spec: spec, last: uint32(spec.LastID()), mem: new(baseMem)}
	runtime.AddCleanup(b, (*baseMem).free, b.mem)
	for s := spec; s != nil; s = s.Base() {
		data, start := s.StringSection()
		b.strs.secs = append([][]byte{data}, b.strs.secs...)
		b.strs.start = append([]uint32{start}, b.strs.start...)
	}
	b.strs.end = b.strs.start[len(b.strs.start)-1] + uint32(len(b.strs.secs[len(b.strs.secs)-1]))
	// The string index is built when first needed (baseStrings.ready).
	b.strs.newIndex()
	b.mem.strs = b.strs.index
	b.strs.release = func() {
		// Behind the index's reading, and once indexed: the bytes
		// are read again only to compare a probe's, now and then
		// (see evictBase). The index is built when a split input's
		// Prepare first looks up a string, beside the Base and the
		// input: the 1.7 MB of a vmlinux's strings resident at once
		// raised a module's peak by 1.4 MB.
		for s := spec; s != nil; s = s.Base() {
			btfmem.EvictStrings(s)
		}
	}
	if err := b.readRecords(spec, inPlace); err != nil {
		return nil, err
	}
	if b.recs.len() != b.last {
		return nil, fmt.Errorf("dedup: base: read %d types, want %d", b.recs.len(), b.last)
	}
	b.makeSigs()
	if err := b.fileTypes(); err != nil {
		return nil, err
	}
	if spec.Base() == nil && b.pages == nil && btfmem.TypesMapped(spec) {
		b.pages = newBasePages(spec, b.recs.w, &b.mem.pages)
	}
	return b, nil
}

// fileTypes notes whether base types refer to a VAR, DATASEC or DECL_TAG
// (refersOdd) and files every base type in the Base's table (a frozen one, built in two passes) and the enum
// index, and its structs and unions by name: one pass over the records
// for both, as libbpf's btf_dedup_prep hashes each base type once.
func (b *Base) fileTypes() error {
	kt := b.kindTable()
	b.enums = newEnumIndex(nil)
	named := 0 // a map grown from empty cost 5 M instructions
	for _, k := range b.kinds {
		if k == uint8(btf.KindStruct) || k == uint8(btf.KindUnion) {
			named++
		}
		b.holdsOdd = b.holdsOdd || oddKind(btf.Kind(k))
	}
	b.names = make(map[uint32]uint32, named)
	fb := newFrozenBuilder(int(b.last), newIDRank(b.kinds, isFiled))
	// The slot of each type's chain, for the second pass.
	var slotsMem *mmap.Region
	slots := makePopulated[uint32](int(b.last), &slotsMem)
	defer slotsMem.Free()
	var evicted uint32
	for i := range b.last {
		b.evictBehind(i, &evicted)
		r := b.recs.rec(i)
		id := i + 1
		if refersOdd(r, &kt) {
			b.odd = true
		}
		if h, ok := prepHash(r); ok {
			var e entry
			e, slots[i] = fb.count(h, id)
			if isAnyEnum(r) {
				b.enums.file(r, e)
			}
		}
		if k := kindOf(r); k == btf.KindStruct || k == btf.KindUnion {
			addName(b.names, r[wName], id)
		}
	}
	b.evictTypes(b.last)
	// A big-endian file's records, which Open swapped in place, are the
	// process's own pages, which evictTypes leaves: they go back to the
	// file here (newBasePages), not after the table is laid out beside
	// them (BENCH.md, "A big-endian base given back before its table"),
	// and what follows reads them through the Base's page copies.
	if b.spec.Base() == nil && !btfmem.TypesMapped(b.spec) {
		b.pages = newBasePages(b.spec, b.recs.w, &b.mem.pages)
	}
	b.splitChains(fb, slots)
	fb.layout()
	for i := b.last; i > 0; i-- {
		if isFiled(btf.Kind(b.kinds[i])) {
			fb.place(slots[i-1], i)
		}
	}
	b.table = fb.table()
	b.mem.tables = []*table{b.table, b.enums.defs, b.enums.decls}
	return nil
}

// splitAbove is how many structs, unions and typedefs of one shallow hash
// a Base's table files under it at most, to be told apart by their top
// signatures when a lookup meets them (see key); more, and they are filed
// under their mixed keys.
const splitAbove = 8

// splitEvictEvery is how many types splitChains signs between two
// evictions of the base's whole type section.
const splitEvictEvery = 128

// splitChains files the types of the chains of more than splitAbove
// entries, every one a struct, union or typedef, under their mixed keys
// (structKey), and updates their slots: computing the top signatures of
// a few types instead of walking all of them at every lookup of their
// shallow hash.
func (b *Base) splitChains(fb *frozenBuilder, slots []uint32) {
	long := map[uint32]bool{}
	var in []uint32 // of the long chains
	for i := range b.last {
		k := btf.Kind(b.kinds[i+1])
		if !isFiled(k) || fb.f.slots[slots[i]].head <= splitAbove {
			continue
		}
		in = append(in, i)
		if ok, seen := long[slots[i]]; ok || !seen {
			long[slots[i]] = isStructPass(k)
		}
	}
	for s, ok := range long {
		if ok {
			fb.split(s)
		}
	}
	// The top signatures reach records all over the type section, and
	// every read of a mapped file maps the 64 KB around it: the section
	// went back resident whole (2.2 MB on Debian 6.1's vmlinux, 1,350
	// types in long chains), the peak of a small module's deduplication.
	for k, i := range in {
		if long[slots[i]] {
			slots[i] = fb.move(mix(hashShallow(b.rec(i+1)), b.sig(i+1, sigTop)))
		}
		if k%splitEvictEvery == splitEvictEvery-1 {
			b.evictRead()
		}
	}
	b.evictRead()
}

// evictRead gives back what reading records at random brought in: the
// file's pages, and the Base's copies of them where it reads through
// them already (a big-endian base's, given back to the file before
// splitChains): deduplications copy again what they read.
func (b *Base) evictRead() {
	b.evictTypes(b.last)
	if b.pages != nil {
		b.pages.drop()
	}
}

// readRecords reads the base's records. With one type section, in host
// order and aligned (a vmlinux Spec's, mapped or read), they are its words
// in place: a vmlinux's records are megabytes, which matter beside the few
// megabytes a module's encoding or deduplication needs.
// Otherwise, or if the Spec's records are not laid out one after the other
// in that section, they are copied.
func (b *Base) readRecords(spec *btf.Spec, inPlace bool) error {
	var sec []byte
	if spec.Base() == nil && inPlace {
		sec = spec.TypeSection()
	}
	w, inPlace := wire.Words(sec)
	b.kinds = make([]uint8, 1, b.last+1)
	b.recs.off.rel = make([]uint16, 0, b.last+1)
	b.recs.off.push(0)
	if inPlace && b.readInPlace(spec, sec, w) {
		return nil
	}
	pos := 0 // bytes of sec read, while in place
	for id, t := range spec.Types(btf.ScopeAll) {
		rec := t.Record()
		if err := checkRecord(rec); err != nil {
			return fmt.Errorf("dedup: base: type [%d]: %w", id, err)
		}
		b.kinds = append(b.kinds, uint8(wire.Record(rec).Kind()))
		if inPlace && (len(sec)-pos < len(rec) || &rec[0] != &sec[pos]) {
			inPlace = false
			b.recs.w = append(make([]uint32, 0, len(w)), w[:pos/4]...)
		}
		if !inPlace {
			if err := wordRoom(len(b.recs.w), len(rec)/4); err != nil {
				return fmt.Errorf("dedup: base: %w", err)
			}
			b.recs.w = appendRecordWords(b.recs.w, rec)
			b.recs.off.push(uint32(len(b.recs.w)))
			continue
		}
		pos += len(rec)
		b.recs.off.push(uint32(pos / 4))
		if uint32(id)%baseEvictEvery == 0 {
			btfmem.EvictTypes(spec, 0, pos) // read again from the page cache
		}
	}
	btfmem.EvictTypes(spec, 0, len(spec.TypeSection()))
	if inPlace {
		b.recs.w = w[: pos/4 : pos/4]
	}
	return nil
}

// readInPlace is readRecords for a Spec's type section, sec (w as
// words), read where it is: the section walked record by record by the
// Spec's own sizes, without its iterator and its checks a record (a
// third of the Base's reading). It reports false, having read nothing,
// where a record is unsound or the walk does not find the Spec's types:
// readRecords reads, or refuses, those as before.
func (b *Base) readInPlace(spec *btf.Spec, sec []byte, w []uint32) bool {
	it := btfmem.RecordSizes(spec).Iter(sec)
	n := uint32(0)
	for it.Next() {
		if checkRecord(it.Rec) != nil {
			break
		}
		n++
		b.kinds = append(b.kinds, uint8(it.Rec.Kind()))
		end := it.Off + uint32(len(it.Rec))
		b.recs.off.push(end / 4)
		if n%baseEvictEvery == 0 {
			btfmem.EvictTypes(spec, 0, int(end)) // read again from the page cache
		}
	}
	if !it.Done() || n != b.last {
		b.kinds = b.kinds[:1]
		b.recs.off.truncate(1)
		return false
	}
	btfmem.EvictTypes(spec, 0, len(sec))
	b.recs.w = w[:len(w):len(w)]
	return true
}

// baseEvictEvery is how many types a pass over the base's records reads
// between two evictions of the records behind it.
const baseEvictEvery = 1 << 13

// evictTypes lets the system take back the pages of the base's type
// section that hold records 0..i-1 (0-based), when the Spec reads them in
// place from a file's mapping: a Base reads them in order while it is
// built, then only the few that deduplication compares or copies, which
// are read again from the page cache when touched. A vmlinux's type
// section is megabytes, resident beside the Base's tables otherwise.
func (b *Base) evictTypes(i uint32) {
	btfmem.EvictTypes(b.spec, 0, int(b.recs.off.at(i))*4)
}

// evictBehind is evictTypes for a pass that reads the records in order,
// at record i: every baseEvictEvery records since the last eviction.
func (b *Base) evictBehind(i uint32, evicted *uint32) {
	if i-*evicted >= baseEvictEvery {
		b.evictTypes(i)
		*evicted = i
	}
}

// evictStrings lets the system take back the pages of the base's string
// sections, when its Specs read them in place from a file's mapping. A
// split input whose names are the base's (base-copies-N) has its Spec's
// check read every name there, 1.7 MB of a vmlinux's strings resident to
// the end of its deduplication, where its names are string keys
// (BENCH.md, "A split input that repeats its base, a third time").
func (b *Base) evictStrings() {
	if b.strs.release != nil {
		b.strs.release()
	}
}

// kindTable returns the kinds of the base's types, as a deduplication on
// it starts from.
func (b *Base) kindTable() kindTable {
	return kindTable{base: b.kinds, first: b.last + 1}
}

// Spec returns the Spec the Base was made from.
func (b *Base) Spec() *btf.Spec { return b.spec }

// rec returns the record of base type id (1 <= id <= last).
func (b *Base) rec(id uint32) record {
	if b.pages != nil {
		return b.pages.words(b.recs.off.at(id-1), b.recs.off.at(id))
	}
	return b.recs.rec(id - 1)
}

// wholeChain returns the chain of the structs, unions and typedefs filed
// under shallow hash h, split (splitChain), oldest first: every candidate
// of h, for faithful mode (checkOdd), which only inputs that reach two
// VARs, DATASECs or DECL_TAGs of one name ask for. The split chains are
// gathered at the first call, by one walk over the base's types.
func (b *Base) wholeChain(h uint64) []fent {
	b.wholeOnce.Do(func() {
		b.whole = map[uint64][]fent{}
		f := b.table.fz
		for id := uint32(1); id <= b.last; id++ {
			if !isStructPass(btf.Kind(b.kinds[id])) {
				continue
			}
			s := hashShallow(b.rec(id))
			if f.slots[f.slot(s)].head == splitChain {
				b.whole[s] = append(b.whole[s], fent(id))
			}
		}
	})
	return b.whole[h]
}

// prepHash is the hash under which btf_dedup_prep files a base type; VAR
// and DATASEC are never deduplicated and are not filed. Structs, unions
// and typedefs are filed under their shallow hash alone, not mixed with
// their top signature as in an own table: see key.
func prepHash(r record) (uint64, bool) {
	switch kindOf(r) {
	case btf.KindStruct, btf.KindUnion, btf.KindTypedef:
		return hashShallow(r), true
	case btf.KindEnum, btf.KindEnum64:
		return hashEnum(r), true
	}
	return hashAll(r), isFiled(kindOf(r))
}

// isFiled reports whether btf_dedup_prep files a base type of kind k:
// all but VAR and DATASEC, which are never deduplicated.
func isFiled(k btf.Kind) bool { return k != btf.KindVar && k != btf.KindDatasec }

// oddKind reports whether libbpf's graph comparison (btf_dedup_is_equiv)
// fails with an error on two distinct types of kind k that it reaches
// with one name: a VAR, DATASEC or DECL_TAG, which it does not compare.
func oddKind(k btf.Kind) bool {
	return k == btf.KindVar || k == btf.KindDatasec || k == btf.KindDeclTag
}

// refersOdd reports whether record r refers to a VAR, DATASEC or DECL_TAG
// where libbpf's graph comparison can reach it: from any record but a VAR,
// DATASEC or DECL_TAG, whose references the comparison never follows. kt
// gives the kinds of the ids r refers to. Such BTF is invalid (the kernel
// rejects it), but libbpf's btf__dedup accepts it: VARs and DATASECs are
// their own canonical types, and a reference to one of them, or to a
// DECL_TAG, is deduplicated like any other (checkOdd: when it may fail).
func refersOdd(r record, kt *kindTable) bool {
	if oddKind(kindOf(r)) {
		return false
	}
	sh := r.Shape()
	for _, i := range [2]int{sh.Ref0, sh.Ref1} {
		if i >= 0 && isOddRef(r[i], kt) {
			return true
		}
	}
	if sh.ElemRef >= 0 {
		for i := sh.Fixed + sh.ElemRef; i < len(r); i += sh.Elem {
			if isOddRef(r[i], kt) {
				return true
			}
		}
	}
	return false
}

// isOddRef reports whether ref is a VAR, DATASEC or DECL_TAG.
func isOddRef(ref uint32, kt *kindTable) bool {
	return ref != 0 && oddKind(kt.of(ref))
}

// addName records a canonical struct or union for forward resolution
// (btf_dedup_fill_unique_names_map): a name seen twice maps to 0.
func addName(names map[uint32]uint32, name, id uint32) {
	if _, ok := names[name]; ok {
		names[name] = 0
	} else {
		names[name] = id
	}
}

// checkRecord refuses a record of a kind beyond those the wire package
// knows, whose references could not be followed, or of the wrong size.
func checkRecord(rec []byte) error {
	if len(rec) < wire.TypeSize {
		return fmt.Errorf("record of %d bytes", len(rec))
	}
	info := wire.Record(rec).Info()
	k := wire.InfoKind(info)
	if k == wire.KindUnknown || int(k) >= wire.NumKinds {
		return fmt.Errorf("kind %d cannot be deduplicated", k)
	}
	if size, _ := wire.DefaultLayouts.RecordSize(info); size != uint32(len(rec)) {
		return fmt.Errorf("%v record of %d bytes, want %d", btf.Kind(k), len(rec), size)
	}
	return nil
}
