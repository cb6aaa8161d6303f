package diff_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/diff"
)

// TestMemosAsNone: random pairs of BTFs whose named types share
// anonymous prototypes and structs, some of them changed, some nesting
// past maxSame, many structs of one record, give the same changes and
// details, in the same order, with the memos of the comparisons of
// anonymous types and of structs (every struct remembered) and without
// them, on one worker and on several. (About 0.3 s of CPU.)
func TestMemosAsNone(t *testing.T) {
	defer diff.SetRememberAbove(0)()
	for seed := range uint64(30) {
		old := sharedAnonBTF(t, seed, nil)
		new := sharedAnonBTF(t, seed, rand.New(rand.NewPCG(seed, 1)))
		for _, run := range []struct{ workers, streamAbove int }{{1, 256 << 10}, {4, 256 << 10}, {1, 0}} {
			workers := run.workers
			opts := diff.Options{Workers: workers}
			defer diff.SetStreamAbove(run.streamAbove)()
			restore := diff.SetMemosOff(true)
			want, err := diff.Compare(context.Background(), old, new, opts)
			restore()
			if err != nil {
				t.Fatal(err)
			}
			got, err := diff.Compare(context.Background(), old, new, opts)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(diff.Change{})); d != "" {
				t.Fatalf("seed %d, %d workers: memo changes the output (-none +memo):\n%s", seed, workers, d)
			}
		}
	}
}

// sharedAnonBTF builds anonymous prototypes and structs, some of them
// chains deeper than diff's structural comparison goes (maxSame), and named FUNCs,
// typedefs and structs that share them, from seed; with mutate, some of
// the anonymous types change a parameter's or member's name or type.
func sharedAnonBTF(t *testing.T, seed uint64, mutate *rand.Rand) *btf.Spec {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0))
	changes := func() bool { return mutate != nil && mutate.IntN(40) == 0 }
	b, intID, longID := intsBuilder(t)
	scalar := func() btf.TypeID {
		if rng.IntN(2) == 0 != changes() {
			return intID
		}
		return longID
	}
	name := func(i int) string {
		if changes() {
			return fmt.Sprintf("x%d", i)
		}
		return fmt.Sprintf("p%d", i)
	}
	var protos, anons []btf.TypeID
	for range 12 + rng.IntN(80) {
		// One parameter and one member at most refer to an earlier
		// anonymous type: chains, which the comparisons without the
		// memo take in linear time, not trees.
		var params []builder.Param
		for i := range rng.IntN(6) {
			typ := scalar()
			if i == 0 && len(protos) > 0 && rng.IntN(4) != 0 {
				ptr, err := b.AddPointer(protos[len(protos)-1-rng.IntN(min(len(protos), 3))])
				if err != nil {
					t.Fatal(err)
				}
				typ = ptr
			}
			params = append(params, builder.Param{Name: name(i), Type: typ})
		}
		id, err := b.AddFuncProto(scalar(), params)
		if err != nil {
			t.Fatal(err)
		}
		protos = append(protos, id)
		var members []builder.Member
		for i := range 1 + rng.IntN(5) {
			typ := scalar()
			if i == 0 && len(anons) > 0 && rng.IntN(4) != 0 {
				typ = anons[len(anons)-1-rng.IntN(min(len(anons), 3))]
			} else if rng.IntN(3) == 0 {
				ptr, err := b.AddPointer(protos[rng.IntN(len(protos))])
				if err != nil {
					t.Fatal(err)
				}
				typ = ptr
			}
			mname := name(i)
			if rng.IntN(4) == 0 {
				mname = ""
			}
			members = append(members, builder.Member{Name: mname, Type: typ, BitOffset: uint32(64 * i)})
		}
		if id, err = b.AddStruct("", uint32(8*len(members)), members); err != nil {
			t.Fatal(err)
		}
		anons = append(anons, id)
	}
	// The named types use the last few: many structs of one record.
	ptrs := make(map[btf.TypeID]btf.TypeID)
	for i := range 20 + rng.IntN(40) {
		proto := protos[len(protos)-1-rng.IntN(3)]
		if _, err := b.AddFunc(fmt.Sprintf("f%d", i), proto, btf.LinkageGlobal); err != nil {
			t.Fatal(err)
		}
		ptr, ok := ptrs[proto]
		if !ok {
			var err error
			if ptr, err = b.AddPointer(proto); err != nil {
				t.Fatal(err)
			}
			ptrs[proto] = ptr
		}
		if _, err := b.AddTypedef(fmt.Sprintf("t%d", i), ptr); err != nil {
			t.Fatal(err)
		}
		anon := anons[len(anons)-1-rng.IntN(3)]
		members := []builder.Member{{Name: "in", Type: anon}, {Name: "fn", Type: ptr, BitOffset: 64}}
		// Most have a member of their own: x<i>, one whose facts'
		// names begin as those of "in" do, or one of no name, that
		// may change.
		switch own := []string{fmt.Sprintf("x%d", i), "in.p0", "", "in"}[rng.IntN(4)]; {
		case rng.IntN(5) == 0:
		case changes():
			members = append(members, builder.Member{Name: own + "y", Type: scalar(), BitOffset: 128})
		default:
			members = append(members, builder.Member{Name: own, Type: scalar(), BitOffset: 128})
		}
		if rng.IntN(3) == 0 {
			members[0], members[len(members)-1] = members[len(members)-1], members[0]
		}
		if _, err := b.AddStruct(fmt.Sprintf("h%d", i), 24, members); err != nil {
			t.Fatal(err)
		}
	}
	return parseBuilt(t, b)
}
