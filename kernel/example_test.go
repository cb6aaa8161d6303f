package kernel_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/kernel"
)

// Find a type wherever the running kernel has it, in vmlinux or in a
// module, with one call on a fresh Cache.
func ExampleCache_Find() {
	c := kernel.NewCache(kernel.Options{}) // or kernel.Default()
	defer c.Close()
	h, res, err := c.Find("xfs_mount", kernel.FindOptions{Kind: btf.KindStruct})
	if h != nil {
		defer h.Release() // the Types in res belong to h
	}
	for _, e := range res.Failed {
		log.Printf("not searched: %v", e) // a module whose BTF is unreadable
	}
	if errors.Is(err, btf.ErrNotFound) {
		fmt.Println("not found")
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range res.Matches {
		fmt.Printf("%s: [%d] %s\n", m.Module, m.Type.ID(), m.Type.Name())
	}
}

// Acquire a Handle once and use it for many lookups; Flush gives the memory
// back once every Handle is released.
func ExampleCache_Acquire() {
	c := kernel.Default()
	h, err := c.Acquire()
	if err != nil {
		log.Fatal(err)
	}
	defer h.Release()
	vmlinux := h.Vmlinux()
	ts, err := vmlinux.Find("task_struct", btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ts[0].Name())
}
