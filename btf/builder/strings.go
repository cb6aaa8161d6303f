package builder

import (
	"bytes"
	"errors"
	"io"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/recenc"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// strTable is a Builder's string space (see strtab.Table): its own string
// section, with every distinct string stored once, on a base Spec's
// strings for split output, which are referenced where the base holds
// them. Slots are uint32: own offsets never exceed wire.MaxNameOffset.
// The base's strings are indexed on the first string added. The options
// are those of the own strings' Set.
type strTable struct {
	strtab.Table[uint32]
}

// errStrings is the error of a string that would start past
// wire.MaxNameOffset, written out so that the compiler lays the error out
// rather than an init function making it (TestErrStrings).
var errStrings = errors.New("builder: string section larger than the 16777215 bytes BTF allows")

func newStrTable(base *btf.Spec, opts strtab.Options) strTable {
	if base == nil {
		t := strTable{strtab.NewTable[uint32](nil, 0, opts)}
		t.Own.SetLimit(wire.MaxNameOffset)
		return t
	}
	// Split BTF starts with no own string, as libbpf writes it.
	data, start := base.StringSection()
	end := start + uint32(len(data))
	t := strTable{strtab.NewTable[uint32](nil, end, opts)}
	t.Own.SetLimit(wire.MaxNameOffset - int(end))
	// The strings of the base chain, root first, so that the lowest
	// offset of a repeated string wins (as libbpf's lookup finds it).
	t.SetLazyBase(func() [][]byte {
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
	off, ok := t.Intern(s)
	if !ok {
		return 0, errStrings
	}
	return off, nil
}

// reserve sizes the index for n more strings, and the section for as many
// bytes as kernel names take but at most maxData, so that a large copy
// does not rehash or grow on the way.
func (t *strTable) reserve(n, maxData int) {
	t.Own.Reserve(n)
	// Kernel names average about 14 bytes with their NUL.
	t.Own.ReserveData(min(14*n, maxData))
}

// data returns the own string section.
func (t *strTable) data() []byte { return t.Own.Data() }

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
