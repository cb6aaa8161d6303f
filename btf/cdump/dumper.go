package cdump

import (
	"context"
	"fmt"
	"io"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Per-type states of the topological sort (libbpf's btf_dump_type_order_state)
// and of the emission (btf_dump_type_emit_state).
const (
	notOrdered uint8 = iota
	ordering
	ordered
)

const (
	notEmitted uint8 = iota
	emitting
	emitted
)

// Per-type flags.
const (
	fwdEmitted   uint8 = 1 << iota // a forward declaration (or typedef) was printed
	nameResolved                   // the type's final name is known
	dupName                        // the type is printed as "name___n", n kept in renamed
	referenced                     // some other type refers to this one
)

// tstate is what the dumper remembers about one type: 4 bytes, the
// dumper's only state for each type (the README's memory rule for
// reading commands).
type tstate struct {
	order uint8
	emit  uint8
	flags uint8
	align uint8 // memoized alignment + 1; 0 until computed
}

// dumper holds the state of one Write.
type dumper struct {
	ctx     context.Context // checked by poll
	spec    *btf.Spec
	recs    records  // type records by id
	n       int      // number of ids, void included
	strs    strSpace // the string sections of the Spec chain
	st      []tstate // by id
	ptrSize int64

	// Occurrences of each name: struct, union and enum tags in typeNames,
	// typedef names and enumerators (which share C's ordinary identifier
	// namespace) in identNames. renamed keeps the n of the types printed
	// as "name___n".
	typeNames  nameCounts
	identNames nameCounts
	renamed    renames

	queue []btf.TypeID // types to emit for the current root, in order

	memo *sortMemo // while sorting
	// memoFrom is the depth from which the sort's walks use the memo: 0
	// with a dense memo, leanDepth with a cache (merge.go).
	memoFrom int

	decls []btf.TypeID // shared stack of declaration chains

	plain    bool  // a Namer's dumper: own names, anonymous types abbreviated
	v75      bool  // bpftool 7.5's output (libbpf 1.5), not 7.1's
	depth    int   // current depth of emitType and emitTypeDecl recursion
	steps    int   // calls of order, emitType and emitTypeDecl so far
	maxSteps int   // the limit of steps, see ErrTooComplex
	err      error // first error found while emitting
	o        out
}

// newDumper reads the records of s and prepares the state of a Write to w.
func newDumper(ctx context.Context, w io.Writer, s *btf.Spec) (*dumper, error) {
	d, err := newDeclDumper(ctx, w, s)
	if err != nil {
		return nil, err
	}
	d.st[0].order = ordered
	d.st[0].emit = emitted
	tags, idents, err := d.markReferenced()
	if err != nil {
		return nil, err
	}
	d.typeNames = newNameCounts(d.nameLimit(tags, true))
	d.identNames = newNameCounts(d.nameLimit(idents, false))
	return d, nil
}

// newDeclDumper prepares what printing declarations needs: the records,
// the names, the per-type state. Write's dumper and a Namer's share it.
func newDeclDumper(ctx context.Context, w io.Writer, s *btf.Spec) (*dumper, error) {
	recs, err := loadRecords(ctx, s)
	if err != nil {
		return nil, err
	}
	n := int(s.LastID()) + 1
	d := &dumper{
		ctx:     ctx,
		spec:    s,
		recs:    recs,
		n:       n,
		strs:    newStrtab(s),
		st:      make([]tstate, n),
		renamed: renames{types: n},
		o:       newOut(w),
	}
	d.ptrSize = d.pointerSize()
	d.maxSteps = stepsPerType*n + 1<<20
	return d, nil
}

// pollMask makes the walks over every type check the context once every
// pollMask+1 types: often enough to stop promptly, seldom enough to cost
// nothing that a benchmark sees.
const pollMask = 1<<12 - 1

// poll returns the context's error, wrapped, when it is done; it checks
// only when i is a multiple of pollMask+1.
func poll(ctx context.Context, i int) error {
	if i&pollMask != 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return pkgerr.Errorf("cdump: %w", err)
	}
	return nil
}

// poll is the package's poll with d's context.
func (d *dumper) poll(i int) error { return poll(d.ctx, i) }

// stepsPerType sets the step limit (ErrTooComplex); real kernels take 2 or
// 3 steps per type, and 4 or 5 more to sort them (6.18.44: 4.6).
const stepsPerType = 64

// step counts one step of the walk and reports whether the limit allows it.
func (d *dumper) step(id btf.TypeID) bool {
	d.steps++
	if d.steps <= d.maxSteps {
		return true
	}
	if d.err == nil {
		d.err = pkgerr.Errorf("cdump: %s: %w", d.describe(id), ErrTooComplex)
	}
	return false
}

// longNames are the spellings of "long" that libbpf's determine_ptr_size
// looks for.
var longNames = []string{"long", "long int", "int long", "unsigned long",
	"long unsigned", "unsigned long int", "unsigned int long", "long unsigned int",
	"long int unsigned", "int unsigned long", "int long unsigned"}

// pointerSize is the size of the first INT named like "long" with a size of
// 4 or 8, or 8, as libbpf computes it.
func (d *dumper) pointerSize() int64 {
	for id := 1; id < d.n; id++ {
		r := d.recs.get(btf.TypeID(id))
		if r.Kind() != wire.KindInt || (r.SizeType() != 4 && r.SizeType() != 8) {
			continue
		}
		name := d.strs.name(r.NameOff())
		for _, l := range longNames {
			if string(name) == l {
				return int64(r.SizeType())
			}
		}
	}
	return 8
}

// typ returns the record of type id; nil (void) for an id out of range,
// which btf.Parse does not let through.
func (d *dumper) typ(id btf.TypeID) wire.Record { return d.recs.get(id) }

// name returns the name of type id.
func (d *dumper) name(r wire.Record) []byte { return d.strs.name(r.NameOff()) }

// describe names type id for errors, as btf.Type.String does.
func (d *dumper) describe(id btf.TypeID) string {
	t, err := d.spec.TypeByID(id)
	if err != nil {
		return fmt.Sprintf("type [%d]", id)
	}
	return t.String()
}

// state returns the state of id; out-of-range ids share a scratch entry.
func (d *dumper) state(id btf.TypeID) *tstate {
	if int(id) < len(d.st) {
		return &d.st[id]
	}
	return &tstate{order: ordered, emit: emitted}
}

// markReferenced flags every type that another type refers to, as libbpf's
// btf_dump_mark_referenced does: an anonymous enum that nothing refers to is
// a top-level declaration of constants, one that is referred to is printed
// inline where it is used. (As in libbpf, a FUNC_PROTO's return type does not
// count.) It also returns how many names can be counted in typeNames and
// in identNames.
func (d *dumper) markReferenced() (tags, idents int, err error) {
	ref := func(id uint32) { d.state(btf.TypeID(id)).flags |= referenced }
	for id := 1; id < d.n; id++ {
		if err := d.poll(id); err != nil {
			return 0, 0, err
		}
		r := d.recs.get(btf.TypeID(id))
		switch r.Kind() {
		case wire.KindInt:
			tags++
		case wire.KindEnum, wire.KindEnum64:
			tags++
			idents += r.Vlen()
		case wire.KindForward, wire.KindFloat:
		case wire.KindTypedef:
			idents++
			ref(r.SizeType())
		case wire.KindVolatile, wire.KindConst, wire.KindRestrict, wire.KindPointer,
			wire.KindFunc, wire.KindVar, wire.KindDeclTag, wire.KindTypeTag:
			ref(r.SizeType())
		case wire.KindArray:
			elem, index, _ := r.Array()
			ref(index)
			ref(elem)
		case wire.KindStruct, wire.KindUnion:
			tags++
			for i := range r.Vlen() {
				ref(r.MemberType(i))
			}
		case wire.KindFuncProto:
			for i := range r.Vlen() {
				ref(r.ParamType(i))
			}
		case wire.KindDatasec:
			for i := range r.Vlen() {
				typ, _, _ := r.Secinfo(i)
				ref(typ)
			}
		default:
			return 0, 0, fmt.Errorf("cdump: %s: unsupported kind %v", d.describe(btf.TypeID(id)), btf.Kind(r.Kind()))
		}
	}
	return tags, idents, nil
}

// manyNames is the count of names past which nameLimit looks for the
// distinct ones: a table for that many is 1.4 MB.
const manyNames = 1 << 17

// nameLimit returns the size of the name table (typeNames with tags,
// identNames without) for uses names: sized for every one, so that it
// never grows, unless they are many; then no larger than twice their
// distinct string offsets (which are at least as many as the distinct
// names), where many types share a few names (enums that repeat the same
// values, structs of one name). A kernel's tables are sized for every use:
// under 3/4 full, which the probes need.
func (d *dumper) nameLimit(uses int, tags bool) int {
	if uses <= manyNames {
		return uses
	}
	var end uint32
	for _, sec := range d.strs.Chain {
		end = max(end, sec.Start+uint32(len(sec.Data)))
	}
	set := offsetSet{bits: make([]uint64, end/64+1)}
	for id := 1; id < d.n; id++ {
		r := d.recs.get(btf.TypeID(id))
		switch k := r.Kind(); {
		case tags && (k == wire.KindInt || k == wire.KindEnum || k == wire.KindEnum64 ||
			k == wire.KindStruct || k == wire.KindUnion):
			set.add(r.NameOff())
		case !tags && k == wire.KindTypedef:
			set.add(r.NameOff())
		case !tags && (k == wire.KindEnum || k == wire.KindEnum64):
			for i := range r.Vlen() {
				off, _ := r.Enum(i)
				set.add(off)
			}
		}
	}
	return min(uses, 2*set.n)
}

// offsetSet counts the distinct string offsets added to it, a bit for
// each byte of the string space.
type offsetSet struct {
	bits []uint64
	n    int
}

// add adds off, unless it is 0 (no name, which resolveName does not count).
func (s *offsetSet) add(off uint32) {
	if off == 0 || int(off/64) >= len(s.bits) {
		return
	}
	if w, b := &s.bits[off/64], uint64(1)<<(off%64); *w&b == 0 {
		*w |= b
		s.n++
	}
}

// dumpType prints the type id and every type it needs that has not been
// printed yet, as libbpf's btf_dump__dump_type does.
func (d *dumper) dumpType(id btf.TypeID) error {
	d.queue = d.queue[:0]
	if _, err := d.order(id, false, 0); err != nil {
		return err
	}
	for _, q := range d.queue {
		d.emitType(q, 0)
		if d.err != nil {
			return d.err
		}
		if d.o.err != nil {
			return pkgerr.Errorf("cdump: %w", d.o.err)
		}
	}
	return nil
}

// failDeep records the first emission error, for a walk from id that went
// deeper than maxDepth (see deepError).
func (d *dumper) failDeep(id btf.TypeID, what string) {
	if d.err == nil {
		d.err = d.deepError(id, what)
	}
}
