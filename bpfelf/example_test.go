package bpfelf_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/bpfelf"
	"github.com/kmeta-dev/kmeta/btf/ext"
)

// List a BPF object's programs, with the size of each and the CO-RE
// relocations of its section.
func ExampleOpen() {
	obj, err := bpfelf.Open(context.Background(), "../testdata/elf/prog.bpf.o.gz", bpfelf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer obj.Close()
	relos := map[string]int{}
	for _, sec := range obj.Ext.Sections(ext.CORERelos) {
		for range sec.CORERelos() {
			relos[sec.Name]++
		}
	}
	for _, p := range obj.Programs() {
		fmt.Printf("%s in %s: %d instructions, %d bytes, %d CO-RE relocations\n",
			p.Name, p.Section, p.InsnCnt, len(obj.Insns(p)), relos[p.Section])
	}
	// Output:
	// do_unlinkat in kprobe/do_unlinkat: 28 instructions, 224 bytes, 4 CO-RE relocations
	// handle_exec in tp_btf/sched_process_exec: 63 instructions, 504 bytes, 7 CO-RE relocations
}
