// Package rawdump prints BTF as text in the format of bpftool's
// "btf dump file FILE" (the raw format), byte for byte as Debian's bpftool
// 7.1 prints it, or as JSON records in kmeta's JSON vocabulary (JSONType:
// the data of bpftool's -j output, with the keys and values every kmeta
// --json output shares).
//
// Output is streamed through a small buffer; memory use does not grow with
// the size of the BTF.
//
// # Concurrency
//
// Every call runs on the caller's goroutine; the package starts none.
package rawdump

import (
	"bufio"
	"io"
	"strconv"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// Options select what Write prints.
type Options struct {
	// Scope selects the types printed; the zero value prints the Spec and
	// its bases. For split BTF, bpftool -B prints only the split types:
	// btf.ScopeOwn does the same.
	Scope btf.Scope
}

// Write prints the types of s in bpftool's raw text format. A split Spec
// prints its own types only when opts.Scope is btf.ScopeOwn, as bpftool -B
// does. It returns the first error from w, or btf.ErrClosed.
func Write(w io.Writer, s *btf.Spec, opts Options) error {
	p := printer{w: bufio.NewWriterSize(w, 64<<10), s: s}
	for _, t := range s.Types(opts.Scope) {
		p.typ(t)
		if p.err != nil {
			return p.err
		}
	}
	if _, err := s.TypeByID(0); err != nil {
		return err
	}
	if err := s.Err(); err != nil {
		// A lazy Spec's iteration stopped before a record that fails
		// its check.
		return pkgerr.Errorf("rawdump: %w", err)
	}
	return p.w.Flush()
}

// WriteType prints one type in bpftool's raw format, with its newline.
// A *bufio.Writer w is written to and not flushed, so that a caller
// printing many types (a name that all of them share) writes them in
// few system calls, and flushes w once at the end.
func WriteType(w io.Writer, t btf.Type) error {
	bw, buffered := w.(*bufio.Writer)
	if !buffered {
		bw = bufio.NewWriterSize(w, 4<<10)
	}
	p := printer{w: bw, s: t.Spec()}
	p.typ(t)
	if p.err != nil || buffered {
		return p.err
	}
	return bw.Flush()
}

type printer struct {
	w   *bufio.Writer
	s   *btf.Spec
	buf []byte
	err error
}

// str prints a name as bpftool's btf_str does: "(anon)" for offset 0.
func (p *printer) str(off uint32, name []byte) {
	if off == 0 {
		p.w.WriteString("(anon)")
		return
	}
	p.w.Write(name)
}

func (p *printer) u(v uint64) {
	p.buf = strconv.AppendUint(p.buf[:0], v, 10)
	p.w.Write(p.buf)
}

func (p *printer) i(v int64) {
	p.buf = strconv.AppendInt(p.buf[:0], v, 10)
	p.w.Write(p.buf)
}

// kv prints " key=value" for an unsigned value.
func (p *printer) kv(key string, v uint64) {
	p.w.WriteString(key)
	p.u(v)
}

// typ prints one type and its newline.
func (p *printer) typ(t btf.Type) {
	w := p.w
	w.WriteByte('[')
	p.u(uint64(t.ID()))
	w.WriteString("] ")
	kind := t.Kind()
	w.WriteString(kindName(kind))
	w.WriteString(" '")
	p.str(t.NameOffset(), t.NameBytes())
	w.WriteByte('\'')
	switch kind {
	case btf.KindInt:
		ii := t.Int()
		p.kv(" size=", uint64(t.Size()))
		p.kv(" bits_offset=", uint64(ii.Offset))
		p.kv(" nr_bits=", uint64(ii.Bits))
		w.WriteString(" encoding=")
		w.WriteString(intEncoding(ii.Encoding))
	case btf.KindPointer, btf.KindTypedef, btf.KindVolatile, btf.KindConst, btf.KindRestrict, btf.KindTypeTag:
		p.kv(" type_id=", uint64(t.Ref()))
	case btf.KindArray:
		a := t.Array()
		p.kv(" type_id=", uint64(a.Type))
		p.kv(" index_type_id=", uint64(a.Index))
		p.kv(" nr_elems=", uint64(a.Nelems))
	case btf.KindStruct, btf.KindUnion:
		p.composite(t)
	case btf.KindEnum, btf.KindEnum64:
		p.enum(t)
	case btf.KindForward:
		if t.IsUnionForward() {
			w.WriteString(" fwd_kind=union")
		} else {
			w.WriteString(" fwd_kind=struct")
		}
	case btf.KindFunc:
		p.kv(" type_id=", uint64(t.Ref()))
		w.WriteString(" linkage=")
		w.WriteString(t.Linkage().String())
	case btf.KindFuncProto:
		p.proto(t)
	case btf.KindVar:
		p.kv(" type_id=", uint64(t.Ref()))
		w.WriteString(", linkage=")
		w.WriteString(t.Linkage().String())
	case btf.KindDatasec:
		p.datasec(t)
	case btf.KindFloat:
		p.kv(" size=", uint64(t.Size()))
	case btf.KindDeclTag:
		p.kv(" type_id=", uint64(t.Ref()))
		w.WriteString(" component_idx=")
		p.i(int64(t.ComponentIdx()))
	}
	p.err = w.WriteByte('\n')
}

func (p *printer) composite(t btf.Type) {
	p.kv(" size=", uint64(t.Size()))
	p.kv(" vlen=", uint64(t.Vlen()))
	for _, m := range t.Members() {
		p.w.WriteString("\n\t'")
		p.str(m.NameOffset(), m.NameBytes())
		p.w.WriteByte('\'')
		p.kv(" type_id=", uint64(m.Type))
		p.kv(" bits_offset=", uint64(m.BitOffset))
		if m.BitfieldSize != 0 {
			p.kv(" bitfield_size=", uint64(m.BitfieldSize))
		}
	}
}

func (p *printer) enum(t btf.Type) {
	if t.KindFlag() {
		p.w.WriteString(" encoding=SIGNED")
	} else {
		p.w.WriteString(" encoding=UNSIGNED")
	}
	p.kv(" size=", uint64(t.Size()))
	p.kv(" vlen=", uint64(t.Vlen()))
	for _, v := range t.EnumValues() {
		p.w.WriteString("\n\t'")
		p.str(v.NameOffset(), v.NameBytes())
		p.w.WriteString("' val=")
		switch {
		case v.Signed:
			p.i(v.Int64())
		default:
			p.u(v.Value)
		}
		if v.Is64 {
			if v.Signed {
				p.w.WriteString("LL")
			} else {
				p.w.WriteString("ULL")
			}
		}
	}
}

func (p *printer) proto(t btf.Type) {
	p.kv(" ret_type_id=", uint64(t.Ref()))
	p.kv(" vlen=", uint64(t.Vlen()))
	for _, a := range t.Params() {
		p.w.WriteString("\n\t'")
		p.str(a.NameOffset(), a.NameBytes())
		p.w.WriteByte('\'')
		p.kv(" type_id=", uint64(a.Type))
	}
}

func (p *printer) datasec(t btf.Type) {
	p.kv(" size=", uint64(t.Size()))
	p.kv(" vlen=", uint64(t.Vlen()))
	for _, v := range t.VarSecinfos() {
		p.kv("\n\ttype_id=", uint64(v.Type))
		p.kv(" offset=", uint64(v.Offset))
		p.kv(" size=", uint64(v.Size))
		vt, err := p.s.TypeByID(v.Type)
		if err != nil {
			continue
		}
		p.w.WriteString(" (")
		p.w.WriteString(kindName(vt.Kind()))
		p.w.WriteString(" '")
		p.str(vt.NameOffset(), vt.NameBytes())
		p.w.WriteString("')")
	}
}

// kindName spells a kind as bpftool does; kinds it does not know are
// "UNKNOWN".
func kindName(k btf.Kind) string {
	if k > btf.KindEnum64 {
		return "UNKNOWN"
	}
	return k.String()
}

// intEncoding spells an INT encoding as bpftool's btf_int_enc_str does.
func intEncoding(e uint8) string {
	switch e {
	case 0:
		return "(none)"
	case btf.IntSigned:
		return "SIGNED"
	case btf.IntChar:
		return "CHAR"
	case btf.IntBool:
		return "BOOL"
	}
	return "UNKN"
}
