package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Magic is the first two bytes of BTF data, read in the data's byte order.
const Magic = 0xeB9F

// Version is the only BTF version defined.
const Version = 1

// Header sizes: the original header, and the one that adds a layout section
// (written by libbpf 1.8 and later).
const (
	HeaderLen       = 24
	HeaderLenLayout = 32
)

// Header is a decoded BTF header. Offsets are relative to the end of the
// header, as on the wire.
type Header struct {
	Version   uint8
	Flags     uint8
	HdrLen    uint32
	TypeOff   uint32
	TypeLen   uint32
	StrOff    uint32
	StrLen    uint32
	LayoutOff uint32 // zero unless HdrLen >= HeaderLenLayout
	LayoutLen uint32
}

// ErrNotBTF reports data that does not start with the BTF magic number.
var ErrNotBTF = errors.New("not BTF data (bad magic)")

// ByteOrderOf tells the byte order of BTF data from its magic number. swapped
// reports that the data is in the order opposite to the host's.
func ByteOrderOf(b []byte) (order binary.ByteOrder, swapped bool, err error) {
	if len(b) < 2 {
		return nil, false, ErrNotBTF
	}
	switch {
	case binary.LittleEndian.Uint16(b) == Magic:
		order = binary.LittleEndian
	case binary.BigEndian.Uint16(b) == Magic:
		order = binary.BigEndian
	default:
		return nil, false, ErrNotBTF
	}
	return order, order.Uint16([]byte{0x9f, 0xeb}) != binary.NativeEndian.Uint16([]byte{0x9f, 0xeb}), nil
}

// ParseHeader decodes and checks the header at the start of b, which is in
// byte order bo. It checks that every section lies within b and that the
// sections do not overlap; it does not look inside them.
func ParseHeader(b []byte, bo binary.ByteOrder) (Header, error) {
	h, err := parseHeader(b, bo)
	if err != nil {
		return h, err
	}
	return h, h.checkSections(uint64(len(b)))
}

// ParseHeaderPrefix is ParseHeader for b holding only the first bytes of
// the BTF, at least its whole header: it checks everything ParseHeader
// does except that the sections lie within the data.
func ParseHeaderPrefix(b []byte, bo binary.ByteOrder) (Header, error) {
	h, err := parseHeader(b, bo)
	if err != nil {
		return h, err
	}
	return h, h.checkSections(math.MaxUint64)
}

// parseHeader decodes the header at the start of b and checks it except
// for its sections.
func parseHeader(b []byte, bo binary.ByteOrder) (Header, error) {
	var h Header
	if len(b) < HeaderLen {
		return h, fmt.Errorf("header: %d bytes, need at least %d", len(b), HeaderLen)
	}
	h.Version = b[2]
	h.Flags = b[3]
	h.HdrLen = bo.Uint32(b[4:])
	if h.Version != Version {
		return h, fmt.Errorf("header: unsupported version %d", h.Version)
	}
	if h.Flags != 0 {
		return h, fmt.Errorf("header: unsupported flags %#x", h.Flags)
	}
	if h.HdrLen < HeaderLen || uint64(h.HdrLen) > uint64(len(b)) {
		return h, fmt.Errorf("header: hdr_len %d outside 24..%d", h.HdrLen, len(b))
	}
	h.TypeOff, h.TypeLen = bo.Uint32(b[8:]), bo.Uint32(b[12:])
	h.StrOff, h.StrLen = bo.Uint32(b[16:]), bo.Uint32(b[20:])
	if h.HdrLen >= HeaderLenLayout {
		h.LayoutOff, h.LayoutLen = bo.Uint32(b[24:]), bo.Uint32(b[28:])
	}
	// A longer header than we know is allowed only if the rest is zero, as
	// the kernel requires. A header that ends inside the layout fields has
	// none of them: its bytes past the 24 known ones are such a rest.
	for i := h.known(); i < h.HdrLen; i++ {
		if b[i] != 0 {
			return h, fmt.Errorf("header: unknown non-zero header byte at offset %d", i)
		}
	}
	return h, nil
}

