package dwarf2btf_test

import (
	"context"
	"fmt"
	"os"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/dwarf2btf"
)

// The toolchain CompatKernel assumes for a kernel's release: Debian's for
// that kernel (Debian 12's pahole 1.24 for 6.1). A kernel built with
// another pahole is encoded as its build did by setting Options.Compat.
func ExampleCompatFor() {
	for _, rel := range []string{"6.1.0-47-cloud-amd64", "6.12.118+deb13-cloud-amd64", "7.3.4+deb13-cloud-amd64"} {
		fmt.Println(rel, dwarf2btf.CompatFor(rel))
	}
	// Output:
	// 6.1.0-47-cloud-amd64 pahole-1.24
	// 6.12.118+deb13-cloud-amd64 pahole-1.30
	// 7.3.4+deb13-cloud-amd64 linux-7
}

// Linux 6.12's scripts/Makefile.btf passes --btf_features twice; the
// second, "+reproducible_build", adds to the defaults.
func ExampleParseFeatures() {
	f, err := dwarf2btf.ParseFeatures("+reproducible_build")
	fmt.Println(f, err)
	// Output:
	// encode_force,var,float,decl_tag,type_tag,enum64,optimized_func,consistent_func,decl_tag_kfuncs,reproducible_build <nil>
}

// Encode a debug vmlinux as its kernel's build did (a module would also
// need Options.Base, the vmlinux BTF).
func ExampleKernelRelease() {
	ko, err := os.ReadFile("vmlinux") // from the kernel's -dbg package
	if err != nil {
		fmt.Println(err)
		return
	}
	rel, err := dwarf2btf.KernelRelease(ko)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rel, dwarf2btf.CompatFor(rel))
	raw, err := dwarf2btf.Encode(context.Background(), ko, dwarf2btf.Options{}, builder.Options{})
	fmt.Println(len(raw), err)
}
