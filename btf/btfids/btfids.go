// Package btfids applies to pahole's BTF what Linux 7.x's build does to it
// after pahole: resolve_btfids --btf (tools/bpf/resolve_btfids/main.c, run
// by scripts/gen-btf.sh). Given the kfuncs listed in the object's .BTF_ids
// BTF_SET8s, it tags each with DECL_TAG "bpf_kfunc" (and "bpf_fastcall"),
// rewrites the prototypes of the kfuncs with implicit arguments (adding a
// FUNC named NAME_impl with the original prototype) and of those with
// arena pointers (TYPE_TAG "address_space(1)" attributes), deduplicates
// the result again, with libbpf's rules of today (dedup.CompatLibbpf18, the
// libbpf that the kernel's tools/lib/bpf holds), and sorts the types by
// name.
//
// # Concurrency
//
// Every call runs on the caller's goroutine; the package starts none.
// Finalize may be called concurrently; it shares nothing but the base,
// which it only reads.
//
// # Security
//
// Finalize parses and validates the input as btf.Parse does with a base;
// Edit checks the header, the sections' bounds and the records' layout, and
// passes the rest through for its caller's parse to check. Every lookup is
// bounded by the input; malformed input gives an error, never a panic.
package btfids

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	"github.com/kmeta-dev/kmeta/internal/wire"
)

// Kfunc flags resolve_btfids acts on (include/linux/btf.h).
const (
	FlagFastcall     = 1 << 12 // KF_FASTCALL: tag "bpf_fastcall"
	FlagArenaRet     = 1 << 13 // KF_ARENA_RET: the return value is an arena pointer
	FlagArenaArg1    = 1 << 14 // KF_ARENA_ARG1
	FlagArenaArg2    = 1 << 15 // KF_ARENA_ARG2
	FlagImplicitArgs = 1 << 16 // KF_IMPLICIT_ARGS: the last arguments are the verifier's
)

// A Kfunc is one (function, flags) pair of a BTF_SET8 flagged
// BTF_SET8_KFUNCS, named as its __BTF_ID__func__ symbol names it.
type Kfunc struct {
	Name  string
	Flags uint32
}

// Options are Finalize's inputs besides the BTF.
type Options struct {
	// Base is vmlinux's BTF when the BTF is a module's (split on it).
	Base *btf.Spec
	// DedupBase, if not nil, is Base prepared for deduplication.
	DedupBase *dedup.Base
	// Kfuncs are the pairs of the object's kfunc sets, set by set in the
	// order resolve_btfids walks them (descending set names), each set
	// in its pairs' order.
	Kfuncs []Kfunc
}

// ErrKfuncFlags reports a kfunc listed twice with different flags, which
// resolve_btfids refuses.
var ErrKfuncFlags = errors.New("btfids: kfunc has inconsistent flags across BTF ID sets")

// Finalize returns what resolve_btfids --btf writes as FILE.BTF for the
// raw BTF in raw (pahole's output, in the host's byte order), with the
// 24-byte header. It makes resolve_btfids' three steps: Edit, a
// deduplication with libbpf 1.8's rules (on opts.DedupBase, or on a Base
// made from opts.Base), and SortByName.
func Finalize(raw []byte, opts Options) ([]byte, error) {
	edited, err := Edit(raw, opts)
	if err != nil {
		return nil, err
	}
	spec, err := btf.Parse(edited, btf.Options{Base: opts.Base})
	if err != nil {
		return nil, fmt.Errorf("btfids: %w", err)
	}
	dbase := opts.DedupBase
	if dbase == nil && opts.Base != nil {
		if dbase, err = dedup.NewBase(opts.Base, dedup.Options{}); err != nil {
			return nil, fmt.Errorf("btfids: base: %w", err)
		}
	}
	m := dedup.New(dbase, dedup.Options{})
	if err := m.AddSpec(spec); err != nil {
		return nil, fmt.Errorf("btfids: %w", err)
	}
	out, err := m.Dedup(builder.Options{})
	if err != nil {
		return nil, fmt.Errorf("btfids: %w", err)
	}
	return SortByName(out, opts.Base)
}

