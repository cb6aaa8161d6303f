package dedup

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf/internal/wire"
)

// compact keeps the canonical types in their order and returns the new id
// of every own type (0 for those dropped), as btf_dedup_compact_types.
func (d *state) compact() []uint32 {
	n := d.n()
	newIDs := make([]uint32, n)
	next := d.first
	for i := range n {
		if d.m[i] == d.first+i {
			newIDs[i] = next
			next++
		}
	}
	return newIDs
}

// write returns the deduplicated BTF: header, the canonical types with
// their ids remapped (btf_dedup_remap_types), and a string section holding
// the strings they use. Raw BTF in host byte order with a 24-byte header.
func (d *state) write() ([]byte, error) {
	newIDs := d.compact()
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
	// The output strings: those of the kept types only, in order of use.
	out := newStrtab(nil, len(d.strs.data())/8)
	if d.base != nil {
		out.start = d.base.strs.end
		out.own.data = nil
	}
	var types []byte
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
			k := r[j]
			if k >= out.start && k != 0 {
				k, err = out.internErr(d.strs.str(k), err)
			}
			wire.PutWord(types[start:], uint32(4*j), k)
		})
	}
	if err != nil {
		return nil, err
	}
	h := wire.Header{
		Version: wire.Version,
		HdrLen:  wire.HeaderLen,
		TypeLen: uint32(len(types)),
		StrOff:  uint32(len(types)),
		StrLen:  uint32(len(out.data())),
	}
	raw := make([]byte, 0, int(h.HdrLen)+len(types)+len(out.data()))
	raw = wire.AppendHeader(raw, h, nativeOrder)
	raw = append(raw, types...)
	raw = append(raw, out.data()...)
	return raw, nil
}

// internErr interns s unless an error happened already.
func (t *strtab) internErr(s []byte, err error) (uint32, error) {
	if err != nil {
		return 0, err
	}
	return t.intern(s)
}
