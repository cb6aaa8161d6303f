package cdump_test

import (
	"strings"
)

// cCase is a small BTF built for one feature of the C output. What
// Debian's bpftool 7.1 prints for it is in testdata/cases/NAME.h (written by
// TestCasesAgainstBpftool with CDUMP_UPDATE=1: bpftool's output, never
// ours).
type cCase struct {
	name  string
	build func(g *gen)
	// noCompile marks cases whose output clang rejects, as it rejects
	// bpftool's (both print the same bytes).
	noCompile bool
	// firstRenames marks cases whose type that sorts first shares a name
	// (its own or one of its enumerators') with later ones: bpftool 7.5,
	// which leaves it out, then gives the "___N" suffixes to other types
	// than Write does.
	firstRenames bool
}

var cases = []cCase{
	{name: "bitfields", build: func(g *gen) {
		i, c, l, u := g.std()
		g.strct("bf", 32,
			member{"a", i, 0, 3}, member{"b", i, 3, 5},
			member{"c", u, 16, 4},
			member{"l", l, 64, 0},
			member{"d", u, 128, 1},
			member{"e", u, 160, 7},
			member{"ch", c, 200, 0})
	}},
	{name: "padding", build: func(g *gen) {
		i, c, l, _ := g.std()
		g.strct("gaps", 40,
			member{"c", c, 0, 0},
			member{"i", i, 64, 0},
			member{"l", l, 192, 0},
			member{"c2", c, 256, 0})
		g.strct("tail", 16, member{"c", c, 0, 0})
		g.strct("align_mark", 16, member{"c", c, 0, 0}, member{"c2", c, 64, 0})
	}},
	{name: "packed", build: func(g *gen) {
		i, c, l, _ := g.std()
		in := g.strct("inner", 5, member{"c", c, 0, 0}, member{"i", i, 8, 0})
		g.strct("outer", 6, member{"c", c, 0, 0}, member{"in", in, 8, 0})
		g.strct("odd_size", 12, member{"l", l, 0, 0}, member{"i", i, 64, 0})
		g.union("u_packed", 5, member{"i", i, 0, 0}, member{"c", c, 0, 0})
		g.strct("empty", 0)
	}},
	{name: "anonymous", build: func(g *gen) {
		i, c, _, _ := g.std()
		e := g.enum("", 4, false, enumerator{"A_ONE", 1}, enumerator{"A_TWO", 2})
		as := g.strct("", 8, member{"x", i, 0, 0}, member{"y", i, 32, 0})
		au := g.union("", 8, member{"s", as, 0, 0}, member{"raw", c, 0, 0})
		g.strct("holder", 16, member{"", au, 0, 0}, member{"kind", e, 64, 0})
		g.enum("", 4, true, enumerator{"CONST_A", 0xffffffff}, enumerator{"CONST_B", 7})
		g.ptr(g.strct("", 4, member{"z", i, 0, 0}))
	}},
	{name: "renames", build: func(g *gen) {
		i, c, _, _ := g.std()
		g.strct("dup", 4, member{"a", i, 0, 0})
		g.strct("dup", 1, member{"b", c, 0, 0})
		g.union("dup", 4, member{"c", i, 0, 0})
		g.typedef("td", i)
		g.typedef("td", c)
		g.enum("color", 4, false, enumerator{"RED", 0}, enumerator{"td", 1})
		g.enum("color", 4, false, enumerator{"RED", 0}, enumerator{"GREEN", 1})
		g.fwd("dup", false)
		g.enum("dup", 4, false)
		long := strings.Repeat("n", 254)
		g.strct(long, 4, member{"a", i, 0, 0})
		g.strct(long, 4, member{"a", i, 0, 0})
	}, noCompile: true, firstRenames: true}, // "struct dup;" after "union dup___3", as bpftool
	{name: "functions", build: func(g *gen) {
		i, c, l, _ := g.std()
		pc := g.ptr(c)
		p0 := g.proto(0)
		p1 := g.proto(i, param{"", 0})
		p2 := g.proto(i, param{"x", i}, param{"buf", pc})
		pv := g.proto(l, param{"fmt", g.ptr(g.cnst(c))}, param{"", 0})
		ret := g.proto(g.ptr(p2), param{"which", i})
		g.strct("ops", 48,
			member{"none", g.ptr(p0), 0, 0},
			member{"void_arg", g.ptr(p1), 64, 0},
			member{"two", g.ptr(p2), 128, 0},
			member{"printf", g.ptr(pv), 192, 0},
			member{"getter", g.ptr(ret), 256, 0},
			member{"table", g.array(g.ptr(p1), i, 1), 320, 0})
		g.typedef("handler_t", p2)
		g.typedef("handler_ptr_t", g.ptr(p2))
		g.fn("do_it", p2)
	}},
	{name: "arrays", build: func(g *gen) {
		i, c, _, _ := g.std()
		row := g.array(i, i, 3)
		g.strct("arrs", 40,
			member{"m", g.array(row, i, 2), 0, 0},
			member{"p", g.ptr(g.array(i, i, 4)), 192, 0},
			member{"pp", g.array(g.ptr(c), i, 1), 256, 0},
			member{"flex", g.array(c, i, 0), 320, 0})
		g.typedef("matrix_t", g.array(g.array(g.array(c, i, 4), i, 3), i, 2))
	}},
	{name: "qualifiers", build: func(g *gen) {
		i, c, _, _ := g.std()
		ci := g.cnst(i)
		g.strct("quals", 48,
			member{"a", g.ptr(ci), 0, 0},
			member{"b", g.cnst(g.ptr(i)), 64, 0},
			member{"c", g.volatile(g.cnst(c)), 128, 0},
			member{"d", g.restrict(g.ptr(c)), 192, 0},
			member{"e", g.cnst(g.array(c, i, 8)), 256, 0},
			member{"f", g.ptr(g.cnst(g.ptr(g.volatile(i)))), 320, 0})
		g.typedef("cptr_t", g.cnst(g.ptr(g.cnst(c))))
	}},
	{name: "enums", build: func(g *gen) {
		g.enum("s32", 4, true, enumerator{"NEG", 0xffffffff}, enumerator{"MIN", 0x80000000}, enumerator{"POS", 5})
		g.enum("u32", 4, false, enumerator{"BIG", 0xffffffff}, enumerator{"ZERO", 0})
		g.enum("small", 1, false, enumerator{"S_A", 1})
		g.enum("wide", 8, false, enumerator{"W_A", 1})
		g.enum64("e64u", 8, false, enumerator{"U_HI", 1 << 40}, enumerator{"U_MAX", ^uint64(0)})
		g.enum64("e64s", 8, true, enumerator{"S_NEG", ^uint64(0)}, enumerator{"S_MIN", 1 << 63})
		g.enum64("e64small", 8, false, enumerator{"X_ONE", 1})
		g.enum("decl_only", 4, false)
	}, noCompile: true}, // -9223372036854775808LL overflows, as in bpftool
	{name: "typetags", build: func(g *gen) {
		i, _, _, _ := g.std()
		g.strct("tagged", 24,
			member{"user", g.ptr(g.typeTag("user", i, false)), 0, 0},
			member{"rcu", g.ptr(g.typeTag("rcu", g.cnst(i), false)), 64, 0},
			member{"attr", g.ptr(g.typeTag("aligned(8)", i, true)), 128, 0})
		g.declTag("tagged_decl", 5, -1)
	}},
	{name: "typedefs", build: func(g *gen) {
		i, _, _, _ := g.std()
		g.typedef("a_t", g.typedef("b_t", g.typedef("c_t", i)))
		later := g.typedef("later_t", g.fwd("later", false))
		sp := g.typedef("sp_t", g.ptr(g.strct("ptd", 4, member{"x", i, 0, 0})))
		g.strct("uses", 16, member{"p", g.ptr(later), 0, 0}, member{"q", g.ptr(sp), 64, 0})
		g.typedef("__builtin_va_list", g.ptr(g.ptr(0)))
		g.typedef("__gnuc_va_list", 0)
		poly := g.integer("__Poly8_t", 1, 0, 8)
		g.strct("poly", 1, member{"p", poly, 0, 0})
		dbl := g.float("double", 8)
		g.strct("fl", 8, member{"d", dbl, 0, 0})
	}, noCompile: true},
	{name: "cycles", build: func(g *gen) {
		i, _, _, _ := g.std()
		// struct a { struct b *b; }; struct b { struct a a; struct b *self; };
		a := g.strct("a", 8, member{"b", 7, 0, 0}) // 5
		g.strct("b", 16, member{"a", a, 0, 0}, member{"self", 7, 64, 0})
		g.ptr(6) // 7
		g.ptr(g.fwd("c", true))
		g.strct("list", 16, member{"next", 11, 0, 0}, member{"v", i, 64, 0}) // 10
		g.ptr(10)                                                            // 11
	}},
	// What bpftool 7.5 adds: the kfunc block, enum sizes, the sort.
	{name: "kfuncs", build: func(g *gen) {
		i, c, _, u := g.std()
		sock := g.strct("sock", 4, member{"x", i, 0, 0})
		sock2 := g.strct("sock", 1, member{"y", c, 0, 0}) // sock___2
		g.declTag("bpf_kfunc", 12, -1)                    // 7: on bpf_z, before it
		p1 := g.proto(i, param{"sk", g.ptr(sock)}, param{"f", u})
		a := g.fn("bpf_a", p1)           // 10
		g.ptr(sock2)                     // 11
		z := g.fn("bpf_z", 13)           // 12
		g.proto(11)                      // 13: struct sock___2 *(void)
		g.declTag("bpf_kfunc", a, -1)    // printed once for each tag
		g.declTag("bpf_kfunc", a, -1)    //
		g.declTag("bpf_kfunc", z, 0)     // on a parameter: not a kfunc
		g.declTag("bpf_kfunc_x", a, -1)  // another tag
		g.declTag("bpf_kfunc", sock, -1) // not on a function
		e := g.enum("", 4, false, enumerator{"K_ONE", 1})
		pe := g.proto(0, param{"e", e}, param{"", 0})
		g.declTag("bpf_kfunc", g.fn("bpf_e", pe), -1)
		g.fn("not_a_kfunc", p1)
	}},
	{name: "enumsizes", build: func(g *gen) {
		_, c, _, _ := g.std()
		e8 := g.enum("e8", 1, false, enumerator{"E8_A", 1})
		g.enum("e16", 2, false, enumerator{"E16_A", 1})
		g.enum("ew", 8, false, enumerator{"EW_A", 1})
		g.enum64("e64small", 8, false, enumerator{"X_SMALL", 1})
		g.enum64("e64big", 8, false, enumerator{"X_BIG", 1 << 40})
		g.enum64("e64byte", 1, false, enumerator{"X_BYTE", 1})
		in := g.enum("", 1, false, enumerator{"IN_A", 0}, enumerator{"IN_B", 1})
		g.strct("holder", 4, member{"f", in, 0, 0}, member{"g", e8, 8, 0}, member{"c", c, 16, 0})
		g.enum("empty1", 1, false)
		g.enum("", 1, false, enumerator{"TOP_A", 3})
	}},
	{name: "sorting", build: func(g *gen) {
		i, _, _, _ := g.std()
		g.enum("", 4, false, enumerator{"B_FIRST", 0})
		g.enum("", 4, false, enumerator{"A_FIRST", 0}) // sorts first
		same := g.strct("same", 4, member{"a", i, 0, 0})
		g.strct("same", 4, member{"b", i, 0, 0})
		g.strct("same", 4, member{"a", i, 0, 0}) // same hash as the first
		g.typedef("anon_t", g.strct("", 4, member{"z", i, 0, 0}))
		g.typedef("same_p", g.ptr(same))
		g.typedef("fn_t", g.proto(i, param{"x", i}))
		g.typedef("same_arr", g.array(same, i, 2))
		g.typedef("c_t", g.enum("", 4, false, enumerator{"C_X", 1}))
		g.enum("zeta", 4, false, enumerator{"Z_A", 0})
		g.enum("alpha", 4, false, enumerator{"AL_A", 0})
		g.float("double", 8)
		g.strct("Upper", 4, member{"q", i, 0, 0})
		g.union("same", 4, member{"u", i, 0, 0})
		g.typedef("same", i)
		g.fwd("same", false)
		g.strct("user", 8, member{"p", g.ptr(g.typedef("same_p2", g.ptr(same))), 0, 0})
	}, noCompile: true}, // typedef "same" and struct same___N clash, as in bpftool
	{name: "sorthash", build: func(g *gen) {
		i, _, _, _ := g.std()
		// Same names: the order comes from the hash of the member names,
		// whose bytes libbpf's str_hash adds as signed chars.
		g.strct("h", 4, member{"\x80", i, 0, 0})
		g.strct("h", 4, member{"a", i, 0, 0})
		g.strct("h", 4, member{"\xff\xfe", i, 0, 0})
		g.strct("h", 4, member{"b", i, 0, 0})
	}, noCompile: true}, // not C identifiers
}
