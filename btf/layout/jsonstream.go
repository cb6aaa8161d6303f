package layout

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
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
		sep := "["
		if !first {
			sep = ","
		}
		first = false
		if err := jw.put(sep, jw.nl(1)); err != nil {
			return err
		}
		return jw.writeStruct(p, id, c, 1)
	})
	if err != nil {
		return err
	}
	end := "[]"
	if !first {
		end = jw.nl(0) + "]"
	}
	if err := jw.put(end, "\n"); err != nil {
		return pkgerr.Errorf("layout: %w", err)
	}
	return nil
}

// jsonWriter writes Structs in parts: each part is encoded into buf by a
// json.Encoder indented for its depth, and written to w.
type jsonWriter struct {
	w              io.Writer
	prefix, indent string
	buf            bytes.Buffer
	enc            *json.Encoder
}

func newJSONWriter(w io.Writer, prefix, indent string) *jsonWriter {
	jw := &jsonWriter{w: w, prefix: prefix, indent: indent}
	jw.enc = json.NewEncoder(&jw.buf)
	jw.enc.SetEscapeHTML(false)
	return jw
}

// nl is what precedes a line at depth in the indented form: nothing in
// the compact one.
func (jw *jsonWriter) nl(depth int) string {
	if jw.prefix == "" && jw.indent == "" {
		return ""
	}
	return "\n" + jw.prefix + strings.Repeat(jw.indent, depth)
}

// put writes the strings to w.
func (jw *jsonWriter) put(parts ...string) error {
	for _, s := range parts {
		if _, err := io.WriteString(jw.w, s); err != nil {
			return err
		}
	}
	return nil
}

// encode encodes v, whose opening brace is at depth, into jw.buf, and
// returns it without its line end.
func (jw *jsonWriter) encode(v any, depth int) ([]byte, error) {
	jw.buf.Reset()
	if jw.prefix != "" || jw.indent != "" {
		jw.enc.SetIndent(jw.prefix+strings.Repeat(jw.indent, depth), jw.indent)
	}
	if err := jw.enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(jw.buf.Bytes(), []byte("\n")), nil
}

// key is how the encoder spells a key, with the separator before its
// value.
func (jw *jsonWriter) key(name string) string {
	if jw.nl(0) == "" {
		return `"` + name + `":`
	}
	return `"` + name + `": `
}

// writeStruct writes the class c just printed as a Struct whose opening
// brace is at depth, without a line end: its fields before the members,
// the members, then the fields after them.
func (jw *jsonWriter) writeStruct(p *printer, id btf.TypeID, c *class, depth int) error {
	st := p.structFacts(id, c)
	st.Members = []Member{}
	enc, err := jw.encode(st, depth)
	if err != nil {
		return err
	}
	// The only unescaped `"members": [],` of the encoding: its strings
	// escape their quotes.
	mark := []byte(jw.key("members") + "[]")
	cut := bytes.Index(enc, mark) + len(mark) - 1
	if len(c.members) == 0 || cut < len(mark) {
		_, err := jw.w.Write(enc)
		return err
	}
	if _, err := jw.w.Write(enc[:cut]); err != nil {
		return err
	}
	tail := bytes.Clone(enc[cut+1:]) // what follows the members' "]"
	if err := jw.writeMembers(p, c, 0, 0, depth+2); err != nil {
		return err
	}
	if err := jw.put(jw.nl(depth+1), "]"); err != nil {
		return err
	}
	_, err = jw.w.Write(tail)
	return err
}

// writeMembers writes the members of c as memberFacts lists them, at
// offset base and nesting depth level, each opening brace at depth: comma
// separated, each with the members of its anonymous type.
func (jw *jsonWriter) writeMembers(p *printer, c *class, base uint32, level, depth int) error {
	for i := range c.members {
		sep := ","
		if i == 0 {
			sep = ""
		}
		if err := jw.put(sep, jw.nl(depth)); err != nil {
			return err
		}
		p.trim()
		mf, inner := p.memberFact(&c.members[i], base, level)
		enc, err := jw.encode(mf, depth)
		if err != nil {
			return err
		}
		if inner == nil || len(inner.members) == 0 {
			if _, err := jw.w.Write(enc); err != nil {
				return err
			}
			continue
		}
		// Members, the last field, is left out when empty: put it back
		// before the closing brace and its line.
		end := jw.nl(depth) + "}"
		if _, err := jw.w.Write(enc[:len(enc)-len(end)]); err != nil {
			return err
		}
		if err := jw.put(",", jw.nl(depth+1), jw.key("members"), "["); err != nil {
			return err
		}
		if err := jw.writeMembers(p, inner, mf.Offset, level+1, depth+2); err != nil {
			return err
		}
		if err := jw.put(jw.nl(depth+1), "]", end); err != nil {
			return err
		}
	}
	return nil
}
