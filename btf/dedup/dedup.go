package dedup

import (
	"context"
	"io"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

// ErrDone is returned by a Merger used after Dedup.
var ErrDone error = dedup.DoneError{}

// Options tune NewBase and New. The zero value deduplicates as libbpf 1.8
// does, on the calling goroutine.
type Options struct {
	// Workers is how many goroutines a call may use for the work that
	// does not depend on order: a Base's signatures and string index, and
	// the signatures a deduplication files structs and typedefs under.
	// What libbpf does in order (which candidate is canonical, the output
	// order) stays on the calling goroutine, so the result is the same for
	// any number. 0 and 1 use the calling goroutine alone.
	Workers int
	// Compat is the libbpf version whose deduplication a Merger
	// reproduces where versions differ; the zero value is
	// CompatLibbpf18. NewBase ignores it: a Base serves Mergers of any
	// Compat.
	Compat Compat
}

func (o Options) engine() dedup.Options {
	return dedup.Options{Workers: o.Workers, Compat: dedup.Compat(o.Compat)}
}

// Compat names a libbpf version whose deduplication a Merger reproduces
// where versions differ, chosen by Options.Compat.
//
// Its values are CompatLibbpf18 (the zero value) and CompatLibbpf11.
type Compat int

const (
	// CompatLibbpf18 is libbpf 1.8's deduplication, the default.
	CompatLibbpf18 Compat = Compat(dedup.CompatLibbpf18)
	// CompatLibbpf11 is libbpf 1.1's, which Debian 12's pahole 1.24 links,
	// and also the rule of libbpf 1.2 to 1.5 (Debian 13's pahole 1.30):
	// when the hypothetical map already pairs a canonical type with
	// another candidate, the two count as the same only if they are
	// arrays equal word for word or structs or unions equal but for
	// member types that are, in turn, the same (libbpf 1.1's
	// btf_dedup_identical_arrays and btf_dedup_identical_structs); libbpf
	// 1.8 compares any two types structurally (btf_dedup_identical_types).
	CompatLibbpf11 Compat = Compat(dedup.CompatLibbpf11)
)

// String returns c's name as ParseCompat reads it: "libbpf-1.8" or
// "libbpf-1.1".
func (c Compat) String() string { return dedup.Compat(c).String() }

// ParseCompat returns the Compat that String names s.
func ParseCompat(s string) (Compat, error) {
	c, err := dedup.ParseCompat(s)
	return Compat(c), err
}

// Base is a base BTF (vmlinux, for module BTF) prepared for deduplicating
// split BTF on it, as libbpf's btf__dedup prepares the base of a split BTF
// each time, done here once: its types' hashes, its string index and the
// names that resolve forward declarations.
//
// Deduplication against a Base never changes the base: split types equal
// to base types are replaced by references to them.
type Base struct {
	b *dedup.Base
}

// NewBase prepares spec, and the bases below it if any, as the base of split
// deduplications. The Spec must stay open while the Base is used: the Base
// reads its records and strings where the Spec holds them. A kind that
// deduplication does not know gives an error, as in libbpf.
// NewBase works on the calling goroutine unless opts.Workers allows more.
func NewBase(spec *btf.Spec, opts Options) (*Base, error) {
	b, err := dedup.NewBase(spec, opts.engine())
	if err != nil {
		return nil, err
	}
	return &Base{b}, nil
}

// Spec returns the Spec the Base was made from.
func (b *Base) Spec() *btf.Spec { return b.b.Spec() }

// Held returns the bytes of base records that deduplications on b have
// read and b keeps for the next ones, since NewBase or the last Trim.
func (b *Base) Held() int { return b.b.PagesHeld() }

// Trim gives back what Held counts: the next deduplications read those
// records again. No deduplication on b may run meanwhile. A loop over
// many split inputs calls it between them, so that it never holds more
// than a budget beyond what its largest input reads.
func (b *Base) Trim() { b.b.DropPages() }

func (b *Base) engine() *dedup.Base {
	if b == nil {
		return nil
	}
	return b.b
}

// Merger appends BTF inputs into one BTF and deduplicates it once, as
// libbpf's btf__add_btf for each input followed by btf__dedup. Inputs keep
// their order: the types of the first come first. With a Base the result
// is split BTF on it; without, it is standalone.
//
// A Merger is not safe for concurrent use; it may be used once.
type Merger struct {
	m *dedup.Merger
}

// New returns an empty Merger whose output is split BTF on base, or
// standalone BTF if base is nil. It deduplicates by the rules of
// opts.Compat; its Dedup works on the calling goroutine unless
// opts.Workers allows more.
func New(base *Base, opts Options) *Merger {
	return &Merger{dedup.New(base.engine(), opts.engine())}
}

// AddSpec appends the own types of s. s is standalone BTF (its ids are
// renumbered after the types already appended), or split BTF on the
// Merger's base Spec (its references to base types stay as they are). The
// records are copied: s may be closed once AddSpec returns. AddSpec is
// Prepare, without a context, then AddPrepared: use those two to stop
// appending a large input.
func (m *Merger) AddSpec(s *btf.Spec) error { return m.m.AddSpec(s) }

// AddBuilder appends the types of b that b.Records returns, read straight
// from the Builder's records, without marshalling them. b must be
// standalone or split on the Merger's base Spec. b may go on growing
// afterwards; when only its new types are wanted, b.Forget drops those
// appended, and the next AddBuilder of b appends the rest as the
// continuation of the same input: this is how a producer of millions of
// types hands them over without holding them twice. Otherwise each call
// appends all of b's types as a new input.
//
// A Builder may refer to ids it has not added yet; Dedup reports an error
// if one was never added.
func (m *Merger) AddBuilder(b *builder.Builder) error { return m.m.AddBuilder(b) }

// Prepared is an input that Merger.Prepare made ready for AddPrepared.
type Prepared struct {
	p *dedup.Prepared
}

// Prepare does the part of AddSpec that does not depend on the inputs
// appended before s (it checks and copies the records of s, and looks its
// names up in the base's strings), so that it can run on other goroutines
// while earlier inputs are appended in order with AddPrepared. Appending
// many modules this way spreads most of the appending over every core;
// the output is the same as with AddSpec, byte for byte. s may be closed
// once Prepare returns.
//
// Prepare stops, with an error wrapping the context's cause, within
// milliseconds once ctx is done. Unlike the Merger's other methods, it is
// safe for concurrent use, with itself and with them.
func (m *Merger) Prepare(ctx context.Context, s *btf.Spec) (*Prepared, error) {
	p, err := m.m.Prepare(ctx, s)
	if err != nil {
		return nil, err
	}
	return &Prepared{p: p}, nil
}

// PrepareClose is Prepare, then s.Close, whatever the result. Since
// nothing reads s afterwards, a large Spec that holds its data in memory
// of its own (what a compressed file or section inflated to, a stream
// read whole) gives it back as it is read, so that the
// input and the copy of its records are not held whole at once, as for a
// mapped file. Like Prepare, it is safe for concurrent use.
func (m *Merger) PrepareClose(ctx context.Context, s *btf.Spec) (*Prepared, error) {
	p, err := m.m.PrepareClose(ctx, s)
	if err != nil {
		return nil, err
	}
	return &Prepared{p: p}, nil
}

// AddPrepared appends an input that Prepare made ready, as AddSpec would
// have appended it. On error nothing is appended. Either way p must not be
// used afterwards: its buffers serve a later Prepare.
func (m *Merger) AddPrepared(p *Prepared) error { return m.m.AddPrepared(p.p) }

// NumTypes returns the number of types appended so far.
func (m *Merger) NumTypes() int { return m.m.NumTypes() }

// Dedup deduplicates what was appended and returns it as raw BTF, written
// as opts says (builder.Options: byte order, layout section). Afterwards
// the Merger can only be discarded.
func (m *Merger) Dedup(opts builder.Options) ([]byte, error) { return m.m.Dedup(opts) }

// DedupContext is Dedup that stops, within milliseconds, with an error
// wrapping the context's cause once ctx is done.
func (m *Merger) DedupContext(ctx context.Context, opts builder.Options) ([]byte, error) {
	return m.m.DedupContext(ctx, opts)
}

// DedupTo is DedupContext that writes the output to w instead of
// returning it. In the host's byte order without a layout section it is
// written as it is made, a buffer at a time, and never held whole. If
// it fails, part of the output may have been written.
func (m *Merger) DedupTo(ctx context.Context, w io.Writer, opts builder.Options) error {
	return m.m.DedupTo(ctx, w, opts)
}

// Specs appends specs in order (see Merger.AddSpec) and deduplicates them
// once, returning raw BTF in host byte order: split on base, or standalone
// if base is nil.
func Specs(base *Base, specs ...*btf.Spec) ([]byte, error) {
	return dedup.Specs(base.engine(), specs...)
}

// Marshal deduplicates the types of b and marshals them as b.Marshal(opts)
// would: Builder output made canonical, as pahole and libbpf write BTF.
// base, if not nil, must be made from b's base Spec; if b is split and base
// is nil, a Base is made for this call.
func Marshal(b *builder.Builder, base *Base, opts builder.Options) ([]byte, error) {
	return dedup.Marshal(b, base.engine(), opts)
}
