package bench

import (
	"testing"

	cbtf "github.com/cilium/ebpf/btf"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// BenchmarkMinimalTaskStruct: minimal BTF for task_struct from the running
// kernel's BTF: kmeta's builder.Minimal (which includes finding the type by
// name) and Marshal, against cilium/ebpf's Builder adding task_struct (found
// beforehand) and marshalling it with everything it references. Both read a
// Spec opened once, outside the loop. Reports the output size.
func BenchmarkMinimalTaskStruct(b *testing.B) {
	needVmlinux(b)
	b.Run("kmeta", func(b *testing.B) {
		s, err := btf.Open(vmlinux)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchKmetaMinimal(b, s, false)
	})
	b.Run("kmeta-fwd-pointees", func(b *testing.B) {
		s, err := btf.Open(vmlinux)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchKmetaMinimal(b, s, true)
	})
	b.Run("cilium", func(b *testing.B) {
		s, err := cbtf.LoadKernelSpec()
		if err != nil {
			b.Fatal(err)
		}
		var ts *cbtf.Struct
		if err := s.TypeByName("task_struct", &ts); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			bl, err := cbtf.NewBuilder(nil, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := bl.Add(ts); err != nil {
				b.Fatal(err)
			}
			if out, err = bl.Marshal(nil, nil); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(out)), "out-bytes")
	})
}

func benchKmetaMinimal(b *testing.B, s *btf.Spec, fwd bool) {
	b.ReportAllocs()
	var out []byte
	want := []builder.Want{{Name: "task_struct", Kind: btf.KindStruct}}
	for b.Loop() {
		m, err := builder.Minimal(s, want, builder.MinimalOptions{FwdPointees: fwd})
		if err != nil {
			b.Fatal(err)
		}
		if out, err = m.Marshal(builder.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(out)), "out-bytes")
}
