package btfids

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/internal/wire"
)

// sortByName is resolve_btfids' sort_btf_by_name followed by libbpf's
// btf__permute: the own types ordered by name (anonymous ones first), ties
// kept in id order, references renumbered; the strings stay as they are.
// In standalone BTF, void takes part and stays first.
func sortByName(raw []byte, base *btf.Spec) ([]byte, error) {
	r, err := parse(raw, base)
	if err != nil {
		return nil, err
	}
	n := len(r.recs)
	order := make([]uint32, n) // new position -> old index
	names := make([][]byte, n)
	for i, rec := range r.recs {
		order[i] = uint32(i)
		names[i] = r.strBytes(wire.Record(rec).NameOff())
	}
	// Standalone BTF sorts void (id 0, no name, first) too: it stays
	// first, before every own type, anonymous or not, so leaving it out
	// changes nothing.
	slices.SortFunc(order, func(a, b uint32) int {
		if c := bytes.Compare(names[a], names[b]); c != 0 {
			return c
		}
		return int(a) - int(b)
	})
	newID := make([]uint32, n) // old index -> new id
	for pos, old := range order {
		newID[old] = r.startID + uint32(pos)
	}
	remap := func(id uint32) (uint32, error) {
		if id < r.startID {
			return id, nil
		}
		if id-r.startID >= uint32(n) {
			return 0, fmt.Errorf("btfids: reference to type %d past the last", id)
		}
		return newID[id-r.startID], nil
	}
	sorted := make([][]byte, n)
	for pos, old := range order {
		rec := wire.Record(r.recs[old])
		f := wire.KindFields[rec.Kind()]
		for _, at := range []uint8{f.Ref0, f.Ref1} {
			if at != wire.NoField {
				id, err := remap(wire.Word(rec, uint32(at)))
				if err != nil {
					return nil, err
				}
				wire.PutWord(rec, uint32(at), id)
			}
		}
		if f.ElemRef != wire.NoField {
			sizes := wire.DefaultLayouts.Sizes()
			fixed, elem := sizes.Parts(rec.Kind())
			for i := range rec.Vlen() {
				at := fixed + uint32(i)*elem + uint32(f.ElemRef)
				id, err := remap(wire.Word(rec, at))
				if err != nil {
					return nil, err
				}
				wire.PutWord(rec, at, id)
			}
		}
		sorted[pos] = rec
	}
	r.recs = sorted
	return r.marshal(), nil
}

// strBytes is str without the copy.
func (r *rawBTF) strBytes(off uint32) []byte {
	var s []byte
	if off < r.strStart {
		s = r.baseStrs[off:]
	} else if off-r.strStart < uint32(len(r.strs)) {
		s = r.strs[off-r.strStart:]
	}
	if i := bytes.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}
