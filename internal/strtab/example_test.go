package strtab_test

import (
	"fmt"

	"github.com/kmeta-dev/kmeta/internal/strtab"
)

// A split string space: the base's strings keep their offsets, new ones
// follow the base's section.
func Example() {
	base := strtab.NewBase[uint32]([][]byte{[]byte("\x00int\x00char\x00")}, strtab.Options{})
	t := strtab.NewTable(base, 10, strtab.Options{})
	for _, s := range []string{"char", "task_struct", "int", "task_struct"} {
		key, _ := t.Intern([]byte(s))
		fmt.Println(s, key)
	}
	fmt.Printf("%q\n", t.Own.Data())
	// Output:
	// char 5
	// task_struct 10
	// int 1
	// task_struct 10
	// "task_struct\x00"
}
