package hostile

import (
	"fmt"
	"strings"
)

// WideCORESource returns the C source of a BPF program that reads every
// member of a struct of n int members through CO-RE: n field relocations
// against one wide struct (libbpf scans the members for each).
func WideCORESource(n int) string {
	var b strings.Builder
	b.WriteString("struct w {\n")
	for i := range n {
		fmt.Fprintf(&b, "\tint m%d;\n", i)
	}
	b.WriteString("} __attribute__((preserve_access_index));\n")
	b.WriteString("__attribute__((section(\"kprobe/x\"), used)) int prog(struct w *p)\n{\n\tint s = 0;\n")
	for i := range n {
		fmt.Fprintf(&b, "\ts += p->m%d;\n", i)
	}
	b.WriteString("\treturn s;\n}\nchar _license[] __attribute__((section(\"license\"), used)) = \"GPL\";\n")
	return b.String()
}
