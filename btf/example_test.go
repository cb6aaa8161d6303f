package btf_test

import (
	"context"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/btf"
)

// Open a BTF file, find a struct by name, and walk its members with their
// byte offsets and type names. (For the running kernel's BTF, use
// kernel.OpenVmlinux or a kernel.Cache.)
func Example() {
	spec, err := btf.Open(context.Background(), "../testdata/btf/debian-6.1.btf.gz", btf.Options{}) // raw BTF, ELF, compressed or not
	if err != nil {
		log.Fatal(err)
	}
	defer spec.Close()

	st, err := spec.FindOne("callback_head", btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		log.Fatal(err) // wraps btf.ErrNotFound, or btf.ErrMultipleMatches
	}
	fmt.Printf("struct %s: %d bytes\n", st.Name(), st.Size())
	for _, m := range st.Members() {
		t, err := spec.TypeByID(m.Type)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("  +%d %s: %s\n", m.BitOffset/8, m.Name(), typeName(spec, t))
	}
	// Output:
	// struct callback_head: 16 bytes
	//   +0 next: struct callback_head *
	//   +8 func: void (*)(struct callback_head *)
}

// typeName spells a few kinds of type as C does; btf/cdump.TypeName spells
// them all.
func typeName(spec *btf.Spec, t btf.Type) string {
	switch t.Kind() {
	case btf.KindPointer:
		target, _ := spec.TypeByID(t.Ref())
		if target.Kind() == btf.KindFuncProto {
			ret, _ := spec.TypeByID(target.Ref())
			s := typeName(spec, ret) + " (*)("
			for i, p := range target.Params() {
				if i > 0 {
					s += ", "
				}
				pt, _ := spec.TypeByID(p.Type)
				s += typeName(spec, pt)
			}
			return s + ")"
		}
		return typeName(spec, target) + " *"
	case btf.KindStruct:
		return "struct " + t.Name()
	case btf.KindUnion:
		return "union " + t.Name()
	case btf.KindUnknown:
		return "void"
	}
	return t.Name()
}
