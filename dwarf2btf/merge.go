package dwarf2btf

import (
	"fmt"
	"slices"
	"sort"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/faults"
)

// merger appends encoded units, in unit order, carrying the state
// pahole's single encoder carries from one unit to the next: the array
// index type, the function names already emitted and the per-CPU variables
// of the DATASEC. Fed the units in order, it adds the same records in the
// same order as pahole -j1, whatever the number of workers that encoded
// them.
//
// It writes either into a Builder (Options.NoDedup: b is the Builder, whose
// string order shows), or straight into the deduplication (Encode: direct
// is the Merger, each unit's types come written by its worker in
// encoded.unit, and b is tail, a Unit for the records the merge adds
// itself, appended after each unit's types).
type merger struct {
	b         recWriter
	hasIndex  bool
	needIndex bool
	indexID   btf.TypeID
	generated map[string]struct{}
	secinfo   []btf.VarSecinfo

	// intern, if not nil, adds a string to the deduplication's strings
	// (dedup.Merger.AddString), once flushed has appended the records
	// before it.
	intern func([]byte) error

	// direct and tail: see above.
	direct *dedup.Merger
	tail   *dedup.Unit

	// beside tells that finish may run the deduplication's passes on a
	// goroutine of its own (more than one job, and direct).
	beside bool

	// pahole 1.30's: the ELF functions, the saved functions, and the
	// feature set; like130 tells that functions are saved.
	like130  bool
	elf      *elfFuncs
	saved    []savedFunc
	arena    savedArena
	features Features

	recScratch
}

// recScratch is the scratch of writeRec, and a worker's cache of the keys
// of .debug_str's names (emitter.addType).
type recScratch struct {
	names   *dedup.NameCache
	members []builder.Member
	params  []builder.Param
	values  []builder.Enumerator
}

// recWriter is what the merge writes records into: a Builder, or a
// dedup.Unit.
type recWriter interface {
	AddInt(name string, size uint32, info btf.IntInfo) (btf.TypeID, error)
	AddFloat(name string, size uint32) (btf.TypeID, error)
	AddPointer(target btf.TypeID) (btf.TypeID, error)
	AddConst(target btf.TypeID) (btf.TypeID, error)
	AddVolatile(target btf.TypeID) (btf.TypeID, error)
	AddRestrict(target btf.TypeID) (btf.TypeID, error)
	AddTypedef(name string, target btf.TypeID) (btf.TypeID, error)
	AddTypeTag(value string, target btf.TypeID, attr bool) (btf.TypeID, error)
	AddForward(name string, union bool) (btf.TypeID, error)
	AddArray(a btf.ArrayInfo) (btf.TypeID, error)
	AddStruct(name string, size uint32, members []builder.Member) (btf.TypeID, error)
	AddUnion(name string, size uint32, members []builder.Member) (btf.TypeID, error)
	AddEnum(name string, size uint32, signed bool, values []builder.Enumerator) (btf.TypeID, error)
	AddEnum64(name string, size uint32, signed bool, values []builder.Enumerator) (btf.TypeID, error)
	AddFuncProto(ret btf.TypeID, params []builder.Param) (btf.TypeID, error)
	AddFunc(name string, proto btf.TypeID, linkage btf.Linkage) (btf.TypeID, error)
	AddVar(name string, typ btf.TypeID, linkage btf.Linkage) (btf.TypeID, error)
	AddDatasec(name string, size uint32, vars []btf.VarSecinfo) (btf.TypeID, error)
	AddDeclTag(value string, target btf.TypeID, componentIdx int32, attr bool) (btf.TypeID, error)
	AddString(s string) (uint32, error)
	LastID() btf.TypeID
}

var (
	_ recWriter = (*builder.Builder)(nil)
	_ recWriter = (*dedup.Unit)(nil)
)

// view returns b as a string without copying it, for the Builder's Add
// calls, which copy what they keep: the merge passes tens of millions of
// names (a vmlinux), and converting each cost a third of its time. The
// Builder keeps no string it was given; m.generated's keys are copies.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

func newMerger(b *builder.Builder) *merger {
	return &merger{b: b, generated: map[string]struct{}{}}
}

// newDirectMerger returns a merger that appends to d, each unit's types
// written by its worker (emitter.addType); str is .debug_str, which most
// names the merge writes itself are views of too. Its own records use
// the NameCache that run.encode gives it (takeCache).
func newDirectMerger(d *dedup.Merger, str []byte) *merger {
	tail := d.NewUnit()
	tail.Reset(d.NextID())
	return &merger{b: tail, direct: d, tail: tail, intern: d.AddString, generated: map[string]struct{}{}, arena: savedArena{str: str}}
}