// Edit returns raw (as Finalize takes it) with resolve_btfids' edits
// made: the kfunc declaration tags and flags of opts.Kfuncs, and the
// prototypes they imply. The result is not deduplicated: Finalize's other
// two steps follow. It is for a caller that deduplicates with a Merger of
// its own, as dwarf2btf does on the base it shares across modules.
// opts.DedupBase is not used.
func Edit(raw []byte, opts Options) ([]byte, error) {
	r, err := parse(raw, opts.Base)
	if err != nil {
		return nil, err
	}
	if err := r.btf2btf(opts.Kfuncs); err != nil {
		return nil, err
	}
	return r.marshal(), nil
}

// rawBTF is BTF being edited: its own records, in the host's order, and
// its own strings, on an optional base.
type rawBTF struct {
	base     *btf.Spec
	baseStrs []byte
	startID  uint32 // id of recs[0]
	strStart uint32 // offset of strs[0]
	recs     [][]byte
	strs     []byte
	added    map[string]uint32
}

func parse(raw []byte, base *btf.Spec) (*rawBTF, error) {
	h, err := wire.ParseHeader(raw, binary.NativeEndian)
	if err != nil {
		return nil, fmt.Errorf("btfids: %w", err)
	}
	r := &rawBTF{base: base, startID: 1, added: map[string]uint32{}}
	if base != nil {
		r.baseStrs, _ = base.StringSection()
		r.startID = uint32(base.LastID()) + 1
		r.strStart = uint32(len(r.baseStrs))
	}
	if uint64(h.HdrLen)+uint64(h.TypeOff)+uint64(h.TypeLen) > uint64(len(raw)) ||
		uint64(h.HdrLen)+uint64(h.StrOff)+uint64(h.StrLen) > uint64(len(raw)) {
		return nil, errors.New("btfids: sections past the end of the data")
	}
	types := raw[h.HdrLen+h.TypeOff : h.HdrLen+h.TypeOff+h.TypeLen]
	r.strs = bytes.Clone(raw[h.HdrLen+h.StrOff : h.HdrLen+h.StrOff+h.StrLen])
	sizes := wire.DefaultLayouts.Sizes()
	it := sizes.Iter(types)
	for it.Next() {
		r.recs = append(r.recs, bytes.Clone(it.Rec))
	}
	if !it.Done() {
		if uint32(len(types))-it.Off < wire.TypeSize {
			return nil, errors.New("btfids: truncated type section")
		}
		return nil, fmt.Errorf("btfids: bad record at type offset %d", it.Off)
	}
	return r, nil
}

// rec returns own type id's record, nil for void, base types and ids out
// of range.
func (r *rawBTF) rec(id uint32) wire.Record {
	if id < r.startID || id-r.startID >= uint32(len(r.recs)) {
		return nil
	}
	return r.recs[id-r.startID]
}

// kindOf returns id's kind and the type it refers to (for the kinds with
// one reference), looking in the base too.
func (r *rawBTF) kindOf(id uint32) (wire.Kind, uint32, string) {
	if id == 0 {
		return wire.KindUnknown, 0, ""
	}
	if rec := r.rec(id); rec != nil {
		return rec.Kind(), rec.SizeType(), r.str(rec.NameOff())
	}
	if r.base == nil {
		return wire.KindUnknown, 0, ""
	}
	t, err := r.base.TypeByID(btf.TypeID(id))
	if err != nil {
		return wire.KindUnknown, 0, ""
	}
	ref := uint32(0)
	switch t.Kind() {
	case btf.KindPointer, btf.KindConst, btf.KindVolatile, btf.KindRestrict, btf.KindTypeTag, btf.KindTypedef:
		ref = uint32(t.Ref())
	}
	return wire.Kind(t.Kind()), ref, t.Name()
}

// str returns the string at off of the base's and the own string space.
func (r *rawBTF) str(off uint32) string { return string(r.strBytes(off)) }

// addStr adds s to the own strings; deduplication rebuilds them anyway.
func (r *rawBTF) addStr(s string) uint32 {
	if s == "" {
		return 0
	}
	if off, ok := r.added[s]; ok {
		return off
	}
	off := r.strStart + uint32(len(r.strs))
	r.strs = append(append(r.strs, s...), 0)
	r.added[s] = off
	return off
}

func (r *rawBTF) add(rec []byte) uint32 {
	r.recs = append(r.recs, rec)
	return r.startID + uint32(len(r.recs)) - 1
}

