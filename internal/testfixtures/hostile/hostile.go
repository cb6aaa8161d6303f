// Package hostile generates BTF of hostile shapes (issue 37) for the tests
// of the packages that read BTF, the CLI's tests and fuzz campaign, and
// bench/: records that embed themselves, deep nesting, long chains, wide
// records, many big enums (Build, in any size), nested anonymous records
// with forwards and cycles for deduplication (Nested), a dangling type id
// and an ENUM of size 0 in a struct. Each generator returns standalone BTF
// in host byte order, written through btf/builder (which the tests of
// testfixtures' other users cannot import), so tests make inputs of any
// size without committing them.
//
// Some of the shapes are valid BTF (nesting, chains, wide records, enums);
// the self-embedding ones are not (a record cannot contain itself), but
// opening a Spec accepts them, as the kernel's own loader checks sizes, not
// containment: every reader must stop on them with an error.
//
// It is a test helper: only _test.go files (and other test helpers)
// import it, as docs/layers.md says and internal/apidoc's TestLayers
// checks.
package hostile

import (
	"encoding/binary"
	"fmt"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// NestedVariant tells Nested what to add to its chain of records.
type NestedVariant int

const (
	// NestedPlain is the chain alone.
	NestedPlain NestedVariant = iota
	// NestedTwice is the chain twice, so that the second copy merges
	// into the first.
	NestedTwice
	// NestedFwd adds anonymous FWDs of both classes, which a
	// deduplication may resolve to any anonymous struct or union.
	NestedFwd
	// NestedCycle gives every tenth record a second member, a pointer to
	// a list struct that points to itself.
	NestedCycle
	// NestedFwdPtr adds anonymous FWDs of both classes and a pointer to
	// each.
	NestedFwdPtr
	// NestedFwdMember adds an anonymous FWD union and, after the chain, an
	// anonymous struct of 4 bytes whose member "m" is that FWD: shaped
	// like a record of the chain, and equivalent to every struct of it
	// whose member is a union, as far as the comparison goes.
	NestedFwdMember
	// NestedFwdBottom is NestedFwdMember with the chain's first record
	// holding a pointer to an anonymous FWD struct instead of the int,
	// so that every record of the chain reaches a FWD.
	NestedFwdBottom
	// NestedFwdBottomPtr is NestedFwdBottom with a pointer to the
	// chain's first record: a pointer refers to an anonymous struct too,
	// so the FWD at the bottom may stand for one there.
	NestedFwdBottomPtr
	// NestedFwdPtrEvery is NestedFwdBottom with a pointer to every
	// record of the chain, each after its record.
	NestedFwdPtrEvery
	// NestedFwdTypedef is NestedFwdBottomPtr with every member "m"
	// through a typedef, "ts" of a struct and "tu" of a union, and the
	// pointer to the first record held by a struct "holder".
	NestedFwdTypedef
	// NestedFwdDepths is NestedFwdBottomPtr with every tenth struct of
	// the chain holding, as a second member, its own pointer to an
	// anonymous FWD struct: FWDs at several depths.
	NestedFwdDepths
	// NestedFwdPtrLinks is the chain with every record holding a pointer
	// to the one before instead of the record itself, and the first a
	// pointer to an anonymous FWD struct: every pointer to a record of
	// the chain refers to an anonymous struct or union as the one to the
	// FWD does.
	NestedFwdPtrLinks
	// NestedPtrLinksAlternate is NestedFwdPtrLinks with every other link
	// by value: the odd records hold a pointer to the one before, the
	// even ones the record itself.
	NestedPtrLinksAlternate
	// NestedPtrLinksTypedef is NestedFwdPtrLinks with every link through
	// a typedef of the pointer, "ps" to a struct and "pu" to a union.
	NestedPtrLinksTypedef
	// NestedPtrLinksMiddle is NestedFwdPtrLinks with an int at the
	// bottom and the FWD in the middle: the record half way up holds a
	// pointer to an anonymous FWD struct instead of the one before.
	NestedPtrLinksMiddle
	// NestedPtrLinksTwice is NestedFwdPtrLinks twice, so that the second
	// copy merges into the first.
	NestedPtrLinksTwice
	numNestedVariants
)

// NestedVariants returns every NestedVariant, in order.
func NestedVariants() []NestedVariant { return upTo(numNestedVariants) }

// Nested returns valid standalone BTF in host byte order (issue 37): an
// int, then n anonymous records, alternately structs and unions of 4 bytes,
// each the only member (named "m") of the next, and a struct "outer"
// holding the last; v adds to it.
func Nested(n int, v NestedVariant) ([]byte, error) {
	b := builder.New()
	b.AllowManyTypes()
	copies := 1
	if v == NestedTwice || v == NestedPtrLinksTwice {
		copies = 2
	}
	for range copies {
		if err := nested(b, n, v); err != nil {
			return nil, fmt.Errorf("hostile: nested %d: %w", n, err)
		}
	}
	return b.Marshal(builder.Options{})
}

func nested(b *builder.Builder, n int, v NestedVariant) (err error) {
	inner, err := addInt(b)
	if err != nil {
		return err
	}
	var o chainOpts
	switch v {
	case NestedFwd, NestedFwdPtr:
		s, err := b.AddForward("", false)
		if err != nil {
			return err
		}
		u, err := b.AddForward("", true)
		if err != nil {
			return err
		}
		if v == NestedFwdPtr {
			if err := addPointers(b, s, u); err != nil {
				return err
			}
		}
	case NestedFwdMember, NestedFwdBottom, NestedFwdBottomPtr, NestedFwdPtrEvery, NestedFwdTypedef, NestedFwdDepths:
		u, ferr := b.AddForward("", true)
		if ferr != nil {
			return ferr
		}
		if v != NestedFwdMember {
			if inner, err = addFwdPointer(b); err != nil {
				return err
			}
		}
		o = fwdChainOpts(v)
		defer func() {
			if err == nil {
				err = fwdMember(b, u, o.typedefs)
			}
		}()
	case NestedFwdPtrLinks, NestedPtrLinksAlternate, NestedPtrLinksTypedef, NestedPtrLinksTwice:
		if inner, err = addFwdPointer(b); err != nil {
			return err
		}
		o.ptrLinks = true
		o.altLinks = v == NestedPtrLinksAlternate
		o.linkTypedefs = v == NestedPtrLinksTypedef
	case NestedPtrLinksMiddle:
		o.ptrLinks = true
		o.fwdAt = n / 2
	case NestedCycle:
		// struct list { struct list *next; }: the pointer is added
		// before the struct it points to.
		list := b.NextID() + 1
		if _, err := b.AddPointer(list); err != nil {
			return err
		}
		if _, err := b.AddStruct("list", 8, []builder.Member{{Name: "next", Type: list - 1}}); err != nil {
			return err
		}
		o.second = func(*builder.Builder) (btf.TypeID, error) { return list - 1, nil }
	}
	return records(b, inner, n, o)
}

// chainOpts tells records what to add to its chain.
type chainOpts struct {
	// second, if not nil, gives every tenth struct a second member "l",
	// a pointer it returns, and makes every record 16 bytes.
	second   func(*builder.Builder) (btf.TypeID, error)
	firstPtr bool // a pointer to the first record follows it
	everyPtr bool // a pointer to each record follows it
	holder   bool // a struct "holder" holds the pointer to the first record
	typedefs bool // each member "m" through a typedef "ts" or "tu"
	ptrLinks bool // each member "m" a pointer, records of 8 bytes
	altLinks bool // with ptrLinks, only the odd records' members pointers
	// linkTypedefs, with ptrLinks, makes each member a typedef "ps" or
	// "pu" of the pointer.
	linkTypedefs bool
	// fwdAt, if positive, makes the record of that index hold a pointer to
	// an anonymous FWD struct instead of the one before.
	fwdAt int
}

// fwdChainOpts returns the chain options of the variants with a FWD at
// the bottom.
func fwdChainOpts(v NestedVariant) chainOpts {
	switch v {
	case NestedFwdBottomPtr:
		return chainOpts{firstPtr: true}
	case NestedFwdPtrEvery:
		return chainOpts{everyPtr: true}
	case NestedFwdTypedef:
		return chainOpts{firstPtr: true, holder: true, typedefs: true}
	case NestedFwdDepths:
		return chainOpts{firstPtr: true, second: addFwdPointer}
	}
	return chainOpts{}
}

// fwdMember adds an anonymous struct of 4 bytes whose member "m" is u, an
// anonymous FWD union, or a typedef "tu" of it.
func fwdMember(b *builder.Builder, u btf.TypeID, typedef bool) (err error) {
	if typedef {
		if u, err = b.AddTypedef("tu", u); err != nil {
			return err
		}
	}
	_, err = b.AddStruct("", 4, []builder.Member{{Name: "m", Type: u}})
	return err
}

// records adds n anonymous records, structs and unions in turn, the first
// holding inner and each next one holding the one before, as member "m";
// a named struct "outer" holds the last. o adds to them.
func records(b *builder.Builder, inner btf.TypeID, n int, o chainOpts) (err error) {
	for i := range n {
		if i > 0 && i == o.fwdAt {
			if inner, err = addFwdPointer(b); err != nil {
				return err
			}
		}
		if inner, err = record(b, inner, i, o); err != nil {
			return err
		}
		if i == 0 && o.firstPtr || o.everyPtr {
			p, err := b.AddPointer(inner)
			if err != nil {
				return err
			}
			if i == 0 && o.holder {
				if _, err := b.AddStruct("holder", 8, []builder.Member{{Name: "p", Type: p}}); err != nil {
					return err
				}
			}
		}
		switch {
		case o.typedefs:
			inner, err = b.AddTypedef([...]string{"ts", "tu"}[i%2], inner)
		case o.ptrLinks && (!o.altLinks || i%2 == 1):
			inner, err = ptrLink(b, inner, i, o.linkTypedefs)
		}
		if err != nil {
			return err
		}
	}
	size := uint32(4)
	if o.ptrLinks {
		size = 8
	}
	_, err = b.AddStruct("outer", size, []builder.Member{{Name: "m", Type: inner}})
	return err
}

// ptrLink adds a pointer to the i-th record of records' chain, and a
// typedef "ps" or "pu" of it if typedef, and returns the last added.
func ptrLink(b *builder.Builder, rec btf.TypeID, i int, typedef bool) (btf.TypeID, error) {
	p, err := b.AddPointer(rec)
	if err != nil || !typedef {
		return p, err
	}
	return b.AddTypedef([...]string{"ps", "pu"}[i%2], p)
}

func recordSize(o chainOpts) uint32 {
	switch {
	case o.second != nil:
		return 16
	case o.ptrLinks:
		return 8
	}
	return 4
}

// record adds the i-th record of records' chain, holding inner.
func record(b *builder.Builder, inner btf.TypeID, i int, o chainOpts) (btf.TypeID, error) {
	ms := []builder.Member{{Name: "m", Type: inner}}
	size := recordSize(o)
	if o.second != nil {
		if i%10 == 0 {
			l, err := o.second(b)
			if err != nil {
				return 0, err
			}
			ms = append(ms, builder.Member{Name: "l", Type: l, BitOffset: 64})
		}
	}
	if i%2 == 0 {
		return b.AddStruct("", size, ms)
	}
	return b.AddUnion("", size, ms[:1])
}

// addInt adds a signed 32-bit "int".
func addInt(b *builder.Builder) (btf.TypeID, error) {
	return b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
}

// addFwdPointer adds an anonymous FWD struct and a pointer to it, and
// returns the pointer.
func addFwdPointer(b *builder.Builder) (btf.TypeID, error) {
	s, err := b.AddForward("", false)
	if err != nil {
		return 0, err
	}
	return b.AddPointer(s)
}

func addPointers(b *builder.Builder, targets ...btf.TypeID) error {
	for _, t := range targets {
		if _, err := b.AddPointer(t); err != nil {
			return err
		}
	}
	return nil
}

// DanglingRef returns standalone BTF in host byte order (issue 37): an
// int and a struct "s" whose member refers to type 99, past the last.
// Parse refuses it; a lazy open accepts it.
func DanglingRef() ([]byte, error) {
	b := builder.New()
	i, err := addInt(b)
	if err != nil {
		return nil, err
	}
	if _, err := b.AddStruct("s", 4, []builder.Member{{Name: "m", Type: i}}); err != nil {
		return nil, err
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		return nil, err
	}
	// The member's type: after the 24-byte header, the int's 16 bytes,
	// the struct's 12 and the member's name.
	const at = 24 + 16 + 12 + 4
	if binary.NativeEndian.Uint32(raw[at:]) != uint32(i) {
		return nil, fmt.Errorf("hostile: dangling: the member is not where expected")
	}
	binary.NativeEndian.PutUint32(raw[at:], 99)
	return raw, nil
}

// ZeroEnumMember returns standalone BTF in host byte order (issue 37): an
// ENUM of size 0 and a struct "s" whose member is of it, which Parse
// accepts.
func ZeroEnumMember() ([]byte, error) {
	b := builder.New()
	e, err := b.AddEnum("e", 4, false, []builder.Enumerator{{Name: "A", Value: 1}})
	if err != nil {
		return nil, err
	}
	if _, err := b.AddStruct("s", 4, []builder.Member{{Name: "m", Type: e}}); err != nil {
		return nil, err
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		return nil, err
	}
	// The enum's size word: after the 24-byte header, its name and info.
	const at = 24 + 8
	if binary.NativeEndian.Uint32(raw[at:]) != 4 {
		return nil, fmt.Errorf("hostile: zero enum: the size is not where expected")
	}
	binary.NativeEndian.PutUint32(raw[at:], 0)
	return raw, nil
}

// WideSelf returns standalone BTF in host byte order (issue 37): a
// struct of n members (n <= 65,535), each of its own type, in a struct
// "outer"; the struct is called name, or anonymous if name is empty.
// Parse accepts it (it checks ids, not containment).
func WideSelf(name string, n int) ([]byte, error) {
	b := builder.New()
	if err := selfStruct(b, name, 0, n); err != nil {
		return nil, err
	}
	return b.Marshal(builder.Options{})
}

// selfStruct adds a struct called name (anonymous if empty) of n members
// "m0", "m1", ... 4 bytes apart, each of the struct's own type but the
// first of type first if not 0, and a struct "outer" holding it.
func selfStruct(b *builder.Builder, name string, first btf.TypeID, n int) error {
	self := b.NextID()
	ms := make([]builder.Member, n)
	for i := range ms {
		ms[i] = builder.Member{Name: fmt.Sprintf("m%d", i), Type: self, BitOffset: uint32(32 * i)}
	}
	if first != 0 && n > 0 {
		ms[0].Type = first
	}
	if _, err := b.AddStruct(name, uint32(4*n), ms); err != nil {
		return err
	}
	_, err := b.AddStruct("outer", uint32(4*n), []builder.Member{{Name: "m", Type: self}})
	return err
}