func (m *merger) add(u *encoded) error {
	if u.skipped {
		return nil
	}
	off := m.b.LastID()
	if !m.hasIndex {
		if u.intID != 0 {
			m.hasIndex, m.indexID = true, off+btf.TypeID(u.intID)
		} else {
			m.indexID = off + btf.TypeID(u.ntypes) + 1
		}
	}
	if m.direct != nil {
		if err := m.direct.AddUnit(u.unit, m.indexID); err != nil {
			return err
		}
		// The Merger holds the unit's strings now; a huge unit's copy
		// is given back before the next units and the deduplication.
		u.unit.Release()
		m.tail.Reset(m.direct.NextID())
	} else {
		for i := range u.types {
			if _, err := m.addRec(u, &u.types[i], off); err != nil {
				return err
			}
		}
	}
	m.needIndex = m.needIndex || u.hasArrays
	if m.needIndex && !m.hasIndex {
		if _, err := m.b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}); err != nil {
			return err
		}
		m.hasIndex = true
	}
	for _, t := range u.tags[:u.typeTagN] {
		if err := m.declTag(t, off+btf.TypeID(t.target)); err != nil {
			return err
		}
	}
	if m.like130 && len(u.funcs) > 0 {
		// The saved functions add strings before the variables'
		// records: hand over the records before them.
		if err := m.flushed(); err != nil {
			return err
		}
	}
	for i := range u.funcs {
		if m.like130 {
			if err := m.saveFunc(u, &u.funcs[i], off); err != nil {
				return err
			}
			continue
		}
		if err := m.addFunc(u, &u.funcs[i], off); err != nil {
			return err
		}
	}
	for i := range u.vars {
		v := &u.vars[i]
		id, err := m.b.AddVar(view(v.name), off+btf.TypeID(v.typ), v.linkage)
		if err != nil {
			return err
		}
		for _, t := range u.tags[v.tagLo : v.tagLo+v.tagN] {
			if err := m.declTag(t, id); err != nil {
				return err
			}
		}
		m.secinfo = append(m.secinfo, btf.VarSecinfo{Type: id, Offset: v.offset, Size: v.size})
	}
	return m.flushed()
}

// takeCache has the Units the merge writes itself use c, from the next
// one on: a NameCache of their own while workers run, one a worker is
// done with after, or the inline encoding's, which both share.
func (m *merger) takeCache(c *dedup.NameCache) {
	if m.tail == nil || c == nil {
		return
	}
	m.tail.SetCache(c)
	if m.tail.NumTypes() == 0 {
		m.tail.Reset(m.direct.NextID())
	}
}

// flushed appends the records the merge wrote into tail, after each unit
// and at the end, and has the deduplication go on with them (Advance).
func (m *merger) flushed() error {
	if m.direct == nil {
		return nil
	}
	if m.tail.NumTypes() > 0 {
		if err := m.direct.AddUnit(m.tail, 0); err != nil {
			return err
		}
		m.tail.Reset(m.direct.NextID())
	}
	m.direct.Advance()
	return nil
}

func (m *merger) declTag(t otag, target btf.TypeID) error {
	if len(t.value) == 0 {
		return fmt.Errorf("dwarf2btf: empty btf_decl_tag")
	}
	_, err := m.b.AddDeclTag(view(t.value), target, t.component, false)
	return err
}

func (m *merger) addFunc(u *encoded, f *ofunc, off btf.TypeID) error {
	if _, done := m.generated[string(f.name)]; done {
		return nil
	}
	m.generated[string(f.name)] = struct{}{}
	proto, err := m.addRec(u, &f.proto, off)
	if err != nil {
		return err
	}
	id, err := m.b.AddFunc(view(f.name), proto, btf.LinkageStatic)
	if err != nil {
		return err
	}
	for _, t := range u.tags[f.tagLo : f.tagLo+f.tagN] {
		if err := m.declTag(t, id); err != nil {
			return err
		}
	}
	return nil
}

// finish adds the per-CPU DATASEC, its variables sorted by offset.
func (m *merger) finish() error {
	if m.like130 {
		// The deduplication has every type but the saved functions'
		// and the DATASEC, which are all reference types and variables
		// for its last pass: with a goroutine to spare, it runs its
		// passes over the others (dedup.Merger.FinishGraphs) while the
		// saved functions are written. (One task beside the caller's,
		// joined below: not a pool of jobs.)
		// The passes read names from the mapped input: a fault there is
		// raised here, after the join (internal/faults).
		var graphs chan error
		fc := faults.New()
		if m.beside {
			graphs = make(chan error, 1)
			go func() {
				var gerr error
				fc.Run(func() { gerr = m.direct.FinishGraphs() })
				graphs <- gerr
			}()
		}
		err := m.addSaved()
		if graphs != nil {
			if gerr := <-graphs; err == nil {
				err = gerr
			}
			fc.Raise()
		}
		if err != nil {
			return err
		}
	}
	if len(m.secinfo) == 0 {
		return m.flushed()
	}
	sort.SliceStable(m.secinfo, func(i, j int) bool { return m.secinfo[i].Offset < m.secinfo[j].Offset })
	last := m.secinfo[len(m.secinfo)-1]
	if _, err := m.b.AddDatasec(percpuSection, last.Offset+last.Size, m.secinfo); err != nil {
		return err
	}
	return m.flushed()
}

