package recenc

import (
	"fmt"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// The underlying types of the element arguments (see the package doc).
type (
	member = struct {
		Name                    string
		Type                    btf.TypeID
		BitOffset, BitfieldSize uint32
	}
	param = struct {
		Name string
		Type btf.TypeID
	}
	enumerator = struct {
		Name  string
		Value uint64
	}
)

// Member, Param and Enumerator are the constraints of the element types:
// builder.Member, builder.Param and builder.Enumerator.
type (
	Member     interface{ ~member }
	Param      interface{ ~param }
	Enumerator interface{ ~enumerator }
)

// An Encoder writes records into its Words through the Add methods, which
// take the arguments of the Builder's methods of the same names and
// return the id the Sink gives. An Add method that fails writes no
// complete record (the Sink may drop the partial one at the next Begin).
type Encoder[M Member, P Param, E Enumerator] struct {
	Words
	sink Sink
	opts Options
	offs []uint32 // element name words of the record being written
	st   stream   // the record written element by element (stream.go)
}

// Init sets the Sink and the Options of e, and empties its Words.
func (e *Encoder[M, P, E]) Init(s Sink, opts Options) {
	e.sink, e.opts, e.st = s, opts, stream{}
	e.Reset(1)
}

// str returns the word of a name, with pendingBit if pending.
func (e *Encoder[M, P, E]) str(s string) (uint32, error) {
	if s == "" {
		return 0, nil
	}
	w, pending, err := e.sink.Str(s)
	if pending {
		w |= pendingBit
	}
	return w, err
}

// AddString gives s to the Sink as a name is, and returns its word, which
// means nothing outside the Sink's own numbering when it is pending.
func (e *Encoder[M, P, E]) AddString(s string) (uint32, error) {
	w, err := e.str(s)
	if err != nil {
		return 0, e.sink.Fail(err)
	}
	return w &^ pendingBit, nil
}

// put appends a name word from str, listing it if pending.
func (e *Encoder[M, P, E]) put(w uint32) {
	if w&pendingBit != 0 {
		e.Names = append(e.Names, uint32(len(e.W)))
		w &^= pendingBit
	}
	e.W = append(e.W, w)
}

// ref appends a word referring to id.
func (e *Encoder[M, P, E]) ref(id btf.TypeID) {
	if uint32(id) >= e.First {
		if id == Deferred && e.opts.Deferred {
			e.Later = append(e.Later, uint32(len(e.W)))
		} else {
			e.Refs = append(e.Refs, uint32(len(e.W)))
			e.MaxRef = max(e.MaxRef, uint32(id))
		}
	}
	e.W = append(e.W, uint32(id))
}

// begin asks the Sink for a record's id, checks its element count and
// interns its name and its n elements' names (elem(i)) in the Options'
// order, the elements' into e.offs; it writes the name and info words.
func (e *Encoder[M, P, E]) begin(name string, k btf.Kind, vlen int, kflag bool, elem func(int) string) (btf.TypeID, error) {
	id, err := e.sink.Begin()
	if err != nil {
		return 0, err
	}
	if vlen < 0 || vlen > wire.MaxVlen {
		return 0, e.sink.Fail(fmt.Errorf("%v with %d elements, at most %d", k, vlen, wire.MaxVlen))
	}
	var nw uint32
	if e.opts.NameFirst {
		if nw, err = e.str(name); err != nil {
			return 0, e.sink.Fail(fmt.Errorf("%v name: %w", k, err))
		}
	}
	if elem != nil {
		if err := e.elems(k, vlen, elem); err != nil {
			return 0, err
		}
	}
	if !e.opts.NameFirst {
		if nw, err = e.str(name); err != nil {
			return 0, e.sink.Fail(fmt.Errorf("%v name: %w", k, err))
		}
	}
	e.put(nw)
	e.W = append(e.W, wire.Info(wire.Kind(k), vlen, kflag))
	return id, nil
}

// elems interns the names of a record's n elements into e.offs.
func (e *Encoder[M, P, E]) elems(k btf.Kind, n int, elem func(int) string) error {
	e.offs = slices.Grow(e.offs[:0], n) // sized once: n may be 65,535
	for i := range n {
		w, err := e.str(elem(i))
		if err != nil {
			return e.sink.Fail(fmt.Errorf("%v element %d: %w", k, i, err))
		}
		e.offs = append(e.offs, w)
	}
	return nil
}

// end ends the record begun last.
func (e *Encoder[M, P, E]) end(id btf.TypeID) (btf.TypeID, error) {
	e.Ends = append(e.Ends, uint32(len(e.W)))
	e.sink.End()
	return id, nil
}

// sized writes a record of no elements whose third word is a size.
func (e *Encoder[M, P, E]) sized(name string, k btf.Kind, kflag bool, size uint32) (btf.TypeID, error) {
	id, err := e.begin(name, k, 0, kflag, nil)
	if err != nil {
		return 0, err
	}
	e.W = append(e.W, size)
	return id, nil
}

// refTo writes a record whose third word refers to target.
func (e *Encoder[M, P, E]) refTo(name string, k btf.Kind, vlen int, kflag bool, target btf.TypeID) (btf.TypeID, error) {
	id, err := e.begin(name, k, vlen, kflag, nil)
	if err != nil {
		return 0, err
	}
	e.ref(target)
	return e.end(id)
}
