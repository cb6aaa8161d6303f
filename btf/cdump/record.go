package cdump

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/strtab"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// sizes sizes records as the kinds defined today have them; a kind the
// wire package does not know has size 0, and loadRecords refuses it.
// readRecords, which every use of a record follows, makes them once
// (sizesOnce), not the package's initialization: every kmeta command runs
// that, and an init function faults in the 64 KB of code around it
// (cmd/kmeta/BENCH.md, "Start-up").
var (
	sizes     wire.Sizes
	sizesOnce sync.Once
)

// The dumper reads every record many times (a struct's members are walked
// to order it, to emit its dependencies, to check its packing and to print
// it), so it decodes the wire words in place, through wire.Record, instead
// of going through the btf.Type accessors. loadRecords checks that each
// record has the standard size for its kind, so the fields are in bounds;
// the nil Record is void.

// section is the type section of one Spec of a chain, with the offset of
// each of its records: record first+i is data[offs[i]:offs[i+1]]. Without
// offs (a Namer's records) a record is found through the Spec's own
// index, which keeps an offset for every few types: slower by a short
// walk, but with nothing held for each type.
type section struct {
	spec  *btf.Spec
	first btf.TypeID
	data  []byte
	offs  []uint32

	// Without offs, the record of type next is at nextOff: a walk of
	// every type in order (pointerSize's) reads each record once.
	next    btf.TypeID
	nextOff uint32
}

// records are the type records of a Spec chain, the split Spec first. They
// hold no pointers but the sections', so the garbage collector does not
// scan one per type.
type records []section

// loadRecords indexes the records of every type of s and its bases.
func loadRecords(ctx context.Context, s *btf.Spec) (records, error) { return readRecords(ctx, s, true) }

// readRecords checks that every record of s and its bases has the
// standard size for its kind (so that wire.Record's fields are in bounds),
// and with index keeps the offset of each.
func readRecords(ctx context.Context, s *btf.Spec, index bool) (records, error) {
	if err := s.Check(); err != nil { // a lazy Spec's references
		return nil, pkgerr.Errorf("cdump: %w", err)
	}
	sizesOnce.Do(func() { sizes = wire.DefaultLayouts.Sizes() })
	var rs records
	for ; s != nil; s = s.Base() {
		data := s.TypeSection()
		if data == nil && s.NumTypes() > 0 {
			return nil, pkgerr.Errorf("cdump: %w", btf.ErrClosed)
		}
		var offs []uint32
		if index {
			offs = make([]uint32, 0, s.NumTypes()+1)
		}
		n := 0
		it := sizes.Iter(data)
		for it.Next() {
			if err := poll(ctx, n); err != nil {
				return nil, err
			}
			if index {
				offs = append(offs, it.Off)
			}
			n++
		}
		switch {
		case it.Done():
		case uint32(len(data))-it.Off < wire.TypeSize:
			return nil, fmt.Errorf("cdump: type section truncated at %d", it.Off)
		default:
			return nil, fmt.Errorf("cdump: type [%d]: unsupported kind %v or record layout",
				int(s.FirstID())+n, btf.Kind(wire.InfoKind(wire.InfoWord(data, it.Off))))
		}
		if n != s.NumTypes() {
			return nil, fmt.Errorf("cdump: %d records in the type section, want %d", n, s.NumTypes())
		}
		if index {
			offs = append(offs, uint32(len(data)))
		}
		rs = append(rs, section{spec: s, first: s.FirstID(), data: data, offs: offs, next: s.FirstID()})
	}
	return rs, nil
}

// get returns the record of type id, or nil for void or an id out of range.
func (rs records) get(id btf.TypeID) wire.Record {
	for i := range rs {
		s := &rs[i]
		if id >= s.first {
			j := int(id - s.first)
			if s.offs == nil {
				return s.find(id)
			}
			if j+1 >= len(s.offs) {
				return nil
			}
			return wire.Record(s.data[s.offs[j]:s.offs[j+1]])
		}
	}
	return nil
}

// find returns the record of type id through the Spec's index, or nil for
// an id out of range. readRecords read the section with the standard
// sizes; a record the Spec sizes otherwise is nil too.
func (s *section) find(id btf.TypeID) wire.Record {
	if int(id-s.first) >= s.spec.NumTypes() {
		return nil
	}
	if id == s.next {
		size := sizes.Of(wire.InfoWord(s.data, s.nextOff))
		r := wire.Record(s.data[s.nextOff : s.nextOff+size])
		s.next++
		s.nextOff += size
		return r
	}
	t, err := s.spec.TypeByID(id)
	if err != nil {
		return nil
	}
	r := wire.Record(t.Record())
	if len(r) < wire.TypeSize || uint32(len(r)) != sizes.Of(r.Info()) {
		return nil
	}
	return r
}

// strSpace resolves string offsets over the string sections of a Spec chain.
type strSpace struct{ strtab.Chain }

func newStrtab(s *btf.Spec) strSpace {
	var t strSpace
	for ; s != nil; s = s.Base() {
		data, start := s.StringSection()
		t.Chain = append(t.Chain, strtab.Section{Start: start, Data: data})
	}
	return t
}

// name returns the string at off, without its NUL; nil for "" or an offset
// outside the sections (which btf.Parse does not let through).
func (t strSpace) name(off uint32) []byte { return t.String(off) }

// hash returns libbpf's str_hash of the string at off: h*31+c over its
// bytes, each a signed char as on x86.
func (t strSpace) hash(off uint32) uint64 {
	var h uint64
	for _, c := range t.From(off) {
		if c == 0 {
			break
		}
		h = h*31 + uint64(int64(int8(c)))
	}
	return h
}

// prefix returns the first 16 bytes of the string at off as two big-endian
// words, which compare as the bytes do; the zeros after a shorter string
// sort it first, as its NUL does in strcmp.
func (t strSpace) prefix(off uint32) (p [2]uint64) {
	if off == 0 {
		return p
	}
	var b [16]byte
	for i, c := range t.From(off) {
		if c == 0 || i == len(b) {
			break
		}
		b[i] = c
	}
	p[0] = binary.BigEndian.Uint64(b[:8])
	p[1] = binary.BigEndian.Uint64(b[8:])
	return p
}
