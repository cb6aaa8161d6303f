package main

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// shapeInputs are the campaign's hostile shapes (issue 37), each at a
// size drawn from rng: self-embedding records, deep anonymous nesting,
// long chains of every reference kind, wide records, many big enums, and
// many small types of one kind; and the mixtures (hostile.Mix): chains
// through every reference kind at once and through prototypes' parameters,
// arrays of arrays, prototypes of 65,535 parameters, big DATASECs, tag
// chains, ENUM64s, 64 KB names, string sections of many distinct strings.
func shapeInputs(t *testing.T, rng *rand.Rand) []campaignInput {
	size := map[hostile.Shape]int{
		hostile.NestedRecords: 500 + rng.IntN(3000), hostile.PointerChain: 1000 + rng.IntN(100_000),
		hostile.TypedefChain: 1000 + rng.IntN(100_000), hostile.ModifierChain: 1000 + rng.IntN(100_000),
		hostile.ArrayChain: 1000 + rng.IntN(100_000), hostile.Wide: 1000 + rng.IntN(20_000), hostile.Enums: 1 + rng.IntN(8),
		hostile.Pointers: 1000 + rng.IntN(300_000), hostile.Typedefs: 1000 + rng.IntN(300_000),
		hostile.TinyStructs: 1000 + rng.IntN(300_000), hostile.EmptyStructs: 1000 + rng.IntN(300_000),
	}
	var ins []campaignInput
	for _, k := range hostile.All() {
		b, err := hostile.Build(k, size[k])
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, campaignInput{name: k.String(), data: b, shape: true})
	}
	mixes := map[hostile.Mix]int{
		hostile.MixedChain: 1000 + rng.IntN(100_000), hostile.ProtoChain: 1000 + rng.IntN(100_000),
		hostile.ArrayNest: 1000 + rng.IntN(100_000), hostile.WideProtos: 1 + rng.IntN(8),
		hostile.Datasecs: 1000 + rng.IntN(300_000), hostile.TagChain: 1000 + rng.IntN(100_000),
		hostile.Enum64s: 1 + rng.IntN(8), hostile.LongNames: 1 + rng.IntN(60),
		hostile.ManyStrings: 1000 + rng.IntN(300_000), hostile.NestedChains: 100 + rng.IntN(3000),
	}
	for _, m := range hostile.Mixes() {
		b, err := hostile.BuildMix(m, mixes[m])
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, campaignInput{name: m.String(), data: b, shape: true})
	}
	return append(ins, twistInputs(t, rng)...)
}

// twistInputs are the seventh campaign's twists (hostile.Twist), each at
// a size drawn from rng around the depths where commands refuse, and its
// DWARF type rings (hostile.DWARFCycle) for btf encode.
func twistInputs(t *testing.T, rng *rand.Rand) []campaignInput {
	size := map[hostile.Twist]int{
		hostile.SelfArray: 1 + rng.IntN(65535), hostile.SelfWrapped: 1 + rng.IntN(100_000),
		hostile.MutualRing: 1 + rng.IntN(1000), hostile.DeepMixed: 60 + rng.IntN(3000),
		hostile.ModifierCycle: 1 + rng.IntN(100_000), hostile.QualifierCycle: 1 + rng.IntN(100_000),
		hostile.SelfProtos: 1 + rng.IntN(4), hostile.SameVarSecs: 1 + rng.IntN(8),
		hostile.MemberTags: 1 + rng.IntN(100_000), hostile.DeepAnon: 60 + rng.IntN(3000),
		hostile.SameEnum64s: 1 + rng.IntN(8),
	}
	var ins []campaignInput
	for _, k := range hostile.Twists() {
		b, err := hostile.BuildTwist(k, size[k])
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, campaignInput{name: k.String(), data: b, shape: true})
	}
	for _, c := range hostile.DWARFCycles() {
		n := 1 + rng.IntN(3000)
		ins = append(ins, campaignInput{name: fmt.Sprintf("dwarf-%v-%d", c, n), data: hostile.BuildDWARFCycle(c, n), encode: true})
	}
	return ins
}

// dwarfCycles returns copies of testdata/dwarf/kinds-x86_64.o in which
// the DW_AT_type of one DIE makes a cycle: a 4-byte edit of a CU-relative
// reference (issue 37, item 2: the encoder recursed until its stack
// overflowed on a DW_TAG_subroutine_type of its own type). Every
// DW_TAG_subroutine_type and DW_TAG_pointer_type that refers to itself,
// and a sample of the others drawn from rng: any DIE with a DW_AT_type
// (typedef, const, volatile, restrict, array, member, parameter,
// variable) referring to itself, to its parent (a member of its own
// struct), or to a DIE whose own DW_AT_type is changed to refer back.
func dwarfCycles(t *testing.T, rng *rand.Rand, sample int) []campaignInput {
	all := dwarfCycleEdits(t, testfixtures.Read(t, "dwarf/kinds-x86_64.o.gz"))
	var ins, rest []campaignInput
	for _, in := range all {
		if strings.Contains(in.name, "self-subroutine") || strings.Contains(in.name, "self-pointer") {
			ins = append(ins, in)
		} else {
			rest = append(rest, in)
		}
	}
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	return append(ins, rest[:min(sample, len(rest))]...)
}

