package dedup_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
	"github.com/kmeta-dev/kmeta/internal/bpfsys"
	"github.com/kmeta-dev/kmeta/internal/dedup"
	"github.com/kmeta-dev/kmeta/internal/testfixtures"
	"github.com/kmeta-dev/kmeta/internal/testfixtures/hostile"
)

// fuzzSeeds returns raw standalone BTF to start from: the BTF of a real
// CO-RE object (testdata/elf/prog.bpf.o.gz, with FUNCs, VARs and DATASECs),
// the small graph of the package example, and the two appended.
func fuzzSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	prog, err := btf.Read(context.Background(), bytes.NewReader(testfixtures.Read(tb, "elf/prog.bpf.o.gz")), btf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	b := builder.New()
	if err := b.CopyAll(prog); err != nil {
		tb.Fatal(err)
	}
	progRaw, err := b.Marshal(builder.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	ex, err := exampleBuilder().Marshal(builder.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return [][]byte{progRaw, ex}
}

// exampleBuilder holds two units' copies of int and struct list_head, one
// of them only declared (as in ExampleMarshal).
func exampleBuilder() *builder.Builder {
	b := builder.New()
	lh1 := b.NextID()
	b.AddStruct("list_head", 8, []builder.Member{{Name: "next", Type: lh1 + 1}})
	b.AddPointer(lh1)
	b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	i2, _ := b.AddInt("int", 4, btf.IntInfo{Encoding: btf.IntSigned, Bits: 32})
	fwd, _ := b.AddForward("list_head", false)
	p2, _ := b.AddPointer(fwd)
	b.AddVar("head", p2, btf.LinkageGlobal)
	b.AddVar("count", i2, btf.LinkageGlobal)
	return b
}

// FuzzDedup deduplicates parsed fuzz inputs, alone and appended to
// themselves: no panic, the output parses, deduplicating the output
// again gives no more types, and filtering every candidate by deep and
// full signatures gives the same bytes.
func FuzzDedup(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	for _, v := range hostile.NestedVariants() {
		f.Add(nestedBTF(f, 12, v)) // the deep and full signatures' FWDs and cycles
	}
	for _, n := range []int{13, 20} { // failed pairs (failmemo.go)
		raw, err := hostile.BuildVariant(hostile.MixedRing, n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := btf.Parse(data, btf.Options{})
		if err != nil {
			return
		}
		for _, in := range [][]*btf.Spec{{s}, {s, s}} {
			out, err := dedup.Specs(nil, in...)
			if err != nil {
				continue // refused, as libbpf refuses what it cannot compare
			}
			checkDeep(t, nil, in, out)
			o, err := btf.Parse(out, btf.Options{})
			if err != nil {
				t.Fatalf("output does not parse: %v", err)
			}
			again, err := dedup.Specs(nil, o)
			if err != nil {
				t.Fatalf("output refused: %v", err)
			}
			// Not byte for byte: one deduplication is not a fixed point
			// in libbpf either. On the committed corpus entry 28c5fb43,
			// libbpf 1.8's second btf__dedup changes its first output,
			// and kmeta's types equal libbpf's in both rounds; on
			// 8193e8e7 (which libbpf refuses as malformed) kmeta's
			// second round of two copies merges more. A second round
			// may only merge more, never split.
			if n, m := parse(t, again, nil).NumTypes(), o.NumTypes(); n > m {
				t.Fatalf("second deduplication made %d types of %d", n, m)
			}
		}
	})
}

// TestKernelLoads: the kernel accepts standalone outputs (bpf(BPF_BTF_LOAD),
// as root): the example graph, alone and appended to itself, the Debian
// vmlinux appended to itself, and with KMETA_HEAVY=1 the Debian and host
// vmlinux merged. (The BPF object's BTF is not loadable before libbpf
// fixes its DATASEC sizes, deduplicated or not.)
func TestKernelLoads(t *testing.T) {
	requireKernel(t)
	vm, _ := debian(t)
	ex, err := exampleBuilder().Marshal(builder.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exs := parse(t, ex, nil)
	inputs := [][]*btf.Spec{{exs}, {exs, exs}, {vm, vm}}
	if os.Getenv("KMETA_HEAVY") == "1" {
		inputs = append(inputs, []*btf.Spec{vm, testfixtures.HostSpec(t)})
	}
	for _, in := range inputs {
		raw, err := dedup.Specs(nil, in...)
		if err != nil {
			t.Fatal(err)
		}
		if f, err := bpfsys.LoadBTF(raw); err != nil {
			t.Errorf("kernel rejected %d types: %.2000s", parse(t, raw, nil).NumTypes(), err)
		} else {
			f.Close()
		}
	}
}

// requireKernel skips unless running as root where bpf(BPF_BTF_LOAD) works.
func requireKernel(tb testing.TB) {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("kernel acceptance needs root for bpf(BPF_BTF_LOAD)")
	}
	if err := bpfsys.Available(); err != nil {
		tb.Skipf("bpf(BPF_BTF_LOAD) does not work here: %v", err)
	}
}

// FuzzDedupSplit deduplicates fuzz inputs parsed as split BTF on a small
// base (the example graph), alone and appended to themselves: no panic,
// the output parses on the base, and a second deduplication gives no
// more types.
func FuzzDedupSplit(f *testing.F) {
	baseRaw, err := exampleBuilder().Marshal(builder.Options{})
	if err != nil {
		f.Fatal(err)
	}
	bs, err := btf.Parse(baseRaw, btf.Options{})
	if err != nil {
		f.Fatal(err)
	}
	base, err := dedup.NewBase(bs, dedup.Options{})
	if err != nil {
		f.Fatal(err)
	}
	// Seed: the example's types again, as split BTF on itself.
	sb, _ := builder.NewSplit(bs)
	if err := sb.CopyAll(bs); err != nil {
		f.Fatal(err)
	}
	seed, err := sb.Marshal(builder.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := btf.Parse(data, btf.Options{Base: bs})
		if err != nil {
			return
		}
		for _, in := range [][]*btf.Spec{{s}, {s, s}} {
			out, err := dedup.Specs(base, in...)
			if err != nil {
				continue
			}
			checkDeep(t, base, in, out)
			o, err := btf.Parse(out, btf.Options{Base: bs})
			if err != nil {
				t.Fatalf("output does not parse: %v", err)
			}
			again, err := dedup.Specs(base, o)
			if err != nil {
				t.Fatalf("output refused: %v", err)
			}
			// Not byte for byte: one deduplication is not a fixed point
			// in libbpf either. On the committed corpus entry 28c5fb43,
			// libbpf 1.8's second btf__dedup changes its first output,
			// and kmeta's types equal libbpf's in both rounds; on
			// 8193e8e7 (which libbpf refuses as malformed) kmeta's
			// second round of two copies merges more. A second round
			// may only merge more, never split.
			if n, m := parse(t, again, bs).NumTypes(), o.NumTypes(); n > m {
				t.Fatalf("second deduplication made %d types of %d", n, m)
			}
		}
	})
}
