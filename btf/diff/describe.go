package diff

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/pkgerr"
)

// fact is one comparable property of a type: a struct's size, one member,
// one enumerator, a prototype.
type fact struct {
	name, value string
}

// maxFlatten bounds the nesting of anonymous members that a struct's
// facts flatten, as btf layout bounds the levels it prints: real kernels
// nest a few levels, valid BTF may nest thousands, and a member's path
// repeats the names of every level, so that the work grows as the square
// of the depth. It also stops an anonymous struct that holds itself.
const maxFlatten = 4096

// errTooDeep and errTooLong are why a struct is refused; errBig, that its
// signature is longer than asked for (signatureUpTo), so that the caller
// compares it as it is spelled (streamDiff). errTooDeep is a value of its
// own type, not fmt.Errorf's, so that this package runs no code at
// start-up (cmd/kmeta's TestStartupFloor).
var (
	errTooDeep error = tooDeepError{}
	errTooLong       = errors.New("diff: its members' paths take more memory than the input allows (anonymous members nest too deep)")
	errBig           = errors.New("diff: signature too long to hold")
)

// tooDeepError is errTooDeep's type.
type tooDeepError struct{}

func (tooDeepError) Error() string {
	return fmt.Sprintf("diff: anonymous members nest more than %d levels deep", maxFlatten)
}

// refuse is the one-line error refusing struct t for err.
func refuse(t btf.Type, err error) error {
	return pkgerr.Errorf("diff: %v: %w", t, err) // one "diff: "
}

// sigSlack is what a signature held whole may take beyond twice its
// Spec's BTF (S), so that the two signatures compared, their growth and
// the rest stay near the reading commands' 2 S + 20 MB: a member's path
// repeats the names of the anonymous members it is in, so that deep
// nesting makes a signature grow as the square of its depth (4,095 levels
// of 33 members take 800 MB). Only the comparisons that hold signatures
// whole are bounded so: those of groups of several types of a name (a
// struct compared as it is spelled holds 8 to 24 bytes a fact instead,
// bounded by the same bound: streamDiff, unordered). It also bounds one
// member's path.
const sigSlack = 2 << 20

// bound is the most bytes that one signature of sd may take when held.
func (sd *side) bound() int {
	return sigSlack + 2*(len(sd.spec.TypeSection())+sd.spec.StringsLen())
}

// signature appends the facts of type id that a diff compares, each as
// name, NUL, value, NUL: a struct's size and members, an enum's
// enumerators, a function's prototype, a typedef's target. A struct's
// signature longer than sd.bound() is refused.
func (sd *side) signature(dst []byte, id btf.TypeID) ([]byte, error) {
	return sd.signatureUpTo(dst, id, math.MaxInt)
}

// signatureUpTo is signature, but fails with errBig, leaving dst as it
// was, for a struct whose signature would be longer than limit bytes.
func (sd *side) signatureUpTo(dst []byte, id btf.TypeID, limit int) ([]byte, error) {
	start := len(dst)
	dst, err := sd.spell(dst, id, limit)
	if err == nil && sd.ctx != nil {
		err = sd.pollSpelled(1 + (len(dst)-start)/spelledBytes)
	}
	if err == errBig {
		dst = dst[:start]
	}
	return dst, err
}

// spelledBytes is how many bytes of signatures count as one type spelled
// between two checks of the context: a type of 65,535 members,
// enumerators or parameters costs as much as thousands of small ones.
const spelledBytes = 64

// pollSpelled adds n to the work spelled and checks ctx each time the
// total passes a multiple of pollEvery.
func (sd *side) pollSpelled(n int) error {
	before := sd.spelled
	sd.spelled += n
	if before/pollEvery == sd.spelled/pollEvery {
		return nil
	}
	if err := sd.ctx.Err(); err != nil {
		return fmt.Errorf("diff: %w", err)
	}
	return nil
}

