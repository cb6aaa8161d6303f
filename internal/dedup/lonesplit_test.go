package dedup_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// loneSplitBuilder holds two structs s of one shallow hash that are not
// equivalent (each points to its own struct t, whose members differ in
// type), then a struct s pointing to a declaration of t, equivalent to
// both: libbpf takes the first in its bucket order, which the table's
// growths between them decide, and a struct r points to the one taken.
// The first s (and the first t) is filed alone under its shallow hash
// until the second splits it (structLone), and must keep its place in
// that order. fill1 and fill2 unrelated structs go between them, to grow
// the table at different points: the outputs take either s.
func loneSplitBuilder(fill1, fill2 int) *builder.Builder {
	b := builder.New()
	i, _ := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	u, _ := b.AddInt("unsigned int", 4, btf.IntInfo{Bits: 32})
	s := func(target btf.TypeID) btf.TypeID {
		p, _ := b.AddPointer(target)
		id, _ := b.AddStruct("s", 8, []builder.Member{{Name: "p", Type: p}})
		return id
	}
	fill := func(tag string, n int) {
		for k := range n {
			b.AddStruct(fmt.Sprintf("f%s%d", tag, k), 4, []builder.Member{{Name: "a", Type: i}})
		}
	}
	t1, _ := b.AddStruct("t", 4, []builder.Member{{Name: "a", Type: i}})
	s(t1)
	fill("a", fill1)
	t2, _ := b.AddStruct("t", 4, []builder.Member{{Name: "a", Type: u}})
	s(t2)
	fill("b", fill2)
	fwd, _ := b.AddForward("t", false)
	q, _ := b.AddPointer(s(fwd))
	b.AddStruct("r", 8, []builder.Member{{Name: "q", Type: q}}) // shows which s it took
	return b
}

// TestLibbpfLoneSplit compares loneSplitBuilder's shapes with libbpf's
// deduplication (see libbpfdedup).
func TestLibbpfLoneSplit(t *testing.T) {
	libbpfdedup(t)
	dir := t.TempDir()
	for fill1 := range 17 {
		for _, fill2 := range []int{0, 1, 2, 3, 5, 8, 13, 21, 40} {
			name := fmt.Sprintf("fill%d-%d", fill1, fill2)
			t.Run(name, func(t *testing.T) {
				raw, err := loneSplitBuilder(fill1, fill2).Marshal(builder.Options{})
				if err != nil {
					t.Fatal(err)
				}
				in := writeTemp(t, dir, name+".btf", raw)
				equalRefStandalone(t, filepath.Join(dir, name+".out.btf"), []string{in}, parse(t, raw, nil))
			})
		}
	}
}
