package dedup_test

import (
	"fmt"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
	"github.com/kmeta-dev/kmeta/internal/dedup"
)

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