func (m *merger) ref(local uint32, off btf.TypeID) btf.TypeID {
	return refOf(local, off, m.indexID)
}

// refOf numbers a unit's local reference: after off, and refIndex as index.
func refOf(local uint32, off, index btf.TypeID) btf.TypeID {
	switch local {
	case 0:
		return 0
	case refIndex:
		return index
	}
	return off + btf.TypeID(local)
}

func (m *merger) addRec(u *encoded, r *orec, off btf.TypeID) (btf.TypeID, error) {
	return writeRec(m.b, &m.recScratch, u, r, off, m.indexID)
}

// nameFirst adds a composite's name to a Builder before its elements',
// as pahole does; a dedup.Unit numbers it first anyway.
func nameFirst(b recWriter, name string) error {
	if bb, ok := b.(*builder.Builder); ok {
		_, err := bb.AddString(name)
		return err
	}
	return nil
}

// writeComposite writes a STRUCT or UNION (kind k) into b.
func writeComposite(b recWriter, k btf.Kind, name string, size uint32, members []builder.Member) (btf.TypeID, error) {
	// The Builder adds the members' names first; pahole, the
	// struct's (only Options.NoDedup's output shows it).
	if err := nameFirst(b, name); err != nil {
		return 0, err
	}
	if k == btf.KindUnion {
		return b.AddUnion(name, size, members)
	}
	return b.AddStruct(name, size, members)
}

// writeEnum writes an ENUM, its values cut to 32 bits, or an ENUM64
// (kind k) into b.
func writeEnum(b recWriter, k btf.Kind, name string, size uint32, signed bool, values []builder.Enumerator) (btf.TypeID, error) {
	if err := nameFirst(b, name); err != nil {
		return 0, err
	}
	if k == btf.KindEnum {
		for i := range values {
			values[i].Value &= 0xffffffff
		}
		return b.AddEnum(name, size, signed, values)
	}
	return b.AddEnum64(name, size, signed, values)
}

// writeRec writes the record r of unit u into b, its references numbered
// by refOf.
func writeRec(b recWriter, sc *recScratch, u *encoded, r *orec, off, index btf.TypeID) (btf.TypeID, error) {
	name := view(r.name)
	elems := u.elems[r.lo : r.lo+r.n]
	switch r.kind {
	case btf.KindInt:
		return b.AddInt(name, r.a, btf.IntInfo{Encoding: uint8(r.b), Bits: uint8(r.a * 8)})
	case btf.KindFloat:
		return b.AddFloat(name, r.a)
	case btf.KindPointer:
		return b.AddPointer(refOf(r.a, off, index))
	case btf.KindConst:
		return b.AddConst(refOf(r.a, off, index))
	case btf.KindVolatile:
		return b.AddVolatile(refOf(r.a, off, index))
	case btf.KindRestrict:
		return b.AddRestrict(refOf(r.a, off, index))
	case btf.KindTypedef:
		return b.AddTypedef(name, refOf(r.a, off, index))
	case btf.KindTypeTag:
		return b.AddTypeTag(name, refOf(r.a, off, index), false)
	case btf.KindForward:
		return b.AddForward(name, r.flag)
	case btf.KindArray:
		return b.AddArray(btf.ArrayInfo{Type: refOf(r.a, off, index), Index: refOf(r.b, off, index), Nelems: r.c})
	case btf.KindStruct, btf.KindUnion:
		sc.members = slices.Grow(sc.members[:0], len(elems))
		for _, e := range elems {
			sc.members = append(sc.members, builder.Member{Name: view(e.name), Type: refOf(e.ref, off, index), BitOffset: e.b, BitfieldSize: e.c})
		}
		return writeComposite(b, r.kind, name, r.a, sc.members)
	case btf.KindEnum, btf.KindEnum64:
		sc.values = slices.Grow(sc.values[:0], len(elems))
		for _, e := range elems {
			sc.values = append(sc.values, builder.Enumerator{Name: view(e.name), Value: uint64(e.b)<<32 | uint64(e.ref)})
		}
		return writeEnum(b, r.kind, name, r.a, r.flag, sc.values)
	case btf.KindFuncProto:
		sc.params = slices.Grow(sc.params[:0], len(elems))
		for _, e := range elems {
			sc.params = append(sc.params, builder.Param{Name: view(e.name), Type: refOf(e.ref, off, index)})
		}
		return b.AddFuncProto(refOf(r.a, off, index), sc.params)
	}
	return 0, fmt.Errorf("dwarf2btf: cannot write kind %v", r.kind)
}
