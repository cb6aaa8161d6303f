package kimage_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/kimage"
)

// Read the BTF of a kernel image as a distribution installs it: Kernel
// finds the compressed vmlinux in the bzImage (or in a Debian package's
// vmlinuz) and returns a stream of it, which btf.Read reads to its .BTF
// section. The limits bound both the image and what it inflates to.
func ExampleKernel() {
	image, err := os.ReadFile("/boot/vmlinuz-6.1.0-47-cloud-amd64")
	if err != nil {
		log.Fatal(err)
	}
	vmlinux, _, err := kimage.Kernel(context.Background(), image, kimage.Options{})
	if err != nil {
		log.Fatal(err)
	}
	spec, err := btf.Read(context.Background(), vmlinux, btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer spec.Close()
	fmt.Println(spec.NumTypes(), "types")
}

// OpenBTF reads BTF in any form a kernel ships it: here the kernel's BTF
// inside a Debian package (its boot/vmlinuz-*, an x86 bzImage), and
// equally a vmlinuz, a vmlinux, a .ko or raw BTF.
func ExampleOpenBTF() {
	spec, err := kimage.OpenBTF(context.Background(), "../testdata/kimage/linux-image-6.1.0-demo.deb", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer spec.Close()
	t, err := spec.FindOne("list_head", btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d types; struct %s: %d bytes\n", spec.NumTypes(), t.Name(), t.Size())
	// Output:
	// 3 types; struct list_head: 16 bytes
}

// OpenPackage reads a kernel package's BTF once: its kernel's and every
// module's, which Open parses on the kernel's. (kernel.Options.Package
// searches them all, as for the running kernel.)
func ExampleOpenPackage() {
	pkg, err := kimage.OpenPackage(context.Background(), "../testdata/kimage/linux-image-6.1.0-demo.deb", kimage.Options{})
	if err != nil {
		log.Fatal(err)
	}
	vmlinux, err := pkg.Open("vmlinux", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer vmlinux.Close()
	for _, name := range pkg.Modules() {
		mod, err := pkg.Open(name, vmlinux)
		if err != nil {
			log.Fatal(err)
		}
		for id, t := range mod.Types(btf.ScopeOwn) {
			fmt.Printf("%s: [%d] %v %s\n", name, id, t.Kind(), t.Name())
		}
		mod.Close()
	}
	// Output:
	// demo: [4] STRUCT demo_dev
}

// Detect tells a payload's compressor by its magic number, and Decompress
// inflates it; this is what Kernel does with the payload that Payload finds
// in a bzImage.
func ExampleDetect() {
	var payload bytes.Buffer
	zw := gzip.NewWriter(&payload)
	if _, err := zw.Write([]byte("\x7fELF, a kernel")); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}

	f := kimage.Detect(payload.Bytes())
	r, _, err := kimage.Decompress(payload.Bytes(), f, kimage.Options{MaxSize: 1 << 20})
	if err != nil {
		log.Fatal(err)
	}
	vmlinux, err := io.ReadAll(r)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%v: %q\n", f, vmlinux)
	// Output:
	// gzip: "\x7fELF, a kernel"
}

// IsImage tells a kernel image by the header its boot code writes: here
// an arm64 Image's, whose magic "ARM\x64" is at 0x38.
func ExampleIsImage() {
	head := make([]byte, 64)
	copy(head, "MZ")
	copy(head[0x38:], "ARM\x64")
	fmt.Println(kimage.IsImage(head), kimage.IsImage([]byte("\x7fELF")))
	// Output: true false
}

// Tell inputs apart by their first bytes, before reading the rest: a
// Debian package, compressed BTF, and raw BTF.
func ExampleIdentify() {
	for _, path := range []string{"../testdata/kimage/linux-image-6.1.0-demo.deb", "../testdata/btf/debian-6.1.btf.gz"} {
		f, err := os.Open(path)
		if err != nil {
			log.Fatal(err)
		}
		head := make([]byte, kimage.IdentifyLen)
		n, _ := io.ReadFull(f, head)
		f.Close()
		fmt.Println(path, kimage.Identify(head[:n]))
	}
	fmt.Println(kimage.Identify([]byte{0x9f, 0xeb, 1, 0, 24, 0, 0, 0}))
	// Output:
	// ../testdata/kimage/linux-image-6.1.0-demo.deb ar archive
	// ../testdata/btf/debian-6.1.btf.gz compressed
	// BTF
}
