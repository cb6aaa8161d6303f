package cdump_test

import (
	"encoding/binary"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// gen assembles small BTF blobs for tests of shapes that a given kernel may
// not have. Ids are given out in order from 1.
type gen struct {
	strs  []byte
	types []byte
	next  btf.TypeID
}

func newGen() *gen { return &gen{strs: []byte{0}, next: 1} }

func (g *gen) str(s string) uint32 {
	if s == "" {
		return 0
	}
	off := uint32(len(g.strs))
	g.strs = append(append(g.strs, s...), 0)
	return off
}

// rec appends a record and returns its id.
func (g *gen) rec(name string, k btf.Kind, vlen int, kflag bool, sizeType uint32, extra ...uint32) btf.TypeID {
	for _, w := range append([]uint32{g.str(name), wire.Info(wire.Kind(k), vlen, kflag), sizeType}, extra...) {
		g.types = wire.AppendWord(g.types, w)
	}
	g.next++
	return g.next - 1
}

func (g *gen) bytes() []byte {
	h := wire.Header{Version: 1, HdrLen: 24, TypeLen: uint32(len(g.types)),
		StrOff: uint32(len(g.types)), StrLen: uint32(len(g.strs))}
	out := wire.AppendHeader(nil, h, binary.NativeEndian)
	return append(append(out, g.types...), g.strs...)
}

func (g *gen) integer(name string, size uint32, enc uint8, bits uint8) btf.TypeID {
	return g.rec(name, btf.KindInt, 0, false, size, uint32(enc)<<24|uint32(bits))
}

// std adds the usual base types: int (1), char (2), long (3), unsigned
// int (4).
func (g *gen) std() (intT, char, long, uint btf.TypeID) {
	return g.integer("int", 4, btf.IntSigned, 32), g.integer("char", 1, btf.IntSigned|btf.IntChar, 8),
		g.integer("long int", 8, btf.IntSigned, 64), g.integer("unsigned int", 4, 0, 32)
}

func (g *gen) ptr(t btf.TypeID) btf.TypeID  { return g.rec("", btf.KindPointer, 0, false, uint32(t)) }
func (g *gen) cnst(t btf.TypeID) btf.TypeID { return g.rec("", btf.KindConst, 0, false, uint32(t)) }
func (g *gen) volatile(t btf.TypeID) btf.TypeID {
	return g.rec("", btf.KindVolatile, 0, false, uint32(t))
}
func (g *gen) restrict(t btf.TypeID) btf.TypeID {
	return g.rec("", btf.KindRestrict, 0, false, uint32(t))
}

func (g *gen) typedef(name string, t btf.TypeID) btf.TypeID {
	return g.rec(name, btf.KindTypedef, 0, false, uint32(t))
}

func (g *gen) typeTag(name string, t btf.TypeID, kflag bool) btf.TypeID {
	return g.rec(name, btf.KindTypeTag, 0, kflag, uint32(t))
}

func (g *gen) array(elem, index btf.TypeID, n uint32) btf.TypeID {
	return g.rec("", btf.KindArray, 0, false, 0, uint32(elem), uint32(index), n)
}

func (g *gen) fwd(name string, union bool) btf.TypeID {
	return g.rec(name, btf.KindForward, 0, union, 0)
}

// member is a struct or union member; bits > 0 makes a bitfield.
type member struct {
	name string
	typ  btf.TypeID
	off  uint32 // in bits
	bits uint32
}

func (g *gen) composite(k btf.Kind, name string, size uint32, ms ...member) btf.TypeID {
	kflag := false
	for _, m := range ms {
		kflag = kflag || m.bits > 0
	}
	var extra []uint32
	for _, m := range ms {
		off := m.off
		if kflag {
			off |= m.bits << 24
		}
		extra = append(extra, g.str(m.name), uint32(m.typ), off)
	}
	return g.rec(name, k, len(ms), kflag, size, extra...)
}

func (g *gen) strct(name string, size uint32, ms ...member) btf.TypeID {
	return g.composite(btf.KindStruct, name, size, ms...)
}

func (g *gen) union(name string, size uint32, ms ...member) btf.TypeID {
	return g.composite(btf.KindUnion, name, size, ms...)
}

// enumerator is a name and value of an ENUM or ENUM64.
type enumerator struct {
	name string
	val  uint64
}

func (g *gen) enum(name string, size uint32, signed bool, vs ...enumerator) btf.TypeID {
	var extra []uint32
	for _, v := range vs {
		extra = append(extra, g.str(v.name), uint32(v.val))
	}
	return g.rec(name, btf.KindEnum, len(vs), signed, size, extra...)
}

func (g *gen) enum64(name string, size uint32, signed bool, vs ...enumerator) btf.TypeID {
	var extra []uint32
	for _, v := range vs {
		extra = append(extra, g.str(v.name), uint32(v.val), uint32(v.val>>32))
	}
	return g.rec(name, btf.KindEnum64, len(vs), signed, size, extra...)
}

// param is a parameter of a FUNC_PROTO; typ 0 as the last one is "...".
type param struct {
	name string
	typ  btf.TypeID
}

func (g *gen) proto(ret btf.TypeID, ps ...param) btf.TypeID {
	var extra []uint32
	for _, p := range ps {
		extra = append(extra, g.str(p.name), uint32(p.typ))
	}
	return g.rec("", btf.KindFuncProto, len(ps), false, uint32(ret), extra...)
}

func (g *gen) fn(name string, proto btf.TypeID) btf.TypeID {
	return g.rec(name, btf.KindFunc, int(btf.LinkageGlobal), false, uint32(proto))
}

func (g *gen) float(name string, size uint32) btf.TypeID {
	return g.rec(name, btf.KindFloat, 0, false, size)
}

func (g *gen) declTag(name string, t btf.TypeID, idx int32) btf.TypeID {
	return g.rec(name, btf.KindDeclTag, 0, false, uint32(t), uint32(idx))
}
