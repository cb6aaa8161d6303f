package layout

import (
	"context"
	"io"
	"strconv"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/jsonenc"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// WriteJSONIndent writes Layouts as one JSON array, byte for byte as a
// json.Encoder with SetIndent(prefix, indent) and SetEscapeHTML(false)
// encodes the slice, but a member at a time: the memory taken does not
// grow with the members of the largest struct (a struct of 65,535
// members, each of its own anonymous union, would be a Struct of some
// 10 MB and an encoding of 30 MB held at once). Nothing is written before
// the first struct, so that an error found before it (a name in
// Options.Names that is no struct) leaves w as it was.
func WriteJSONIndent(ctx context.Context, w io.Writer, s *btf.Spec, opts Options, prefix, indent string) error {
	jw := newJSONWriter(w, prefix, indent)
	first := true
	err := each(ctx, s, opts, func(p *printer, id btf.TypeID, c *class) error {
		sep := byte('[')
		if !first {
			sep = ','
		}
		first = false
		jw.buf = append(jw.buf, sep)
		jw.nl(1)
		return jw.writeStruct(p, id, c, 1)
	})
	if err != nil {
		return err
	}
	if first {
		jw.buf = append(jw.buf, '[')
	} else {
		jw.nl(0)
	}
	jw.buf = append(jw.buf, "]\n"...)
	if err := jw.flush(0); err != nil {
		return pkgerr.Errorf("layout: %w", err)
	}
	return nil
}

// jsonWriter appends Structs to buf as encoding/json encodes them, with
// the indentation of a json.Encoder given SetIndent(prefix, indent) (none
// when both are empty), and hands buf to w whenever it passes flushAt.
// It writes the fields by hand: reflection took most of the time.
type jsonWriter struct {
	w              io.Writer
	prefix, indent string
	colon          string // what follows a key: ": " when indented
	buf            []byte
	name           []byte // a member's type name, built for each member
}

func newJSONWriter(w io.Writer, prefix, indent string) *jsonWriter {
	jw := &jsonWriter{w: w, prefix: prefix, indent: indent, colon: ":"}
	if !jw.compact() {
		jw.colon = ": "
	}
	return jw
}

// compact reports whether the encoding has no line breaks.
func (jw *jsonWriter) compact() bool { return jw.prefix == "" && jw.indent == "" }

// nl appends what precedes a line at depth in the indented form: nothing
// in the compact one.
func (jw *jsonWriter) nl(depth int) {
	if jw.compact() {
		return
	}
	jw.buf = append(append(jw.buf, '\n'), jw.prefix...)
	for range depth {
		jw.buf = append(jw.buf, jw.indent...)
	}
}

// key appends the key name on a line at depth, after a comma unless it
// opens its object.
func (jw *jsonWriter) key(name string, depth int, opens bool) {
	if !opens {
		jw.buf = append(jw.buf, ',')
	}
	jw.nl(depth)
	jw.buf = append(append(append(append(jw.buf, '"'), name...), '"'), jw.colon...)
}

func (jw *jsonWriter) uint(name string, v uint64, depth int) {
	jw.key(name, depth, false)
	jw.buf = strconv.AppendUint(jw.buf, v, 10)
}

func (jw *jsonWriter) int(name string, v int, depth int) {
	jw.key(name, depth, false)
	jw.buf = strconv.AppendInt(jw.buf, int64(v), 10)
}

// flush writes buf to w once it holds at least at bytes.
func (jw *jsonWriter) flush(at int) error {
	if len(jw.buf) < at || len(jw.buf) == 0 {
		return nil
	}
	_, err := jw.w.Write(jw.buf)
	jw.buf = jw.buf[:0]
	return err
}

// writeStruct appends the class c just printed as a Struct whose opening
// brace is at depth, without a line end, and its members.
func (jw *jsonWriter) writeStruct(p *printer, id btf.TypeID, c *class, depth int) error {
	st := p.structFacts(id, c)
	in := depth + 1
	jw.buf = append(jw.buf, '{')
	jw.key("id", in, true)
	jw.buf = strconv.AppendUint(jw.buf, uint64(st.ID), 10)
	jw.key("kind", in, false)
	jw.buf = jsonenc.AppendString(jw.buf, st.Kind)
	if len(c.name) != 0 {
		jw.key("name", in, false)
		jw.buf = jsonenc.AppendString(jw.buf, c.name)
	}
	jw.uint("size", uint64(st.Size), in)
	jw.uint("cachelines", uint64(st.Cachelines), in)
	jw.key("members", in, false)
	jw.buf = append(jw.buf, '[')
	if len(c.members) != 0 {
		if err := jw.writeMembers(p, c, 0, 0, depth+2); err != nil {
			return err
		}
		jw.nl(in)
	}
	jw.buf = append(jw.buf, ']')
	jw.structSums(&st, in)
	jw.nl(depth)
	jw.buf = append(jw.buf, '}')
	return jw.flush(flushAt)
}

// structSums appends the fields of st that follow its members.
func (jw *jsonWriter) structSums(st *Struct, in int) {
	jw.uint("sum_members", uint64(st.SumMembers), in)
	jw.uint("sum_bits", uint64(st.SumBits), in)
	jw.int("holes", st.Holes, in)
	jw.uint("sum_holes", uint64(st.SumHoles), in)
	jw.int("bit_holes", st.BitHoles, in)
	jw.uint("sum_bit_holes", uint64(st.SumBitHoles), in)
	jw.uint("padding", uint64(st.Padding), in)
	jw.uint("bit_padding", uint64(st.BitPadding), in)
	jw.int("paddings", st.Paddings, in)
	jw.uint("sum_paddings", uint64(st.SumPaddings), in)
	jw.int("forced_alignments", st.Forced, in)
	jw.int("forced_holes", st.ForcedHoles, in)
	jw.uint("sum_forced_holes", uint64(st.SumForcedHoles), in)
	jw.uint("last_cacheline", uint64(st.LastCacheline), in)
	jw.key("packed", in, false)
	jw.buf = strconv.AppendBool(jw.buf, st.Packed)
	if st.Aligned != 0 {
		jw.uint("aligned", uint64(st.Aligned), in)
	}
}

// writeMembers appends the members of c as memberFacts lists them, at
// offset base and nesting depth level, each opening brace at depth: comma
// separated, each with the members of its anonymous type.
func (jw *jsonWriter) writeMembers(p *printer, c *class, base uint32, level, depth int) error {
	for i := range c.members {
		if i > 0 {
			jw.buf = append(jw.buf, ',')
		}
		jw.nl(depth)
		p.trim()
		m := &c.members[i]
		mf, inner := p.memberNumbers(m, base, level)
		jw.name = p.appendTypeName(jw.name[:0], m.typ)
		jw.writeMember(&mf, m, p.memberName(c, i), depth+1)
		if inner != nil && len(inner.members) != 0 {
			jw.key("members", depth+1, false)
			jw.buf = append(jw.buf, '[')
			// Handed on before the level below too: the opening lines of
			// deep nesting are as long as their indentation.
			if err := jw.flush(flushAt); err != nil {
				return err
			}
			if err := jw.writeMembers(p, inner, mf.Offset, level+1, depth+2); err != nil {
				return err
			}
			jw.nl(depth + 1)
			jw.buf = append(jw.buf, ']')
		}
		jw.nl(depth)
		jw.buf = append(jw.buf, '}')
		if err := jw.flush(flushAt); err != nil {
			return err
		}
	}
	return nil
}

// writeMember appends the opening brace of member m and the fields of
// mf, its facts, and its name, before its members, each on a line at depth in; its type
// name is in jw.name.
func (jw *jsonWriter) writeMember(mf *Member, m *member, name []byte, in int) {
	jw.buf = append(jw.buf, '{')
	opens := true
	if len(name) != 0 {
		jw.key("name", in, true)
		jw.buf = jsonenc.AppendString(jw.buf, name)
		opens = false
	}
	jw.key("type", in, opens)
	jw.buf = jsonenc.AppendString(jw.buf, jw.name)
	jw.uint("type_id", uint64(mf.TypeID), in)
	jw.uint("offset", uint64(mf.Offset), in)
	jw.uint("size", mf.Size, in)
	if m.bitfieldSize != 0 {
		jw.int("bitfield_offset", int(m.bitfieldOffset), in)
	}
	jw.int("bitfield_size", mf.BitfieldSize, in)
	jw.int("hole", mf.Hole, in)
	jw.int("bit_hole", mf.BitHole, in)
	if mf.Aligned != 0 {
		jw.uint("aligned", uint64(mf.Aligned), in)
	}
}
