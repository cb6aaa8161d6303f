package loader_test

import (
	"context"
	"fmt"
	"log"
	"maps"
	"slices"

	"github.com/cilium/ebpf"

	"github.com/kmeta-dev/kmeta/bench/loader"
	"github.com/kmeta-dev/kmeta/kernel"
)

// Load a CO-RE object with cilium/ebpf, with the running kernel's minimal
// BTF for its relocations as the kernel types: cilium/ebpf then neither
// reads nor decodes the kernel's whole BTF to relocate it. It needs root
// (or CAP_BPF and CAP_PERFMON) and a kernel with BTF: elsewhere TestMain
// skips it, saying why.
func ExampleProgramOptions() {
	const obj = "../testdata/loader/kprobe.bpf.o"
	progOpts, err := loader.ProgramOptions(context.Background(), kernel.Options{}, obj)
	if err != nil {
		log.Fatal(err)
	}
	spec, err := ebpf.LoadCollectionSpec(obj)
	if err != nil {
		log.Fatal(err)
	}
	coll, err := ebpf.NewCollectionWithOptions(spec, ebpf.CollectionOptions{Programs: progOpts})
	if err != nil {
		log.Fatal(err) // an *ebpf.VerifierError if the kernel refused a program
	}
	defer coll.Close()
	fmt.Println(slices.Sorted(maps.Keys(coll.Programs)))
	// Output: [read_enter unlink_enter]
}
