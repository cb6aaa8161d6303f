package hostile

import (
	"fmt"
	"strings"
)

// ManyProgramsCORESource returns the C source of a BPF object of p
// programs in one section, each reading r members of a struct through
// CO-RE: p times r relocation records, each of which a loader must place
// in its program among the p (libbpf's find_prog_by_sec_insn, a binary
// search; a scan of the programs for each record costs their product).
func ManyProgramsCORESource(p, r int) string {
	var b strings.Builder
	b.WriteString("struct w {\n")
	for i := range r {
		fmt.Fprintf(&b, "\tint m%d;\n", i)
	}
	b.WriteString("} __attribute__((preserve_access_index));\n")
	for i := range p {
		fmt.Fprintf(&b, "__attribute__((section(\"kprobe/x\"), used)) int prog%d(struct w *p)\n{\n\treturn 0", i)
		for j := range r {
			fmt.Fprintf(&b, " + p->m%d", j)
		}
		b.WriteString(";\n}\n")
	}
	b.WriteString("char _license[] __attribute__((section(\"license\"), used)) = \"GPL\";\n")
	return b.String()
}
