package cdump

import (
	"strconv"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// maxRenamed is the longest "name___n" that libbpf builds (a 256-byte
// snprintf buffer).
const maxRenamed = 255

// typeName returns the name under which struct, union or enum id is printed
// (libbpf's btf_dump_type_name).
func (d *dumper) typeName(id btf.TypeID) []byte {
	return d.resolveName(id, &d.typeNames)
}

// identName returns the name under which typedef id is printed (libbpf's
// btf_dump_ident_name).
func (d *dumper) identName(id btf.TypeID) []byte {
	return d.resolveName(id, &d.identNames)
}

// resolveName gives a type its final name the first time it is printed: the
// n-th type to use a name in a namespace is printed as "name___n", so that
// types with the same name in different parts of the kernel (or in a module
// and vmlinux) can live in one header. Forward declarations and empty enums
// keep their names: they declare, not define (libbpf's
// btf_dump_resolve_name).
func (d *dumper) resolveName(id btf.TypeID, names *nameCounts) []byte {
	t := d.typ(id)
	if t.NameOff() == 0 {
		return nil
	}
	name := d.name(t)
	if d.plain {
		return name
	}
	st := d.state(id)
	if st.flags&nameResolved != 0 {
		if st.flags&dupName != 0 {
			return renamed(name, d.renamed.get(id))
		}
		return name
	}
	st.flags |= nameResolved
	k := t.Kind()
	if k == wire.KindForward || (k == wire.KindEnum && t.Vlen() == 0) {
		return name
	}
	if n := names.count(d.strs, t.NameOff(), name); n > 1 {
		st.flags |= dupName
		d.renamed.set(id, n)
		return renamed(name, n)
	}
	return name
}

// renamed returns "name___n", cut as libbpf cuts it. It is spelled again
// at each use rather than kept: every type of an input may be renamed.
func renamed(name []byte, n uint32) []byte {
	r := make([]byte, 0, len(name)+8)
	r = append(r, name...)
	r = append(r, "___"...)
	r = strconv.AppendUint(r, uint64(n), 10)
	return r[:min(len(r), maxRenamed)]
}