func (r *rawBTF) addFixed(name string, k wire.Kind, vlen int, kflag bool, sizeType uint32) []byte {
	return wire.AppendFixed(nil, r.addStr(name), wire.Info(k, vlen, kflag), sizeType)
}

// findFunc is btf__find_by_name_kind_own for a FUNC: the first own one of
// that name, 0 if none.
func (r *rawBTF) findFunc(name string) uint32 {
	for i, rec := range r.recs {
		if rec := wire.Record(rec); rec.Kind() == wire.KindFunc && r.str(rec.NameOff()) == name {
			return r.startID + uint32(i)
		}
	}
	return 0
}

func (r *rawBTF) marshal() []byte {
	n := 0
	for _, rec := range r.recs {
		n += len(rec)
	}
	h := wire.Header{Version: 1, HdrLen: wire.HeaderLen, TypeLen: uint32(n), StrOff: uint32(n), StrLen: uint32(len(r.strs))}
	out := wire.AppendHeader(nil, h, binary.NativeEndian)
	for _, rec := range r.recs {
		out = append(out, rec...)
	}
	return append(out, r.strs...)
}

// kfuncTags are resolve_btfids' decl tags and attributes.
const (
	tagKfunc    = "bpf_kfunc"
	tagFastcall = "bpf_fastcall"
	attrArena   = "address_space(1)"
	implSuffix  = "_impl"
)

type kfunc struct {
	name  string
	id    uint32
	flags uint32
}

// btf2btf is resolve_btfids' btf2btf.
func (r *rawBTF) btf2btf(list []Kfunc) error {
	var tags []uint32
	for i, rec := range r.recs {
		if wire.Record(rec).Kind() == wire.KindDeclTag {
			tags = append(tags, r.startID+uint32(i))
		}
	}
	var kfuncs []kfunc
	for _, k := range list {
		id := r.findFunc(k.Name)
		if id == 0 {
			continue // resolve_btfids warns: no BTF func for the kfunc
		}
		i, found := slices.BinarySearchFunc(kfuncs, id, func(k kfunc, id uint32) int { return int(k.id) - int(id) })
		if found {
			if kfuncs[i].flags != k.Flags {
				return fmt.Errorf("%w: %s: %#x != %#x", ErrKfuncFlags, k.Name, kfuncs[i].flags, k.Flags)
			}
			continue
		}
		kfuncs = slices.Insert(kfuncs, i, kfunc{name: k.Name, id: id, flags: k.Flags})
	}
	for _, k := range kfuncs {
		tags = append(tags, r.add(r.declTag(tagKfunc, k.id, -1, false)))
		if k.flags&FlagFastcall != 0 {
			tags = append(tags, r.add(r.declTag(tagFastcall, k.id, -1, false)))
		}
		if k.flags&FlagImplicitArgs != 0 {
			if err := r.implicitArgs(k, tags); err != nil {
				return err
			}
		}
		if err := r.arena(k); err != nil {
			return err
		}
	}
	return nil
}

func (r *rawBTF) declTag(value string, target uint32, component int32, attr bool) []byte {
	return wire.AppendWord(r.addFixed(value, wire.KindDeclTag, 0, attr, target), uint32(component))
}

// proto returns the FUNC_PROTO record of FUNC id, and its id.
func (r *rawBTF) proto(fn uint32) (wire.Record, uint32, error) {
	f := r.rec(fn)
	if f == nil || f.Kind() != wire.KindFunc {
		return nil, 0, fmt.Errorf("btfids: btf id %d is not a function", fn)
	}
	p := r.rec(f.SizeType())
	if p == nil || p.Kind() != wire.KindFuncProto {
		return nil, 0, fmt.Errorf("btfids: btf id %d is not a function prototype", f.SizeType())
	}
	return p, f.SizeType(), nil
}

