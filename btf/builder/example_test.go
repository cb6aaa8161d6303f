package builder_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"log"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// Write BTF for a small struct, then read it back.
func Example() {
	b := builder.New()
	u32, err := b.AddInt("unsigned int", 4, btf.IntInfo{Bits: 32})
	if err != nil {
		log.Fatal(err)
	}
	ptr, err := b.AddPointer(0) // void *
	if err != nil {
		log.Fatal(err)
	}
	_, err = b.AddStruct("pair", 16, []builder.Member{
		{Name: "count", Type: u32, BitOffset: 0},
		{Name: "data", Type: ptr, BitOffset: 64},
	})
	if err != nil {
		log.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{}) // host byte order, 24-byte header
	if err != nil {
		log.Fatal(err)
	}

	spec, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	pair, err := spec.FindOne("pair", btf.FindOptions{Kind: btf.KindStruct})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(pair, len(raw), "bytes")
	for _, m := range pair.Members() {
		t, _ := spec.TypeByID(m.Type)
		fmt.Printf("  +%d %s: %v\n", m.BitOffset/8, m.Name(), t)
	}
	// Output:
	// STRUCT 'pair' [3] 118 bytes
	//   +0 count: INT 'unsigned int' [1]
	//   +8 data: PTR '(anon)' [2]
}

// Rewrite BTF in big-endian byte order straight into a writer, without
// holding the output, through the Builder: its strings in first-use
// order, each once ("kmeta btf copy --endian big" writes its input as it
// is instead: WriteAsIs).
func ExampleWriteCopy() {
	b := builder.New()
	if _, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}); err != nil {
		log.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		log.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	if err := builder.WriteCopy(&out, s, nil, builder.Options{ByteOrder: binary.BigEndian}); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("% x\n", out.Bytes()[:2])
	// Output: eb 9f
}

// Write BTF back as it is, as libbpf writes back BTF it parsed: the same
// records, ids and string section, byte for byte in the host's order
// (what "kmeta btf copy" does).
func ExampleWriteAsIs() {
	b := builder.New()
	if _, err := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32}); err != nil {
		log.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		log.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	if err := builder.WriteAsIs(&out, s, nil, builder.Options{}); err != nil {
		log.Fatal(err)
	}
	fmt.Println(bytes.Equal(out.Bytes(), raw))
	// Output: true
}

// Write minimal BTF for one struct straight into a writer: the struct and
// what it needs, renumbered from 1, without holding the output (what
// "kmeta btf min --types" does). A name that matches nothing gives an
// error wrapping btf.ErrNotFound before anything is written.
func ExampleWriteMinimal() {
	b := builder.New()
	long, err := b.AddInt("long", 8, btf.IntInfo{Encoding: btf.IntSigned, Bits: 64})
	if err != nil {
		log.Fatal(err)
	}
	u32, err := b.AddInt("unsigned int", 4, btf.IntInfo{Bits: 32})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := b.AddStruct("pair", 8, []builder.Member{{Name: "a", Type: u32}, {Name: "b", Type: u32, BitOffset: 32}}); err != nil {
		log.Fatal(err)
	}
	if _, err := b.AddTypedef("ssize_t", long); err != nil {
		log.Fatal(err)
	}
	raw, err := b.Marshal(builder.Options{})
	if err != nil {
		log.Fatal(err)
	}
	s, err := btf.Parse(raw, btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	var out bytes.Buffer
	want := []builder.Want{{Name: "pair", Kind: btf.KindStruct}}
	if err := builder.WriteMinimal(&out, s, want, builder.MinimalOptions{}, builder.Options{}); err != nil {
		log.Fatal(err)
	}
	m, err := btf.Parse(out.Bytes(), btf.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range m.All() {
		fmt.Println(t)
	}
	// Output:
	// INT 'unsigned int' [1]
	// STRUCT 'pair' [2]
}
