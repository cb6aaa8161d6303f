package cdump_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/cdump"
)

// exampleSpec builds a small BTF: a struct, a 1-byte enum, and a function
// tagged as a kfunc, as kernels since 6.12 tag them.
func exampleSpec() *btf.Spec {
	b := builder.New()
	must := func(id btf.TypeID, err error) btf.TypeID {
		if err != nil {
			log.Fatal(err)
		}
		return id
	}
	intT := must(b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}))
	st := must(b.AddEnum("state", 1, false, []builder.Enumerator{{Name: "IDLE", Value: 0}, {Name: "BUSY", Value: 1}}))
	task := must(b.AddStruct("task", 8, []builder.Member{
		{Name: "pid", Type: intT},
		{Name: "state", Type: st, BitOffset: 32},
	}))
	proto := must(b.AddFuncProto(intT, []builder.Param{{Name: "t", Type: must(b.AddPointer(task))}}))
	fn := must(b.AddFunc("bpf_task_pid", proto, btf.LinkageGlobal))
	must(b.AddDeclTag("bpf_kfunc", fn, -1, false))
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		log.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	return s
}

// Write prints the header that bpftool 7.5 prints: the types sorted, the
// __ksym and __weak macros, mode(byte) on a 1-byte enum, and the kfunc
// prototypes at the end.
func ExampleWrite() {
	s := exampleSpec()
	defer s.Close()
	var buf bytes.Buffer
	if err := cdump.Write(&buf, s, cdump.Options{}); err != nil {
		log.Fatal(err)
	}
	// Print the types and the kfuncs, without the fixed lines around
	// them and without empty lines.
	out := buf.String()
	out = out[strings.Index(out, "enum state"):strings.Index(out, "#ifndef BPF_NO_PRESERVE_ACCESS_INDEX\n#pragma clang attribute pop")]
	for _, line := range strings.Split(out, "\n") {
		if line != "" {
			fmt.Println(line)
		}
	}
	// Output:
	// enum state {
	// 	IDLE = 0,
	// 	BUSY = 1,
	// } __attribute__((mode(byte)));
	// struct task {
	// 	int pid;
	// 	enum state state;
	// };
	// /* BPF kfuncs */
	// #ifndef BPF_NO_KFUNC_PROTOTYPES
	// extern int bpf_task_pid(struct task *t) __weak __ksym;
	// #endif
}

// ParseCompat reads the name of an older tool's output, as a --compat flag
// would give it; Write then prints what that tool printed: Debian 12's
// bpftool 7.1 has no macros, no mode attributes, no kfunc block.
func ExampleParseCompat() {
	compat, err := cdump.ParseCompat("bpftool-7.1")
	if err != nil {
		log.Fatal(err)
	}
	s := exampleSpec()
	defer s.Close()
	if err := cdump.Write(os.Stdout, s, cdump.Options{Compat: compat, Types: []string{"task"}}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// #ifndef __VMLINUX_H__
	// #define __VMLINUX_H__
	//
	// #ifndef BPF_NO_PRESERVE_ACCESS_INDEX
	// #pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)
	// #endif
	//
	// enum state {
	// 	IDLE = 0,
	// 	BUSY = 1,
	// };
	//
	// struct task {
	// 	int pid;
	// 	enum state state;
	// };
	//
	// #ifndef BPF_NO_PRESERVE_ACCESS_INDEX
	// #pragma clang attribute pop
	// #endif
	//
	// #endif /* __VMLINUX_H__ */
}
