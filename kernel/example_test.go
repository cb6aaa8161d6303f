package kernel_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/kernel"
	"github.com/kmeta-dev/kmeta/kimage"
)

// Find a type wherever the running kernel has it, in vmlinux or in a
// module, with one call on a fresh Cache.
func ExampleCache_Find() {
	c := kernel.NewCache(kernel.Options{}) // or kernel.Default()
	defer c.Close()
	h, res, err := c.Find("xfs_mount", kernel.FindOptions{Kind: btf.KindStruct})
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
	defer h.Release() // the Types in res belong to h
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

// Open this kernel's BTF with one call, and find a type in it. The Spec is
// the caller's to Close.
func ExampleOpenVmlinux() {
	spec, err := kernel.OpenVmlinux()
	if err != nil {
		log.Fatal(err) // errors.Is(err, kernel.ErrNoVmlinux): no BTF on this machine
	}
	defer spec.Close()
	ts, err := spec.FindOne("task_struct", btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ts.Name(), ts.Size() > 0)
}

// Read another machine's files as if they were the running kernel's:
// Options moves every path under a root directory.
func ExampleOptions_OpenVmlinux() {
	spec, err := kernel.Options{Root: "../testdata/no-such-root", Release: "6.1.0-test"}.OpenVmlinux()
	fmt.Println(spec == nil, errors.Is(err, kernel.ErrNoVmlinux))
	// Output: true true
}

// A kernel package (linux-image-*.deb) stands for a kernel: the Cache
// finds types across its vmlinux and its modules as it does for the
// running kernel's.
func ExampleOptions_package() {
	pkg, err := kimage.OpenPackage(context.Background(), "../testdata/kimage/linux-image-6.1.0-demo.deb", kimage.Options{})
	if err != nil {
		log.Fatal(err)
	}
	c := kernel.NewCache(kernel.Options{Package: pkg})
	defer c.Close()
	for _, name := range []string{"demo_dev", "list_head"} {
		h, res, err := c.Find(name, kernel.FindOptions{Kind: btf.KindStruct})
		if err != nil {
			log.Fatal(err)
		}
		for _, m := range res.Matches {
			fmt.Printf("%s: [%d] %s, %d bytes\n", m.Module, m.Type.ID(), m.Type.Name(), m.Type.Size())
		}
		h.Release()
	}
	// Output:
	// demo: [4] demo_dev, 24 bytes
	// vmlinux: [2] list_head, 16 bytes
}
