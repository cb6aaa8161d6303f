package layout

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// DefaultCacheline is the cacheline size pahole uses on x86-64 and arm64
// machines (it asks sysconf; these answer 64).
const DefaultCacheline = 64

// Options select what Write prints.
type Options struct {
	// Names, if not empty, limits the output to the structs and unions of
	// these names. An unknown name makes Write fail with an error wrapping
	// btf.ErrNotFound before anything is written.
	Names []string

	// Cacheline is the cacheline size in bytes; 0 means DefaultCacheline.
	Cacheline int
}

// printer holds the state of one Write: pahole keeps per-type results
// (holes, inferred packing) from one struct to the next, and what it
// prints for a struct can depend on the structs printed before it.
type printer struct {
	spec      *btf.Spec
	ptrSize   uint32
	cacheline uint32
	classes   map[btf.TypeID]*class // loaded on first use, dropped by trim
	cached    int                   // bytes of classes and members loaded, see trim
	budget    int                   // the bytes trim keeps
	embedded  []uint64              // a bit by id: a member's type, or what its chain leads to
	nodes     []node                // by id, found once
	views     [1024]btf.Type        // the views typ made last, direct-mapped by id: most are asked for again soon (a member's type), and TypeByID walks the Spec's index
	slab      []member              // storage for members, allocated in blocks
	released  *class                // the anonymous struct printed last, if it let go of its members (paddingOf)
	walk      walkStack             // the stack of check and typeNatural
	last      sums                  // the sums of the last top-level struct printed
	steps     int                   // members and names printed so far
	maxSteps  int                   // the limit of steps, see ErrTooComplex
	err       error                 // ErrTooComplex once steps passed maxSteps
	levels    int                   // maxLevels, or jsonLevels for the JSON forms
	protos    int                   // function prototypes on the printer's path, for tooDeep's error
	buf       []byte
	flushed   int                // bytes of output handed to sink
	sink      func([]byte) error // takes the output as it grows, see spill
}

// pos is the position in the output: what was flushed and what is in
// buf. Widths are measured between two positions, so that the output
// can be handed on in the middle of a struct.
func (p *printer) pos() int { return p.flushed + len(p.buf) }

// spill hands the output to the sink when it passes flushAt. It is called
// only where no name is being built in place (at the start of a member),
// so that a struct with many members, or members that expand to many
// lines, takes no more memory than a small one.
func (p *printer) spill() {
	if len(p.buf) < flushAt {
		return
	}
	if p.sink != nil && p.err == nil {
		p.err = p.sink(p.buf)
	}
	p.flushed += len(p.buf)
	p.buf = p.buf[:0]
}

func newPrinter(ctx context.Context, s *btf.Spec, cacheline int) (*printer, error) {
	if s == nil {
		return nil, errors.New("layout: nil Spec")
	}
	if _, err := s.TypeByID(0); err != nil {
		return nil, pkgerr.Errorf("layout: %w", err)
	}
	if cacheline == 0 {
		cacheline = DefaultCacheline
	}
	if cacheline < 0 || cacheline > 1<<16 {
		return nil, fmt.Errorf("layout: cacheline size %d out of range", cacheline)
	}
	nodes := make([]node, s.LastID()+1)
	members := 0
	for id, t := range s.All() {
		if err := poll(ctx, int(id)); err != nil {
			return nil, err
		}
		k := t.Kind()
		nodes[id] = node{kind: k, ref: t.Ref()}
		switch {
		case k == btf.KindForward && t.KindFlag():
			nodes[id].flags = fwdUnion
		case k == btf.KindStruct || k == btf.KindUnion:
			members += t.Vlen()
		}
	}
	if err := s.Err(); err != nil {
		// A lazy Spec's iteration stopped before a record that fails
		// its check: the layouts of the types after it are unknown.
		return nil, pkgerr.Errorf("layout: %w", err)
	}
	markLoops(nodes)
	embedded, err := embeddedTypes(ctx, s, nodes)
	if err != nil {
		return nil, err
	}
	return &printer{
		maxSteps:  stepsPerType*(len(nodes)+members) + 1<<20,
		levels:    maxLevels,
		budget:    cacheBudget(s),
		nodes:     nodes,
		spec:      s,
		ptrSize:   s.KnownPointerSize(),
		cacheline: uint32(cacheline),
		classes:   make(map[btf.TypeID]*class),
		embedded:  embedded,
	}, nil
}

// pollEvery is how many types the walks over every type take between two
// checks of the context (poll).
const pollEvery = 1 << 12

