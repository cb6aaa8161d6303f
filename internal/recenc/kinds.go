package recenc

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// AddInt writes an INT of size bytes.
func (e *Encoder[M, P, E]) AddInt(name string, size uint32, info btf.IntInfo) (btf.TypeID, error) {
	id, err := e.sized(name, btf.KindInt, false, size)
	if err != nil {
		return 0, err
	}
	e.W = append(e.W, wire.IntWord(info.Encoding, info.Offset, info.Bits))
	return e.end(id)
}

// AddFloat writes a FLOAT of size bytes.
func (e *Encoder[M, P, E]) AddFloat(name string, size uint32) (btf.TypeID, error) {
	id, err := e.sized(name, btf.KindFloat, false, size)
	if err != nil {
		return 0, err
	}
	return e.end(id)
}

// AddPointer writes a PTR to target.
func (e *Encoder[M, P, E]) AddPointer(target btf.TypeID) (btf.TypeID, error) {
	return e.refTo("", btf.KindPointer, 0, false, target)
}

// AddConst writes a CONST of target.
func (e *Encoder[M, P, E]) AddConst(target btf.TypeID) (btf.TypeID, error) {
	return e.refTo("", btf.KindConst, 0, false, target)
}

// AddVolatile writes a VOLATILE of target.
func (e *Encoder[M, P, E]) AddVolatile(target btf.TypeID) (btf.TypeID, error) {
	return e.refTo("", btf.KindVolatile, 0, false, target)
}

// AddRestrict writes a RESTRICT of target.
func (e *Encoder[M, P, E]) AddRestrict(target btf.TypeID) (btf.TypeID, error) {
	return e.refTo("", btf.KindRestrict, 0, false, target)
}

// AddTypedef writes a TYPEDEF of target.
func (e *Encoder[M, P, E]) AddTypedef(name string, target btf.TypeID) (btf.TypeID, error) {
	return e.refTo(name, btf.KindTypedef, 0, false, target)
}

// AddTypeTag writes a TYPE_TAG on target; attr sets the kind flag.
func (e *Encoder[M, P, E]) AddTypeTag(value string, target btf.TypeID, attr bool) (btf.TypeID, error) {
	return e.refTo(value, btf.KindTypeTag, 0, attr, target)
}

// AddForward writes a FWD of a struct, or of a union.
func (e *Encoder[M, P, E]) AddForward(name string, union bool) (btf.TypeID, error) {
	id, err := e.sized(name, btf.KindForward, union, 0)
	if err != nil {
		return 0, err
	}
	return e.end(id)
}

// AddFunc writes a FUNC of prototype proto.
func (e *Encoder[M, P, E]) AddFunc(name string, proto btf.TypeID, linkage btf.Linkage) (btf.TypeID, error) {
	return e.refTo(name, btf.KindFunc, int(linkage), false, proto)
}

// AddArray writes an ARRAY.
func (e *Encoder[M, P, E]) AddArray(a btf.ArrayInfo) (btf.TypeID, error) {
	id, err := e.sized("", btf.KindArray, false, 0)
	if err != nil {
		return 0, err
	}
	e.ref(a.Type)
	e.ref(a.Index)
	e.W = append(e.W, a.Nelems)
	return e.end(id)
}

// AddStruct writes a STRUCT of size bytes.
func (e *Encoder[M, P, E]) AddStruct(name string, size uint32, members []M) (btf.TypeID, error) {
	return e.addComposite(name, btf.KindStruct, size, members)
}

// AddUnion writes a UNION of size bytes.
func (e *Encoder[M, P, E]) AddUnion(name string, size uint32, members []M) (btf.TypeID, error) {
	return e.addComposite(name, btf.KindUnion, size, members)
}

func (e *Encoder[M, P, E]) addComposite(name string, k btf.Kind, size uint32, members []M) (btf.TypeID, error) {
	kflag, err := kindFlag(members)
	if err != nil {
		return 0, e.sink.Fail(fmt.Errorf("%v %q %w", k, name, err))
	}
	id, err := e.begin(name, k, len(members), kflag, func(i int) string { return member(members[i]).Name })
	if err != nil {
		return 0, err
	}
	e.W = append(e.W, size)
	for i := range members {
		m := member(members[i])
		e.put(e.offs[i])
		e.ref(m.Type)
		if kflag {
			e.W = append(e.W, wire.MemberOffsetWord(m.BitfieldSize, m.BitOffset))
		} else {
			e.W = append(e.W, m.BitOffset)
		}
	}
	return e.end(id)
}

