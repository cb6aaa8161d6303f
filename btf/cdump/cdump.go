package cdump

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// Options select what Write prints.
type Options struct {
	// Types, if not empty, limits the header to these types and the types
	// they need. A name may carry a kind prefix ("struct sock", "union
	// bpf_attr", "enum bpf_cmd", "typedef u32"); without one, every type of
	// that name is printed, definitions being preferred over forward
	// declarations. When no type has that name, a FUNC or VAR name prints
	// the types of the function's return value and parameters, or of the
	// variable, with full definitions even of the types they use through
	// pointers. An unknown name makes Write fail with an error wrapping
	// btf.ErrNotFound, before anything is written. A header limited to
	// some types has no kfunc block.
	Types []string
	// IDs, if not empty, limits the header to the types with these ids and
	// the types they need, in this order (after those of Types), as
	// libbpf's btf_dump__dump_type prints them one root at a time: this is
	// what "bpftool btf dump map" prints for a map's key and value. Id 0
	// (void) prints nothing; an id past the last type makes Write fail with
	// an error wrapping btf.ErrNotFound, before anything is written.
	IDs []btf.TypeID

	// Unsorted prints the types in the order of their ids, as bpftool 7.5's
	// "format c unsorted" does, instead of sorted by name. Headers limited
	// by Types or IDs keep the order given there, sorted or not.
	Unsorted bool

	// Compat chooses the tool whose output Write reproduces: bpftool 7.5
	// (the zero value, CompatBpftool75) or an older one (see Compat).
	Compat Compat
}

// bpftoolSort are switches of Write for tests only (see export_test.go):
// skipFirst leaves out the type that sorts first, as bpftool 7.5 does;
// sortAll sorts every type, also those that print nothing; chunkBits, if
// not 0, merges sorted chunks of 2^chunkBits ids whatever the size.
type bpftoolSort struct {
	skipFirst, sortAll bool
	chunkBits          int
}

// Compat names an earlier tool whose C header Write can reproduce byte for
// byte.
//
// Its values are CompatBpftool75 (the zero value, this package's reference)
// and CompatBpftool71.
type Compat int

const (
	// CompatBpftool75 prints what Debian 13's bpftool 7.5 prints (the
	// default).
	CompatBpftool75 Compat = iota
	// CompatBpftool71 prints what Debian 12's bpftool 7.1 (libbpf 1.1 of
	// Linux 6.1) prints: the types in id order, without the __ksym and
	// __weak macros, the kfunc prototypes and the mode(byte) and
	// mode(word) attributes of 1- and 8-byte enums. Options.Unsorted
	// changes nothing in this mode.
	CompatBpftool71
)

// compatNames are the spellings of Compat that ParseCompat accepts.
var compatNames = [...]string{CompatBpftool75: "bpftool-7.5", CompatBpftool71: "bpftool-7.1"}

// String returns the name of c that ParseCompat accepts.
func (c Compat) String() string {
	if c >= 0 && int(c) < len(compatNames) {
		return compatNames[c]
	}
	return fmt.Sprintf("Compat(%d)", int(c))
}

// ParseCompat returns the Compat named name: "bpftool-7.1", or
// "bpftool-7.5" (and "") for the default.
func ParseCompat(name string) (Compat, error) {
	if name == "" {
		return CompatBpftool75, nil
	}
	for c, n := range compatNames {
		if n == name {
			return Compat(c), nil
		}
	}
	return CompatBpftool75, fmt.Errorf("cdump: unknown compatibility mode %q (want bpftool-7.1 or bpftool-7.5)", name)
}

// ErrTypeCycle is wrapped by the errors of Write for BTF whose types cannot
// be ordered as C requires: a struct containing itself, an anonymous struct
// reached from itself, a cycle of typedefs or qualifiers.
var ErrTypeCycle = errors.New("cdump: unsatisfiable type cycle")

// ErrTooDeep is wrapped by the errors of Write for BTF whose types nest,
// without a cycle, deeper than maxDepth levels: deeper than any C compiler
// accepts, and than the walk's recursion allows.
// The number is maxDepth, written out so that the error is laid out by
// the compiler rather than made by an init function (TestErrTooDeep).
var ErrTooDeep = errors.New("cdump: types nest deeper than 2048 levels")

// ErrTooComplex is wrapped by the errors of Write for BTF whose type graph
// would take too long to walk: prototypes and arrays are visited once per
// path that reaches them, and a crafted graph can have exponentially many
// paths; the sort of the default output walks chains of typedefs and
// qualifiers once per type that leads into them. Real kernels need about 3
// steps per type, 8 with the sort; the limit is far above.
var ErrTooComplex = errors.New("cdump: type graph too complex")

