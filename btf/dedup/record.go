package dedup

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/internal/wire"
)

// A record is one type record as host-order 32-bit words: word 0 the name
// (a string key, see strtab.go), word 1 the info word, word 2 the size or
// type, then the kind's extra words. Which words hold type ids and names is
// told by wire.KindFields and wire.DefaultLayouts, never hard-coded here.
type record = []uint32

// records is a flat store of records: record i is w[off.at(i):off.at(i+1)].
// A Merger's grow in mem's mappings (see recmem.go); a Base's, made once,
// are on the heap (mem nil).
type records struct {
	w   []uint32
	off offsets
	mem *recMem
}

func (r *records) rec(i uint32) record {
	start, end := r.off.at(i), r.off.at(i+1)
	return r.w[start:end:end]
}

func (r *records) len() uint32 { return uint32(r.off.len() - 1) }

// Word positions shared by every record.
const (
	wName = wire.NameAt / 4
	wInfo = wire.InfoAt / 4
	wSize = wire.SizeTypeAt / 4 // size, or referenced type id
	wHead = wire.TypeSize / 4
)

func kindOf(r record) btf.Kind { return btf.Kind(wire.InfoKind(r[wInfo])) }
func vlenOf(r record) int      { return wire.InfoVlen(r[wInfo]) }
func kflagOf(r record) bool    { return wire.InfoKindFlag(r[wInfo]) }

// shape gives, per kind, the word positions of references and names, so
// that records are walked without knowing their layout.
type shape struct {
	ref0, ref1 int // words of the fixed part holding type ids, -1 if none
	fixed      int // words before the first element
	elem       int // words per element
	elemRef    int // word within an element holding a type id, -1 if none
	elemName   int // word within an element holding a name, -1 if none
}

var shapes = func() (s [wire.NumKinds]shape) {
	w := func(off uint8) int {
		if off == wire.NoField {
			return -1
		}
		return int(off) / 4
	}
	for k := range wire.NumKinds {
		f, l := wire.KindFields[k], wire.DefaultLayouts[k]
		s[k] = shape{
			ref0: w(f.Ref0), ref1: w(f.Ref1),
			fixed: wHead + int(l.InfoSize)/4, elem: int(l.ElemSize) / 4,
			elemRef: w(f.ElemRef), elemName: w(f.ElemName),
		}
	}
	return s
}()

// isRef reports whether word i of a record of kind k holds a type id.
func (s *shape) isRef(i int) bool {
	if i < s.fixed {
		return i == s.ref0 || i == s.ref1
	}
	return s.elemRef >= 0 && (i-s.fixed)%s.elem == s.elemRef
}

// forRefs calls f with the index of every word of r that holds a type id.
func forRefs(r record, f func(i int)) {
	s := &shapes[kindOf(r)]
	if s.ref0 >= 0 {
		f(s.ref0)
	}
	if s.ref1 >= 0 {
		f(s.ref1)
	}
	if s.elemRef >= 0 {
		for i := s.fixed + s.elemRef; i < len(r); i += s.elem {
			f(i)
		}
	}
}

// forNames calls f with the index of every word of r that holds a name.
func forNames(r record, f func(i int)) {
	f(wName)
	s := &shapes[kindOf(r)]
	if s.elemName >= 0 {
		for i := s.fixed + s.elemName; i < len(r); i += s.elem {
			f(i)
		}
	}
}
