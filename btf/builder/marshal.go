package builder

import (
	"encoding/binary"
	"fmt"

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
	if b.forgot != 0 {
		return nil, ErrForgotten
	}
	if b.base != nil {
		if _, err := b.base.TypeByID(0); err != nil {
			return nil, fmt.Errorf("builder: base: %w", err)
		}
	}
	if b.maxRef > b.LastID() {
		return nil, fmt.Errorf("builder: a type refers to id %d, but the last id is %d", b.maxRef, b.LastID())
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

// header returns the header of the Builder's BTF with a type section of
// typeLen bytes, in host byte order, and the layout section that opts ask
// for (nil without Layout).
func (b *Builder) header(typeLen int, opts Options) (wire.Header, []byte) {
	h := wire.Header{
		Version: wire.Version,
		HdrLen:  wire.HeaderLen,
		TypeLen: uint32(typeLen),
		StrOff:  uint32(typeLen),
		StrLen:  uint32(len(b.strs.data())),
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
