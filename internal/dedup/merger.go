package dedup

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"runtime"
	"slices"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/mmap"
)

// isLittle reports whether bo writes little-endian.
func isLittle(bo binary.ByteOrder) bool { return bo.Uint16([]byte{1, 0}) == 1 }

// ErrDone is returned by a Merger used after Dedup.
var ErrDone error = DoneError{}

// DoneError is ErrDone's type. A comparable value, so that btf/dedup's
// ErrDone can be the same error without an init function copying it
// (cmd/kmeta/BENCH.md).
type DoneError struct{}

func (DoneError) Error() string { return "dedup: Merger already deduplicated" }

// Merger appends BTF inputs into one BTF and deduplicates it once, as
// libbpf's btf__add_btf for each input followed by btf__dedup. Inputs keep
// their order: the types of the first come first. With a Base the result
// is split BTF on it; without, it is standalone.
//
// A Merger is not safe for concurrent use; it may be used once.
type Merger struct {
	base *Base
	d    *state
	seed maphash.Seed // of the strings' hashes (Prepare)
	pool prepPool     // Prepared buffers, reused
	src  builderSource
	// freed gives d's mappings back if the Merger is dropped before
	// Dedup; Dedup gives them back itself and stops it.
	freed runtime.Cleanup
	// maxRef is the largest id a Builder's record refers to; Builders
	// allow references to types not added yet, so it is checked by Dedup.
	maxRef uint32
	done   bool
}

// New returns an empty Merger whose output is split BTF on base, or
// standalone BTF if base is nil. It deduplicates by the rules of
// opts.Compat; its Dedup works on the calling goroutine unless
// opts.Workers allows more.
func New(base *Base, opts Options) *Merger {
	m := &Merger{base: base, d: newState(base)}
	m.d.workers = opts.workers()
	m.d.compat = opts.Compat
	m.seed = m.d.strs.Own.Seed()
	m.d.recs.mem = &recMem{}
	// The records, strings and tables are in mappings (recmem.go), given
	// back by Dedup, or here if the Merger is dropped before.
	m.freed = runtime.AddCleanup(m, (*state).free, m.d)
	return m
}

// NumTypes returns the number of types appended so far.
func (m *Merger) NumTypes() int { return int(m.d.n()) }

// AddSpec appends the own types of s. s is standalone BTF (its ids are
// renumbered after the types already appended), or split BTF on the
// Merger's base Spec (its references to base types stay as they are). The
// records are copied: s may be closed once AddSpec returns. AddSpec is
// Prepare, without a context, then AddPrepared: use those two to stop
// appending a large input.
func (m *Merger) AddSpec(s *btf.Spec) error {
	if m.done {
		return ErrDone
	}
	p, err := m.Prepare(context.Background(), s)
	if err != nil {
		return err
	}
	return m.AddPrepared(p)
}

// reserve makes room for words more words and n more records, growing
// geometrically so that many small inputs cost linear time.
func (rs *records) reserve(words, n int) {
	if rs.mem != nil {
		rs.w = growMapped(rs.w, words, &rs.mem.w)
		rs.off.rel = growMapped(rs.off.rel, n, &rs.mem.off)
		mmap.Cover(rs.w, rs.mem.w, len(rs.w)+words)
		mmap.Cover(rs.off.rel, rs.mem.off, len(rs.off.rel)+n)
		return
	}
	if cap(rs.w)-len(rs.w) < words {
		rs.w = slices.Grow(rs.w, max(words, len(rs.w)))
	}
	if cap(rs.off.rel)-len(rs.off.rel) < n {
		rs.off.rel = slices.Grow(rs.off.rel, max(n, len(rs.off.rel)))
	}
}

// Dedup deduplicates what was appended and returns it as raw BTF, written
// as opts says (builder.Options: byte order, layout section). Afterwards
// the Merger can only be discarded.
func (m *Merger) Dedup(opts builder.Options) ([]byte, error) {
	return m.DedupContext(context.Background(), opts)
}

