package btf_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/btf"
)

// Ask for a field's offset by path, as pahole -C or bpf_core_field_offset
// would give it: through nested structs, anonymous unions and array
// elements, without walking Members by hand.
func ExampleSpec_Field() {
	spec, err := btf.Open(context.Background(), "../testdata/btf/debian-6.1.btf.gz", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer spec.Close()

	for _, path := range []string{
		"task_struct.pid",
		"task_struct.se.vruntime",
		"sk_buff.cb[4]",
		"sk_buff.len",                 // inside an anonymous union
		"sock.__sk_common.skc_family", // a nested struct
		"sk_buff.pkt_type",            // a bitfield
	} {
		f, err := spec.Field(path)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-28s offset %4d  size %d", path, f.Offset(), f.Size)
		if f.BitfieldSize != 0 {
			fmt.Printf("  bits %d:%d", f.BitOffset%8, f.BitfieldSize)
		}
		fmt.Println()
	}
	// Output:
	// task_struct.pid              offset 2416  size 4
	// task_struct.se.vruntime      offset  208  size 8
	// sk_buff.cb[4]                offset   44  size 1
	// sk_buff.len                  offset  112  size 4
	// sock.__sk_common.skc_family  offset   16  size 2
	// sk_buff.pkt_type             offset  128  size 1  bits 0:3
}
