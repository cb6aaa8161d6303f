package recenc

import (
	"errors"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Records of elements can also be written an element at a time, by an
// Encoder whose Options.NameFirst is set: StartStruct, StartUnion,
// StartEnum, StartEnum64 or StartFuncProto begins one, with the number of
// elements to come; Member, Value or Param writes each, in order; Finish
// ends it. A producer whose elements are in its own tables (a DWARF
// encoder's members, enumerators and parameters) then writes them without
// first copying them into a slice of the element type, which on a record
// of 65,535 elements is 1.5 to 2 MB. The words, the names' order, the
// checks and their errors are those of the Add method of the same kind,
// but an error met at an element leaves the elements before it written
// (as a Sink that keeps errors refuses the records anyway). No other
// record is written between Start and Finish.

// stream is the record being written an element at a time.
type stream struct {
	id   btf.TypeID
	kind btf.Kind
	name string
	// info is the position of the info word in W, which Finish
	// rewrites with the kind flag that the members set.
	info    int
	n, done int
	open    bool
	kflag   bool
	// large is the first member whose bitfield size or offset a kind
	// flag's packed word cannot hold, if hasLarge.
	large    member
	hasLarge bool
}

var errNotOpen = errors.New("element written outside a record begun element by element")

// StartStruct begins a STRUCT of size bytes and n members.
func (e *Encoder[M, P, E]) StartStruct(name string, size uint32, n int) (btf.TypeID, error) {
	return e.startSized(name, btf.KindStruct, n, false, size)
}

// StartUnion begins a UNION of size bytes and n members.
func (e *Encoder[M, P, E]) StartUnion(name string, size uint32, n int) (btf.TypeID, error) {
	return e.startSized(name, btf.KindUnion, n, false, size)
}

// StartEnum begins a 32-bit ENUM of size bytes and n values; signed sets
// the kind flag. A value that fits in 32 bits neither signed nor unsigned
// is an error.
func (e *Encoder[M, P, E]) StartEnum(name string, size uint32, signed bool, n int) (btf.TypeID, error) {
	return e.startSized(name, btf.KindEnum, n, signed, size)
}

// StartEnum64 begins an ENUM64 of size bytes and n values; signed sets
// the kind flag.
func (e *Encoder[M, P, E]) StartEnum64(name string, size uint32, signed bool, n int) (btf.TypeID, error) {
	return e.startSized(name, btf.KindEnum64, n, signed, size)
}

// StartFuncProto begins a FUNC_PROTO returning ret, of n parameters.
func (e *Encoder[M, P, E]) StartFuncProto(ret btf.TypeID, n int) (btf.TypeID, error) {
	id, err := e.start("", btf.KindFuncProto, n, false)
	if err != nil {
		return 0, err
	}
	e.ref(ret)
	return id, nil
}

// startSized begins a record of kind k and n elements whose third word
// is a size.
func (e *Encoder[M, P, E]) startSized(name string, k btf.Kind, n int, kflag bool, size uint32) (btf.TypeID, error) {
	id, err := e.start(name, k, n, kflag)
	if err != nil {
		return 0, err
	}
	e.W = append(e.W, size)
	return id, nil
}

// start begins a record of kind k and n elements: its name and info
// words.
func (e *Encoder[M, P, E]) start(name string, k btf.Kind, n int, kflag bool) (btf.TypeID, error) {
	if !e.opts.NameFirst {
		return 0, e.sink.Fail(fmt.Errorf("%v written element by element, but elements are named first", k))
	}
	e.st = stream{}
	id, err := e.begin(name, k, n, kflag, nil)
	if err != nil {
		return 0, err
	}
	e.st = stream{id: id, kind: k, name: name, info: len(e.W) - 1, n: n, open: true, kflag: kflag}
	return id, nil
}

// next checks that one more element of a record of kind k1 or k2 may be
// written, and writes its name. An error ends the record.
func (e *Encoder[M, P, E]) next(name string, k1, k2 btf.Kind) error {
	st := &e.st
	if !st.open || st.done == st.n || st.kind != k1 && st.kind != k2 {
		return e.fail(errNotOpen)
	}
	w, err := e.str(name)
	if err != nil {
		return e.fail(fmt.Errorf("%v element %d: %w", st.kind, st.done, err))
	}
	e.put(w)
	st.done++
	return nil
}

// fail ends the record begun element by element with err.
func (e *Encoder[M, P, E]) fail(err error) error {
	e.st = stream{}
	return e.sink.Fail(err)
}

// Member writes the next member of a STRUCT or UNION. The record takes the
// kind flag once a member is a bitfield; then every member's bitfield
// size and offset must fit the packed offset word, as AddStruct checks.
func (e *Encoder[M, P, E]) Member(m M) error {
	v := member(m)
	if err := e.next(v.Name, btf.KindStruct, btf.KindUnion); err != nil {
		return err
	}
	st := &e.st
	if !st.hasLarge && (v.BitfieldSize > wire.MaxBitfieldSize || v.BitOffset > wire.MaxBitOffset) {
		st.large, st.hasLarge = v, true
	}
	st.kflag = st.kflag || v.BitfieldSize != 0
	if st.kflag && st.hasLarge {
		return e.fail(fmt.Errorf("%v %q member %q: bitfield size %d or offset %d too large",
			st.kind, st.name, st.large.Name, st.large.BitfieldSize, st.large.BitOffset))
	}
	e.ref(v.Type)
	// A member that is no bitfield has its offset alone as its word,
	// kind flag or not: the packed word of size 0, once the offset fits
	// (else the kind flag fails the record above).
	off := v.BitOffset
	if v.BitfieldSize != 0 {
		off = wire.MemberOffsetWord(v.BitfieldSize, v.BitOffset)
	}
	e.W = append(e.W, off)
	return nil
}

// Value writes the next value of an ENUM or ENUM64.
func (e *Encoder[M, P, E]) Value(v E) error {
	x := enumerator(v)
	st := &e.st
	if st.open && st.kind == btf.KindEnum {
		if fits := x.Value <= 0xffffffff || int64(x.Value) >= -1<<31 && int64(x.Value) < 0; !fits {
			return e.fail(fmt.Errorf("ENUM %q value %q = %#x does not fit in 32 bits", st.name, x.Name, x.Value))
		}
	}
	if err := e.next(x.Name, btf.KindEnum, btf.KindEnum64); err != nil {
		return err
	}
	e.W = append(e.W, uint32(x.Value))
	if st.kind == btf.KindEnum64 {
		e.W = append(e.W, uint32(x.Value>>32))
	}
	return nil
}

// Param writes the next parameter of a FUNC_PROTO.
func (e *Encoder[M, P, E]) Param(p P) error {
	v := param(p)
	if err := e.next(v.Name, btf.KindFuncProto, btf.KindFuncProto); err != nil {
		return err
	}
	e.ref(v.Type)
	return nil
}

// Finish ends the record begun element by element, once its elements are
// all written, and returns its id.
func (e *Encoder[M, P, E]) Finish() (btf.TypeID, error) {
	st := &e.st
	if !st.open {
		return 0, e.fail(errNotOpen)
	}
	if st.done != st.n {
		return 0, e.fail(fmt.Errorf("%v ended after %d of its %d elements", st.kind, st.done, st.n))
	}
	e.W[st.info] = wire.Info(wire.Kind(st.kind), st.n, st.kflag)
	id := st.id
	*st = stream{}
	return e.end(id)
}
