package builder_test

import (
	"testing"

	"github.com/kmeta-dev/kmeta/btf/builder"
)

// BenchmarkMinimalTaskStruct: minimal BTF for task_struct from the host
// kernel fixture, marshalled (bench/ compares it with cilium/ebpf).
func BenchmarkMinimalTaskStruct(b *testing.B) {
	s := hostSpec(b)
	for _, fwd := range []bool{false, true} {
		name := "whole"
		if fwd {
			name = "fwd-pointees"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var out []byte
			for b.Loop() {
				m, err := builder.Minimal(s, []builder.Want{{Name: "task_struct"}}, builder.MinimalOptions{FwdPointees: fwd})
				if err != nil {
					b.Fatal(err)
				}
				if out, err = m.Marshal(builder.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(out)), "bytes")
		})
	}
}

// BenchmarkCopyAll: the full host vmlinux through the Builder.
func BenchmarkCopyAll(b *testing.B) {
	s := hostSpec(b)
	b.ReportAllocs()
	for b.Loop() {
		bl := builder.New()
		if err := bl.CopyAll(s); err != nil {
			b.Fatal(err)
		}
		if _, err := bl.Marshal(builder.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
