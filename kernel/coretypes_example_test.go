package kernel_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
	"github.com/kmeta-dev/kmeta/kernel"
)

// The running kernel's types that a BPF object's CO-RE relocations use, as
// minimal BTF to hand to a loader (bench/loader does so for cilium/ebpf).
func ExampleOptions_MinimalCORE() {
	obj, err := core.OpenObject(context.Background(), "prog.bpf.o", core.ObjectOptions{})
	if err != nil {
		log.Fatal(err)
	}
	defer obj.Close()
	ct, err := kernel.Options{}.MinimalCORE(context.Background(), obj)
	if err != nil {
		log.Fatal(err) // errors.Is(err, kernel.ErrNoVmlinux): no BTF on this machine
	}
	raw, err := ct.Vmlinux.Marshal(builder.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("vmlinux: %d types, %d bytes\n", ct.Vmlinux.NumTypes(), len(raw))
	for _, m := range ct.Modules {
		fmt.Printf("%s: %d types\n", m.Module, m.Types.NumTypes())
	}
}