// implicitArgs is process_kfunc_with_implicit_args.
func (r *rawBTF) implicitArgs(k kfunc, tags []uint32) error {
	p, protoID, err := r.proto(k.id)
	if err != nil {
		return err
	}
	impl := k.name + implSuffix
	if r.findFunc(impl) == 0 {
		linkage := r.rec(k.id).Vlen()
		fn := r.add(r.addFixed(impl, wire.KindFunc, linkage, false, protoID))
		for _, t := range tags {
			rec := r.rec(t)
			if rec == nil || rec.SizeType() != k.id || r.str(rec.NameOff()) == tagKfunc {
				continue
			}
			r.add(r.declTag(r.str(rec.NameOff()), fn, int32(rec.Extra()), rec.KindFlag()))
		}
		p = r.rec(protoID)
	}
	n := 0
	for ; n < p.Vlen(); n++ {
		_, typ := p.Param(n)
		if r.implicitArg(typ) {
			break
		}
	}
	np := r.addFixed("", wire.KindFuncProto, n, false, p.SizeType())
	for i := range n {
		name, typ := p.Param(i)
		np = wire.AppendWord(wire.AppendWord(np, r.addStr(r.str(name))), typ)
	}
	id := r.add(np)
	wire.PutWord(r.rec(k.id), wire.SizeTypeAt, id)
	return nil
}

// skipMods is btf_type_skip_qualifiers: past const, volatile, restrict
// and type tags.
func (r *rawBTF) skipMods(id uint32) (wire.Kind, uint32, string) {
	for range 64 {
		k, ref, name := r.kindOf(id)
		switch k {
		case wire.KindConst, wire.KindVolatile, wire.KindRestrict, wire.KindTypeTag:
			id = ref
			continue
		}
		return k, ref, name
	}
	return wire.KindUnknown, 0, ""
}

// implicitArg is is_kf_implicit_arg: a pointer to struct bpf_prog_aux or
// btf_struct_meta.
func (r *rawBTF) implicitArg(typ uint32) bool {
	k, ref, _ := r.skipMods(typ)
	if k != wire.KindPointer {
		return false
	}
	k, _, name := r.skipMods(ref)
	return k == wire.KindStruct && (name == "bpf_prog_aux" || name == "btf_struct_meta")
}

// arenaArg is is_arena_arg.
func (r *rawBTF) arenaArg(k kfunc, nameOff uint32, i int) bool {
	name := r.str(nameOff)
	if strings.HasSuffix(name, "__arena") || strings.HasSuffix(name, "__arena__nullable") {
		return true
	}
	switch i {
	case 0:
		return k.flags&FlagArenaArg1 != 0
	case 1:
		return k.flags&FlagArenaArg2 != 0
	}
	return false
}

// arenaPtr is arena_tag_ptr: a pointer to the attributed pointee of ptr.
func (r *rawBTF) arenaPtr(ptr uint32, k kfunc) (uint32, error) {
	kind, ref, _ := r.kindOf(ptr)
	if kind != wire.KindPointer {
		return 0, fmt.Errorf("btfids: kfunc %s: arena type is not a pointer", k.name)
	}
	tag := r.add(r.addFixed(attrArena, wire.KindTypeTag, 0, true, ref))
	return r.add(r.addFixed("", wire.KindPointer, 0, false, tag)), nil
}

// arena is process_kfunc_with_arena_attrs.
func (r *rawBTF) arena(k kfunc) error {
	p, _, err := r.proto(k.id)
	if err != nil {
		return err
	}
	has := false
	for i := range p.Vlen() {
		name, _ := p.Param(i)
		has = has || r.arenaArg(k, name, i)
	}
	if k.flags&FlagArenaRet == 0 && !has {
		return nil
	}
	ret := p.SizeType()
	if k.flags&FlagArenaRet != 0 {
		if ret, err = r.arenaPtr(ret, k); err != nil {
			return err
		}
	}
	np := r.addFixed("", wire.KindFuncProto, p.Vlen(), false, ret)
	for i := range p.Vlen() {
		name, typ := p.Param(i)
		np = wire.AppendWord(wire.AppendWord(np, r.addStr(r.str(name))), typ)
	}
	id := r.add(np)
	for i := range p.Vlen() {
		rec := r.rec(id)
		name, typ := rec.Param(i)
		if !r.arenaArg(k, name, i) {
			continue
		}
		t, err := r.arenaPtr(typ, k)
		if err != nil {
			return err
		}
		r.rec(id).SetParamType(i, t)
	}
	wire.PutWord(r.rec(k.id), wire.SizeTypeAt, id)
	return nil
}
