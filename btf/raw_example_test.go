package btf_test

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
)

// The raw view: a type's record, and its name read from the string
// section through the record's name offset.
func ExampleType_Record() {
	spec, err := btf.Open(context.Background(), "../testdata/btf/debian-6.1.btf.gz", btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer spec.Close()
	found, err := spec.Find("task_struct", btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		fmt.Println(err)
		return
	}
	t := found[0]
	strs, start := spec.StringSection()
	off := t.NameOffset() - start
	name := strs[off : off+uint32(bytes.IndexByte(strs[off:], 0))]
	fmt.Printf("%s: %d-byte record, %d members\n", name, len(t.Record()), t.Vlen())
	// Output: task_struct: 2916-byte record, 242 members
}

// Extract takes the raw BTF out of an ELF file (here a gzip-compressed BPF
// object), and ParseHeader reads where its sections lie.
func ExampleExtract() {
	data, err := os.ReadFile("../testdata/elf/prog.bpf.o.gz")
	if err != nil {
		fmt.Println(err)
		return
	}
	raw, _, err := btf.Extract(context.Background(), data, btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, err := btf.ParseHeader(raw)
	if err != nil {
		fmt.Println(err)
		return
	}
	off, n := h.Strings()
	fmt.Printf("%d bytes of BTF: header %d bytes, types %d bytes, strings at %d (%d bytes)\n", len(raw), h.Len, h.TypeLen, off, n)
	// Output: 31532 bytes of BTF: header 24 bytes, types 18480 bytes, strings at 18504 (13028 bytes)
}