// poll returns ctx's error, wrapped, when i is a multiple of pollEvery and
// ctx is done.
func poll(ctx context.Context, i int) error {
	if i%pollEvery != 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("layout: %w", err)
	}
	return nil
}

// embeddedTypes returns a bit by id set for the types that a struct's or
// union's member has as its type, through typedefs, qualifiers and
// arrays: the classes that printing another struct may load again. The
// others are dropped once printed, so that a BTF of many small structs
// does not keep them all.
func embeddedTypes(ctx context.Context, s *btf.Spec, nodes []node) ([]uint64, error) {
	bits := make([]uint64, (len(nodes)+63)/64)
	for i, n := range nodes {
		if err := poll(ctx, i); err != nil {
			return nil, err
		}
		if n.kind != btf.KindStruct && n.kind != btf.KindUnion {
			continue
		}
		t, _ := s.TypeByID(btf.TypeID(i))
		for _, m := range t.Members() {
			id := m.Type
			for range chainLen(nodes, id) {
				if int(id) >= len(nodes) {
					break
				}
				bits[id/64] |= 1 << (id % 64)
				switch nodes[id].kind {
				case btf.KindTypedef, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag, btf.KindArray:
					id = nodes[id].ref
					continue
				}
				break
			}
		}
	}
	return bits, nil
}

// ErrTooComplex is wrapped by the errors for BTF whose layouts would take
// too long to print: anonymous types that several members share, or that
// contain themselves, are printed in full at each use, and crafted BTF can
// make that exponential. Real kernels take a few steps per type; the limit
// is far above.
var ErrTooComplex = errors.New("layout: type graph too complex")

// stepsPerType sets the step limit of ErrTooComplex: so many for each
// type and member of the input.
const stepsPerType = 64

// The classes loaded are a cache: all a class holds is computed again from
// its record when it is loaded again (what must outlive it is in its
// node). trim drops them all once they take more than the budget, a
// share of the input's bytes but at least minCache, so that a struct of
// many members each of its own anonymous or named type, or many structs
// embedded in others, take memory proportional to the input however they
// are shaped; a kernel's fit.
const (
	minCache    = 2 << 20
	cacheShare  = 4
	classCost   = int(unsafe.Sizeof(class{})) + 32 // the class and its map entry
	memberCost  = int(unsafe.Sizeof(member{}))
	slabMembers = 1024 // members allocated at once; trim starts a new block
)

// trimAlways makes trim drop the classes at every call, for the tests
// that check that nothing a class holds outlives it.
var trimAlways = false

// cacheBudget returns the bytes of classes that trim keeps for s.
func cacheBudget(s *btf.Spec) int {
	if trimAlways {
		return -1
	}
	return max(minCache, int(btfBytes(s)/cacheShare))
}

// trim drops every class loaded if they take more than the budget. It is
// called where no class is being loaded, between members and between
// structs: a class still in use by a caller stays valid (and is loaded
// again if asked for, the same), but is no longer found by id.
func (p *printer) trim() {
	if p.cached <= p.budget {
		return
	}
	clear(p.classes)
	p.cached = 0
	p.slab = nil
}

// btfBytes returns the bytes of the BTF of s and its bases.
func btfBytes(s *btf.Spec) int64 {
	var n int64
	for ; s != nil; s = s.Base() {
		n += int64(s.HeaderLen() + len(s.TypeSection()) + s.StringsLen())
	}
	return n
}

// step counts one member or name printed and reports whether the limit
// allows it.
func (p *printer) step() bool {
	p.steps++
	if p.steps <= p.maxSteps {
		return true
	}
	p.err = ErrTooComplex
	return false
}

// flushAt is the size at which Write hands its buffer to the writer.
const flushAt = 64 << 10

// Write prints the layout of every named struct and union of s to w, byte
// for byte as "pahole -F btf FILE" (pahole 1.24) prints it: in id order,
// each layout once (pahole skips a struct whose name, size and members
// equal one already printed), anonymous types only inside the types that
// embed them. With opts.Names it prints only the types of those names.
//
// ctx is checked between types. The Spec must stay open while Write runs.
func Write(ctx context.Context, w io.Writer, s *btf.Spec, opts Options) error {
	sink := func(b []byte) error {
		_, err := w.Write(b)
		return err
	}
	flush := func(p *printer, _ btf.TypeID, _ *class) error {
		p.spill()
		return p.err
	}
	p, err := run(ctx, s, opts, maxLevels, sink, flush)
	if err != nil {
		return err
	}
	if _, err := w.Write(p.buf); err != nil {
		return pkgerr.Errorf("layout: %w", err)
	}
	return nil
}

