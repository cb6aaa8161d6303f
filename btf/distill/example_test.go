package distill_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/distill"
)

// Distill a module's BTF for a kernel other than the one it was built
// for: a distilled base of the vmlinux types it names, and its BTF on that
// base, as pahole writes an external module's .BTF.base and .BTF. Relocate
// puts it back on a full base.
func ExampleDistill() {
	ctx := context.Background()
	vmlinux, err := btf.Open(ctx, "../../testdata/btf/debian-6.12-cloud.btf.zst", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer vmlinux.Close()
	mod, err := btf.Open(ctx, "../../testdata/pahole/encode/debian-6.12/af_key.btf.gz", btf.Options{Base: vmlinux})
	if err != nil {
		log.Fatal(err)
	}
	defer mod.Close()

	base, split, err := distill.Distill(mod)
	if err != nil {
		log.Fatal(err)
	}
	dist, err := btf.Parse(base, btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	onDist, err := btf.Parse(split, btf.Options{Base: dist})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("af_key: %d types on vmlinux's %d; distilled: %d types on a base of %d (%d bytes)\n",
		mod.NumTypes(), vmlinux.NumTypes(), onDist.NumTypes(), dist.NumTypes(), len(base))

	back, err := btf.Relocate(onDist, vmlinux)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("relocated: ids %d-%d\n", back.FirstID(), back.LastID())
	// Output:
	// af_key: 177 types on vmlinux's 108447; distilled: 256 types on a base of 31 (791 bytes)
	// relocated: ids 108448-108703
}
