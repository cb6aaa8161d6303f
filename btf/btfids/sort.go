package btfids

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
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
		var err error
		rec.RemapRefs(func(id uint32) uint32 {
			if err != nil {
				return id
			}
			var to uint32
			to, err = remap(id)
			return to
		})
		if err != nil {
			return nil, err
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