// typeRef is a DIE's DW_AT_type: where its 4-byte reference is in the
// object, and what it refers to.
type typeRef struct {
	die, target, parent dwarf.Offset
	tag                 dwarf.Tag
	at                  int
}

// dwarfCycleEdits returns every cycle dwarfCycles draws from, for the
// object obj of one compile unit whose DW_AT_type references are ref4.
func dwarfCycleEdits(t *testing.T, obj []byte) []campaignInput {
	refs := dwarfTypeRefs(t, obj)
	byDIE := map[dwarf.Offset]typeRef{}
	for _, r := range refs {
		byDIE[r.die] = r
	}
	edit := func(name string, pairs ...any) campaignInput {
		out := bytes.Clone(obj)
		for i := 0; i < len(pairs); i += 2 {
			binary.LittleEndian.PutUint32(out[pairs[i].(int):], uint32(pairs[i+1].(dwarf.Offset)))
		}
		return campaignInput{name: name + ".o", data: out, encode: true}
	}
	var ins []campaignInput
	for _, r := range refs {
		tag := strings.TrimSuffix(strings.TrimPrefix(r.tag.GoString(), "dwarf.Tag"), "Type")
		tag = strings.ToLower(tag)
		ins = append(ins, edit(fmt.Sprintf("dwarf-self-%s-%#x", tag, r.die), r.at, r.die))
		if r.parent != 0 {
			ins = append(ins, edit(fmt.Sprintf("dwarf-parent-%s-%#x", tag, r.die), r.at, r.parent))
		}
		if b, ok := byDIE[r.target]; ok && b.die != r.die {
			ins = append(ins, edit(fmt.Sprintf("dwarf-pair-%s-%#x", tag, r.die), b.at, r.die))
		}
	}
	return ins
}

// dwarfTypeRefs lists the DW_AT_type references of obj's DIEs. The one
// compile unit starts at 0: references are offsets in the section. The
// attribute is found by its value in the DIE's first bytes.
func dwarfTypeRefs(t *testing.T, obj []byte) []typeRef {
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	info := f.Section(".debug_info")
	d, err := f.DWARF()
	if err != nil || info == nil {
		t.Fatalf("DWARF object: %v", err)
	}
	var refs []typeRef
	var parents []dwarf.Offset
	for r := d.Reader(); ; {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		if e.Tag == 0 {
			parents = parents[:len(parents)-1]
			continue
		}
		if target, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
			at := int(info.Offset) + int(e.Offset)
			var old [4]byte
			binary.LittleEndian.PutUint32(old[:], uint32(target))
			i := bytes.Index(obj[at:min(at+16, len(obj))], old[:])
			if i < 0 {
				t.Fatalf("DWARF object: DW_AT_type of the DIE at %#x not found", e.Offset)
			}
			ref := typeRef{die: e.Offset, target: target, tag: e.Tag, at: at + i}
			if len(parents) > 1 { // not the compile unit
				ref.parent = parents[len(parents)-1]
			}
			refs = append(refs, ref)
		}
		if e.Children {
			parents = append(parents, e.Offset)
		}
	}
	if len(refs) == 0 {
		t.Fatal("DWARF object: no DW_AT_type")
	}
	return refs
}

// peakBound is the README's memory rule for one campaign run: docBound
// for the hostile shapes (raw BTF), and for every other input, which may
// inflate (compressed files and sections) or be ELF, 1.3 times the input
// limit plus 10 MB, the rule for reading inflating data. diff reads the
// input with itself or with the base (baseSize bytes, baseTypes types).
func peakBound(args []string, in campaignInput, baseSize int64, baseTypes int) int64 {
	limit, _ := strconv.ParseInt(strings.TrimSuffix(campaignLimit, "M"), 10, 64)
	inflating := int64(1.3*float64(limit<<20)) + 10<<20
	if !in.shape {
		return inflating
	}
	n := int64(len(in.data))
	types := shapeStats(in.data)
	if args[1] == "diff" { // the input twice, or with the base
		n, types = 2*n+baseSize, 2*types+baseTypes
	}
	if b := docBound(args, n, types); b >= 0 {
		return b
	}
	return inflating
}

// timedRSS returns args run under GNU time, reporting the peak RSS into
// rep, if GNU time is here; otherwise args.
func timedRSS(timeBin, rep string, args []string) []string {
	if timeBin == "" {
		return args
	}
	return append([]string{timeBin, "-f", "%M", "-o", rep}, args...)
}

// readRSS reads what GNU time wrote into rep: the peak RSS in bytes, or
// -1.
func readRSS(rep string) int64 {
	b, err := os.ReadFile(rep)
	if err != nil {
		return -1
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	kb, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil {
		return -1
	}
	return kb << 10
}

// lookGNUTime returns GNU time's path, or "" when there is none.
func lookGNUTime() string {
	p := "/usr/bin/time"
	if out, err := exec.Command(p, "-f", "%M", "true").CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) == 0 {
		return ""
	}
	return filepath.Clean(p)
}
