package dedup

import (
	"bytes"
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
// their ids remapped (btf_dedup_remap_types), and a string section holding
// the strings they use. Raw BTF in host byte order with a 24-byte header.
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
	var nameAt []uint32 // where types holds own string keys
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
		forNames(r, func(j int) {
			if k := r[j]; k >= d.strs.start && k != 0 {
				nameAt = append(nameAt, uint32(start+4*j))
			}
		})
	}
	if err != nil {
		return nil, err
	}
	strs := d.compactStrings(types, nameAt)
	if end := uint64(d.strs.start) + uint64(len(strs)); end > wire.MaxNameOffset+1 {
		return nil, fmt.Errorf("dedup: %d bytes of strings after deduplication, BTF allows %d", end, wire.MaxNameOffset+1)
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

// compactStrings returns the own string section that the records in
// types use (their own string keys are at the byte offsets nameAt) (libbpf keeps every string of the input; the strings of
// dropped types are left out here) and rewrites their names to it. The own
// section already holds each string once, so this is a marking pass and a
// copy, in the section's order.
func (d *state) compactStrings(types []byte, nameAt []uint32) []byte {
	data, start := d.strs.data(), d.strs.start
	newKey := make([]uint32, len(data)) // 1+ new key, or 1 to mark use
	for _, at := range nameAt {
		newKey[wire.Word(types, at)-start] = 1
	}
	var out []byte
	if d.base == nil {
		out = []byte{0}
	}
	for off := 0; off < len(data); {
		end := off + bytes.IndexByte(data[off:], 0)
		if newKey[off] != 0 && end > off {
			newKey[off] = start + uint32(len(out)) + 1
			out = append(out, data[off:end+1]...)
		}
		off = end + 1
	}
	for _, at := range nameAt {
		wire.PutWord(types, at, newKey[wire.Word(types, at)-start]-1)
	}
	return out
}
