package btfids_test

import (
	"fmt"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/btfids"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
)

// A kernel's build lists its kfuncs in .BTF_ids; resolve_btfids --btf
// tags each one with DECL_TAG "bpf_kfunc" (and "bpf_fastcall" when its
// set's flags say so), deduplicates and sorts the types by name. Here
// pahole's output holds two functions of one prototype, and one of them
// is a kfunc.
func ExampleFinalize() {
	b := builder.New()
	u64, _ := b.AddInt("u64", 8, btf.IntInfo{Bits: 64})
	proto, _ := b.AddFuncProto(u64, []builder.Param{{Name: "x", Type: u64}})
	b.AddFunc("plain_helper", proto, btf.LinkageGlobal)
	b.AddFunc("bpf_demo_kfunc", proto, btf.LinkageGlobal)
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}

	out, err := btfids.Finalize(raw, btfids.Options{Kfuncs: []btfids.Kfunc{
		{Name: "bpf_demo_kfunc", Flags: btfids.FlagFastcall},
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	s, err := btf.Parse(out, btf.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rawdump.Write(os.Stdout, s, rawdump.Options{})
	// Output:
	// [1] FUNC_PROTO '(anon)' ret_type_id=6 vlen=1
	// 	'x' type_id=6
	// [2] FUNC 'bpf_demo_kfunc' type_id=1 linkage=global
	// [3] DECL_TAG 'bpf_fastcall' type_id=2 component_idx=-1
	// [4] DECL_TAG 'bpf_kfunc' type_id=2 component_idx=-1
	// [5] FUNC 'plain_helper' type_id=1 linkage=global
	// [6] INT 'u64' size=8 bits_offset=0 nr_bits=64 encoding=(none)
}
