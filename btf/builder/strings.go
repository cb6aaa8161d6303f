package builder

import (
	"bytes"
	"errors"
	"io"
	"math"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/recenc"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// strTable is a Builder's string space (see strtab.Table): its own string
// section, with every distinct string stored once, on a base Spec's
// strings for split output, which are referenced where the base holds
// them. The base's strings are indexed on the first string added. The
// options are those of the own strings' Set.
//
// Its index slots are uint32 (24 offset bits, half the memory of uint64
// ones) until a string would start past wire.MaxNameOffset, the kernel's
// limit: the table then widens to uint64 slots (strtab.Widen) and goes on
// up to libbpf's wire.MaxStrLen bytes of own strings. Inputs the kernel
// takes never pay for the wide slots; see BENCH.md.
type strTable struct {
	narrow strtab.Table[uint32]
	wide   *strtab.Table[uint64] // once the strings pass the narrow limit
}

// errStrings is the error of an own string section that would pass
// wire.MaxStrLen bytes, as libbpf's btf__add_str refuses it (-ENOMEM
// there), written out so that the compiler lays the error out rather than
// an init function making it (TestErrStrings).
var errStrings = errors.New("builder: string section larger than the 2147483647 bytes libbpf writes")

// maxOwnStrings is the most bytes of own strings a table takes: libbpf's
// limit; lowered by a test.
var maxOwnStrings = wire.MaxStrLen

func newStrTable(base *btf.Spec, opts strtab.Options) strTable {
	if base == nil {
		t := strTable{narrow: strtab.NewTable[uint32](nil, 0, opts)}
		t.narrow.Own.SetLimit(wire.MaxNameOffset)
		return t
	}
	// Split BTF starts with no own string, as libbpf writes it.
	data, start := base.StringSection()
	end := start + uint32(len(data))
	t := strTable{narrow: strtab.NewTable[uint32](nil, end, opts)}
	// A base past the limit widens the table at its first own string.
	t.narrow.Own.SetLimit(wire.MaxNameOffset - int(end))
	// The strings of the base chain, root first, so that the lowest
	// offset of a repeated string wins (as libbpf's lookup finds it).
	t.narrow.SetLazyBase(func() [][]byte {
		var secs [][]byte
		for s := base; s != nil; s = s.Base() {
			data, _ := s.StringSection()
			secs = append([][]byte{data}, secs...)
		}
		return secs
	})
	return t
}

// add returns the offset of s in the string space, adding it if needed. The
// empty string is always offset 0.
func (t *strTable) add(s []byte) (uint32, error) {
	if bytes.IndexByte(s, 0) >= 0 {
		return 0, recenc.NULError(string(s))
	}
	off, ok := t.intern(s)
	if !ok {
		return 0, errStrings
	}
	return off, nil
}

// intern is strtab.Table.Intern: the key of s, which holds no NUL, or
// false if s is new and the own strings would pass wire.MaxStrLen bytes.
func (t *strTable) intern(s []byte) (uint32, bool) {
	if t.wide == nil {
		if off, ok := t.narrow.Intern(s); ok {
			return off, true
		}
		t.widen()
	}
	n := t.wide.Own.Len()
	off, ok := t.wide.Intern(s)
	if own := t.wide.Own.Len(); own > n && (own > maxOwnStrings || uint64(t.wide.Start)+uint64(own) > math.MaxUint32) {
		t.wide.Own.Truncate(n)
		return 0, false
	}
	return off, ok
}

// truncate forgets the own strings from mark on (strtab.Set.Truncate).
func (t *strTable) truncate(mark int) {
	if t.wide != nil {
		t.wide.Own.Truncate(mark)
		return
	}
	t.narrow.Own.Truncate(mark)
}

// start returns the key of the own section's first byte.
func (t *strTable) start() uint32 {
	if t.wide != nil {
		return t.wide.Start
	}
	return t.narrow.Start
}

// reserve sizes the index for n more strings, and the section for as many
// bytes as kernel names take but at most maxData, so that a large copy
// does not rehash or grow on the way.
func (t *strTable) reserve(n, maxData int) {
	// Kernel names average about 14 bytes with their NUL.
	t.grow(n, min(14*n, maxData))
}

// widenFor widens the table now, before its index is sized, if size more
// bytes of strings may pass the narrow limit.
func (t *strTable) widenFor(size int) {
	if t.wide == nil && int(t.narrow.Start)+t.narrow.Own.Len()+size > wire.MaxNameOffset+1 {
		t.widen()
	}
}

// grow sizes the index for n more strings and the section for size more
// bytes.
func (t *strTable) grow(n, size int) {
	if t.wide != nil {
		t.wide.Own.Reserve(n)
		t.wide.Own.ReserveData(size)
		return
	}
	t.narrow.Own.Reserve(n)
	t.narrow.Own.ReserveData(size)
}

// widen moves the table to uint64 slots.
func (t *strTable) widen() {
	t.wide = strtab.Widen(&t.narrow)
	t.narrow = strtab.Table[uint32]{}
}

// free gives back the table's mappings; it must not be used afterwards.
func (t *strTable) free() {
	if t.wide != nil {
		t.wide.Own.Free()
		return
	}
	t.narrow.Own.Free()
}

// data returns the own string section.
func (t *strTable) data() []byte {
	if t.wide != nil {
		return t.wide.Own.Data()
	}
	return t.narrow.Own.Data()
}

// strData returns the Builder's own string section.
func (b *Builder) strData() []byte {
	if b.inPlace != nil {
		return b.inPlace.data()
	}
	return b.strs.data()
}

// strLen returns the length of the Builder's own string section.
func (b *Builder) strLen() uint32 {
	if b.refs != nil {
		return b.refs.size
	}
	return uint32(len(b.strData()))
}

// writeStrings writes the Builder's own string section to w.
func (b *Builder) writeStrings(w io.Writer) error {
	if b.refs != nil {
		return b.refs.writeTo(w)
	}
	_, err := w.Write(b.strData())
	return err
}

// offCache maps a source's string offsets to the Builder's, so that a
// string offset seen before is not hashed again.
type offCache = strtab.OffMap