// spell is signatureUpTo without the context's check.
func (sd *side) spell(dst []byte, id btf.TypeID, limit int) ([]byte, error) {
	sd.spelling = id
	t, err := sd.spec.TypeByID(id)
	if err != nil {
		return dst, fmt.Errorf("diff: %w", err)
	}
	switch t.Kind() {
	case btf.KindStruct, btf.KindUnion:
		w := sd.sig
		if w == nil {
			w = sd.walker(t, true)
			sd.sig = w
		} else {
			w.reset(t)
		}
		end := len(dst) + min(limit, sd.bound())
		for w.next() {
			if len(dst)+len(w.name)+len(w.value) > end {
				if limit < sd.bound() {
					return dst, errBig
				}
				return dst, refuse(t, errTooLong)
			}
			dst = append(append(append(append(dst, w.name...), 0), w.value...), 0)
		}
		return dst, w.error(t)
	case btf.KindEnum, btf.KindEnum64:
		dst = num(dst, "size", uint64(t.Size()))
		dst = str(dst, "signed", strconv.FormatBool(t.KindFlag()))
		for _, v := range t.EnumValues() {
			dst = append(dst, "enumerator "...)
			dst = append(dst, v.NameBytes()...)
			dst = append(dst, 0)
			if v.Signed {
				dst = strconv.AppendInt(dst, v.Int64(), 10)
			} else {
				dst = strconv.AppendUint(dst, v.Value, 10)
			}
			dst = append(dst, 0)
		}
		return dst, nil
	case btf.KindFunc:
		// The declaration of the function, with its name and its
		// parameters' ("int f(int a)"), so that a changed prototype
		// reads as the function's, also among several definitions.
		dst = append(dst, "prototype\x00"...)
		if dst, err = sd.decl(dst, t.Ref(), t.Name()); err != nil {
			return dst, err
		}
		dst = append(dst, 0)
		return str(dst, "linkage", t.Linkage().String()), nil
	case btf.KindVar, btf.KindTypedef, btf.KindTypeTag, btf.KindDeclTag:
		typ, err := sd.typeName(t.Ref())
		if err != nil {
			return dst, err
		}
		dst = str(dst, "type", typ)
		switch t.Kind() {
		case btf.KindVar:
			dst = str(dst, "linkage", t.Linkage().String())
		case btf.KindDeclTag:
			dst = num(dst, "component", uint64(int64(t.ComponentIdx())))
		}
		return dst, nil
	case btf.KindInt:
		i := t.Int()
		dst = num(dst, "size", uint64(t.Size()))
		dst = num(dst, "encoding", uint64(i.Encoding))
		dst = num(dst, "bits", uint64(i.Bits))
		return num(dst, "bit offset", uint64(i.Offset)), nil
	case btf.KindForward:
		return str(dst, "union", strconv.FormatBool(t.IsUnionForward())), nil
	}
	return num(dst, "size", uint64(t.Size())), nil
}

func num(dst []byte, name string, v uint64) []byte {
	dst = append(dst, name...)
	dst = append(dst, 0)
	dst = strconv.AppendUint(dst, v, 10)
	return append(dst, 0)
}

func str(dst []byte, name, v string) []byte {
	dst = append(dst, name...)
	dst = append(dst, 0)
	dst = append(dst, v...)
	return append(dst, 0)
}

// description is a signature cut into its facts: the signature and where
// each fact's name and value end, 8 bytes a fact (a fact of strings took
// 32, and a copy of the signature: 4.6 MB more for a struct of 65,535
// members).
type description struct {
	sig string
	at  []factEnds
}

// factEnds is where a fact's name and value end in its signature: at
// the NUL after each. The fact's name begins after the previous fact's
// value.
type factEnds struct{ name, value int32 }

// describe cuts sig into its facts. The description aliases sig, which
// must not change afterwards: the details made of it hold its strings.
func describe(sig []byte) description {
	if len(sig) == 0 {
		return description{}
	}
	d := description{sig: unsafe.String(&sig[0], len(sig)), at: make([]factEnds, 0, bytes.Count(sig, []byte{0})/2)}
	for i := 0; i < len(sig); {
		name := bytes.IndexByte(sig[i:], 0)
		if name < 0 {
			break
		}
		value := bytes.IndexByte(sig[i+name+1:], 0)
		if value < 0 {
			break
		}
		e := factEnds{int32(i + name), int32(i + name + 1 + value)}
		d.at = append(d.at, e)
		i = int(e.value) + 1
	}
	return d
}

// fact returns the i-th fact of d.
func (d description) fact(i int) fact {
	e := d.at[i]
	return fact{d.name(i), d.sig[e.name+1 : e.value]}
}

// name returns the name of the i-th fact of d.
func (d description) name(i int) string {
	start := int32(0)
	if i > 0 {
		start = d.at[i-1].value + 1
	}
	return d.sig[start:d.at[i].name]
}

