package layout_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/layout"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// randomSets is how many random sets TestRandomSetsMatchPahole compares.
const randomSets = 300

// TestRandomSetsMatchPahole compares the layouts of random sets of small
// structs of a few names, layouts and member names, some of them
// anonymous, with pahole 1.24's. pahole prints a struct unless the walk
// down its tree of printed structs meets one that compares equal, and an
// anonymous member compares equal to any name, so which structs of one
// name it prints depends on the tree's shape (printed.go): 10 of the
// first 94 sets of the first kind below printed differently when any
// printed struct of the name matched.
//
// The sets are built by randomSet from their seed and kept, with
// pahole's output, in testdata/names/random-sets.{btf,pahole-1.24.txt}.xz:
// the test checks that the generator still builds the inputs the goldens
// came from. To make them again, after a change of randomSet:
//
//	KMETA_LAYOUT_GOLDEN=DIR KMETA_PAHOLE=/usr/bin/pahole go test -run TestRandomSetsMatchPahole ./btf/layout
//
// writes both files to DIR (pahole 1.24 must be the one run).
func TestRandomSetsMatchPahole(t *testing.T) {
	var inputs, outputs bytes.Buffer
	for seed := range uint64(randomSets) {
		raw, err := randomSet(seed)
		if err != nil {
			t.Fatal(err)
		}
		inputs.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(raw))))
		inputs.Write(raw)
		fmt.Fprintf(&outputs, "### seed %d\n", seed)
		if pahole := os.Getenv("KMETA_PAHOLE"); pahole != "" {
			outputs.Write(runPahole(t, pahole, raw))
			continue
		}
		s := parseBuilt(t, raw, nil)
		if err := layout.Write(context.Background(), &outputs, s, layout.Options{}); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
	if dir := os.Getenv("KMETA_LAYOUT_GOLDEN"); dir != "" {
		for name, b := range map[string][]byte{"random-sets.btf": inputs.Bytes(), "random-sets.pahole-1.24.txt": outputs.Bytes()} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	if !bytes.Equal(inputs.Bytes(), testfixtures.ReadPath(t, filepath.Join("testdata", "names", "random-sets.btf.xz"))) {
		t.Fatal("randomSet no longer builds the inputs of the goldens: make them again (see the test's comment)")
	}
	compareLines(t, testfixtures.ReadPath(t, filepath.Join("testdata", "names", "random-sets.pahole-1.24.txt.xz")), outputs.Bytes())
}

// runPahole returns pahole's layouts of the BTF raw.
func runPahole(t *testing.T, pahole string, raw []byte) []byte {
	t.Helper()
	f := filepath.Join(t.TempDir(), "in.btf")
	if err := os.WriteFile(f, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(pahole, "-F", "btf", f).Output()
	if err != nil {
		t.Fatalf("%s: %v", pahole, err)
	}
	return out
}

// randomSet builds the set of seed. Even seeds are the sets where the
// divergence was found: 3-12 structs "s" of two int members, each named
// a, b, c or anonymous. Odd seeds mix more: 3-20 structs, one in eight a
// union, named r, s or t (mostly s, and the other names interleave in the
// tree), of 1-3 int members named a, b, c or anonymous, a member now and
// then 32 bits further than the last, and a size of the members' span or
// 4 bytes more.
func randomSet(seed uint64) ([]byte, error) {
	r := rand.New(rand.NewPCG(seed, 0x6c61796f7574))
	b, i32, _, err := intAndLong()
	if err != nil {
		return nil, err
	}
	memberNames := []string{"", "a", "b", "c"}
	if seed%2 == 0 {
		for range 3 + r.IntN(10) {
			ms := []builder.Member{
				{Name: memberNames[r.IntN(4)], Type: i32},
				{Name: memberNames[r.IntN(4)], Type: i32, BitOffset: 32},
			}
			if _, err := b.AddStruct("s", 8, ms); err != nil {
				return nil, err
			}
		}
		return b.Marshal(builder.Options{})
	}
	for range 3 + r.IntN(18) {
		union := r.IntN(8) == 0
		ms := make([]builder.Member, 1+r.IntN(3))
		off := uint32(0)
		for i := range ms {
			if !union && r.IntN(6) == 0 {
				off += 32
			}
			ms[i] = builder.Member{Name: memberNames[r.IntN(4)], Type: i32, BitOffset: off}
			if !union {
				off += 32
			}
		}
		size := ms[len(ms)-1].BitOffset/8 + 4 + 4*uint32(r.IntN(2))
		name := []string{"r", "s", "s", "s", "t"}[r.IntN(5)]
		add := b.AddStruct
		if union {
			add = b.AddUnion
		}
		if _, err := add(name, size, ms); err != nil {
			return nil, err
		}
	}
	return b.Marshal(builder.Options{})
}
