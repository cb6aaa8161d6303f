package layout

import (
	"context"
	"errors"
	"io"
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// Struct is the layout of one struct or union, as data: the facts that
// Write prints.
type Struct struct {
	ID         btf.TypeID `json:"id"`
	Kind       string     `json:"kind"`           // "struct" or "union"
	Name       string     `json:"name,omitempty"` // left out for an anonymous one
	Size       uint32     `json:"size"`
	Cachelines uint32     `json:"cachelines"`
	Members    []Member   `json:"members"`

	SumMembers     uint32 `json:"sum_members"`   // bytes of non-bitfield members
	SumBits        uint32 `json:"sum_bits"`      // bits of bitfield members
	Holes          int    `json:"holes"`         // number of byte holes
	SumHoles       uint32 `json:"sum_holes"`     // bytes in holes
	BitHoles       int    `json:"bit_holes"`     // number of bit holes
	SumBitHoles    uint32 `json:"sum_bit_holes"` // bits in bit holes
	Padding        uint32 `json:"padding"`       // bytes after the last member
	BitPadding     uint32 `json:"bit_padding"`   // bits after the last bitfield
	Paddings       int    `json:"paddings"`      // members whose struct type has padding
	SumPaddings    uint32 `json:"sum_paddings"`  // their padding, in bytes
	Forced         int    `json:"forced_alignments"`
	ForcedHoles    int    `json:"forced_holes"`
	SumForcedHoles uint32 `json:"sum_forced_holes"`
	LastCacheline  uint32 `json:"last_cacheline"` // bytes used in the last cacheline
	Packed         bool   `json:"packed"`         // inferred __attribute__((__packed__))
	Aligned        uint32 `json:"aligned,omitempty"`
}

// Member is one member of a Struct. Offsets count from the start of the
// outermost struct, as pahole prints them, also inside anonymous structs
// and unions, whose own members are in Members.
type Member struct {
	Name           string     `json:"name,omitempty"` // left out for an anonymous member
	Type           string     `json:"type"`           // pahole's spelling of the type, its stray spaces trimmed ("union" for an anonymous union)
	TypeID         btf.TypeID `json:"type_id"`
	Offset         uint32     `json:"offset"`                    // bytes
	Size           uint64     `json:"size"`                      // bytes
	BitfieldOffset *int       `json:"bitfield_offset,omitempty"` // bits into the storage unit; left out for a plain member
	BitfieldSize   int        `json:"bitfield_size"`             // bits; 0 for a plain member
	Hole           int        `json:"hole"`                      // bytes of hole after the member
	BitHole        int        `json:"bit_hole"`                  // bits of hole after it
	Aligned        uint32     `json:"aligned,omitempty"`         // inferred __aligned__
	Members        []Member   `json:"members,omitempty"`
}

// Layouts returns the layouts that Write prints, in the same order, as
// data.
func Layouts(ctx context.Context, s *btf.Spec, opts Options) ([]Struct, error) {
	var out []Struct
	for st, err := range Structs(ctx, s, opts) {
		if err != nil {
			return nil, err
		}
		out = append(out, st)
	}
	return out, nil
}

// Structs yields the layouts that Layouts returns, one at a time, so that
// a caller can write each before the next is made; after an error it
// yields nothing more. ctx is checked between types; the Spec must stay
// open while the sequence runs.
func Structs(ctx context.Context, s *btf.Spec, opts Options) iter.Seq2[Struct, error] {
	return func(yield func(Struct, error) bool) {
		err := each(ctx, s, opts, func(p *printer, id btf.TypeID, c *class) error {
			if !yield(p.facts(id, c), nil) {
				return errStopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStopped) {
			yield(Struct{}, err)
		}
	}
}

// errStopped ends each when the caller of Structs stops early.
var errStopped = errors.New("layout: stopped")

// WriteJSON writes Layouts as a JSON array, one struct a line, each
// member encoded as it is produced (see WriteJSONIndent).
func WriteJSON(ctx context.Context, w io.Writer, s *btf.Spec, opts Options) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return pkgerr.Errorf("layout: %w", err)
	}
	first := true
	jw := newJSONWriter(w, "", "")
	err := each(ctx, s, opts, func(p *printer, id btf.TypeID, c *class) error {
		sep := byte(',')
		if first {
			sep, first = '\n', false
		}
		jw.buf = append(jw.buf, sep)
		if err := jw.writeStruct(p, id, c, 0); err != nil {
			return err
		}
		jw.buf = append(jw.buf, '\n')
		return nil
	})
	if err != nil {
		return err
	}
	jw.buf = append(jw.buf, "]\n"...)
	if err := jw.flush(0); err != nil {
		return pkgerr.Errorf("layout: %w", err)
	}
	return nil
}

// facts turns the class just printed, and the sums its printing counted,
// into a Struct.
func (p *printer) facts(id btf.TypeID, c *class) Struct {
	st := p.structFacts(id, c)
	st.Members = p.memberFacts(c, 0, 0)
	return st
}

// structFacts is facts without the members.
func (p *printer) structFacts(id btf.TypeID, c *class) Struct {
	s := p.last
	st := Struct{
		ID: id, Kind: "struct", Name: string(c.name), Size: c.size,
		SumMembers: s.bytes, SumBits: s.bits,
		SumHoles: s.holes, SumBitHoles: s.bitHoles,
		Paddings: int(s.paddings), SumPaddings: s.sumPaddings,
		Forced: int(s.forced), ForcedHoles: int(s.forcedHoles), SumForcedHoles: s.sumForcedHoles,
		LastCacheline: c.size % p.cacheline,
	}
	if c.union {
		st.Kind = "union"
	} else {
		st.Holes, st.BitHoles = int(c.nrHoles), int(c.nrBitHoles)
		st.Padding, st.BitPadding = uint32(c.padding), uint32(c.bitPadding)
		st.Packed = p.has(c.id, packed)
		if !st.Packed {
			st.Aligned = c.alignment
		}
	}
	size := uint64(c.size)
	if c.size == 1 && c.nrMembers == 0 {
		size = 0
	}
	st.Cachelines = uint32((size + uint64(p.cacheline) - 1) / uint64(p.cacheline))
	return st
}

// memberFacts lists the members of c, at offset base, and those of its
// anonymous members' types, as deep as check and the text let them
// (p.levels).
func (p *printer) memberFacts(c *class, base uint32, depth int) []Member {
	out := make([]Member, 0, len(c.members))
	for i := range c.members {
		p.trim()
		mf, inner := p.memberFact(&c.members[i], p.memberName(c, i), base, depth)
		if inner != nil {
			mf.Members = p.memberFacts(inner, mf.Offset, depth+1)
		}
		out = append(out, mf)
	}
	return out
}

// memberFact returns the facts of m, at offset base and depth, without
// its members, and the class of its anonymous type whose members
// memberFacts lists, or nil.
func (p *printer) memberFact(m *member, name []byte, base uint32, depth int) (Member, *class) {
	mf, inner := p.memberNumbers(m, base, depth)
	mf.Name = string(name)
	mf.Type = string(p.appendTypeName(nil, m.typ))
	if m.bitfieldSize != 0 {
		bo := int(m.bitfieldOffset)
		mf.BitfieldOffset = &bo
	}
	return mf, inner
}

// memberNumbers is memberFact without the strings and the bitfield
// offset, which the JSON writer takes from m without copies.
func (p *printer) memberNumbers(m *member, base uint32, depth int) (Member, *class) {
	mf := Member{
		TypeID: m.typ,
		Offset: base + m.byteOffset,
		Size:   m.byteSize,
		Hole:   int(m.hole), BitHole: int(m.bitHole),
		Aligned:      m.alignment,
		BitfieldSize: int(m.bitfieldSize),
	}
	var inner *class
	if p.typ(m.typ).NameOffset() == 0 && depth < p.levels {
		inner = p.class(m.typ)
		if inner != nil {
			p.findHoles(inner) // printing found them, on a class trim may have dropped since
		}
	}
	return mf, inner
}

// appendTypeName appends pahole's spelling of the type id to dst, without
// the spaces it leaves at the end ("union ") and doubles inside
// ("const char  *"): its fields, as strings.Fields splits them, joined by
// one space.
func (p *printer) appendTypeName(dst []byte, id btf.TypeID) []byte {
	start := len(dst)
	dst = p.appendTagName(dst, id, bufPointer, 0)
	name := dst[start:]
	for _, c := range name {
		if c >= utf8.RuneSelf {
			// Unicode spaces: leave them to strings.Fields.
			joined := strings.Join(strings.Fields(string(name)), " ")
			return append(dst[:start], joined...)
		}
	}
	out := dst[:start]
	for i := 0; i < len(name); {
		for i < len(name) && asciiSpace(name[i]) {
			i++
		}
		j := i
		for j < len(name) && !asciiSpace(name[j]) {
			j++
		}
		if j > i {
			if len(out) > start {
				out = append(out, ' ')
			}
			out = append(out, name[i:j]...) // never ahead of what it reads
		}
		i = j
	}
	return out
}

// asciiSpace reports whether c is an ASCII space as strings.Fields
// counts them.
func asciiSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}
