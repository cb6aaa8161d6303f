package core

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestProgramsSameAsProgramAt: the sorted search of ResolveEach finds
// what ProgramAt's scan finds, on random programs that share sections,
// starts and instructions, for every instruction of each section and
// past them.
func TestProgramsSameAsProgramAt(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var o Object
		for i := range r.IntN(40) {
			o.Programs = append(o.Programs, Program{
				Name:    fmt.Sprintf("p%d", i),
				Section: fmt.Sprintf("s%d", r.IntN(3)),
				InsnOff: r.IntN(30),
				Insns:   make([]byte, InsnSize*r.IntN(8)),
			})
		}
		bySec := programsBySection(&o)
		for _, sec := range []string{"s0", "s1", "s2", "none"} {
			for insn := range 40 {
				want, wok := o.ProgramAt(sec, insn)
				got, ok := bySec[sec].at(insn)
				if ok != wok || (ok && got.Name != want.Name) {
					t.Fatalf("round %d: %s insn %d: %v %v, want %s %v", round, sec, insn, got, ok, want.Name, wok)
				}
			}
		}
	}
}

// TestProgramLookupWork: finding the program of an instruction compares
// at most log2(n)+1 programs of a section of n, where ProgramAt looks at
// every program of the object: records times programs, for an object of
// many of both (hostile.ManyProgramsCORESource).
func TestProgramLookupWork(t *testing.T) {
	for _, n := range []int{10, 1000, 100_000} {
		o := Object{Programs: make([]Program, n)}
		for i := range o.Programs {
			o.Programs[i] = Program{Name: fmt.Sprint(i), Section: "s", InsnOff: 2 * i, Insns: make([]byte, 2*InsnSize)}
		}
		sp := programsBySection(&o)["s"]
		for insn := range 2 * n {
			p, ok := sp.at(insn)
			if !ok || p.InsnOff != insn&^1 {
				t.Fatalf("%d programs: insn %d in %v %v", n, insn, p, ok)
			}
		}
		if limit := 2 * n * (bits.Len(uint(n)) + 1); sp.probes > limit {
			t.Errorf("%d programs: %d comparisons for %d lookups, want at most %d", n, sp.probes, 2*n, limit)
		}
	}
}
