package dedup_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

// TestFinishGraphs appends modules, then a unit of reference types only
// (pointers, qualifiers, prototypes and functions of the types before, as
// a DWARF encoder's saved functions), and checks that calling
// FinishGraphs before that unit, while the unit is written on another
// goroutine, gives the same bytes as not calling it: with and without a
// pipeline, by libbpf 1.8's rules and 1.1's.
func TestFinishGraphs(t *testing.T) {
	vm, base := debian(t)
	names := mergedOrder(t)[:40]
	for _, compat := range []dedup.Compat{dedup.CompatLibbpf18, dedup.CompatLibbpf11} {
		for _, pipe := range []bool{false, true} {
			var outs [2][]byte
			for i, finish := range []bool{false, true} {
				m := mergeModules(t, vm, base, compat, pipe, names)
				u := m.NewUnit()
				u.Reset(m.NextID())
				done := make(chan error, 1)
				if finish {
					go func() { done <- m.FinishGraphs() }()
				} else {
					done <- nil
				}
				if err := writeRefs(u, m.NextID()); err != nil {
					t.Fatal(err)
				}
				if err := <-done; err != nil {
					t.Fatal(err)
				}
				outs[i] = appendAndDedup(t, m, u)
			}
			if !bytes.Equal(outs[0], outs[1]) {
				t.Errorf("compat %d, pipeline %v: %d bytes with FinishGraphs, %d without; first difference at byte %d",
					compat, pipe, len(outs[1]), len(outs[0]), firstDiff(outs[1], outs[0]))
			}
		}
	}
}

// writeRefs writes reference types to the types before next (or void)
// into u, which is numbered from next: many equal to each other, some
// referring to others of the unit.
func writeRefs(u *dedup.Unit, next btf.TypeID) error {
	for i := range 400 {
		target := btf.TypeID(0) // void, if nothing comes before
		if next > 1 {
			target = 1 + btf.TypeID(i*7919)%(next-1)
		}
		p, err := u.AddPointer(target)
		if err != nil {
			return err
		}
		c, err := u.AddConst(p)
		if err != nil {
			return err
		}
		proto, err := u.AddFuncProto(target, []builder.Param{{Name: "a", Type: c}, {Name: fmt.Sprint("p", i%5), Type: p}})
		if err != nil {
			return err
		}
		f, err := u.AddFunc(fmt.Sprint("f", i%50), proto, btf.LinkageStatic)
		if err != nil {
			return err
		}
		if _, err := u.AddDeclTag("t", f, -1, false); err != nil {
			return err
		}
	}
	return nil
}

// TestFinishGraphsKinds checks that Dedup refuses a struct appended after
// FinishGraphs.
func TestFinishGraphsKinds(t *testing.T) {
	m := dedup.New(nil, dedup.Options{})
	u := m.NewUnit()
	u.Reset(m.NextID())
	i, err := u.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddUnit(u, 0); err != nil {
		t.Fatal(err)
	}
	if err := m.FinishGraphs(); err != nil {
		t.Fatal(err)
	}
	u.Reset(m.NextID())
	if _, err := u.AddStruct("s", 4, []builder.Member{{Name: "a", Type: i}}); err != nil {
		t.Fatal(err)
	}
	if err := m.AddUnit(u, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Dedup(builder.Options{}); err == nil || !strings.Contains(err.Error(), "after FinishGraphs") {
		t.Errorf("Dedup: %v, want an error for the struct", err)
	}
}

// TestFinishGraphsEmpty: FinishGraphs before anything is appended, then
// reference types only, gives what Dedup gives without it.
func TestFinishGraphsEmpty(t *testing.T) {
	var outs [2][]byte
	for i, finish := range []bool{false, true} {
		m := dedup.New(nil, dedup.Options{})
		if finish {
			if err := m.FinishGraphs(); err != nil {
				t.Fatal(err)
			}
			if err := m.FinishGraphs(); err != nil {
				t.Fatalf("second call: %v", err)
			}
		}
		u := m.NewUnit()
		u.Reset(m.NextID())
		if err := writeRefs(u, 1); err != nil {
			t.Fatal(err)
		}
		outs[i] = appendAndDedup(t, m, u)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("with FinishGraphs first: %d bytes, without %d", len(outs[1]), len(outs[0]))
	}
}

// appendAndDedup appends u to m and returns m's output.
func appendAndDedup(t *testing.T, m *dedup.Merger, u *dedup.Unit) []byte {
	t.Helper()
	if err := m.AddUnit(u, 0); err != nil {
		t.Fatal(err)
	}
	raw, err := m.Dedup(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
