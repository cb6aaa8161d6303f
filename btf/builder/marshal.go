package builder

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Options control how Marshal writes BTF. The zero value writes what the
// running kernel and libbpf expect: host byte order, 24-byte header.
type Options struct {
	// ByteOrder is the byte order of the output; nil means the host's.
	// Only the order matters: any binary.ByteOrder (LittleEndian,
	// BigEndian, NativeEndian) may be given.
	ByteOrder binary.ByteOrder
	// Layout writes the 32-byte header and a layout section that describes
	// the record size of every kind, as libbpf 1.8 does, so that readers
	// can skip kinds they do not know. Kernels and tools that predate it
	// (the 6.18 kernel, bpftool 7.1) reject such data.
	Layout bool
	// ManyTypes lets WriteCopy and WriteCopyELF number more types than
	// the kernel accepts (wire.MaxTypeID), up to libbpf's 2^31-1, as
	// Builder.AllowManyTypes does for a Builder; the kernel refuses such
	// output. Marshal ignores it: a Builder's own setting rules.
	ManyTypes bool
}

// isLittle reports whether bo writes little-endian; nil is the host order.
func isLittle(bo binary.ByteOrder) bool {
	if bo == nil {
		bo = binary.NativeEndian
	}
	return bo.Uint16([]byte{1, 0}) == 1
}

// Marshal returns the Builder's types as raw BTF: the header, the type
// section, the string section and, with opts.Layout, the layout section.
// A split Builder writes split BTF, to be read on the same base. The output
// depends only on the sequence of calls that filled the Builder: the same
// calls give the same bytes.
//
// Marshal fails if a type refers to an id that was never added, if the
// base was closed, or if types were forgotten (ErrForgotten). It does not change the Builder, which can go on
// growing and be marshalled again.
func (b *Builder) Marshal(opts Options) ([]byte, error) {
	if err := b.checkMarshal(); err != nil {
		return nil, err
	}
	h, layout := b.header(len(b.types), opts)
	size := int(h.HdrLen) + len(b.types) + len(b.strs.data()) + 3 + len(layout)
	out := make([]byte, 0, size)
	out = wire.AppendHeader(out, h, binary.NativeEndian)
	out = append(out, b.types...)
	out = append(out, b.strs.data()...)
	if opts.Layout {
		for len(out)-int(h.HdrLen) < int(h.LayoutOff) {
			out = append(out, 0)
		}
		out = append(out, layout...)
	}
	if isLittle(opts.ByteOrder) != isLittle(nil) {
		out = wire.Swap(out, h)
	}
	return out, nil
}

// checkMarshal returns the error that Marshal and Write give on a Builder
// they cannot write.
func (b *Builder) checkMarshal() error {
	if b.forgot != 0 {
		return ErrForgotten
	}
	if b.base != nil {
		if _, err := b.base.TypeByID(0); err != nil {
			return fmt.Errorf("builder: base: %w", err)
		}
	}
	if b.maxRef > b.LastID() {
		return fmt.Errorf("builder: a type refers to id %d, but the last id is %d", b.maxRef, b.LastID())
	}
	return nil
}

// Write writes to w the bytes that Marshal returns, without making them
// in memory: the header, the Builder's records (swapped a buffer at a
// time for the other byte order), its strings and the layout section.
// It fails as Marshal does, before writing anything; a failed write is
// returned as it is.
func (b *Builder) Write(w io.Writer, opts Options) error {
	if err := b.checkMarshal(); err != nil {
		return err
	}
	return b.write(w, opts)
}

// WriteELF is Write for the ELF object that MarshalELF returns.
func (b *Builder) WriteELF(w io.Writer, opts Options) error {
	if err := b.checkMarshal(); err != nil {
		return err
	}
	h, layout := b.header(len(b.types), opts)
	size := int(h.HdrLen + h.StrOff + h.StrLen)
	if opts.Layout {
		size = int(h.HdrLen+h.LayoutOff) + len(layout)
	}
	sec := elfSection{name: ".BTF", typ: elf.SHT_PROGBITS, align: btfAlign, size: size,
		fill: func(w io.Writer) error { return b.write(w, opts) }}
	return writeELF(w, byteOrder(opts), []elfSection{sec})
}

// write is Write past its checks.
func (b *Builder) write(w io.Writer, opts Options) error {
	h, _ := b.header(len(b.types), opts)
	order := byteOrder(opts).(binary.AppendByteOrder)
	if _, err := w.Write(wire.AppendHeader(nil, h, order)); err != nil {
		return err
	}
	if isLittle(opts.ByteOrder) == isLittle(nil) {
		if _, err := w.Write(b.types); err != nil {
			return err
		}
	} else {
		buf := make([]byte, 0, min(flushSize, len(b.types)))
		for rest := b.types; len(rest) > 0; {
			n := min(cap(buf), len(rest))
			buf = append(buf[:0], rest[:n]...)
			rest = rest[n:]
			wire.SwapWords(buf)
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	return b.writeTail(w, h, order, opts.Layout)
}

// writeTail writes what follows the records of BTF with header h: the
// Builder's strings and, with layout, the padded layout section in order.
func (b *Builder) writeTail(w io.Writer, h wire.Header, order binary.AppendByteOrder, layout bool) error {
	if err := b.writeStrings(w); err != nil {
		return err
	}
	if !layout {
		return nil
	}
	return writeLayout(w, h, order)
}

// writeLayout writes the layout section of BTF with header h, after the
// padding that aligns it.
func writeLayout(w io.Writer, h wire.Header, order binary.AppendByteOrder) error {
	pad := make([]byte, h.LayoutOff-h.StrOff-h.StrLen, 4+wire.NumKinds*wire.LayoutEntrySize)
	_, err := w.Write(wire.AppendLayouts(pad, order))
	return err
}

// header returns the header of the Builder's BTF with a type section of
// typeLen bytes, in host byte order, and the layout section that opts ask
// for (nil without Layout).
func (b *Builder) header(typeLen int, opts Options) (wire.Header, []byte) {
	return rawHeader(typeLen, int(b.strLen()), opts)
}

// rawHeader returns the header, in host byte order, of BTF with a type
// section of typeLen bytes and a string section of strLen, and the layout
// section that opts ask for (nil without Layout).
func rawHeader(typeLen, strLen int, opts Options) (wire.Header, []byte) {
	h := wire.Header{
		Version: wire.Version,
		HdrLen:  wire.HeaderLen,
		TypeLen: uint32(typeLen),
		StrOff:  uint32(typeLen),
		StrLen:  uint32(strLen),
	}
	var layout []byte
	if opts.Layout {
		h.HdrLen = wire.HeaderLenLayout
		h.LayoutOff = (h.StrOff + h.StrLen + 3) &^ 3
		layout = wire.AppendLayouts(nil, binary.NativeEndian)
		h.LayoutLen = uint32(len(layout))
	}
	return h, layout
}

// MarshalELF returns the output of Marshal wrapped in an ELF relocatable
// object (see ELF), which "bpftool btf dump file" and libbpf read.
func (b *Builder) MarshalELF(opts Options) ([]byte, error) {
	raw, err := b.Marshal(opts)
	if err != nil {
		return nil, err
	}
	return ELF(raw)
}
