package hostile

import (
	"fmt"
	"strings"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// The fourteenth campaign (issue 37) feeds the input paths the thirteen
// before barely tried; its BTF shape is names no C compiler writes but a
// BTF file may hold (the kernel's btf_name_valid checks only some kinds,
// and bpftool, pahole and kmeta print whatever bytes a name has): invalid
// UTF-8, control characters, quotes and backslashes, U+2028, and names
// of 64 KB. Every --json output must stay valid JSON and lose nothing.

// OddNames returns the odd names of the fourteenth campaign, each
// distinct: the JSON a command writes for them must keep them distinct.
func OddNames() []string {
	return []string{
		"bad\xffutf8",          // a byte no UTF-8 has
		"bad\xfeutf8",          // another, which a lossy encoder spells as the first
		"cut\xe2\x82",          // a sequence cut short
		"sur\xed\xa0\x80ogate", // a surrogate in UTF-8 (invalid)
		"ctl\x01\x1f\x7fdel",   // C0 controls and DEL
		"c1\xc2\x85\xc2\x9f",   // C1 controls (valid UTF-8)
		"nl\nand\ttab\r",
		`quote"back\slash`,
		"ls\u2028ps\u2029",
		"html<&>",
	}
}

// BuildOddNames returns BTF of structs, members, enums, typedefs and
// functions named by OddNames, and reps copies of each struct (suffixed
// by its index), plus one struct and one member named by long bytes of
// each of the first two odd names repeated to 64 KB.
func BuildOddNames(reps int) ([]byte, error) {
	return marshal(fmt.Sprintf("odd names x%d", reps), func(b *builder.Builder, intID btf.TypeID) error {
		return addOddNames(b, intID, reps, false)
	})
}

// BuildOddNamesTwin is BuildOddNames with every struct's members in
// reverse order and the enum's values moved: btf diff details every
// odd name.
func BuildOddNamesTwin(reps int) ([]byte, error) {
	return marshal(fmt.Sprintf("odd names twin x%d", reps), func(b *builder.Builder, intID btf.TypeID) error {
		return addOddNames(b, intID, reps, true)
	})
}

// BuildOddNamesOn is BuildOddNames as split BTF on base.
func BuildOddNamesOn(base []byte, reps int) ([]byte, error) {
	return splitOn(base, fmt.Sprintf("odd names x%d", reps), func(b *builder.Builder, intID btf.TypeID, _ *btf.Spec) error {
		return addOddNames(b, intID, reps, false)
	})
}

// LongOddName is the 64 KB name of BuildOddNames built from odd name i.
func LongOddName(i int) string {
	n := OddNames()[i]
	return strings.Repeat(n, 65_000/len(n))[:65_000]
}

func addOddNames(b *builder.Builder, intID btf.TypeID, reps int, twin bool) error {
	names := OddNames()
	ms := make([]builder.Member, len(names))
	vals := make([]builder.Enumerator, len(names))
	for i, n := range names {
		slot := i
		if twin {
			slot = len(names) - 1 - i
		}
		ms[i] = builder.Member{Name: n, Type: intID, BitOffset: uint32(32 * slot)}
		vals[i] = builder.Enumerator{Name: n, Value: uint64(slot + 100*btoi(twin))}
	}
	for r := 0; r < reps; r++ {
		for _, n := range names {
			if _, err := b.AddStruct(fmt.Sprintf("%s%d", n, r), uint32(4*len(ms)), ms); err != nil {
				return err
			}
			if r > 0 {
				continue
			}
			if _, err := b.AddTypedef(n, intID); err != nil {
				return err
			}
			proto, err := b.AddFuncProto(intID, []builder.Param{{Name: n, Type: intID}})
			if err != nil {
				return err
			}
			if _, err := b.AddFunc(n, proto, btf.LinkageGlobal); err != nil {
				return err
			}
		}
	}
	if _, err := b.AddEnum("odd_enum", 4, true, vals); err != nil {
		return err
	}
	for i := 0; i < 2; i++ {
		long := LongOddName(i)
		if _, err := b.AddStruct(long, 4, []builder.Member{{Name: long, Type: intID}}); err != nil {
			return err
		}
	}
	return nil
}

// DeepCORESource returns the C source of a BPF program that reads, with
// each CO-RE relocation kind clang 14 writes (field offset, size,
// existence, signedness, shifts, local and target type ids, type
// existence and size, enum value existence and value), members of a
// struct at the bottom of depth nested structs: access strings of depth
// + 2 parts, and an array index of 65,535.
func DeepCORESource(depth int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "struct s%d { int x; int arr[65536]; unsigned int bf:3; signed int sbf:5; } __attribute__((preserve_access_index));\n", depth)
	for i := depth - 1; i >= 0; i-- {
		fmt.Fprintf(&b, "struct s%d { int pad; struct s%d a; } __attribute__((preserve_access_index));\n", i, i+1)
	}
	b.WriteString("enum e { E0, E1 = 65535 };\ntypedef struct s0 t0;\n")
	b.WriteString("__attribute__((section(\"kprobe/x\"), used)) unsigned long prog(struct s0 *p)\n{\n\tunsigned long r = 0;\n")
	deep := "p->a" + strings.Repeat(".a", depth-1)
	for k, f := range []string{"x", "x", "x", "x", "sbf", "bf"} {
		fmt.Fprintf(&b, "\tr += __builtin_preserve_field_info(%s.%s, %d);\n", deep, f, k)
	}
	fmt.Fprintf(&b, "\tr += __builtin_preserve_field_info(%s.arr[65535], 0);\n", deep)
	b.WriteString("\tr += __builtin_btf_type_id(*p, 0);\n\tr += __builtin_btf_type_id(*p, 1);\n")
	b.WriteString("\tr += __builtin_preserve_type_info(*(t0 *)0, 0);\n\tr += __builtin_preserve_type_info(*(t0 *)0, 1);\n")
	b.WriteString("\tr += __builtin_preserve_enum_value(*(typeof(enum e) *)E1, 0);\n\tr += __builtin_preserve_enum_value(*(typeof(enum e) *)E1, 1);\n")
	b.WriteString("\treturn r;\n}\nchar _license[] __attribute__((section(\"license\"), used)) = \"GPL\";\n")
	return b.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
