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
// many small types of one kind.
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
	return ins
}

// dwarfCycles returns copies of testdata/dwarf/kinds-x86_64.o in which
// the DW_AT_type of one DW_TAG_subroutine_type or DW_TAG_pointer_type
// points at the DIE itself: a 4-byte edit of a CU-relative reference, one
// copy for each such DIE (issue 37, item 2: the encoder recursed until
// its stack overflowed on one of them).
func dwarfCycles(t *testing.T) []campaignInput {
	obj := testfixtures.Read(t, "dwarf/kinds-x86_64.o.gz")
	f, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		t.Fatal(err)
	}
	info := f.Section(".debug_info")
	d, err := f.DWARF()
	if err != nil || info == nil {
		t.Fatalf("kinds-x86_64.o: %v", err)
	}
	var ins []campaignInput
	for r := d.Reader(); ; {
		e, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			break
		}
		target, ok := e.Val(dwarf.AttrType).(dwarf.Offset)
		if e.Tag != dwarf.TagSubroutineType && e.Tag != dwarf.TagPointerType || !ok {
			continue
		}
		// The one compile unit starts at 0: references are offsets in
		// the section. The attribute follows the DIE's abbrev code.
		at := int(info.Offset) + int(e.Offset)
		var old [4]byte
		binary.LittleEndian.PutUint32(old[:], uint32(target))
		i := bytes.Index(obj[at:min(at+16, len(obj))], old[:])
		if i < 0 {
			t.Fatalf("kinds-x86_64.o: DW_AT_type of the DIE at %#x not found", e.Offset)
		}
		out := bytes.Clone(obj)
		binary.LittleEndian.PutUint32(out[at+i:], uint32(e.Offset))
		ins = append(ins, campaignInput{name: fmt.Sprintf("dwarf-cycle-%#x.o", e.Offset), data: out, encode: true})
	}
	if len(ins) == 0 {
		t.Fatal("kinds-x86_64.o: no DW_TAG_subroutine_type or DW_TAG_pointer_type")
	}
	return ins
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
