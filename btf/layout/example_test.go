package layout_test

import (
	"context"
	"fmt"
	"os"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/layout"
)

// Print the layout of struct list_head as pahole -C list_head does.
func ExampleWrite() {
	s, err := btf.Open(context.Background(), "/sys/kernel/btf/vmlinux", btf.Options{})
	if err != nil {
		fmt.Println("no kernel BTF:", err)
		return
	}
	defer s.Close()
	err = layout.Write(context.Background(), os.Stdout, s, layout.Options{Names: []string{"list_head"}})
	if err != nil {
		fmt.Println(err)
	}
}

// Find the structs with the most bytes lost to holes.
func ExampleLayouts() {
	s, err := btf.Open(context.Background(), "/sys/kernel/btf/vmlinux", btf.Options{})
	if err != nil {
		fmt.Println("no kernel BTF:", err)
		return
	}
	defer s.Close()
	structs, err := layout.Layouts(context.Background(), s, layout.Options{Names: []string{"task_struct"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, st := range structs {
		fmt.Println(st.Name, st.Size > 0, st.Holes >= 0)
	}
	// Output: task_struct true true
}
