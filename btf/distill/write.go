package distill

import (
	"errors"
	"fmt"

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
	d.baseStrs = strtab.NewSet[uint32](strtab.Options{})
	d.baseStrs.Add(nil)
	d.baseTypes = make([]byte, wire.HeaderLen)
	d.nBase = 1
	for id := uint32(1); id < d.start; id++ {
		if d.idMap[id] == 0 {
			continue
		}
		rec, err := d.record(id)
		if err != nil {
			return err
		}
		if !toBase(rec) {
			continue
		}
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
		d.idMap[id] = d.nBase
		d.nBase++
	}
	return nil
}

// addString returns the offset in the new BTF of the string at offset off
// of the source: 0 for the empty string; its offset in the distilled base
// if it is there; else its offset in set (the new split's strings, which
// start at splitStart), added if new.
func (d *distiller) addString(set *strtab.Set[uint32], splitStart, off uint32) (uint32, error) {
	if off == 0 {
		return 0, nil
	}
	s := d.name(off)
	if len(s) == 0 {
		return 0, nil
	}
	if set != d.baseStrs {
		if o, ok := d.baseStrs.Find(s); ok {
			return o, nil
		}
	}
	o, ok := set.Add(s)
	if !ok || splitStart+o > wire.MaxNameOffset {
		return 0, errors.New("distill: too many strings")
	}
	return splitStart + o, nil
}

// writeSplit writes the new split BTF: every split type, then the needed
// base types that stay out of the distilled base, in id order; then it
// renumbers their references.
func (d *distiller) writeSplit() error {
	d.splitStrs = strtab.NewSet[uint32](strtab.Options{})
	strStart := uint32(d.baseStrs.Len())
	size, err := d.splitSize()
	if err != nil {
		return err
	}
	d.splitTypes = make([]byte, wire.HeaderLen, size)
	for id := d.start; id <= uint32(d.src.LastID()); id++ {
		if err := d.copyType(id, strStart); err != nil {
			return err
		}
	}
	for id := uint32(1); id < d.start; id++ {
		if d.idMap[id] == 0 {
			continue
		}
		rec, err := d.record(id)
		if err != nil {
			return err
		}
		if toBase(rec) {
			continue
		}
		if err := d.copyType(id, strStart); err != nil {
			return err
		}
		d.idMap[id] = d.nBase + d.nSplit - 1
	}
	d.renumber()
	return nil
}

// splitSize returns an upper bound of the new split BTF's size, header,
// types and strings, so that its one buffer is allocated once: the split
// types and their own string section, the names they take from the base's
// strings, and the needed base types that move into it with their names.
func (d *distiller) splitSize() (int, error) {
	strs, strStart := d.src.StringSection()
	size := wire.HeaderLen + len(d.src.TypeSection()) + len(strs)
	for id := uint32(1); id <= uint32(d.src.LastID()); id++ {
		if id < d.start && d.idMap[id] == 0 {
			continue
		}
		rec, err := d.record(id)
		if err != nil {
			return 0, err
		}
		if id < d.start {
			if toBase(rec) {
				continue
			}
			size += len(rec)
		}
		rec.ForNames(func(at uint32) {
			if off := wire.Word(rec, at); id < d.start || off < strStart {
				size += len(d.name(off)) + 1
			}
		})
	}
	return size, nil
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
	it := (&wire.DefaultLayouts).Sizes()
	types := d.splitTypes[wire.HeaderLen:]
	iter := it.Iter(types)
	for iter.Next() {
		rec := wire.Record(types[iter.Off:])
		rec.RemapRefs(func(t uint32) uint32 {
			switch {
			case t < d.start && d.idMap[t] != 0:
				return d.idMap[t]
			case t >= d.start:
				return t - diff
			}
			return t
		})
	}
}