// ErrHugePadding is wrapped by the errors of Write for a struct whose
// members leave more than 1 MiB between them, or after the last one, as a
// struct that claims a size of gigabytes does: bpftool prints such padding
// as one line for every 8 bytes.
var ErrHugePadding = errors.New("cdump: struct padding too large to print")

// maxDepth bounds the recursion through the type graph. Real kernels need
// a few dozen levels; hostile BTF could otherwise exhaust the stack.
const maxDepth = 2048

const header = `#ifndef __VMLINUX_H__
#define __VMLINUX_H__

#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)
#endif

`

// macros75 is the block that bpftool 7.5 prints after the header, for the
// kfunc prototypes.
const macros75 = `#ifndef __ksym
#define __ksym __attribute__((section(".ksyms")))
#endif

#ifndef __weak
#define __weak __attribute__((weak))
#endif

`

const footer = `#ifndef BPF_NO_PRESERVE_ACCESS_INDEX
#pragma clang attribute pop
#endif

#endif /* __VMLINUX_H__ */
`

// Write prints s as a C header to w, as bpftool 7.5's "btf dump file ...
// format c" does (bpftool's dump_btf_c): for split BTF, the base types come
// first, as with "bpftool -B". With opts.Types it prints a mini header with
// only those types and what they need. See the package documentation for
// the order of the types, and for the one way the output differs from
// bpftool 7.5's.
//
// Output goes through a buffer of its own, flushed as it fills and at the
// end; w need not be buffered. On error, what was printed so far has been
// written, without the footer, as bpftool does. The Spec must stay open
// while Write runs; several Writes may share it.
func Write(w io.Writer, s *btf.Spec, opts Options) error {
	return write(context.Background(), w, s, opts, bpftoolSort{})
}

// WriteContext is Write, stopped by ctx: its walks over the types check
// ctx every few thousand types, and it returns ctx's error, wrapped, once
// ctx is done.
func WriteContext(ctx context.Context, w io.Writer, s *btf.Spec, opts Options) error {
	return write(ctx, w, s, opts, bpftoolSort{})
}

// write is WriteContext with the test-only switches of st.
func write(ctx context.Context, w io.Writer, s *btf.Spec, opts Options, st bpftoolSort) error {
	if s == nil {
		return errors.New("cdump: nil Spec")
	}
	if _, err := s.TypeByID(0); err != nil {
		return pkgerr.Errorf("cdump: %w", err)
	}
	if opts.Compat != CompatBpftool75 && opts.Compat != CompatBpftool71 {
		return fmt.Errorf("cdump: unknown compatibility mode %v", opts.Compat)
	}
	var roots []btf.TypeID
	if len(opts.Types) > 0 {
		var err error
		if roots, err = findRoots(s, opts.Types); err != nil {
			return err
		}
	}
	for _, id := range opts.IDs {
		if id > s.LastID() {
			return pkgerr.Errorf("cdump: type id %d: %w", id, btf.ErrNotFound)
		}
		roots = append(roots, id)
	}
	d, err := newDumper(ctx, w, s)
	if err != nil {
		return err
	}
	d.v75 = opts.Compat == CompatBpftool75
	var order *typeOrder
	if roots == nil && d.v75 && !opts.Unsorted {
		// Sorting every type, as bpftool does, is needed only to know
		// which one it leaves out.
		if order, err = d.sortedTypes(st.skipFirst || st.sortAll, st.chunkBits); err != nil {
			return err
		}
		if st.skipFirst {
			order.next()
		}
	}
	d.o.str(header)
	if d.v75 {
		d.o.str(macros75)
	}
	switch {
	case roots != nil:
		for i, id := range roots {
			if err = d.poll(i); err != nil {
				break
			}
			if err = d.dumpType(id); err != nil {
				break
			}
		}
	case order != nil:
		for id, ok := order.next(); ok; id, ok = order.next() {
			if id == 0 {
				continue // void: nothing to print
			}
			if err = d.poll(int(id)); err != nil {
				break
			}
			if err = d.dumpType(id); err != nil {
				break
			}
		}
		if err == nil && d.err != nil {
			err = d.err // the merge's walk failed
		}
	default:
		for id := btf.TypeID(1); int(id) < d.n && err == nil; id++ {
			if err = d.poll(int(id)); err == nil {
				err = d.dumpType(id)
			}
		}
	}
	if err == nil && roots == nil && d.v75 {
		err = d.emitKfuncs()
	}
	if err == nil {
		d.o.str(footer)
	}
	if ferr := d.o.flush(); err == nil && ferr != nil {
		err = pkgerr.Errorf("cdump: %w", ferr)
	}
	if _, cerr := s.TypeByID(0); err == nil && cerr != nil {
		// Closed while printing, which btf forbids: report it at least.
		err = pkgerr.Errorf("cdump: %w", cerr)
	}
	return err
}

