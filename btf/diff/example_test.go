package diff_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/btf/diff"
)

// kernel builds a small BTF: struct sk_buff holds a struct net_device,
// whose flags are an integer named flagsType.
func kernel(flagsType string, flagsSize uint32) *btf.Spec {
	b := builder.New()
	flags, _ := b.AddInt(flagsType, flagsSize, btf.IntInfo{Bits: uint8(8 * flagsSize)})
	dev, _ := b.AddStruct("net_device", flagsSize, []builder.Member{{Name: "flags", Type: flags}})
	b.AddStruct("sk_buff", flagsSize, []builder.Member{{Name: "dev", Type: dev}})
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

// Compare the types that sk_buff reaches between two kernels: the
// changes to sk_buff itself come first, then those to the types it
// reaches, marked Reached.
func ExampleCompare() {
	changes, err := diff.Compare(context.Background(), kernel("unsigned int", 4), kernel("long unsigned int", 8), diff.Options{Types: []string{"sk_buff"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, c := range changes {
		if c.Reached {
			fmt.Printf("(reached) %s %s %s\n", c.Change, c.Kind, c.Name)
			continue
		}
		fmt.Printf("%s %s %s\n", c.Change, c.Kind, c.Name)
	}
	diff.WriteText(os.Stdout, changes[len(changes)-1:])
	diff.WriteJSON(os.Stdout, diff.Report{Changes: changes[len(changes)-1:], Summary: diff.Summarize(changes[len(changes)-1:])})
	// Output:
	// changed struct sk_buff
	// (reached) added int long unsigned int
	// (reached) removed int unsigned int
	// (reached) changed struct net_device
	// changed struct net_device
	// 	size: 4 -> 8
	// 	member flags: type unsigned int -> long unsigned int
	// {
	//   "changes": [
	//     {
	//       "kind": "struct",
	//       "name": "net_device",
	//       "change": "changed",
	//       "details": [
	//         {
	//           "change": "changed",
	//           "field": "size",
	//           "old": 4,
	//           "new": 8
	//         },
	//         {
	//           "change": "changed",
	//           "member": "flags",
	//           "field": "type",
	//           "old": "unsigned int",
	//           "new": "long unsigned int"
	//         }
	//       ],
	//       "reached": true
	//     }
	//   ],
	//   "summary": {
	//     "added": 0,
	//     "removed": 0,
	//     "changed": 1
	//   }
	// }
}

// Walk hands the changes over one at a time, each change's details
// made as AllDetails yields them: a change to a struct of 65,535 members
// is never whole in memory.
func ExampleWalk() {
	err := diff.Walk(context.Background(), kernel("unsigned int", 4), kernel("long unsigned int", 8), diff.Options{},
		func(c diff.Change) error {
			fmt.Printf("%s %s %s\n", c.Change, c.Kind, c.Name)
			for d := range c.AllDetails() {
				fmt.Printf("\t%s %s: %v -> %v\n", d.Member, d.Field, d.Old, d.New)
			}
			return nil
		})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// added int long unsigned int
	// removed int unsigned int
	// changed struct net_device
	// 	 size: 4 -> 8
	// 	flags type: unsigned int -> long unsigned int
	// changed struct sk_buff
	// 	 size: 4 -> 8
}
