package rawdump_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/rawdump"
)

// Print one type as "bpftool btf dump file FILE" prints it. Write prints a
// whole Spec the same way, and WriteJSON a JSON record per type.
func ExampleWriteType() {
	spec, err := btf.Open(context.Background(), "../../testdata/btf/debian-6.1.btf.gz", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer spec.Close()

	for _, id := range []btf.TypeID{102, 104} {
		t, err := spec.TypeByID(id)
		if err != nil {
			log.Fatal(err)
		}
		if err := rawdump.WriteType(os.Stdout, t); err != nil {
			log.Fatal(err)
		}
	}
	// Output:
	// [102] STRUCT 'callback_head' size=16 vlen=2
	// 	'next' type_id=103 bits_offset=0
	// 	'func' type_id=105 bits_offset=64
	// [104] FUNC_PROTO '(anon)' ret_type_id=0 vlen=1
	// 	'(anon)' type_id=103
}

// Print one type's JSON record, as "kmeta btf dump --json" prints each
// type and "kmeta btf find --json" each match. WriteJSON prints a whole
// Spec the same way, one record a line.
func ExampleToJSON() {
	spec, err := btf.Open(context.Background(), "../../testdata/btf/debian-6.1.btf.gz", btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer spec.Close()

	t, err := spec.TypeByID(102)
	if err != nil {
		log.Fatal(err)
	}
	b, err := json.Marshal(rawdump.ToJSON(t))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(b))
	// Output:
	// {"id":102,"kind":"struct","name":"callback_head","size":16,"members":[{"name":"next","type_id":103,"bit_offset":0,"bitfield_size":0},{"name":"func","type_id":105,"bit_offset":64,"bitfield_size":0}]}
}