// appendBitOffset spells a bit offset as bytes, with ":bits" when it is
// not on a byte.
func appendBitOffset(dst []byte, bits uint32) []byte {
	dst = strconv.AppendUint(dst, uint64(bits/8), 10)
	if bits%8 != 0 {
		dst = append(dst, ':')
		dst = strconv.AppendUint(dst, uint64(bits%8), 10)
	}
	return dst
}

// compareOne is compareGroups for a group of one type on each side, ia
// and ib. Their signatures are held whole, unless one is longer than
// streamAbove: then they are compared as they are spelled (streamDiff).
// alias is as for Change.more.
func compareOne(a, b *side, ia, ib btf.TypeID, alias bool, yield func(Detail) bool) error {
	var bufs [2][]byte // the details alias them: not reused
	same, big, err := heldOrBig(a, b, ia, ib, &bufs)
	switch {
	case err != nil || same:
		return err
	case big:
		return streamDiff(a, b, ia, ib, alias, yield)
	}
	signatureDiff(bufs[0], bufs[1], yield)
	return nil
}

// signatureDiff yields what differs between the signatures of one type on
// each side; nothing when they are the same. It returns false when yield
// does. The details alias sa and sb, which must not change afterwards.
func signatureDiff(sa, sb []byte, yield func(Detail) bool) bool {
	if bytes.Equal(sa, sb) {
		return true
	}
	found := false
	ok := factDiff(describe(sa), describe(sb), func(d Detail) bool {
		found = true
		return yield(d)
	})
	if ok && !found {
		// The same facts in another order.
		return yield(Detail{Change: Changed, Field: "member_order"})
	}
	return ok
}

// factDiff yields what differs between two descriptions, in the order of
// the old one, then what the new one adds; it returns false when yield
// does. Facts are matched as multisets (matchFacts): a fact of a is the
// same as a fact of b of its name and value, Changed against the fact of
// its name that b has left over, Removed when b has none; the facts of b
// left over are Added. Short descriptions (most) are searched without an
// index, those of a kernel's structs, whose names are all different,
// through maps, and longer ones, or those that repeat a name, through
// the indexes of their facts sorted, 4 bytes a fact where maps take some
// 60 (sorting them all costs 5% more instructions on Debian 6.1 against
// 6.12).
func factDiff(a, b description, yield func(Detail) bool) bool {
	switch {
	case len(a.at)*len(b.at) <= maxLinear:
		var pairs [maxLinear]int32
		var used [maxLinear/64 + 1]uint64 // on the stack: not grown
		pair := pairs[:len(a.at)]
		matchLinear(a, b, pair, &used)
		return emitFacts(a, b, pair, bits(used[:]), yield)
	case len(a.at)+len(b.at) <= maxMapped:
		nb := make(map[string]string, len(b.at))
		for i := range b.at {
			f := b.fact(i)
			nb[f.name] = f.value
		}
		na := make(map[string]bool, len(a.at))
		for i := range a.at {
			na[a.name(i)] = true
		}
		if len(nb) < len(b.at) || len(na) < len(a.at) {
			break // a name repeats
		}
		// Every name once on each side: a fact is the same, changed
		// or removed by the one fact of its name.
		for i := range a.at {
			f := a.fact(i)
			v, ok := nb[f.name]
			switch {
			case !ok:
				if !factDetails(Removed, f.name, f.value, "", yield) {
					return false
				}
			case v != f.value:
				if !factDetails(Changed, f.name, f.value, v, yield) {
					return false
				}
			}
		}
		for i := range b.at {
			if f := b.fact(i); !na[f.name] && !factDetails(Added, f.name, "", f.value, yield) {
				return false
			}
		}
		return true
	}
	pair, inA := matchFacts(a, b)
	return emitFacts(a, b, pair, inA, yield)
}

// factList is a list of facts that matchFacts pairs: a description, or a
// struct's own facts (shared.go).
type factList interface {
	len() int
	name(i int) string
	value(i int) string
}

func (d description) len() int { return len(d.at) }

// value returns the value of the i-th fact of d.
func (d description) value(i int) string {
	e := d.at[i]
	return d.sig[e.name+1 : e.value]
}

// What matchFacts pairs a fact of a with, when not a fact of b.
const (
	factRemoved = -1 // none: b has no fact of its name left over
	factSame    = -2 // a fact of b of its name and value
)

