package bench

import (
	"context"
	"testing"

	cbtf "github.com/cilium/ebpf/btf"

	"github.com/kmeta-dev/kmeta/btf"
	"github.com/kmeta-dev/kmeta/btf/builder"
)

// BenchmarkMinimalTaskStruct: minimal BTF for task_struct from the running
// kernel's BTF, as a tool does it: each iteration starts from a freshly
// opened Spec (opened with the timer stopped), finds task_struct, builds the
// closure and marshals it. kmeta: builder.Minimal and Marshal. cilium:
// TypeByName (which decodes the types it reaches), then its Builder's Add
// and Marshal. Reports the output size.
func BenchmarkMinimalTaskStruct(b *testing.B) {
	needVmlinux(b)
	b.Run("kmeta", func(b *testing.B) { benchKmetaMinimal(b, false) })
	b.Run("kmeta-fwd-pointees", func(b *testing.B) { benchKmetaMinimal(b, true) })
	b.Run("cilium", func(b *testing.B) {
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			b.StopTimer()
			s, err := cbtf.LoadKernelSpec()
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			out = ciliumMinimal(b, s)
		}
		b.ReportMetric(float64(len(out)), "out-bytes")
	})
}

// BenchmarkMinimalTaskStructWarm is cilium's part alone, on a Spec whose
// task_struct was found (and decoded) before the loop: its Builder's Add
// and Marshal only. For reference; kmeta has no decoded state to warm.
func BenchmarkMinimalTaskStructWarm(b *testing.B) {
	needVmlinux(b)
	b.Run("cilium", func(b *testing.B) {
		s, err := cbtf.LoadKernelSpec()
		if err != nil {
			b.Fatal(err)
		}
		ciliumMinimal(b, s)
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			out = ciliumMinimal(b, s)
		}
		b.ReportMetric(float64(len(out)), "out-bytes")
	})
}

func ciliumMinimal(b *testing.B, s *cbtf.Spec) []byte {
	var ts *cbtf.Struct
	if err := s.TypeByName("task_struct", &ts); err != nil {
		b.Fatal(err)
	}
	bl, err := cbtf.NewBuilder(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := bl.Add(ts); err != nil {
		b.Fatal(err)
	}
	out, err := bl.Marshal(nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func benchKmetaMinimal(b *testing.B, fwd bool) {
	b.ReportAllocs()
	var out []byte
	want := []builder.Want{{Name: "task_struct", Kind: btf.KindStruct}}
	for b.Loop() {
		b.StopTimer()
		s, err := btf.Open(context.Background(), vmlinux, btf.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		m, err := builder.Minimal(s, want, builder.MinimalOptions{FwdPointees: fwd})
		if err != nil {
			b.Fatal(err)
		}
		if out, err = m.Marshal(builder.Options{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(len(out)), "out-bytes")
}
