package core

import (
	"cmp"
	"encoding/binary"
	"slices"
	"sort"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/core/internal/insn"
	"github.com/kmeta-dev/kmeta/btf/ext"
)

// Object is what CO-RE resolution reads of a BPF object: its own BTF, the
// CO-RE relocation records of its .BTF.ext, and the programs whose
// instructions those records point into. The package reads no files:
// package bpfelf fills an Object from an ELF object (bpfelf.Object.CORE),
// and a loader that holds its BTF and instructions in memory fills one
// itself.
//
// TypesFor and TargetQuery read only BTF and Ext; Resolve also reads the
// programs, to check each relocated instruction. The package never
// modifies an Object, and many calls may read the same one at once.
type Object struct {
	// BTF is the object's own BTF: the local types the relocations name.
	BTF *btf.Spec
	// Ext holds the relocation records (part ext.CORERelos), by the name
	// of the section holding the relocated instructions.
	Ext *ext.Ext
	// Programs are the functions the relocated instructions belong to, in
	// any order; among programs of a section starting at the same
	// instruction, the last one given holds it.
	Programs []Program
	// ByteOrder is the byte order of the instructions.
	ByteOrder binary.ByteOrder
}

// Program is a function of a BPF object: a program, or a subprogram in
// .text.
type Program struct {
	// Name is the function's symbol name, Section the name of the section
	// holding it, as the relocation records name it.
	Name    string
	Section string
	// InsnOff is the index of its first instruction within the section.
	InsnOff int
	// Insns are its instructions, InsnSize bytes each, in the Object's
	// ByteOrder. They are read, never written.
	Insns []byte
	// Autoload is false for a program that libbpf does not load by
	// default (a section named "?..."): Resolve skips its relocations.
	Autoload bool
}

// InsnSize is the size of a BPF instruction in bytes (struct bpf_insn; a
// 64-bit immediate load takes two).
const InsnSize = insn.Size

// ProgramAt returns the program of section that holds instruction insn
// (counted from the start of the section), as libbpf's
// find_prog_by_sec_insn finds it: the last program that starts at or
// before insn, if it also ends after it. ok is false when no program
// holds insn (an eliminated weak subprogram, say). It looks at every
// program; ResolveEach sorts them once and searches.
func (o *Object) ProgramAt(section string, insn int) (p Program, ok bool) {
	best := -1
	for i := range o.Programs {
		q := &o.Programs[i]
		if q.Section == section && q.InsnOff <= insn && (best < 0 || q.InsnOff >= o.Programs[best].InsnOff) {
			best = i
		}
	}
	if best < 0 {
		return Program{}, false
	}
	p = o.Programs[best]
	if insn >= p.InsnOff+len(p.Insns)/InsnSize {
		return Program{}, false
	}
	return p, true
}

// sectionPrograms are the programs of one section of an Object, sorted
// by their first instruction, those that start at the same one in the
// order given, so that ProgramAt's answer is found by a binary search:
// an object of many programs and many records costs records times the
// log of the programs, not their product (hostile.ManyProgramsCORESource).
type sectionPrograms struct {
	progs  []*Program
	probes int // programs compared, for tests
}

// programsBySection sorts o's programs by section (sectionPrograms).
func programsBySection(o *Object) map[string]*sectionPrograms {
	m := map[string]*sectionPrograms{}
	for i := range o.Programs {
		p := &o.Programs[i]
		sp := m[p.Section]
		if sp == nil {
			sp = &sectionPrograms{}
			m[p.Section] = sp
		}
		sp.progs = append(sp.progs, p)
	}
	for _, sp := range m {
		slices.SortStableFunc(sp.progs, func(a, b *Program) int { return cmp.Compare(a.InsnOff, b.InsnOff) })
	}
	return m
}

// at is ProgramAt for the section: the last program that starts at or
// before insn, if it also ends after it. sp may be nil (no programs).
func (sp *sectionPrograms) at(insn int) (*Program, bool) {
	if sp == nil {
		return nil, false
	}
	j := sort.Search(len(sp.progs), func(k int) bool {
		sp.probes++
		return sp.progs[k].InsnOff > insn
	})
	if j == 0 {
		return nil, false
	}
	p := sp.progs[j-1]
	if insn >= p.InsnOff+len(p.Insns)/InsnSize {
		return nil, false
	}
	return p, true
}
