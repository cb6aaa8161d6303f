package cdump

import (
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// kfuncTag is the DECL_TAG that marks a kernel function callable from BPF
// (pahole's decl_tag_kfuncs, resolve_btfids --btf).
const kfuncTag = "bpf_kfunc"

// emitKfuncs prints bpftool 7.5's block of kfunc prototypes (bpftool's
// dump_btf_kfuncs): an extern declaration for the FUNC of every DECL_TAG
// "bpf_kfunc" on a whole function, in the order of the tags' ids, base
// types included. bpftool 7.5 does not sort them by name (later versions
// do), nor dedupe a function tagged twice.
func (d *dumper) emitKfuncs() error {
	d.o.str("\n/* BPF kfuncs */\n#ifndef BPF_NO_KFUNC_PROTOTYPES\n")
	for id := 1; id < d.n; id++ {
		t := d.typ(btf.TypeID(id))
		if t.Kind() != wire.KindDeclTag || int32(t.Extra()) != -1 ||
			string(d.name(t)) != kfuncTag {
			continue
		}
		fn := d.typ(btf.TypeID(t.SizeType()))
		if fn.Kind() != wire.KindFunc {
			continue
		}
		d.o.str("extern ")
		d.root = btf.TypeID(t.SizeType())
		d.emitTypeDecl(btf.TypeID(fn.SizeType()), d.name(fn), 0)
		d.o.str(" __weak __ksym;\n")
		if d.err != nil {
			return d.err
		}
		if d.o.err != nil {
			return pkgerr.Errorf("cdump: %w", d.o.err)
		}
	}
	d.o.str("#endif\n\n")
	return nil
}