// known returns how many bytes of the header hold fields kmeta knows: 32
// with the layout section's, else 24.
func (h Header) known() uint32 {
	if h.HdrLen >= HeaderLenLayout {
		return HeaderLenLayout
	}
	return HeaderLen
}

func (h Header) checkSections(total uint64) error {
	avail := total - uint64(h.HdrLen)
	type sec struct {
		name     string
		off, len uint32
	}
	secs := []sec{{"type", h.TypeOff, h.TypeLen}, {"string", h.StrOff, h.StrLen}, {"layout", h.LayoutOff, h.LayoutLen}}
	for i, s := range secs {
		if uint64(s.off)+uint64(s.len) > avail {
			return fmt.Errorf("header: %s section [%d, +%d) beyond the %d bytes after the header", s.name, s.off, s.len, avail)
		}
		if s.off%4 != 0 && s.name != "string" {
			return fmt.Errorf("header: %s section offset %d is not 4-byte aligned", s.name, s.off)
		}
		for _, o := range secs[:i] {
			if s.len != 0 && o.len != 0 && s.off < o.off+o.len && o.off < s.off+s.len {
				return fmt.Errorf("header: %s section overlaps the %s section", s.name, o.name)
			}
		}
	}
	if h.TypeLen%4 != 0 {
		return fmt.Errorf("header: type section length %d is not a multiple of 4", h.TypeLen)
	}
	return nil
}

// AppendHeader appends h in byte order bo. It writes HdrLen bytes: 24, or 32
// with the layout section fields.
func AppendHeader(dst []byte, h Header, bo binary.AppendByteOrder) []byte {
	dst = bo.AppendUint16(dst, Magic)
	dst = append(dst, h.Version, h.Flags)
	dst = bo.AppendUint32(dst, h.HdrLen)
	dst = bo.AppendUint32(dst, h.TypeOff)
	dst = bo.AppendUint32(dst, h.TypeLen)
	dst = bo.AppendUint32(dst, h.StrOff)
	dst = bo.AppendUint32(dst, h.StrLen)
	if h.HdrLen >= HeaderLenLayout {
		dst = bo.AppendUint32(dst, h.LayoutOff)
		dst = bo.AppendUint32(dst, h.LayoutLen)
	}
	return dst
}

// Swap returns a copy of BTF data b with every multi-byte field reversed,
// turning data of the other byte order into the host's (or back). The header
// h must have been parsed from b. The type section consists of 32-bit words
// only, the layout section of (u8, u8, u16) entries, and the string section
// of bytes, so no record needs decoding to swap it.
func Swap(b []byte, h Header) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	SwapInPlace(out, h)
	return out
}

// SwapInPlace is Swap in b itself: for a caller that makes the copy, a
// part at a time.
func SwapInPlace(out []byte, h Header) {
	swap16(out[0:2])
	for i := 4; i < int(h.known()); i += 4 {
		swap32(out[i : i+4])
	}
	SwapWords(out[h.HdrLen+h.TypeOff:][:h.TypeLen])
	layout := out[h.HdrLen+h.LayoutOff:][:h.LayoutLen]
	for i := 0; i+LayoutEntrySize <= len(layout); i += LayoutEntrySize {
		swap16(layout[i+2 : i+4])
	}
}

// SwapWords reverses the bytes of every 32-bit word of b in place: records
// of the type section, which hold nothing but such words, turn from one
// byte order to the other. A last partial word is left as it is.
func SwapWords(b []byte) {
	for i := 0; i+4 <= len(b); i += 4 {
		swap32(b[i : i+4])
	}
}

func swap32(b []byte) {
	binary.NativeEndian.PutUint32(b, bits.ReverseBytes32(binary.NativeEndian.Uint32(b)))
}

func swap16(b []byte) {
	binary.NativeEndian.PutUint16(b, bits.ReverseBytes16(binary.NativeEndian.Uint16(b)))
}
