package core

import (
	"context"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/ext"
)

// Result is the resolution of one CO-RE relocation, as libbpf's loader
// (bpf_object__relocate_core) computes it.
type Result struct {
	// Section is the ELF section of the relocated instruction, Program
	// the function holding it ("" if none does), Index libbpf's "relo
	// #N" (the record's index within the section) and Insn libbpf's
	// "insn #N" (the instruction's index within the program, or within
	// the section when there is no program).
	Section string
	Program string
	Index   int
	Insn    int
	Kind    ext.Kind
	// LocalType is the relocation's type in the object's BTF, and
	// LocalSpec its access spec in libbpf's notation, without the kind:
	// "[13] struct task_struct.tgid (0:93 @ offset 1268)".
	LocalType btf.TypeID
	LocalSpec string
	// Candidates is the number of target types tried; TargetType and
	// TargetSpec describe the first that matched (zero and "" if none).
	Candidates int
	TargetType btf.TypeID
	TargetSpec string
	// Orig is the value the instruction holds for the local BTF, Value
	// the value for the target. They are meaningless when Poisoned or
	// Err is set.
	Orig  uint64
	Value uint64
	// Patch says how the instruction is rewritten.
	Patch Patch
	// Poisoned says that libbpf replaces the instruction with an invalid
	// call: the field or enumerator is missing from the target, or a load
	// would change size unsafely. The program loads only if the
	// instruction is dead code.
	Poisoned bool
	// Skipped says that libbpf does not relocate the instruction: its
	// program is not loaded by default ("?" section) or no program holds
	// it (an eliminated weak subprogram).
	Skipped bool
	// Err says why the relocation fails; libbpf then refuses to load the
	// object.
	Err error
}

// OK reports whether the relocation resolves: not poisoned, no error.
func (r *Result) OK() bool { return r.Err == nil && !r.Poisoned }

// Reason says why the relocation does not resolve: "" if it does.
func (r *Result) Reason() string {
	switch {
	case r.Err != nil:
		return r.Err.Error()
	case r.Poisoned && r.TargetSpec == "":
		return "no matching target (instruction poisoned)"
	case r.Poisoned:
		return "load size would change unsafely (instruction poisoned)"
	}
	return ""
}

// Resolve resolves every CO-RE relocation of obj against t, in the order
// of .BTF.ext, with libbpf's rules: candidates by essential name, the
// local spec matched against each, all matches required to agree, and
// each type's candidate list pruned to those that matched, for the
// relocations after it. Unlike libbpf it does not stop at the first
// relocation that fails: each Result says whether it resolved.
//
// The error is for what stops everything: a cancelled ctx (which may be
// nil), or a record of a lazily opened target (btf.Options.Lazy) that
// failed its check when it was read.
func Resolve(ctx context.Context, obj Object, t *Target) ([]Result, error) {
	t.prepare(wants(&obj))
	cache := map[btf.TypeID]*candList{}
	var members memberIndexes
	n := 0
	for _, sec := range obj.Ext.Sections(ext.CORERelos) {
		n += sec.Len()
	}
	// A Result is some 200 bytes: grown by doubling, the list was copied
	// as often as it was built (hostile.WideCORESource, BENCH.md).
	out := make([]Result, 0, n)
	for _, sec := range obj.Ext.Sections(ext.CORERelos) {
		if ctx != nil && ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		for i, r := range sec.CORERelos() {
			out = append(out, resolveOne(&obj, sec.Name, i, r, t, cache, &members))
		}
	}
	if err := t.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// wants lists the candidate searches obj's relocations need.
func wants(o *Object) []want {
	var ws []want
	for _, sec := range o.Ext.Sections(ext.CORERelos) {
		for _, r := range sec.CORERelos() {
			lt, err := o.BTF.TypeByID(r.TypeID)
			if err != nil || r.Kind == ext.TypeIDLocal || len(lt.NameBytes()) == 0 {
				continue
			}
			ws = append(ws, want{name: string(essential(lt.NameBytes())), class: kindClass(lt.Kind())})
		}
	}
	return ws
}

// candsFor returns the candidate list of local type id, from the
// per-object cache (which calcReloInsn prunes into new lists) or the
// target's own.
func candsFor(o *Object, id btf.TypeID, t *Target, cache map[btf.TypeID]*candList) *candList {
	if c, ok := cache[id]; ok {
		return c
	}
	lt, _ := o.BTF.TypeByID(id)
	c := t.candidates(want{name: string(essential(lt.NameBytes())), class: kindClass(lt.Kind())})
	cache[id] = c
	return c
}

func resolveOne(o *Object, secName string, i int, r ext.CORERelo, t *Target, cache map[btf.TypeID]*candList, members *memberIndexes) Result {
	res := Result{Section: secName, Index: i, Insn: int(r.InsnOff / InsnSize), Kind: r.Kind, LocalType: r.TypeID}
	if r.InsnOff%InsnSize != 0 {
		res.Err = fmt.Errorf("%w: instruction offset %d not a multiple of 8", ErrInvalid, r.InsnOff)
		return res
	}
	prog, ok := o.ProgramAt(secName, res.Insn)
	if !ok || !prog.Autoload {
		res.Skipped = true
		if ok {
			res.Program = prog.Name
			res.Insn -= prog.InsnOff
		}
		var spec coreSpec
		if parseSpec(o.BTF, r, &spec) == nil {
			res.LocalSpec = spec.format()
		}
		return res
	}
	res.Program = prog.Name
	res.Insn -= prog.InsnOff
	var oc outcome
	cands := candsFor(o, r.TypeID, t, cache)
	err := calcReloInsn(o.BTF, r, &cands, members, &oc)
	if r.Kind != ext.TypeIDLocal {
		cache[r.TypeID] = cands
	}
	if oc.parsed {
		res.LocalSpec = oc.local.format()
	}
	res.Candidates = oc.ncands
	if oc.matched {
		res.TargetType, res.TargetSpec = oc.targ.root, oc.targ.format()
	}
	if err != nil {
		res.Err = err
		return res
	}
	res.Patch, res.Err = patch(prog.Insns, res.Insn, o.ByteOrder, &oc.res)
	res.Orig, res.Value, res.Poisoned = oc.res.orig, oc.res.val, oc.res.poison
	return res
}