// kindFlag reports whether a STRUCT or UNION of members is written with
// the kind flag (some member is a bitfield), and then checks that every
// member's bitfield size and offset fit the packed offset word.
func kindFlag[M Member](members []M) (bool, error) {
	kflag := false
	for i := range members {
		kflag = kflag || member(members[i]).BitfieldSize != 0
	}
	if kflag {
		for i := range members {
			m := member(members[i])
			if m.BitfieldSize > wire.MaxBitfieldSize || m.BitOffset > wire.MaxBitOffset {
				return true, fmt.Errorf("member %q: bitfield size %d or offset %d too large", m.Name, m.BitfieldSize, m.BitOffset)
			}
		}
	}
	return kflag, nil
}

// AddEnum writes a 32-bit ENUM of size bytes; signed sets the kind flag.
// A value that fits in 32 bits neither signed nor unsigned is an error.
func (e *Encoder[M, P, E]) AddEnum(name string, size uint32, signed bool, values []E) (btf.TypeID, error) {
	for i := range values {
		v := enumerator(values[i])
		if fits := v.Value <= 0xffffffff || int64(v.Value) >= -1<<31 && int64(v.Value) < 0; !fits {
			return 0, e.sink.Fail(fmt.Errorf("ENUM %q value %q = %#x does not fit in 32 bits", name, v.Name, v.Value))
		}
	}
	return e.addEnum(name, btf.KindEnum, size, signed, values)
}

// AddEnum64 writes an ENUM64 of size bytes; signed sets the kind flag.
func (e *Encoder[M, P, E]) AddEnum64(name string, size uint32, signed bool, values []E) (btf.TypeID, error) {
	return e.addEnum(name, btf.KindEnum64, size, signed, values)
}

func (e *Encoder[M, P, E]) addEnum(name string, k btf.Kind, size uint32, signed bool, values []E) (btf.TypeID, error) {
	id, err := e.begin(name, k, len(values), signed, func(i int) string { return enumerator(values[i]).Name })
	if err != nil {
		return 0, err
	}
	e.W = append(e.W, size)
	for i := range values {
		v := enumerator(values[i]).Value
		e.put(e.offs[i])
		e.W = append(e.W, uint32(v))
		if k == btf.KindEnum64 {
			e.W = append(e.W, uint32(v>>32))
		}
	}
	return e.end(id)
}

// AddFuncProto writes a FUNC_PROTO returning ret.
func (e *Encoder[M, P, E]) AddFuncProto(ret btf.TypeID, params []P) (btf.TypeID, error) {
	id, err := e.begin("", btf.KindFuncProto, len(params), false, func(i int) string { return param(params[i]).Name })
	if err != nil {
		return 0, err
	}
	e.ref(ret)
	for i := range params {
		e.put(e.offs[i])
		e.ref(param(params[i]).Type)
	}
	return e.end(id)
}

// AddVar writes a VAR of type typ.
func (e *Encoder[M, P, E]) AddVar(name string, typ btf.TypeID, linkage btf.Linkage) (btf.TypeID, error) {
	id, err := e.begin(name, btf.KindVar, 0, false, nil)
	if err != nil {
		return 0, err
	}
	e.ref(typ)
	e.W = append(e.W, uint32(linkage))
	return e.end(id)
}

// AddDatasec writes a DATASEC of size bytes holding vars.
func (e *Encoder[M, P, E]) AddDatasec(name string, size uint32, vars []btf.VarSecinfo) (btf.TypeID, error) {
	id, err := e.begin(name, btf.KindDatasec, len(vars), false, nil)
	if err != nil {
		return 0, err
	}
	e.W = append(e.W, size)
	for _, v := range vars {
		e.ref(v.Type)
		e.W = append(e.W, v.Offset, v.Size)
	}
	return e.end(id)
}

// AddDeclTag writes a DECL_TAG on target, or on its element componentIdx
// when that is not -1; attr sets the kind flag.
func (e *Encoder[M, P, E]) AddDeclTag(value string, target btf.TypeID, componentIdx int32, attr bool) (btf.TypeID, error) {
	id, err := e.begin(value, btf.KindDeclTag, 0, attr, nil)
	if err != nil {
		return 0, err
	}
	e.ref(target)
	e.W = append(e.W, uint32(componentIdx))
	return e.end(id)
}
