package builder_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
)

// sameGraph checks that type bid of b is a faithful copy of type aid of a:
// same kinds, names and fields, with references leading to faithful copies
// in turn. With fwd, a named struct or union reached only through a
// pointer may be a FWD of the same name and flavor in b.
func sameGraph(tb testing.TB, a *btf.Spec, aid btf.TypeID, b *btf.Spec, bid btf.TypeID, fwd bool) {
	tb.Helper()
	g := graphCmp{tb: tb, a: a, b: b, fwd: fwd, seen: map[[2]btf.TypeID]bool{}}
	g.cmp(aid, bid, false)
}

type graphCmp struct {
	tb   testing.TB
	a, b *btf.Spec
	fwd  bool
	seen map[[2]btf.TypeID]bool
}

func (g *graphCmp) cmp(aid, bid btf.TypeID, viaPtr bool) {
	g.tb.Helper()
	if aid == 0 || bid == 0 {
		if aid != bid {
			g.tb.Fatalf("void mismatch: %d vs %d", aid, bid)
		}
		return
	}
	if g.seen[[2]btf.TypeID{aid, bid}] {
		return
	}
	g.seen[[2]btf.TypeID{aid, bid}] = true
	x, err := g.a.TypeByID(aid)
	if err != nil {
		g.tb.Fatal(err)
	}
	y, err := g.b.TypeByID(bid)
	if err != nil {
		g.tb.Fatal(err)
	}
	if x.Name() != y.Name() {
		g.tb.Fatalf("%v copied as %v", x, y)
	}
	if g.fwd && viaPtr && x.IsComposite() && y.Kind() == btf.KindForward {
		if y.IsUnionForward() != (x.Kind() == btf.KindUnion) {
			g.tb.Fatalf("%v copied as %v of the wrong flavor", x, y)
		}
		return
	}
	if x.Kind() != y.Kind() || x.KindFlag() != y.KindFlag() || x.Vlen() != y.Vlen() || x.Size() != y.Size() ||
		x.Int() != y.Int() || x.Linkage() != y.Linkage() || x.ComponentIdx() != y.ComponentIdx() {
		g.tb.Fatalf("%v copied as %v with different fields", x, y)
	}
	ptr := x.Kind() == btf.KindPointer || viaPtr && x.Kind() != btf.KindArray && !x.IsComposite() && x.Kind() != btf.KindVar
	g.cmp(x.Ref(), y.Ref(), ptr)
	if x.Kind() == btf.KindArray {
		xa, ya := x.Array(), y.Array()
		if xa.Nelems != ya.Nelems {
			g.tb.Fatalf("%v: nelems %d vs %d", x, xa.Nelems, ya.Nelems)
		}
		g.cmp(xa.Type, ya.Type, false)
		g.cmp(xa.Index, ya.Index, false)
	}
	for i, m := range x.Members() {
		n := y.Member(i)
		if m.Name() != n.Name() || m.BitOffset != n.BitOffset || m.BitfieldSize != n.BitfieldSize {
			g.tb.Fatalf("%v member %d: %q@%d:%d vs %q@%d:%d", x, i, m.Name(), m.BitOffset, m.BitfieldSize, n.Name(), n.BitOffset, n.BitfieldSize)
		}
		g.cmp(m.Type, n.Type, false)
	}
	for i, p := range x.Params() {
		q := y.Param(i)
		if p.Name() != q.Name() {
			g.tb.Fatalf("%v param %d: %q vs %q", x, i, p.Name(), q.Name())
		}
		g.cmp(p.Type, q.Type, viaPtr)
	}
	for i, v := range x.EnumValues() {
		w := y.EnumValue(i)
		if v.Name() != w.Name() || v.Value != w.Value {
			g.tb.Fatalf("%v enumerator %d differs", x, i)
		}
	}
	for i, v := range x.VarSecinfos() {
		w := y.VarSecinfo(i)
		if v.Offset != w.Offset || v.Size != w.Size {
			g.tb.Fatalf("%v var %d differs", x, i)
		}
		g.cmp(v.Type, w.Type, false)
	}
}