// matchFacts pairs the facts of a with those of b, as multisets: first
// the facts of equal name and value, the k-th of a with the k-th of b;
// then the facts left over of one name, again the k-th with the k-th (as
// btf layout's groups pair their members). pair[i] is factSame, the index
// of the fact of b that the i-th of a changed into, or factRemoved; inA
// holds the facts of b that a has (the same or changed): the others are
// added. A struct of five members "x" against one whose second and
// fourth are named "y" has two "x" removed and two "y" added, not every
// "x" moved to the last.
func matchFacts[L factList](a, b L) (pair []int32, inA bits) {
	ia, ib := sortedFacts(a, true), sortedFacts(b, true)
	pair = make([]int32, a.len())
	for i := range pair {
		pair[i] = factRemoved
	}
	for p, q := 0, 0; p < len(ia) && q < len(ib); {
		x, y := int(ia[p]), int(ib[q])
		c := strings.Compare(a.name(x), b.name(y))
		if c == 0 {
			c = strings.Compare(a.value(x), b.value(y))
		}
		switch {
		case c < 0:
			p++
		case c > 0:
			q++
		default:
			pair[x] = factSame
			inA.add(y)
			p, q = p+1, q+1
		}
	}
	// The facts left over, by name and then in order.
	ia = slices.DeleteFunc(ia, func(x int32) bool { return pair[x] == factSame })
	ib = slices.DeleteFunc(ib, func(y int32) bool { return inA.has(int(y)) })
	slices.SortFunc(ia, func(x, y int32) int { return cmpFact(a, x, y, false) })
	slices.SortFunc(ib, func(x, y int32) int { return cmpFact(b, x, y, false) })
	for p, q := 0, 0; p < len(ia) && q < len(ib); {
		x, y := int(ia[p]), int(ib[q])
		switch c := strings.Compare(a.name(x), b.name(y)); {
		case c < 0:
			p++
		case c > 0:
			q++
		default:
			pair[x] = int32(y)
			inA.add(y)
			p, q = p+1, q+1
		}
	}
	return pair, inA
}

// sortedFacts returns the indexes of the facts of l sorted by name (and
// value, with values), those of equal keys in their order.
func sortedFacts[L factList](l L, values bool) []int32 {
	idx := make([]int32, l.len())
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(x, y int32) int { return cmpFact(l, x, y, values) })
	return idx
}

// cmpFact orders the facts x and y of l by name, then (with values) by
// value, then by index.
func cmpFact[L factList](l L, x, y int32, values bool) int {
	c := strings.Compare(l.name(int(x)), l.name(int(y)))
	if c == 0 && values {
		c = strings.Compare(l.value(int(x)), l.value(int(y)))
	}
	if c == 0 {
		c = int(x - y)
	}
	return c
}

// matchLinear is matchFacts without an index, for short descriptions:
// pair has a's length, and inA is a set of b's facts.
func matchLinear(a, b description, pair []int32, inA *[maxLinear/64 + 1]uint64) {
	has := func(j int) bool { return inA[j/64]&(1<<(j%64)) != 0 }
	for i := range pair {
		pair[i] = factRemoved
		name, value := a.name(i), a.value(i)
		for j := range b.at {
			if !has(j) && b.name(j) == name && b.value(j) == value {
				pair[i] = factSame
				inA[j/64] |= 1 << (j % 64)
				break
			}
		}
	}
	for i := range pair {
		if pair[i] != factRemoved {
			continue
		}
		name := a.name(i)
		for j := range b.at {
			if !has(j) && b.name(j) == name {
				pair[i] = int32(j)
				inA[j/64] |= 1 << (j % 64)
				break
			}
		}
	}
}

// emitFacts yields the details of matchFacts' pairing of a and b: for
// each fact of a in order, Removed or Changed; then Added for each fact
// of b that a does not have. It returns false when yield does.
func emitFacts[L factList](a, b L, pair []int32, inA bits, yield func(Detail) bool) bool {
	for i, j := range pair {
		switch j {
		case factSame:
		case factRemoved:
			if !factDetails(Removed, a.name(i), a.value(i), "", yield) {
				return false
			}
		default:
			if !factDetails(Changed, a.name(i), a.value(i), b.value(int(j)), yield) {
				return false
			}
		}
	}
	for j := range b.len() {
		if !inA.has(j) && !factDetails(Added, b.name(j), "", b.value(j), yield) {
			return false
		}
	}
	return true
}

// maxLinear is the largest product of the facts of two descriptions that
// factDiff compares without an index.
const maxLinear = 256

// maxMapped is the most facts of two descriptions that factDiff finds
// through maps.
const maxMapped = 1 << 12