// DedupContext is Dedup that stops, within milliseconds, with an error
// wrapping the context's cause once ctx is done.
func (m *Merger) DedupContext(ctx context.Context, opts builder.Options) ([]byte, error) {
	var raw []byte
	err := m.dedup(ctx, func() (err error) {
		raw, err = m.d.write()
		return err
	})
	if err != nil {
		return nil, err
	}
	if asIs(opts) {
		// Written as asked already.
		return raw, nil
	}
	var buf bytes.Buffer
	if err := m.rewrite(&buf, raw, opts); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// rewrite writes raw, the output as the deduplication made it, to w as
// opts ask (byte order, layout section): its records and string section
// as they are (builder.WriteAsIs), as libbpf's btf__raw_data writes the
// deduplicated BTF. A Builder would give the same bytes
// (TestOptionsKeepStrings) but holds ids to the kernel's limit, which
// libbpf's output is not.
func (m *Merger) rewrite(w io.Writer, raw []byte, opts builder.Options) error {
	s, base, err := m.parseOutput(raw)
	if err != nil {
		return err
	}
	defer s.Close()
	return builder.WriteAsIs(w, s, base, opts)
}

// parseOutput parses raw, the output, on the Merger's base, and returns
// it and the base's Spec (nil without a base).
func (m *Merger) parseOutput(raw []byte) (s, base *btf.Spec, err error) {
	if m.base != nil {
		base = m.base.spec
	}
	if s, err = btf.Parse(raw, btf.Options{Base: base}); err != nil {
		return nil, nil, fmt.Errorf("dedup: own output: %w", err)
	}
	return s, base, nil
}

// DedupTo is DedupContext that writes the output to w as it makes it,
// instead of returning it: in the host's byte order without a layout
// section (the output DedupContext returns as it makes it) the output is
// never held whole, only a buffer of it at a time. If it fails, part of
// the output may have been written; a writer that must not leave half
// an output (a file) writes to a temporary one.
func (m *Merger) DedupTo(ctx context.Context, w io.Writer, opts builder.Options) error {
	if !asIs(opts) {
		raw, err := m.DedupContext(ctx, builder.Options{})
		if err != nil {
			return err
		}
		return m.rewrite(w, raw, opts)
	}
	return m.dedup(ctx, func() error { return m.d.writeTo(w) })
}

// asIs reports whether opts ask for the output as the deduplication
// writes it: the host's byte order, no layout section.
func asIs(opts builder.Options) bool {
	return !opts.Layout && (opts.ByteOrder == nil || isLittle(opts.ByteOrder) == isLittle(binary.NativeEndian))
}

// dedup runs the deduplication under ctx, then out, which writes its
// output, and frees the Merger's state.
func (m *Merger) dedup(ctx context.Context, out func() error) error {
	if m.done {
		return ErrDone
	}
	m.done = true
	m.d.ctx = ctx
	// What only further inputs would need goes before the deduplication
	// allocates its state.
	m.src = builderSource{}
	m.pool.close()
	// Names are keys by now: the index of the own strings is not needed.
	m.d.strs.Own.FreeIndex()
	// So are the base's: its string pages, resident since the inputs'
	// names were checked or looked up, are read again only if
	// something compares a name's bytes.
	if m.d.base != nil {
		m.d.base.evictStrings()
	}
	err := m.checkMaxRef()
	if err == nil && m.d.canceled() { // done before it starts
		err = m.d.err
	}
	if err == nil {
		err = m.d.run()
	}
	// The output takes the place of what only the passes needed.
	m.d.freeScratch()
	if err == nil {
		err = out()
	}
	m.d.release()
	m.d.free()
	// A cleanup's argument stays reachable until the cleanup runs, a
	// collection after the Merger's own: the state's heap (its small
	// arrays, the reference pass's stack) would outlive the Merger by a
	// collection. Many small deduplications in a row (btf dedup --each)
	// kept those of every Merger since the last collection live, twice
	// the heap they need (BENCH.md, "Many Mergers in a row").
	m.freed.Stop()
	if err == nil {
		m.d = nil
	}
	return err
}

// Builder deduplicates what was appended and returns it in a Builder, with
// the ids the raw output has, ready for more types or for marshalling. A
// Builder holds ids to the kernel's limit (builder.ErrTooManyTypes past
// it), where Dedup writes libbpf's output of any size.
func (m *Merger) Builder() (*builder.Builder, error) {
	raw, err := m.Dedup(builder.Options{})
	if err != nil {
		return nil, err
	}
	return m.toBuilder(raw)
}

func (m *Merger) toBuilder(raw []byte) (*builder.Builder, error) {
	s, base, err := m.parseOutput(raw)
	if err != nil {
		return nil, err
	}
	b, err := builder.NewSplit(base)
	if err != nil {
		return nil, err
	}
	// The strings first, in their order: libbpf's section keeps a string
	// whose first user was dropped where it was, and a Builder given only
	// the types would lay them out in the order the kept types use them.
	strs, _ := s.StringSection()
	for str := range bytes.SplitSeq(strs, []byte{0}) {
		if _, err := b.AddString(string(str)); err != nil {
			return nil, err
		}
	}
	if err := b.CopyAll(s); err != nil {
		return nil, err
	}
	return b, nil
}

// Specs appends specs in order (see Merger.AddSpec) and deduplicates them
// once, returning raw BTF in host byte order: split on base, or standalone
// if base is nil.
func Specs(base *Base, specs ...*btf.Spec) ([]byte, error) {
	m := New(base, Options{})
	words, n, strs := 0, 0, 0
	for _, s := range specs {
		words += len(s.TypeSection()) / 4
		n += s.NumTypes()
		sec, _ := s.StringSection()
		strs += len(sec)
	}
	m.d.recs.reserve(words, n)
	m.d.strs.Own.Reserve(strs / 32) // most module strings are in the base or repeat
	for _, s := range specs {
		if err := m.AddSpec(s); err != nil {
			return nil, err
		}
	}
	return m.Dedup(builder.Options{})
}

// Marshal deduplicates the types of b and marshals them as b.Marshal(opts)
// would: Builder output made canonical, as pahole and libbpf write BTF.
// base, if not nil, must be made from b's base Spec; if b is split and base
// is nil, a Base is made for this call.
func Marshal(b *builder.Builder, base *Base, opts builder.Options) ([]byte, error) {
	if base == nil && b.Base() != nil {
		var err error
		if base, err = NewBase(b.Base(), Options{}); err != nil {
			return nil, err
		}
	}
	m := New(base, Options{})
	if err := m.AddBuilder(b); err != nil {
		return nil, err
	}
	return m.Dedup(opts)
}
