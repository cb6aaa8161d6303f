package builder

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// encode appends a copy of t's record with its type ids mapped through src
// and its strings interned, or a FWD for it when asFwd is set. The record is
// copied as it is and then patched where its wire.Shape says it holds type
// ids and string offsets, so every bit the reader accepted survives. Ids are
// numbered before encoding, so references to types later in the batch
// (cycles through pointers) map too.
func (b *Builder) encode(t btf.Type, src *source, asFwd bool) error {
	rec := t.Record()
	if rec == nil {
		return btf.ErrClosed
	}
	if err := b.encodeRecord(rec, src, asFwd, true); err != nil {
		return pkgerr.Errorf("builder: copy %v: %w", t, err)
	}
	return nil
}

// encodeRecord is encode for the record rec of a type of src, with errors
// that do not name the type. With remap false the type ids are kept as
// they are: a whole copy whose ids do not change (streamCopy.keepsIDs).
func (b *Builder) encodeRecord(rec []byte, src *source, asFwd, remap bool) error {
	name, err := b.copyStr(src, wire.Record(rec).NameOff())
	if err != nil {
		return err
	}
	info := wire.Record(rec).Info()
	k := wire.InfoKind(info)
	if asFwd {
		b.head(name, wire.Info(wire.KindForward, 0, k == wire.KindUnion), 0)
		return nil
	}
	if int(k) >= wire.NumKinds {
		return fmt.Errorf("cannot write kind %d", k)
	}
	start := uint32(len(b.types))
	b.types = append(b.types, rec...)
	out := wire.Record(b.types[start:])
	b.n++
	wire.PutWord(out, wire.NameAt, name)
	// The shape's fields in place, without the visitors' calls: this is
	// CopyAll's inner loop (BENCH.md).
	sh := &wire.Shapes[k]
	if remap && sh.Ref0Mask != 0 {
		b.remap(out, sh.Ref0At, src)
	}
	if remap && sh.Ref1Mask != 0 {
		b.remap(out, sh.Ref1At, src)
	}
	if !remap && sh.ElemNameMask == 0 {
		return nil
	}
	for e := sh.ElemStart; sh.ElemSize != 0 && e < uint32(len(out)); e += sh.ElemSize {
		if sh.ElemNameMask != 0 {
			s, err := b.copyStr(src, wire.Word(out, e+sh.ElemNameAt))
			if err != nil {
				return err
			}
			wire.PutWord(out, e+sh.ElemNameAt, s)
		}
		if remap && sh.ElemTypeMask != 0 {
			b.remap(out, e+sh.ElemTypeAt, src)
		}
	}
	return nil
}

// collectRecord interns the strings of rec, the record of a type of src,
// as encode does, in the same order and with the same errors (not naming
// the type), without encoding it: WriteCopy's first read wants only the
// strings and the size. It returns the size that encode would append.
func (b *Builder) collectRecord(rec wire.Record, src *source, asFwd bool) (int, error) {
	if _, err := b.copyStr(src, rec.NameOff()); err != nil {
		return 0, err
	}
	b.n++
	k := wire.InfoKind(rec.Info())
	if asFwd {
		return wire.TypeSize, nil
	}
	if int(k) >= wire.NumKinds {
		return 0, fmt.Errorf("cannot write kind %d", k)
	}
	sh := &wire.Shapes[k]
	for e := sh.ElemStart; sh.ElemNameMask != 0 && sh.ElemSize != 0 && e < uint32(len(rec)); e += sh.ElemSize {
		if _, err := b.copyStr(src, wire.Word(rec, e+sh.ElemNameAt)); err != nil {
			return 0, err
		}
	}
	return len(rec), nil
}

// remap maps the type id at byte offset at of record out through src.
func (b *Builder) remap(out []byte, at uint32, src *source) {
	wire.PutWord(out, at, uint32(src.mapped(btf.TypeID(wire.Word(out, at)))))
}

// head appends the fixed part of a record.
func (b *Builder) head(name, info, sizeType uint32) {
	b.types = wire.AppendFixed(b.types, name, info, sizeType)
	b.n++
}

// copyStr returns the Builder's offset for the string at offset off of
// src's string space, interning it on first use. Offsets already seen from
// the same source are answered from a cache, without hashing the string.
func (b *Builder) copyStr(src *source, off uint32) (uint32, error) {
	if off == 0 {
		return 0, nil
	}
	if b.inPlace != nil {
		v, err := b.inPlace.name(off)
		if err != errNotInPlace || !b.leaveInPlace(src.spec) {
			return v, err
		}
	}
	if b.refs != nil {
		if v, ok := b.refs.known(off); ok {
			return v, nil
		}
		s := src.str(off)
		if s == nil {
			return 0, fmt.Errorf("string offset %d outside the string sections", off)
		}
		return b.refs.intern(s, off)
	}
	if v, ok := src.strCache.Get(off); ok {
		return v, nil
	}
	if v, ok := b.recent.get(off); ok {
		return v, nil
	}
	s := src.str(off)
	if s == nil {
		return 0, fmt.Errorf("string offset %d outside the string sections", off)
	}
	// A string read from a string section holds no NUL.
	v, ok := b.strs.intern(s)
	if !ok {
		return 0, errStrings
	}
	if !src.uncached {
		src.strCache.Put(off, v)
	}
	b.recent.put(off, v)
	return v, nil
}

// recentNames is a cache of the output offsets of the names a WriteCopy
// met lately, by their input offsets: one entry a slot, the last one
// put. Without an offset cache (BENCH.md: one for every name cost 8-16
// bytes a name), every name met was read, hashed and looked up again, in
// both reads; most names met are met again soon (member names, the tags
// of DECL_TAGs, "x" of a million anonymous structs), and this finds them
// in a fixed 32 KB.
type recentNames [4096]uint64 // output offset << 32 | input offset; 0 empty

// get returns the output offset of the name at input offset off, if it
// is in c (which may be nil).
func (c *recentNames) get(off uint32) (uint32, bool) {
	if c == nil {
		return 0, false
	}
	e := c[recentSlot(off)]
	return uint32(e >> 32), uint32(e) == off
}

// put records that the name at input offset off has output offset v.
func (c *recentNames) put(off, v uint32) {
	if c != nil {
		c[recentSlot(off)] = uint64(v)<<32 | uint64(off)
	}
}

// recentSlot is the slot of input offset off in recentNames (Fibonacci
// hashing: the product's high bits).
func recentSlot(off uint32) uint32 { return off * 0x9e3779b9 >> 20 }

// str returns the string at offset off of src's string space (its chain's),
// without the NUL; nil if off is outside it.
func (src *source) str(off uint32) []byte {
	// Only the first section that holds off matters, and a section's
	// last byte is a NUL (btf validates it): a string without one is
	// outside the space.
	rest := src.strs.From(off)
	if s := strtab.CString(rest); len(s) < len(rest) {
		return s
	}
	return nil
}
