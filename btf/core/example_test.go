package core_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/core"
)

// Resolve a program's relocations against a kernel's BTF, as libbpf would
// when loading it there.
func ExampleResolve() {
	obj, err := bpfelf.Open(context.Background(), "../../testdata/elf/prog.bpf.o.gz", bpfelf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer obj.Close()
	vmlinux, err := btf.Open(context.Background(), "../../testdata/btf/debian-6.1.btf.gz", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer vmlinux.Close()
	results, err := core.Resolve(context.Background(), obj.CORE(), core.NewTarget(vmlinux))
	if err != nil {
		log.Fatal(err)
	}
	r := results[0]
	fmt.Printf("%s relo #%d <%s> %s -> %d\n", r.Program, r.Index, r.Kind, r.LocalSpec, r.Value)
	// Output: handle_exec relo #0 <byte_off> [13] struct task_struct.tgid (0:93 @ offset 1268) -> 2420
}

// Minimal BTF for a program, as bpftool gen min_core_btf writes it.
func ExampleTypesFor() {
	obj, err := bpfelf.Open(context.Background(), "../../testdata/elf/prog.bpf.o.gz", bpfelf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer obj.Close()
	vmlinux, err := btf.Open(context.Background(), "../../testdata/btf/host-6.18.44.btf.gz", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer vmlinux.Close()
	b, err := core.TypesFor(context.Background(), core.NewTarget(vmlinux), []core.Object{obj.CORE()})
	if err != nil {
		log.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(b.NumTypes(), "types,", len(raw), "bytes")
	// Output: 20 types, 1855 bytes
}

// Stream the relocations of a program, one Result at a time: memory stays
// the same however many records the object has.
func ExampleResolveEach() {
	obj, err := bpfelf.Open(context.Background(), "../../testdata/elf/prog.bpf.o.gz", bpfelf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer obj.Close()
	vmlinux, err := btf.Open(context.Background(), "../../testdata/btf/debian-6.1.btf.gz", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer vmlinux.Close()
	resolved, failed := 0, 0
	err = core.ResolveEach(context.Background(), obj.CORE(), core.NewTarget(vmlinux), func(r *core.Result) error {
		if r.OK() {
			resolved++
		} else {
			failed++
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resolved, "resolved,", failed, "failed")
	// Output: 11 resolved, 0 failed
}
