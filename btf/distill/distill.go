package distill

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// ErrNotSplit is returned by Distill for BTF that has no base.
var ErrNotSplit = errors.New("distill: the BTF has no base to distill")

// Distill returns the distilled base of split, a module's BTF on a full
// base (split.Base(), such as vmlinux's), and the module's BTF on that
// distilled base: the .BTF.base and .BTF sections of a module built with
// pahole's distilled_base feature, byte for byte what libbpf 1.5's
// btf__distill_base and btf__raw_data give. Both are raw BTF in split's
// byte order.
//
// A module that refers to a base type of a kind that cannot be distilled
// (a FUNC, a VAR, a DATASEC, a DECL_TAG) gives an error that names it.
// Split BTF on split BTF (the base itself having a base) is distilled
// against the whole chain below split.
//
// The records of the base types that split needs are copied, and the
// mapped pages of the base chain are then evicted (internal/btfmem's Evict), so
// that the base's records and its strings, which Distill reads
// afterwards, are not resident at once.
func Distill(split *btf.Spec) (base, newSplit []byte, err error) {
	if split.Base() == nil {
		return nil, nil, ErrNotSplit
	}
	d := &distiller{src: split, start: uint32(split.FirstID())}
	for _, step := range []func() error{d.mark, d.copyNeeded, d.writeBase, d.writeSplit} {
		if err := step(); err != nil {
			return nil, nil, pkgerr.Errorf("distill: %w", err)
		}
	}
	bo := split.ByteOrder()
	return marshal(d.baseTypes, d.baseStrs.data(), bo), marshal(d.splitTypes, d.splitStrs.data(), bo), nil
}

// distiller holds the state of one Distill.
type distiller struct {
	src   *btf.Spec
	start uint32  // the first split id: base ids are below
	ids   baseIDs // which base types are needed, and where they go
	// recs holds the records of the needed base types, in id order, once
	// marked; recAt[r] is where the r-th one starts, recAt[r+1] where it
	// ends.
	recs  []byte
	recAt []uint32

	baseTypes, splitTypes []byte // header room, then host-order records
	baseStrs, splitStrs   strSet
	nBase                 uint32 // distilled base types, void included
	nSplit                uint32 // new split types so far
}

// record returns the record of type id of the source chain: a needed base
// type's from recs once they are copied there.
func (d *distiller) record(id uint32) (wire.Record, error) {
	if id < d.start && d.recAt != nil {
		r := d.ids.neededRank(id)
		return wire.Record(d.recs[d.recAt[r]:d.recAt[r+1]]), nil
	}
	t, err := d.src.TypeByID(btf.TypeID(id))
	if err != nil {
		return nil, err
	}
	return wire.Record(t.Record()), nil
}

// name returns the string at offset off of the source chain.
func (d *distiller) name(off uint32) []byte {
	for s := d.src; s != nil; s = s.Base() {
		data, start := s.StringSection()
		if off >= start {
			if off -= start; off >= uint32(len(data)) {
				return nil
			}
			rest := data[off:]
			return rest[:bytes.IndexByte(rest, 0)]
		}
	}
	return nil
}

// mark marks in ids every base type that the split types need: those
// they refer to, and what those refer to in turn, except through a named
// struct or union, whose distilled form has no members.
func (d *distiller) mark() error {
	d.ids = newBaseIDs(d.start)
	var stack []uint32
	for id := d.start; id <= uint32(d.src.LastID()); id++ {
		stack = append(stack, id)
		for len(stack) > 0 {
			cur := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			rec, err := d.record(cur)
			if err != nil {
				return err
			}
			var bad error
			rec.ForRefs(func(at uint32) {
				ref := wire.Word(rec, at)
				if bad != nil || ref == 0 || ref >= d.start || d.ids.isNeeded(ref) {
					return
				}
				d.ids.need(ref)
				if bad = d.needed(ref, &stack); bad != nil {
					bad = pkgerr.Errorf("distill: type %d refers to base type %d: %w", cur, ref, bad)
				}
			})
			if bad != nil {
				return bad
			}
		}
	}
	return nil
}

// copyNeeded copies the records of the needed base types into recs, and
// lets the system take back the mapped pages of the base (internal/btfmem's Evict):
// what follows reads the base's strings, at random, and no more of its
// records, so that the two sections of a large base (vmlinux's) are not
// resident at once beside the process's own memory. A big-endian base
// that Open swapped in place holds its records as the process's own
// pages, which Evict leaves: where the base's owner reads none of its
// records afterwards (the CLI, btfmem.LastReader), DoneReading gives
// them back to the file.
func (d *distiller) copyNeeded() error {
	n := d.ids.countNeeded()
	size := 0
	err := d.ids.each(func(id uint32) error {
		rec, err := d.record(id)
		size += len(rec)
		return err
	})
	if err != nil {
		return err
	}
	recs, recAt := make([]byte, 0, size), make([]uint32, 0, n+1)
	err = d.ids.each(func(id uint32) error {
		rec, err := d.record(id)
		recAt = append(recAt, uint32(len(recs)))
		recs = append(recs, rec...)
		return err
	})
	if err != nil {
		return err
	}
	d.recs, d.recAt = recs, append(recAt, uint32(len(recs)))
	for b := d.src.Base(); b != nil; b = b.Base() {
		btfmem.DoneReading(b)
		btfmem.Evict(b)
	}
	return nil
}

// needed checks that base type ref can be distilled, and pushes it on
// stack if its own references are needed too.
func (d *distiller) needed(ref uint32, stack *[]uint32) error {
	rec, err := d.record(ref)
	if err != nil {
		return err
	}
	switch k := btf.Kind(rec.Kind()); k {
	case btf.KindInt, btf.KindFloat, btf.KindForward, btf.KindArray, btf.KindTypedef,
		btf.KindEnum, btf.KindEnum64, btf.KindPointer, btf.KindConst, btf.KindRestrict,
		btf.KindVolatile, btf.KindFuncProto, btf.KindTypeTag:
	case btf.KindStruct, btf.KindUnion:
		if rec.NameOff() != 0 {
			return nil
		}
	default:
		return fmt.Errorf("distill: %s %q cannot be in a distilled base", k, d.name(rec.NameOff()))
	}
	*stack = append(*stack, ref)
	return nil
}

// marshal returns raw BTF in byte order bo, with the 24-byte header
// libbpf writes, from buf, which holds room for that header and then the
// host-order records, and the string section strs, which it appends to
// buf: the result shares buf's memory unless bo is not the host's.
func marshal(buf, strs []byte, bo binary.ByteOrder) []byte {
	types := len(buf) - wire.HeaderLen
	h := wire.Header{Version: wire.Version, HdrLen: wire.HeaderLen, TypeLen: uint32(types),
		StrOff: uint32(types), StrLen: uint32(len(strs))}
	wire.AppendHeader(buf[:0], h, binary.NativeEndian)
	out := append(buf, strs...)
	if bo != nil && bo.Uint16([]byte{1, 0}) != binary.NativeEndian.Uint16([]byte{1, 0}) {
		out = wire.Swap(out, h)
	}
	return out
}
