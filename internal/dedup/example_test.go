package dedup_test

import (
	"fmt"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/dedup"
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

// A producer hands its units to a pipelined Merger one at a time: each
// AddBuilder deduplicates what it can of the unit just appended, Dedup
// the rest. The output is the same as without Pipeline.
func ExampleMerger_Pipeline() {
	m := dedup.New(nil, dedup.Options{})
	if err := m.Pipeline(); err != nil {
		fmt.Println(err)
		return
	}
	b := builder.New()
	for unit := range 3 {
		// Each unit: int; struct node { struct node *next; int v; }.
		i, _ := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
		node := b.NextID()
		b.AddStruct("node", 16, []builder.Member{{Name: "next", Type: node + 1}, {Name: "v", Type: i, BitOffset: 64}})
		b.AddPointer(node)
		b.AddVar(fmt.Sprintf("head%d", unit), node+1, btf.LinkageGlobal)
		if err := m.AddBuilder(b); err != nil {
			fmt.Println(err)
			return
		}
		b.Forget()
	}
	raw, err := m.Dedup(builder.Options{})
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
	// [1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
	// [2] STRUCT 'node' size=16 vlen=2
	// 	'next' type_id=3 bits_offset=0
	// 	'v' type_id=1 bits_offset=64
	// [3] PTR '(anon)' type_id=2
	// [4] VAR 'head0' type_id=3, linkage=global
	// [5] VAR 'head1' type_id=3, linkage=global
	// [6] VAR 'head2' type_id=3, linkage=global
}

// A producer appends its units, then, while it writes its last types
// (only reference types: functions and their prototypes) into a Unit on
// its goroutine, the deduplication runs its passes over the rest on
// another. The output is what Dedup alone would write.
func ExampleMerger_FinishGraphs() {
	m := dedup.New(nil, dedup.Options{})
	if err := m.Pipeline(); err != nil {
		fmt.Println(err)
		return
	}
	u := m.NewUnit()
	for range 2 { // two compile units, each with int and struct pair
		u.Reset(m.NextID())
		i, _ := u.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
		u.AddStruct("pair", 8, []builder.Member{{Name: "a", Type: i}, {Name: "b", Type: i, BitOffset: 32}})
		if err := m.AddUnit(u, 0); err != nil {
			fmt.Println(err)
			return
		}
	}
	pair := m.NextID() - 1 // the second unit's struct pair, a duplicate
	done := make(chan error, 1)
	go func() { done <- m.FinishGraphs() }()
	last := m.NewUnit()
	last.Reset(m.NextID())
	ptr, _ := last.AddPointer(pair)
	proto, _ := last.AddFuncProto(0, []builder.Param{{Name: "p", Type: ptr}})
	last.AddFunc("reset_pair", proto, btf.LinkageGlobal)
	if err := <-done; err != nil {
		fmt.Println(err)
		return
	}
	if err := m.AddUnit(last, 0); err != nil {
		fmt.Println(err)
		return
	}
	raw, err := m.Dedup(builder.Options{})
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
	// [1] INT 'int' size=4 bits_offset=0 nr_bits=32 encoding=SIGNED
	// [2] STRUCT 'pair' size=8 vlen=2
	// 	'a' type_id=1 bits_offset=0
	// 	'b' type_id=1 bits_offset=32
	// [3] PTR '(anon)' type_id=2
	// [4] FUNC_PROTO '(anon)' ret_type_id=0 vlen=1
	// 	'p' type_id=3
	// [5] FUNC 'reset_pair' type_id=4 linkage=global
}
