package ext_test

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/ext"
)

// List an object's CO-RE relocations with their access strings.
func ExampleParse() {
	f, err := os.Open("../../testdata/elf/prog.bpf.o.gz")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		log.Fatal(err)
	}
	obj, err := io.ReadAll(zr)
	if err != nil {
		log.Fatal(err)
	}
	ef, err := elf.NewFile(bytes.NewReader(obj))
	if err != nil {
		log.Fatal(err)
	}
	btfData, _ := ef.Section(".BTF").Data()
	extData, _ := ef.Section(".BTF.ext").Data()
	s, err := btf.Parse(btfData, btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	e, err := ext.Parse(extData, s)
	if err != nil {
		log.Fatal(err)
	}
	for _, sec := range e.Sections(ext.CORERelos) {
		for i, r := range sec.CORERelos() {
			access, _ := ext.String(s, r.AccessStrOff)
			fmt.Printf("%s #%d insn %d %s %s\n", sec.Name, i, r.InsnOff/8, r.Kind, access)
		}
	}
	// Output:
	// tp_btf/sched_process_exec #0 insn 9 byte_off 0:93
	// tp_btf/sched_process_exec #1 insn 18 byte_off 0:95
	// tp_btf/sched_process_exec #2 insn 33 byte_off 0:115
	// tp_btf/sched_process_exec #3 insn 42 byte_off 0:125
	// tp_btf/sched_process_exec #4 insn 49 field_exists 0:57:0
	// tp_btf/sched_process_exec #5 insn 51 enumval_value 29
	// tp_btf/sched_process_exec #6 insn 54 type_exists 0
	// kprobe/do_unlinkat #0 insn 0 byte_off 0:13
	// kprobe/do_unlinkat #1 insn 1 byte_off 0:0
	// kprobe/do_unlinkat #2 insn 11 byte_off 0:5
	// kprobe/do_unlinkat #3 insn 13 byte_off 0:11
}
