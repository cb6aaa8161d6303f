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

// Resolve resolves every CO-RE relocation of obj against t, as
// ResolveEach does, and returns all the Results. They are held at once:
// memory grows with the number of records (an object of a million
// records needs hundreds of MB); ResolveEach streams them instead.
func Resolve(ctx context.Context, obj Object, t *Target) ([]Result, error) {
	n := 0
	for _, sec := range obj.Ext.Sections(ext.CORERelos) {
		n += sec.Len()
	}
	// A Result is some 200 bytes: grown by doubling, the list was copied
	// as often as it was built (hostile.WideCORESource, BENCH.md).
	out := make([]Result, 0, n)
	err := ResolveEach(ctx, obj, t, func(r *Result) error {
		out = append(out, *r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ResolveEach resolves every CO-RE relocation of obj against t, in the
// order of .BTF.ext, with libbpf's rules: candidates by essential name,
// the local spec matched against each, all matches required to agree,
// and each type's candidate list pruned to those that matched, for the
// relocations after it. Unlike libbpf it does not stop at the first
// relocation that fails: each Result says whether it resolved.
//
// fn is called with each Result in turn; the Result is reused for the
// next record, so fn must copy what it keeps. Records that repeat one
// another (the same type, access string and kind, on the same
// candidates) are calculated once, their instructions checked each.
// Memory stays the same whatever the number of records.
//
// The error is fn's, which stops the resolution, or what stops
// everything: a cancelled ctx (which may be nil), or a record of a
// lazily opened target (btf.Options.Lazy) that fails the checks of an
// eager open. The target's BTFs are checked whole (btf.Spec.Check, once
// for each Spec) before fn is first called, so that fn is given either
// every Result or none: a caller that prints them as they come never
// prints part of the output and then an error.
func ResolveEach(ctx context.Context, obj Object, t *Target, fn func(*Result) error) error {
	t.prepare(wants(&obj))
	if err := t.check(); err != nil {
		return err
	}
	cache := map[btf.TypeID]*candList{}
	var members memberIndexes
	var memo memo[calcEntry]
	var res Result
	progs := programsBySection(&obj)
	for _, sec := range obj.Ext.Sections(ext.CORERelos) {
		if ctx != nil && ctx.Err() != nil {
			return context.Cause(ctx)
		}
		sp := progs[sec.Name]
		for i, r := range sec.CORERelos() {
			if i%ctxStride == ctxStride-1 && ctx != nil && ctx.Err() != nil {
				return context.Cause(ctx)
			}
			resolveOne(&obj, sec.Name, sp, i, r, t, cache, &members, &memo, &res)
			if err := fn(&res); err != nil {
				return err
			}
		}
	}
	return nil
}

// ctxStride is how many records are resolved between two looks at the
// context within a section.
const ctxStride = 4096

// wants lists the candidate searches obj's relocations need, one for
// each local type however many records name it.
func wants(o *Object) []want {
	var ws []want
	seen := map[btf.TypeID]bool{}
	for _, sec := range o.Ext.Sections(ext.CORERelos) {
		for _, r := range sec.CORERelos() {
			if r.Kind == ext.TypeIDLocal || seen[r.TypeID] {
				continue
			}
			seen[r.TypeID] = true
			lt, err := o.BTF.TypeByID(r.TypeID)
			if err != nil || len(lt.NameBytes()) == 0 {
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

// resolveOne fills res with the resolution of record i of section
// secName, whose programs are sp: the calculation from memo when an
// identical record on the same candidates made it, the instruction's
// program and patch always.
func resolveOne(o *Object, secName string, sp *sectionPrograms, i int, r ext.CORERelo, t *Target, cache map[btf.TypeID]*candList,
	members *memberIndexes, memo *memo[calcEntry], res *Result) {
	*res = Result{Section: secName, Index: i, Insn: int(r.InsnOff / InsnSize), Kind: r.Kind, LocalType: r.TypeID}
	if r.InsnOff%InsnSize != 0 {
		res.Err = fmt.Errorf("%w: instruction offset %d not a multiple of 8", ErrInvalid, r.InsnOff)
		return
	}
	prog, ok := sp.at(res.Insn)
	if ok {
		res.Program = prog.Name
		res.Insn -= prog.InsnOff
	}
	if !ok || !prog.Autoload {
		res.Skipped = true
		key := reloKey{id: r.TypeID, off: r.AccessStrOff, kind: r.Kind, skipped: true}
		e, hit := memo.get(key)
		if !hit {
			var spec coreSpec
			if parseSpec(o.BTF, r, &spec) == nil {
				e.local = spec.format()
			}
			memo.put(key, e)
		}
		res.LocalSpec = e.local
		return
	}
	cands := candsFor(o, r.TypeID, t, cache)
	key := reloKey{id: r.TypeID, off: r.AccessStrOff, kind: r.Kind, cands: cands}
	e, hit := memo.get(key)
	if !hit {
		e = calcOne(o, r, cands, members)
		memo.put(key, e)
	}
	if r.Kind != ext.TypeIDLocal {
		cache[r.TypeID] = e.cands
	}
	res.LocalSpec, res.Candidates, res.TargetType, res.TargetSpec = e.local, e.ncands, e.targType, e.targ
	if e.err != nil {
		res.Err = e.err
		return
	}
	res.Patch, res.Err = patch(prog.Insns, res.Insn, o.ByteOrder, &e.res)
	res.Orig, res.Value, res.Poisoned = e.res.orig, e.res.val, e.res.poison
}

// calcEntry is what calcReloInsn decides for a record, as Result shows
// it, and the candidate list it leaves for the records after.
type calcEntry struct {
	local, targ string
	targType    btf.TypeID
	ncands      int
	res         reloRes
	err         error
	cands       *candList
}

// calcOne runs calcReloInsn for r on cands.
func calcOne(o *Object, r ext.CORERelo, cands *candList, members *memberIndexes) calcEntry {
	var oc outcome
	err := calcReloInsn(o.BTF, r, &cands, members, &oc)
	e := calcEntry{ncands: oc.ncands, res: oc.res, err: err, cands: cands}
	if oc.parsed {
		e.local = oc.local.format()
	}
	if oc.matched {
		e.targType, e.targ = oc.targ.root, oc.targ.format()
	}
	return e
}
