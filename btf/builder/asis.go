package builder

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/btfmem"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// AsIs reports whether WriteAsIs can write s on base: s is split on base
// itself, or standalone with base nil.
func AsIs(s, base *btf.Spec) bool { return s.Base() == base }

// WriteAsIs writes s as it is to w: a header, s's own records in opts'
// byte order and its own string section byte for byte, and with
// opts.Layout the layout section. This is what libbpf writes back for
// BTF it parsed and did not change (btf__raw_data after btf__parse), with
// a header that lays the sections out in order. The type ids and the
// string offsets are the input's, so nothing is renamed or renumbered:
// unlike WriteCopy (the Builder's output), strings that no type names and
// strings there twice stay, and a type count over the kernel's limit
// (wire.MaxTypeID) is written as libbpf writes it.
//
// s must be split on base, or standalone with base nil (AsIs); its
// records are read once, a buffer at a time, and a mapped input's pages
// leave as they are written. Errors (a closed Spec, a kind the Builder
// cannot write, one that a layout section described) come before
// anything is written.
func WriteAsIs(w io.Writer, s, base *btf.Spec, opts Options) error {
	a, err := prepareAsIs(s, base)
	if err != nil {
		return err
	}
	return a.write(w, opts)
}

// WriteAsIsELF is WriteAsIs in the ELF object that MarshalELF writes.
func WriteAsIsELF(w io.Writer, s, base *btf.Spec, opts Options) error {
	a, err := prepareAsIs(s, base)
	if err != nil {
		return err
	}
	sec := elfSection{name: ".BTF", typ: elf.SHT_PROGBITS, align: btfAlign, size: rawSize(rawHeader(len(a.types), len(a.strs), opts)),
		fill: func(w io.Writer) error { return a.write(w, opts) }}
	return writeELF(w, byteOrder(opts), []elfSection{sec})
}

// asIs is the input of WriteAsIs: its Spec and the Spec's own sections.
type asIs struct {
	s           *btf.Spec
	types, strs []byte
}

// prepareAsIs checks s for WriteAsIs and returns its sections.
func prepareAsIs(s, base *btf.Spec) (*asIs, error) {
	if !AsIs(s, base) {
		return nil, fmt.Errorf("builder: copy as is: the input is not split on the base given")
	}
	if _, err := s.TypeByID(0); err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil { // a lazy Spec is checked whole, as an eager open is
		return nil, err
	}
	a := &asIs{s: s, types: s.TypeSection()}
	a.strs, _ = s.StringSection()
	if s.HeaderLen() > wire.HeaderLen {
		// Only a layout section describes kinds beyond the Builder's:
		// without one, the open refused them.
		if err := a.checkKinds(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// checkKinds returns an error naming the first record of a kind the
// Builder cannot write, as renameAll does; the open checked the records'
// sizes.
func (a *asIs) checkKinds() error {
	w, _ := wire.Words(a.types)
	id := a.s.FirstID()
	for p := 0; p+wire.TypeSize/4 <= len(w); id++ {
		info := w[p+wire.InfoAt/4]
		k := wire.InfoKind(info)
		n := int(kindSizes.Of(info) / 4)
		if n == 0 || int(k) >= wire.NumKinds {
			t, _ := a.s.TypeByID(id)
			return fmt.Errorf("builder: copy %v: cannot write kind %d", t, k)
		}
		p += n
	}
	btfmem.Evict(a.s)
	return nil
}

// write writes the BTF of WriteAsIs to w: the records a buffer at a time,
// swapped to opts' byte order if it is not the host's, then the strings,
// releasing a mapped input's pages behind them as WriteCopy does
// (streamCopy.read).
func (a *asIs) write(w io.Writer, opts Options) error {
	order := byteOrder(opts).(binary.AppendByteOrder)
	h, _ := rawHeader(len(a.types), len(a.strs), opts)
	swap := isLittle(opts.ByteOrder) != isLittle(nil)
	buf := wire.AppendHeader(make([]byte, 0, flushSize+wire.HeaderLenLayout), h, order)
	step, behind := max(evictTypesMin, len(a.types)/16), 0
	for off := 0; off < len(a.types); {
		n := min(flushSize, len(a.types)-off)
		buf = append(buf, a.types[off:off+n]...)
		if swap {
			wire.SwapWords(buf[len(buf)-n:])
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		buf, off = buf[:0], off+n
		if off-behind >= step {
			btfmem.EvictTypes(a.s, behind, off)
			behind = off
		}
	}
	if len(buf) > 0 { // the header of BTF without records
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	for off := 0; off < len(a.strs); {
		n := min(evictEvery, len(a.strs)-off)
		if _, err := w.Write(a.strs[off : off+n]); err != nil {
			return err
		}
		off += n
		btfmem.EvictStrings(a.s)
	}
	if opts.Layout {
		return writeLayout(w, h, order)
	}
	return nil
}
