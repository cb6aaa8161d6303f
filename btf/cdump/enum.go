package cdump

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// emitEnumDef prints an enum with its values indented to lvl+1 (libbpf's
// btf_dump_emit_enum_def). An enum without values prints as a declaration.
//
// libbpf 1.5 (bpftool 7.5) forces the size of 1- and 8-byte enums with
// __attribute__((mode(byte))) or mode(word) (libbpf commit e6e0e3fd,
// "Handle non-standardly sized enums better in BTF-to-C dumper"); Debian's
// bpftool 7.1 does not, and neither does the CompatBpftool71 mode.
func (d *dumper) emitEnumDef(id btf.TypeID, t wire.Record, lvl int) {
	d.o.str("enum")
	if t.NameOff() != 0 {
		d.o.byte(' ')
	}
	d.o.bytes(d.typeName(id))
	vlen := t.Vlen()
	if vlen == 0 {
		return
	}
	d.o.str(" {")
	is64 := t.Kind() == wire.KindEnum64
	signed := t.KindFlag()
	for i := range vlen {
		nameOff, val := t.Enum(i)
		d.o.nl(lvl + 1)
		name := d.strs.name(nameOff)
		d.o.bytes(name)
		// Enumerators share the ordinary identifier namespace with
		// typedefs; each printing of a value counts as one use.
		if n := d.identNames.count(d.strs, nameOff, name); n > 1 {
			d.o.str("___")
			d.o.uint(uint64(n))
		}
		d.o.str(" = ")
		switch {
		case is64 && signed:
			d.o.int(int64(val))
			d.o.str("LL,")
		case is64:
			d.o.uint(val)
			d.o.str("ULL,")
		case signed:
			d.o.int(int64(int32(uint32(val))))
			d.o.byte(',')
		default:
			d.o.uint(val & 0xffffffff)
			d.o.byte(',')
		}
	}
	d.o.nl(lvl)
	d.o.byte('}')
	if d.v75 {
		d.emitEnumMode(t, is64)
	}
}

// emitEnumMode prints the attribute that gives an enum of 1 or 8 bytes its
// size: mode(byte) for 1 byte; mode(word) for 8 bytes (on 64-bit targets),
// unless the enum is an ENUM64 with a value that does not fit in 32 bits,
// which makes the compiler choose 8 bytes by itself.
func (d *dumper) emitEnumMode(t wire.Record, is64 bool) {
	switch {
	case t.SizeType() == 1:
		d.o.str(" __attribute__((mode(byte)))")
	case t.SizeType() == 8 && d.ptrSize == 8:
		word := true
		if is64 {
			for i := range t.Vlen() {
				if _, v := t.Enum(i); v>>32 != 0 {
					word = false
					break
				}
			}
		}
		if word {
			d.o.str(" __attribute__((mode(word)))")
		}
	}
}
