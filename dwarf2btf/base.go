package dwarf2btf

import (
	"fmt"
	"sync"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	engine "github.com/kmeta-dev/kmeta/internal/dedup"
)

// Base is a base BTF (vmlinux) prepared once for encoding any number of
// modules split on it: what the deduplication of every module's types
// computes about the base (its types' hashes, its string index, the names
// forward declarations resolve to). Pass it as Options.DedupBase, with its
// Spec as Options.Base.
//
// A Base is safe for concurrent use by any number of Encode calls; its
// Spec must stay open while it is used.
type Base struct {
	spec *btf.Spec
	eng  *engine.Base

	// The public dedup.Base that btfids.Finalize takes is made on first
	// use, by the encodings that finish as resolve_btfids does only.
	finOnce sync.Once
	fin     *dedup.Base
	finErr  error
}

// NewBase prepares spec as the base of the modules Encode will encode on
// it, on up to opts.Jobs goroutines (0: one per CPU).
func NewBase(spec *btf.Spec, opts Options) (*Base, error) {
	b, err := engine.NewBase(spec, engine.Options{Workers: opts.jobs()})
	if err != nil {
		return nil, fmt.Errorf("dwarf2btf: base: %w", err)
	}
	return &Base{spec: spec, eng: b}, nil
}

// Spec returns the Spec the Base was made from.
func (b *Base) Spec() *btf.Spec { return b.spec }

// finalizeBase returns the base as btfids.Options.DedupBase takes it.
func (b *Base) finalizeBase() (*dedup.Base, error) {
	b.finOnce.Do(func() {
		b.fin, b.finErr = dedup.NewBase(b.spec, dedup.Options{})
	})
	return b.fin, b.finErr
}

func (b *Base) engine() *engine.Base {
	if b == nil {
		return nil
	}
	return b.eng
}
