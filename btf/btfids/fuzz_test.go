package btfids_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf/btfids"
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
