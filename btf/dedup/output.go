package dedup

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf/internal/wire"
)

// compact keeps the canonical types in their order and returns the new id
// of every own type (0 for those dropped), as btf_dedup_compact_types,
// with the number of words they hold and the id after the last.
func (d *state) compact() (newIDs []uint32, words int, next uint32) {
	n := d.n()
	newIDs = make([]uint32, n)
	next = d.first
	for i := range n {
		if d.m[i] == d.first+i {
			newIDs[i] = next
			next++
			words += int(d.recs.off[i+1] - d.recs.off[i])
		}
	}
	return newIDs, words, next
}

// write returns the deduplicated BTF: header, the canonical types with
// their ids remapped (btf_dedup_remap_types), and the own string section
// as it was interned. Raw BTF in host byte order with a 24-byte header.
//
// The string section is libbpf's: btf_dedup_strings runs before any type
// is deduplicated and gathers the strings of every input type, in type
// order, and nothing removes them afterwards, so a string that only dropped
// types use stays at its place. Names already hold their final offsets.
func (d *state) write() ([]byte, error) {
	newIDs, words, next := d.compact()
	if next-1 > wire.MaxTypeID {
		return nil, fmt.Errorf("dedup: last id %d after deduplication, BTF allows ids up to %d", next-1, wire.MaxTypeID)
	}
	remap := func(id uint32) (uint32, bool) {
		r := d.resolve(id)
		if r <= d.blast {
			return r, true
		}
		if r-d.first >= d.n() || newIDs[r-d.first] == 0 {
			return 0, false
		}
		return newIDs[r-d.first], true
	}
	types := make([]byte, 0, 4*words)
	var err error
	for i := range d.n() {
		if newIDs[i] == 0 {
			continue
		}
		r := d.recs.rec(i)
		start := len(types)
		for _, w := range r {
			types = wire.AppendWord(types, w)
		}
		forRefs(r, func(j int) {
			v, ok := remap(r[j])
			if !ok && err == nil {
				err = fmt.Errorf("dedup: type [%d] refers to [%d], which has no canonical type", d.first+i, r[j])
			}
			wire.PutWord(types[start:], uint32(4*j), v)
		})
	}
	if err != nil {
		return nil, err
	}
	strs := d.strs.data()
	if end := uint64(d.strs.start) + uint64(len(strs)); end > wire.MaxNameOffset+1 {
		return nil, fmt.Errorf("dedup: %d bytes of strings, BTF allows %d", end, wire.MaxNameOffset+1)
	}
	h := wire.Header{
		Version: wire.Version,
		HdrLen:  wire.HeaderLen,
		TypeLen: uint32(len(types)),
		StrOff:  uint32(len(types)),
		StrLen:  uint32(len(strs)),
	}
	raw := make([]byte, 0, int(h.HdrLen)+len(types)+len(strs))
	raw = wire.AppendHeader(raw, h, nativeOrder)
	raw = append(raw, types...)
	raw = append(raw, strs...)
	return raw, nil
}
