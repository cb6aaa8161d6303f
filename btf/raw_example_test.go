package btf_test

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
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

// ExtractAll keeps the pointer size of the ELF file's class, which Parse
// takes as Options.PointerSize: the Spec then knows its pointer size as
// Open of the ELF file does (libbpf's btf_parse_elf sets it from the
// class), where BTF without a "long" leaves raw BTF's unknown. Here an
// ELF object whose BTF is an int alone.
func ExampleExtractAll() {
	b := builder.New()
	if _, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}); err != nil {
		fmt.Println(err)
		return
	}
	obj, err := b.MarshalELF(builder.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := btf.ExtractAll(context.Background(), obj, btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	alone, err := btf.Parse(e.Raw, btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	kept, err := btf.Parse(e.Raw, btf.Options{PointerSize: e.PointerSize})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("class: %d-byte pointers; raw BTF alone: %d (unknown); with the class: %d\n",
		e.PointerSize, alone.KnownPointerSize(), kept.KnownPointerSize())
	// Output: class: 8-byte pointers; raw BTF alone: 0 (unknown); with the class: 8
}
