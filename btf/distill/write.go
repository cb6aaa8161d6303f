package distill

import (
	"errors"
	"fmt"
	"math"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// toBase reports whether needed base type rec goes into the distilled
// base (true) or, copied whole, into the new split BTF (false).
func toBase(rec wire.Record) bool {
	switch btf.Kind(rec.Kind()) {
	case btf.KindInt, btf.KindFloat, btf.KindForward:
		return true
	case btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64:
		return rec.NameOff() != 0
	}
	return false
}

// writeBase writes the distilled base: the needed base types that toBase
// keeps there, in id order; named structs and unions without members and
// named enums as memberless unsigned ENUMs of their size.
func (d *distiller) writeBase() error {
	d.baseStrs = d.newStrs()
	d.baseStrs.add(nil)
	d.baseTypes = make([]byte, wire.HeaderLen)
	d.nBase = 1
	err := d.ids.each(func(id uint32) error {
		rec, err := d.record(id)
		if err != nil || !toBase(rec) {
			return err
		}
		d.ids.keep(id)
		return d.appendBase(id, rec)
	})
	d.ids.rank()
	return err
}

// appendBase appends the distilled form of base type id, whose record is
// rec, to the distilled base.
func (d *distiller) appendBase(id uint32, rec wire.Record) error {
	name, err := d.addString(d.baseStrs, 0, rec.NameOff())
	if err != nil {
		return err
	}
	switch k := btf.Kind(rec.Kind()); k {
	case btf.KindStruct, btf.KindUnion:
		d.baseTypes = wire.AppendFixed(d.baseTypes, name, wire.Info(wire.Kind(k), 0, false), rec.SizeType())
	case btf.KindEnum, btf.KindEnum64:
		if sz := rec.SizeType(); sz == 0 || sz&(sz-1) != 0 || sz > 8 {
			return fmt.Errorf("distill: base type %d: enum %q of %d bytes", id, d.name(rec.NameOff()), sz)
		}
		d.baseTypes = wire.AppendFixed(d.baseTypes, name, wire.Info(wire.KindEnum, 0, false), rec.SizeType())
	default: // INT, FLOAT, FWD: as they are
		at := len(d.baseTypes)
		d.baseTypes = append(d.baseTypes, rec...)
		wire.PutWord(d.baseTypes[at:], wire.NameAt, name)
	}
	d.nBase++
	return nil
}

// strSet is a distilled BTF's own string section being written: a
// strtab.Set of uint32 slots, or of uint64 slots where the source's
// strings pass what 24 offset bits hold (newStrs). One branch a call
// rather than an interface, whose calls cost distilling xfs 2.7% more
// instructions.
type strSet struct {
	narrow *strtab.Set[uint32]
	wide   *strtab.Set[uint64]
}

func (t strSet) add(s []byte) (uint32, bool) {
	if t.wide != nil {
		return t.wide.Add(s)
	}
	return t.narrow.Add(s)
}

func (t strSet) find(s []byte) (uint32, bool) {
	if t.wide != nil {
		return t.wide.Find(s)
	}
	return t.narrow.Find(s)
}

func (t strSet) data() []byte {
	if t.wide != nil {
		return t.wide.Data()
	}
	return t.narrow.Data()
}

func (t strSet) len() int { return len(t.data()) }

func (t strSet) reserveData(n int) {
	if t.wide != nil {
		t.wide.ReserveData(n)
		return
	}
	t.narrow.ReserveData(n)
}

// newStrs returns an empty string section for the distilled BTF. The
// source's strings bound what it can hold, so its index slots are uint32
// (24 offset bits, half the memory) where they fit the source's, as they
// fit every input the kernel takes (wire.MaxNameOffset), and uint64 past
// that: libbpf's btf__distill_base writes string sections up to
// BTF_MAX_STR_OFFSET (wire.MaxStrLen).
func (d *distiller) newStrs() strSet {
	own, start := d.src.StringSection()
	if uint64(start)+uint64(len(own)) > wire.MaxNameOffset {
		return strSet{wide: strtab.NewSet[uint64](strtab.Options{})}
	}
	return strSet{narrow: strtab.NewSet[uint32](strtab.Options{})}
}

// errStrings is the error of a distilled string section past
// wire.MaxStrLen bytes, which libbpf refuses (-ENOMEM).
var errStrings = errors.New("distill: string section larger than the 2147483647 bytes libbpf writes")

// addString returns the offset in the new BTF of the string at offset off
// of the source: 0 for the empty string; its offset in the distilled base
// if it is there; else its offset in set (the new split's strings, which
// start at splitStart), added if new.
func (d *distiller) addString(set strSet, splitStart, off uint32) (uint32, error) {
	if off == 0 {
		return 0, nil
	}
	s := d.name(off)
	if len(s) == 0 {
		return 0, nil
	}
	if set != d.baseStrs {
		if o, ok := d.baseStrs.find(s); ok {
			return o, nil
		}
	}
	o, ok := set.add(s)
	// The sets' offsets fit their slots (newStrs); the limit is libbpf's.
	if end := uint64(o) + uint64(len(s)) + 1; !ok || end > wire.MaxStrLen || uint64(splitStart)+end > math.MaxUint32 {
		return 0, errStrings
	}
	return splitStart + o, nil
}

// writeSplit writes the new split BTF: every split type, then the needed
// base types that stay out of the distilled base, in id order; then it
// renumbers their references.
func (d *distiller) writeSplit() error {
	d.splitStrs = d.newStrs()
	strStart := uint32(d.baseStrs.len())
	types, strs, err := d.splitSize()
	if err != nil {
		return err
	}
	// The strings are copied behind the types at the end (marshal); until
	// then they grow in the set, whose room is reserved so that it is
	// not copied on the way either.
	d.splitStrs.reserveData(strs)
	d.splitTypes = make([]byte, wire.HeaderLen, types+strs)
	for id := d.start; id <= uint32(d.src.LastID()); id++ {
		if err := d.copyType(id, strStart); err != nil {
			return err
		}
	}
	err = d.ids.each(func(id uint32) error {
		if kept, _ := d.ids.inBase(id); kept {
			return nil
		}
		return d.copyType(id, strStart)
	})
	if err != nil {
		return err
	}
	d.renumber()
	return nil
}

// splitSize returns upper bounds of the new split BTF's header and types,
// and of its strings, so that its one buffer is allocated once: the split
// types and their own string section, the names they take from the base's
// strings, and the needed base types that move into it with their names.
func (d *distiller) splitSize() (types, strs int, err error) {
	own, strStart := d.src.StringSection()
	types, strs = wire.HeaderLen+len(d.src.TypeSection()), len(own)
	add := func(id uint32) error {
		rec, err := d.record(id)
		if err != nil {
			return err
		}
		if id < d.start {
			if kept, _ := d.ids.inBase(id); kept {
				return nil
			}
			types += len(rec)
		}
		rec.ForNames(func(at uint32) {
			if off := wire.Word(rec, at); id < d.start || off < strStart {
				strs += len(d.name(off)) + 1
			}
		})
		return nil
	}
	if err := d.ids.each(add); err != nil {
		return 0, 0, err
	}
	for id := d.start; id <= uint32(d.src.LastID()); id++ {
		if err := add(id); err != nil {
			return 0, 0, err
		}
	}
	return types, strs, nil
}

// copyType appends the record of source type id to the new split types,
// with its strings in the new string sections.
func (d *distiller) copyType(id, strStart uint32) error {
	rec, err := d.record(id)
	if err != nil {
		return err
	}
	at := len(d.splitTypes)
	d.splitTypes = append(d.splitTypes, rec...)
	out := wire.Record(d.splitTypes[at:])
	rec.ForNames(func(pos uint32) {
		if err != nil {
			return
		}
		var o uint32
		if o, err = d.addString(d.splitStrs, strStart, wire.Word(rec, pos)); err == nil {
			wire.PutWord(out, pos, o)
		}
	})
	d.nSplit++
	return err
}

// renumber rewrites the references of the new split types: needed base
// types to where they went, split types down by the number of base types
// that did not go into the distilled base.
func (d *distiller) renumber() {
	diff := d.start - d.nBase
	moved := d.nBase + uint32(d.src.LastID()) + 1 - d.start // the first moved base type's new id
	it := (&wire.DefaultLayouts).Sizes()
	types := d.splitTypes[wire.HeaderLen:]
	iter := it.Iter(types)
	for iter.Next() {
		rec := wire.Record(types[iter.Off:])
		rec.RemapRefs(func(t uint32) uint32 {
			switch {
			case t < d.start && d.ids.isNeeded(t):
				kept, r := d.ids.inBase(t)
				if kept {
					return 1 + r
				}
				return moved + r
			case t >= d.start:
				return t - diff
			}
			return t
		})
	}
}
