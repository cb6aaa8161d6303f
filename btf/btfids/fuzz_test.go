package btfids_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/btfids"
	"github.com/kmeta-dev/kmeta/internal/fuzztest"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
)

// FuzzFinalize runs Finalize on mutated standalone BTF, seeded with real
// pahole output, with a kfunc list: it must return an error or BTF, never
// panic.
func FuzzFinalize(f *testing.F) {
	for _, g := range []string{"pahole/dwarf/tags-x86_64.btf.gz", "pahole/dwarf/kinds-x86_64.btf.gz"} {
		f.Add(testfixtures.Read(f, g), "tagged_fn", uint32(btfids.FlagArenaArg1|btfids.FlagImplicitArgs))
	}
	f.Fuzz(func(t *testing.T, raw []byte, name string, flags uint32) {
		btfids.Finalize(raw, btfids.Options{Kfuncs: []btfids.Kfunc{{Name: name, Flags: flags}}})
	})
}

// FuzzEdit runs Edit, resolve_btfids' edits without the deduplication, on
// mutated standalone BTF (seeded as FuzzFinalize is) with a kfunc of
// mutated name and flags: an error or BTF, never a panic, and BTF that
// parses where the input did (Edit checks only what it edits: Finalize's
// parse, or the caller's merge, checks the rest).
func FuzzEdit(f *testing.F) {
	for _, g := range []string{"pahole/dwarf/tags-x86_64.btf.gz", "pahole/dwarf/kinds-x86_64.btf.gz"} {
		f.Add(testfixtures.Read(f, g), "tagged_fn", uint32(btfids.FlagArenaArg1|btfids.FlagImplicitArgs))
	}
	f.Fuzz(func(t *testing.T, raw []byte, name string, flags uint32) {
		out, err := btfids.Edit(raw, btfids.Options{Kfuncs: []btfids.Kfunc{{Name: name, Flags: flags}}})
		fuzztest.CheckError(t, "btfids", err)
		if err != nil {
			return
		}
		in, err := btf.Parse(raw, btf.Options{})
		if err != nil {
			return
		}
		in.Close()
		s, err := btf.Parse(out, btf.Options{})
		if err != nil {
			t.Fatalf("Edit made BTF that parses into BTF that does not: %v", err)
		}
		s.Close()
	})
}
