package cdump

import (
	"bytes"
	"context"
	"errors"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// A Namer spells the types of one Spec in C, with the declaration rules
// that Write uses for members, parameters and typedefs, so that the two
// never disagree: "struct list_head *", "int (*)(struct sk_buff *, u32)",
// "char[16]", "const volatile u64". Unlike Write it keeps every type's own
// name (no "___N" suffixes) and abbreviates anonymous structs, unions and
// enums to "struct {...}", "union {...}" and "enum {...}".
//
// Building a Namer reads the Spec's records once, to check them, and keeps
// nothing for each type: it finds records through the Spec's own index,
// so that a Namer for each of two big Specs costs no more than a few
// buffers. Each name costs its own length and a short walk of the index
// for each type in it. A Namer is not safe for concurrent use; the Spec
// must stay open while it is used.
type Namer struct {
	d    *dumper
	sink bytes.Buffer
}

// NewNamer returns a Namer for the types of s (and its base).
func NewNamer(s *btf.Spec) (*Namer, error) {
	if s == nil {
		return nil, errors.New("cdump: nil Spec")
	}
	recs, err := readRecords(context.Background(), s, false)
	if err != nil {
		return nil, err
	}
	n := &Namer{}
	// A declaration dumper without Write's per-type state: plain names
	// need no order, emission marks or renames, and no alignment (an
	// anonymous struct is abbreviated, never defined).
	d := &dumper{
		spec: s, recs: recs, n: int(s.LastID()) + 1, strs: newStrtab(s),
		renamed: renames{types: int(s.LastID()) + 1},
		o:       out{w: &n.sink, buf: make([]byte, 0, 256)},
		plain:   true,
	}
	d.ptrSize = d.pointerSize()
	d.maxSteps = stepsPerType*d.n + 1<<20
	n.d = d
	return n, nil
}

// AppendDecl appends to dst the C declaration of name with type id: "char
// comm[16]", "void (*func)(struct callback_head *)", or, with an empty
// name, the type name alone ("char[16]", "void (*)(struct callback_head *)").
func (n *Namer) AppendDecl(dst []byte, id btf.TypeID, name string) ([]byte, error) {
	d := n.d
	if int(id) >= d.n {
		return dst, pkgerr.Errorf("cdump: type [%d]: %w", id, btf.ErrNotFound)
	}
	d.err, d.steps, d.depth, d.root = nil, 0, 0, id
	d.maxSteps = stepsPerType*d.n + 1<<20
	n.sink.Reset()
	d.o.buf, d.o.err = dst, nil
	d.emitTypeDecl(id, []byte(name), 0)
	if n.sink.Len() > 0 { // a very long name went through a flush
		out := append(n.sink.Bytes()[:n.sink.Len():n.sink.Len()], d.o.buf...)
		d.o.buf = nil
		return append(dst[:0:0], out...), d.err
	}
	out := d.o.buf
	d.o.buf = nil
	return out, d.err
}

// TypeName returns the C name of type id: a declaration without a name.
func (n *Namer) TypeName(id btf.TypeID) (string, error) {
	b, err := n.AppendDecl(nil, id, "")
	return string(b), err
}

// Decl returns the C declaration of name with type id.
func (n *Namer) Decl(id btf.TypeID, name string) (string, error) {
	b, err := n.AppendDecl(nil, id, name)
	return string(b), err
}

// TypeName returns the C name of t, as Namer.TypeName does. It indexes t's
// Spec on each call: use a Namer for many names.
func TypeName(t btf.Type) (string, error) {
	if t.IsVoid() {
		return "void", nil
	}
	n, err := NewNamer(t.Spec())
	if err != nil {
		return "", err
	}
	return n.TypeName(t.ID())
}