// findRoots returns the ids of the types named in names, in the order given.
func findRoots(s *btf.Spec, names []string) ([]btf.TypeID, error) {
	var roots []btf.TypeID
	for _, name := range names {
		ids, err := findRoot(s, name)
		if err != nil {
			return nil, err
		}
		roots = append(roots, ids...)
	}
	return roots, nil
}

var kindPrefixes = []struct {
	prefix string
	kinds  []btf.Kind
}{
	{"struct ", []btf.Kind{btf.KindStruct, btf.KindForward}},
	{"union ", []btf.Kind{btf.KindUnion, btf.KindForward}},
	{"enum ", []btf.Kind{btf.KindEnum, btf.KindEnum64}},
	{"typedef ", []btf.Kind{btf.KindTypedef}},
}

// findRoot resolves one name of Options.Types to type ids.
func findRoot(s *btf.Spec, name string) ([]btf.TypeID, error) {
	name = strings.TrimSpace(name)
	var kinds []btf.Kind
	for _, p := range kindPrefixes {
		if rest, ok := strings.CutPrefix(name, p.prefix); ok {
			name, kinds = strings.TrimSpace(rest), p.kinds
			break
		}
	}
	if name == "" {
		return nil, pkgerr.Errorf("cdump: empty type name: %w", btf.ErrNotFound)
	}
	found, err := s.Find(name, btf.FindOptions{})
	if errors.Is(err, btf.ErrNotFound) {
		// It names the type: 'cdump: type "x": btf: type "x": not found'.
		return nil, pkgerr.Errorf("cdump: %w", err)
	}
	if err != nil {
		return nil, pkgerr.Errorf("cdump: type %q: %w", name, err)
	}
	var defs, fwds, others []btf.TypeID
	for _, t := range found {
		k := t.Kind()
		switch {
		case kinds != nil && !hasKind(kinds, k):
		case k == btf.KindForward:
			if kinds == nil || t.IsUnionForward() == (kinds[0] == btf.KindUnion) {
				fwds = append(fwds, t.ID())
			}
		case k == btf.KindFunc || k == btf.KindVar:
			others = append(others, signatureTypes(s, t)...)
		case hasKind(definable, k):
			defs = append(defs, t.ID())
		}
	}
	switch {
	case len(defs) > 0:
		return defs, nil
	case len(fwds) > 0:
		return fwds, nil
	case len(others) > 0 && kinds == nil:
		return others, nil
	}
	return nil, pkgerr.Errorf("cdump: no type named %q: %w", name, btf.ErrNotFound)
}

// signatureTypes returns the types that a FUNC's return value and
// parameters, or a VAR, are made of, without pointers, qualifiers and arrays:
// the types whose definitions one needs to use the function or variable.
func signatureTypes(s *btf.Spec, t btf.Type) []btf.TypeID {
	if t.Kind() == btf.KindVar {
		return []btf.TypeID{baseOf(s, t.Ref())}
	}
	proto, err := s.TypeByID(t.Ref())
	if err != nil || proto.Kind() != btf.KindFuncProto {
		return nil
	}
	ids := []btf.TypeID{baseOf(s, proto.Ref())}
	for _, p := range proto.Params() {
		ids = append(ids, baseOf(s, p.Type))
	}
	return ids
}

// baseOf follows pointers, qualifiers and arrays from id.
func baseOf(s *btf.Spec, id btf.TypeID) btf.TypeID {
	for range maxDepth {
		t, err := s.TypeByID(id)
		if err != nil {
			return 0
		}
		switch t.Kind() {
		case btf.KindPointer, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag:
			id = t.Ref()
		case btf.KindArray:
			id = t.Array().Type
		default:
			return id
		}
	}
	return 0
}

// definable are the kinds that a C header declares by name.
var definable = []btf.Kind{btf.KindStruct, btf.KindUnion, btf.KindEnum, btf.KindEnum64,
	btf.KindTypedef, btf.KindInt, btf.KindFloat}

func hasKind(ks []btf.Kind, k btf.Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}