// each prints the structs and unions that opts select, one at a time, and
// calls fn after each with what was printed in p.buf, for the JSON forms:
// to jsonLevels. Their text is dropped as it is made.
func each(ctx context.Context, s *btf.Spec, opts Options, fn func(*printer, btf.TypeID, *class) error) error {
	_, err := run(ctx, s, opts, jsonLevels, nil, fn)
	return err
}

// run is each, to levels of nesting, handing the text to sink as it
// grows (nil drops it), and returning the printer for the output left in
// its buffer.
func run(ctx context.Context, s *btf.Spec, opts Options, levels int, sink func([]byte) error, fn func(*printer, btf.TypeID, *class) error) (*printer, error) {
	p, err := newPrinter(ctx, s, opts.Cacheline)
	if err != nil {
		return nil, err
	}
	p.levels = levels
	p.sink = sink
	want, err := wanted(s, opts.Names)
	if err != nil {
		return nil, err
	}
	seen := newPrinted(p)
	p.buf = make([]byte, 0, flushAt+4<<10)
	for i := range p.nodes {
		// Checked for every type, printed or not: a million structs
		// of one layout print once.
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("layout: %w", err)
			}
		}
		id := btf.TypeID(i)
		if k := p.kind(id); k != btf.KindStruct && k != btf.KindUnion {
			continue
		}
		t := p.typ(id)
		if t.NameOffset() == 0 {
			continue
		}
		if want != nil {
			if _, ok := want[string(t.NameBytes())]; !ok {
				continue
			}
		}
		if err := p.check(id, p.maxSteps-p.steps); err != nil {
			return nil, pkgerr.Errorf("layout: %s: %w", t, err)
		}
		c := p.class(id)
		// A layout already printed under its name is not printed; its
		// class is let go as a printed one is, so that many structs of
		// one name hold no more than one. A name offset pointing at an
		// empty string is a name for pahole (1.24 and 1.30 print
		// "struct  {"), as for the tree.
		if !seen.add(p, id, c) {
			p.release(id)
			continue
		}
		p.topLevel(c)
		if errors.Is(p.err, ErrTooComplex) {
			return nil, pkgerr.Errorf("layout: %s: %w", t, p.err)
		} else if p.err != nil {
			return nil, pkgerr.Errorf("layout: %w", p.err)
		}
		if err := fn(p, id, c); err != nil {
			return nil, pkgerr.Errorf("layout: %w", err)
		}
		p.spill() // each's text too: nothing else drops it
		p.release(id)
	}
	return p, nil
}

// release lets go of the class of top-level struct id once it is done
// with: dropped if no other struct loads it, then the cache trimmed.
func (p *printer) release(id btf.TypeID) {
	if !p.isEmbedded(id) {
		p.drop(id)
	}
	p.trim()
}

// isEmbedded reports whether id is a type that a member of a struct or
// union leads to (embeddedTypes): printing another struct may load its
// class again.
func (p *printer) isEmbedded(id btf.TypeID) bool {
	return p.embedded[id/64]&(1<<(id%64)) != 0
}

// wanted returns the set of names, nil for all, or an error for a name that
// no struct or union has.
func wanted(s *btf.Spec, names []string) (map[string]struct{}, error) {
	if len(names) == 0 {
		return nil, nil
	}
	want := make(map[string]struct{}, len(names))
	for _, n := range names {
		n = strings.TrimPrefix(strings.TrimPrefix(n, "struct "), "union ")
		if !hasRecord(s, n) {
			return nil, pkgerr.Errorf("layout: no struct or union %q: %w", n, btf.ErrNotFound)
		}
		want[n] = struct{}{}
	}
	return want, nil
}

// hasRecord reports whether s has a struct or union named name. It stops
// at the first: a name that a million types share holds none of them.
func hasRecord(s *btf.Spec, name string) bool {
	for _, k := range []btf.Kind{btf.KindStruct, btf.KindUnion} {
		for range s.Matches(name, btf.FindOptions{Kind: k}) {
			return true
		}
	}
	return false
}

// topLevel prints a struct or union as pahole's class_formatter does.
func (p *printer) topLevel(c *class) {
	cf := conf{typeSpacing: 26, nameSpacing: 23, emitStats: true}
	if c.union {
		cf.nameSpacing = 21
		p.unionFprintf(c, &cf, 0)
	} else {
		p.findHoles(c)
		p.classFprintf(c, &cf, 0)
	}
	p.str(";\n")
}
