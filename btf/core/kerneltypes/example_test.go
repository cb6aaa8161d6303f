package kerneltypes_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core/kerneltypes"
	"github.com/kmeta-dev/kmeta/kernel"
)

// The kernel types that a BPF object's CO-RE relocations use, as minimal
// BTF to hand to a loader (bench/loader does so for cilium/ebpf): here of
// the Debian 6.1 kernel's sysfs as testdata holds it; kernel.Options{} is
// the running kernel.
func ExampleMinimal() {
	ctx := context.Background()
	obj, err := bpfelf.Open(ctx, "../../../testdata/elf/prog.bpf.o.gz", bpfelf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer obj.Close()
	ct, err := kerneltypes.Minimal(ctx, kernel.Options{Sysfs: "../../../testdata/sysfs/debian-6.1"}, obj.CORE())
	if err != nil {
		log.Fatal(err) // errors.Is(err, kernel.ErrNoVmlinux): no BTF there
	}
	raw, err := ct.Vmlinux.Marshal(builder.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("vmlinux: %d types, %d bytes; %d modules\n", ct.Vmlinux.NumTypes(), len(raw), len(ct.Modules))
	// Output: vmlinux: 20 types, 1666 bytes; 0 modules
}
