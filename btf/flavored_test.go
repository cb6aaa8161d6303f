package btf_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// TestFindFlavors: a search for several essential names at once finds
// what Find with Flavors finds for each, in id order.
func TestFindFlavors(t *testing.T) {
	s := testfixtures.HostSpec(t)
	names := []string{"task_struct", "bpf_map_type", "file", "no_such_name"}
	kinds := []btf.Kind{btf.KindStruct, btf.KindEnum, btf.KindEnum64}
	var want []btf.TypeID
	for id, typ := range s.All() {
		for _, n := range names {
			if btf.EssentialName(typ.Name()) == n && (typ.Kind() == btf.KindStruct || typ.Kind() == btf.KindEnum || typ.Kind() == btf.KindEnum64) {
				want = append(want, id)
			}
		}
	}
	var got []btf.TypeID
	for typ := range s.FindFlavors(btf.FlavorQuery{Names: names, Kinds: kinds}, btf.FindOptions{}) {
		got = append(got, typ.ID())
	}
	if len(want) < 3 {
		t.Fatalf("only %d types to find", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Stopping early is honoured.
	for range s.FindFlavors(btf.FlavorQuery{Names: names, Kinds: kinds}, btf.FindOptions{}) {
		break
	}
}
