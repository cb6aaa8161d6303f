package dedup

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// A record is one type record as host-order 32-bit words: word 0 the name
// (a string key, see strtab.go), word 1 the info word, word 2 the size or
// type, then the kind's extra words. Which words hold type ids and names is
// told by its wire.WordShape (ForRefs, ForNames, Shape), never hard-coded
// here.
type record = wire.WordRecord

// records is a flat store of records: record i is w[off.at(i):off.at(i+1)].
// A Merger's grow in mem's mappings (see recmem.go); a Base's, made once,
// are on the heap (mem nil).
type records struct {
	w   []uint32
	off offsets
	mem *recMem
}

func (r *records) rec(i uint32) record {
	// Most records start and end in one narrow block of offsets: one
	// base and two neighbouring distances, not two calls of at (the
	// passes read about ten records a type: BENCH.md).
	o := &r.off
	if b := o.base[i>>blockShift]; b&wideBit == 0 && (i+1)&(blockLen-1) != 0 {
		end := b + uint32(o.rel[i+1])
		return r.w[b+uint32(o.rel[i]) : end : end]
	}
	start, end := o.at(i), o.at(i+1)
	return r.w[start:end:end]
}

// head returns the first wHead words of record i (name, info, size or
// type): one offset read, where rec reads two. For the loops over every
// type that look only at a record's kind or head words (initTypes,
// sketchKeys), on records not compacted yet (compact.go).
func (r *records) head(i uint32) record {
	start := r.off.at(i)
	return r.w[start : start+wHead : start+wHead]
}

func (r *records) len() uint32 { return uint32(r.off.len() - 1) }

// Word positions shared by every record.
const (
	wName = wire.NameAt / 4
	wInfo = wire.InfoAt / 4
	wSize = wire.SizeTypeAt / 4 // size, or referenced type id
	wHead = wire.TypeSize / 4
)

func kindOf(r record) btf.Kind { return btf.Kind(r.Kind()) }
func vlenOf(r record) int      { return r.Vlen() }
func kflagOf(r record) bool    { return r.KindFlag() }
