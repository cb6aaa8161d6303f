package cdump_test

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/cdump"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// TestErrorNamesCulprit: the step and depth errors name the top-level
// type whose printing (or declaration) is refused, not the type where the
// budget ran out, which was INT 'int' [1], the leaf every type uses (the
// twelfth red team). Each shape costs some tens of milliseconds.
func TestErrorNamesCulprit(t *testing.T) {
	build := func(raw []byte, err error) *btf.Spec {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return parse(t, raw, nil)
	}
	check := func(what string, err, target error, want string) {
		t.Helper()
		if !errors.Is(err, target) {
			t.Fatalf("%s: err = %v, want %v", what, err, target)
		}
		if msg := err.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "INT 'int'") || strings.Count(msg, "\n") != 0 {
			t.Fatalf("%s: err = %q, want one line naming %s", what, msg, want)
		}
	}

	// Every struct hN (and typedef tN of it) repeats one wide anonymous
	// struct: the step limit runs out printing one of them, which one
	// depends on the order of the compat.
	s := build(hostile.BuildVariant12(hostile.SharedAnonWide, 16))
	for _, opts := range []cdump.Options{v71, {}} {
		err := cdump.Write(&bytes.Buffer{}, s, opts)
		name := ""
		if err != nil {
			name = regexp.MustCompile(`(STRUCT 'h|TYPEDEF 't)[0-9]+'`).FindString(err.Error())
		}
		check("shared-anon-wide", err, cdump.ErrTooComplex, name)
		if name == "" {
			t.Fatalf("err = %v, want it to name a struct hN or a typedef tN", err)
		}
	}

	// Prototypes nest through pointer parameters under "outer" (and the
	// typedef "chain"): Write names the struct, a Namer the prototype
	// it was asked to spell, the top of the chain.
	s = build(hostile.BuildVariant12(hostile.ParamPtrChain, 2049))
	outer, err := s.FindOne("outer", btf.FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := s.FindOne("chain", btf.FindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []cdump.Options{v71, {}} {
		err := cdump.Write(&bytes.Buffer{}, s, opts)
		want := outer.String()
		if err != nil && strings.Contains(err.Error(), chain.String()) {
			want = chain.String() // bpftool 7.5's order prints it first
		}
		check("param-ptr-chain", err, cdump.ErrTooDeep, want)
	}
	n, err := cdump.NewNamer(s)
	if err != nil {
		t.Fatal(err)
	}
	proto, err := s.TypeByID(chain.Ref())
	if err != nil {
		t.Fatal(err)
	}
	_, err = n.TypeName(proto.ID())
	check("param-ptr-chain Namer", err, cdump.ErrTooDeep, proto.String())

	// A union that holds itself through a typedef of an array of it: the
	// cycle error names the top-level type printed, then the anonymous
	// union in the cycle.
	s = build(hostile.BuildVariant(hostile.SelfTypedefArr, 1000))
	// (bpftool 7.1's order prints the union itself first.)
	err = cdump.Write(&bytes.Buffer{}, s, v71)
	check("self-typedef-arr 7.1", err, cdump.ErrTypeCycle, "cdump: UNION '(anon)' [2]: ")
	err = cdump.Write(&bytes.Buffer{}, s, cdump.Options{})
	check("self-typedef-arr", err, cdump.ErrTypeCycle, "cdump: TYPEDEF 't' [4]: UNION '(anon)' [2]: ")
}
