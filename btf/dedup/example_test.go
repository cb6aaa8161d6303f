package dedup_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/dedup"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
)

// Two compilation units each describe int and a struct list_head; one of
// them knows the struct only by a forward declaration. Deduplicated, one
// copy of each type remains and the pointer to the declaration points to
// the definition.
func ExampleMarshal() {
	b := builder.New()
	// Unit 1: struct list_head { struct list_head *next; }; int.
	lh1 := b.NextID()
	b.AddStruct("list_head", 8, []builder.Member{{Name: "next", Type: lh1 + 1}})
	b.AddPointer(lh1)
	b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	// Unit 2: int; struct list_head; struct list_head *head.
	i2, _ := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	fwd, _ := b.AddForward("list_head", false)
	p2, _ := b.AddPointer(fwd)
	b.AddVar("head", p2, btf.LinkageGlobal)
	b.AddVar("count", i2, btf.LinkageGlobal)

	raw, err := dedup.Marshal(b, nil, builder.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rawdump.Write(os.Stdout, s, rawdump.Options{})
	// Output:
	// [1] STRUCT 'list_head' size=8 vlen=1
	// 	'next' type_id=2 bits_offset=0
	// [2] PTR '(anon)' type_id=1
	// [3] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
	// [4] VAR 'head' type_id=2, linkage=global
	// [5] VAR 'count' type_id=3, linkage=global
}

// A base and two split inputs on it, merged and deduplicated with up to
// four workers: the result is the same for any number of them.
func ExampleNew_workers() {
	vb := builder.New()
	vb.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	vraw, _ := vb.Marshal(builder.Options{})
	vmlinux, err := btf.Parse(vraw, btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := dedup.Options{Workers: 4}
	base, err := dedup.NewBase(vmlinux, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	m := dedup.New(base, opts)
	for _, name := range []string{"a", "b"} {
		// Each module: its own int, and a pointer to it.
		mb, _ := builder.NewSplit(vmlinux)
		i, _ := mb.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
		p, _ := mb.AddPointer(i)
		mb.AddVar(name, p, btf.LinkageGlobal)
		mraw, _ := mb.Marshal(builder.Options{})
		mod, err := btf.Parse(mraw, btf.Options{Base: vmlinux})
		if err != nil {
			fmt.Println(err)
			return
		}
		if err := m.AddSpec(mod); err != nil {
			fmt.Println(err)
			return
		}
	}
	raw, err := m.Dedup(builder.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := btf.Parse(raw, btf.Options{Base: vmlinux})
	if err != nil {
		fmt.Println(err)
		return
	}
	rawdump.Write(os.Stdout, s, rawdump.Options{})
	// Output:
	// [1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
	// [2] PTR '(anon)' type_id=1
	// [3] VAR 'a' type_id=2, linkage=global
	// [4] VAR 'b' type_id=2, linkage=global
}

// Compatibility modes are named as libbpf versions; the zero Options
// reproduce libbpf 1.8.
func ExampleParseCompat() {
	c, err := dedup.ParseCompat("libbpf-1.1")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(c == dedup.CompatLibbpf11, dedup.Options{}.Compat)
	// Output: true libbpf-1.8
}

// A Merger's output written to a file as it is made: the deduplicated
// BTF is never held whole. (A command writes it to a temporary file and
// renames it once DedupTo succeeds.)
func ExampleMerger_DedupTo() {
	b := builder.New()
	for range 2 {
		i, _ := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
		b.AddPointer(i)
	}
	raw, _ := b.Marshal(builder.Options{})
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := dedup.New(nil, dedup.Options{})
	if err := m.AddSpec(s); err != nil {
		fmt.Println(err)
		return
	}
	f, err := os.CreateTemp("", "deduped-*.btf")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if err := m.DedupTo(context.Background(), f, builder.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	out, err := btf.Open(context.Background(), f.Name(), btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer out.Close()
	rawdump.Write(os.Stdout, out, rawdump.Options{})
	// Output:
	// [1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
	// [2] PTR '(anon)' type_id=1
}

// An input read from a gzip stream is inflated into memory the Spec owns;
// PrepareClose copies its records, giving that memory back as it goes, and
// closes it.
func ExampleMerger_PrepareClose() {
	b := builder.New()
	for range 2 {
		i, _ := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
		b.AddPointer(i)
	}
	raw, _ := b.Marshal(builder.Options{})
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(raw)
	w.Close()
	s, err := btf.Read(context.Background(), &gz, btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	m := dedup.New(nil, dedup.Options{})
	p, err := m.PrepareClose(context.Background(), s) // s is closed from here on
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := m.AddPrepared(p); err != nil {
		fmt.Println(err)
		return
	}
	out, err := m.Dedup(builder.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := btf.Parse(out, btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rawdump.Write(os.Stdout, d, rawdump.Options{})
	// Output:
	// [1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
	// [2] PTR '(anon)' type_id=1
}
