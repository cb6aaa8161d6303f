package dedup

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/kmeta-dev/kmeta/internal/mmap"
	"github.com/kmeta-dev/kmeta/internal/wire"
	"github.com/kmeta-dev/kmeta/internal/workpool"
)

// populateMin is the smallest output write populates.
const populateMin = 1 << 20

// final marks, in the canonical map, the output id of a kept own type.
// Kept types are their own canonical types, so no other entry leads past
// them; with the mark their entries are above maxID, where resolve stops.
const final = 1 << 31

// outputID returns the output id that canonical-map entry v marks, if it
// is one (unprocessed and inProgress, also above maxID, are not).
func outputID(v uint32) (uint32, bool) {
	if v&final == 0 || v == unprocessed || v == inProgress {
		return 0, false
	}
	return v &^ final, true
}

// compact gives every kept type its output id, keeping their order, as
// btf_dedup_compact_types, and returns the number of words they hold and
// the words the kept types of each chunk of typeChunk indexes start at.
// The ids are marked in the canonical map itself (see final): a
// vmlinux's millions of types would otherwise need another array of ids
// at the end of the run.
func (d *state) compact() (words int, starts []int) {
	next := d.first
	n := d.n()
	starts = make([]int, 0, (n+typeChunk-1)/typeChunk)
	for i := range n {
		if i%typeChunk == 0 {
			starts = append(starts, words)
		}
		if d.m[i] == d.first+i {
			d.m[i] = next | final
			next++
			words += int(d.recs.off.at(i+1) - d.recs.off.at(i))
		}
	}
	return words, starts
}

// remap returns the output id of type id, after compact.
func (d *state) remap(id uint32) (uint32, bool) {
	r := d.resolve(id)
	if r <= d.blast {
		return r, true
	}
	if r-d.first >= d.n() {
		return 0, false
	}
	return outputID(d.m[r-d.first])
}

// write returns the deduplicated BTF: header, the canonical types with
// their ids remapped (btf_dedup_remap_types), and the own string section
// as it was interned. Raw BTF in host byte order with a 24-byte header.
//
// The string section is libbpf's: btf_dedup_strings runs before any type
// is deduplicated and gathers the strings of every input type, in type
// order, and nothing removes them afterwards, so a string that only dropped
// types use stays at its place. Names already hold their final offsets.
//
// Once compact has placed every kept type, the records are written on
// d.workers, a chunk of types each.
func (d *state) write() ([]byte, error) {
	h, strs, starts, err := d.header()
	if err != nil {
		return nil, err
	}
	words := int(h.TypeLen / 4)
	raw := make([]byte, 0, int(h.HdrLen)+4*words+len(strs))
	// Written all over: populated at once rather than a page fault per
	// page (1,300 of the 9,882 of the CLI's merge of the modules). A
	// small output, a module's deduplicated alone, is not worth the
	// system call.
	if cap(raw) >= populateMin {
		mmap.PopulateBytes(raw[:cap(raw)])
	}
	raw = wire.AppendHeader(raw, h, binary.NativeEndian)
	types := raw[len(raw) : len(raw)+4*words]
	var (
		mu    sync.Mutex
		errAt = d.n()
	)
	workpool.Chunks(d.workers, d.n(), typeChunk, func(_ int, lo, hi uint32) {
		if at, e := d.writeTypes(types[4*starts[lo/typeChunk]:], lo, hi); e != nil {
			mu.Lock()
			if at < errAt {
				errAt, err = at, e
			}
			mu.Unlock()
		}
	})
	if err != nil {
		return nil, err
	}
	raw = raw[:len(raw)+len(types)]
	return append(raw, strs...), nil
}

// header places every kept type (compact) and returns the output's
// header, its string section and the words each chunk's kept types
// start at (see compact).
//
// Type ids are not held to the kernel's limit (wire.MaxTypeID, 2^20-1):
// libbpf's btf__dedup writes whatever it keeps, up to its own limit of
// 2^31-1 types (BTF_MAX_NR_TYPES in libbpf's btf.c), which room already
// holds the input to, and the output's ids are no larger than the
// input's. The kernel refuses such BTF when it is loaded; btf copy
// writes it as well (builder.WriteAsIs). Strings likewise: libbpf's
// string set takes up to wire.MaxStrLen bytes of own strings
// (BTF_MAX_STR_OFFSET), the kernel 2^24 bytes with the base's.
func (d *state) header() (wire.Header, []byte, []int, error) {
	words, starts := d.compact()
	strs := d.strs.data()
	if len(strs) > wire.MaxStrLen {
		return wire.Header{}, nil, nil, fmt.Errorf("dedup: %d bytes of strings, libbpf writes at most %d", len(strs), wire.MaxStrLen)
	}
	h := wire.Header{
		Version: wire.Version,
		HdrLen:  wire.HeaderLen,
		TypeLen: uint32(4 * words),
		StrOff:  uint32(4 * words),
		StrLen:  uint32(len(strs)),
	}
	return h, strs, starts, nil
}

// flushSize is how many bytes of output writeTo buffers before it
// writes them.
const flushSize = 64 << 10

// writeTo writes what write returns to w, a buffer at a time, on the
// calling goroutine: the records go from the Merger's to w without the
// whole output being held (for a lone vmlinux, the size of its input).
// It looks at the context at every buffer.
func (d *state) writeTo(w io.Writer) error {
	h, strs, _, err := d.header()
	if err != nil {
		return err
	}
	buf := wire.AppendHeader(make([]byte, 0, flushSize), h, binary.NativeEndian)
	for i := range d.n() {
		if _, ok := outputID(d.m[i]); !ok {
			continue
		}
		at := len(buf)
		buf = append(buf, make([]byte, 4*len(d.recs.rec(i)))...)
		if _, err := d.writeTypes(buf[at:], i, i+1); err != nil {
			return err
		}
		if len(buf) >= flushSize {
			if d.canceled() {
				return d.err
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if _, err := w.Write(buf); err != nil {
		return err
	}
	_, err = w.Write(strs)
	return err
}

// writeTypes writes the kept types of indexes lo..hi-1 into out, their
// type ids remapped. On error it returns the index of the type that
// failed.
func (d *state) writeTypes(out []byte, lo, hi uint32) (uint32, error) {
	at := uint32(0)
	for i := lo; i < hi; i++ {
		if _, ok := outputID(d.m[i]); !ok {
			continue
		}
		r := d.recs.rec(i)
		start := at
		for _, w := range r {
			wire.PutWord(out, at, w)
			at += 4
		}
		var err error
		r.ForRefs(func(j uint32) {
			v, ok := d.remap(r[j])
			if !ok && err == nil {
				err = fmt.Errorf("dedup: type [%d] refers to [%d], which has no canonical type", d.first+i, r[j])
			}
			wire.PutWord(out, start+4*j, v)
		})
		if err != nil {
			return i, err
		}
	}
	return 0, nil
}
