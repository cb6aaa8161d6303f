package bench

import (
	"context"
	"os"
	"runtime"
	"testing"

	cbtf "github.com/cilium/ebpf/btf"

	"github.com/kmeta-dev/kmeta/btf"
)

// vmlinux is this machine's kernel BTF; every benchmark here reads it.
const vmlinux = "/sys/kernel/btf/vmlinux"

func needVmlinux(b *testing.B) {
	b.Helper()
	if _, err := os.Stat(vmlinux); err != nil {
		b.Skipf("no kernel BTF: %v", err)
	}
}

// openVmlinux opens the kernel's BTF once for a benchmark that reads an open
// Spec, and closes it when the benchmark ends.
func openVmlinux(b *testing.B) *btf.Spec {
	b.Helper()
	needVmlinux(b)
	s, err := btf.Open(context.Background(), vmlinux, btf.Options{Workers: runtime.GOMAXPROCS(0)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkOpen: (a) open the kernel's BTF. kmeta maps it and indexes it;
// cilium's LoadKernelSpec maps it too (its fastest path).
func BenchmarkOpen(b *testing.B) {
	needVmlinux(b)
	b.Run("kmeta", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := btf.Open(context.Background(), vmlinux, btf.Options{Workers: runtime.GOMAXPROCS(0)})
			if err != nil {
				b.Fatal(err)
			}
			s.Close()
		}
	})
	b.Run("cilium", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cbtf.LoadKernelSpec(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkFindTaskStruct: (b) open, find task_struct, and visit every type
// reachable from it.
func BenchmarkFindTaskStruct(b *testing.B) {
	needVmlinux(b)
	b.Run("kmeta", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for b.Loop() {
			s, err := btf.Open(context.Background(), vmlinux, btf.Options{Workers: runtime.GOMAXPROCS(0)})
			if err != nil {
				b.Fatal(err)
			}
			t, err := s.FindOne("task_struct", btf.FindOptions{Kind: btf.KindStruct})
			if err != nil {
				b.Fatal(err)
			}
			n = kmetaReachable(s, t)
			s.Close()
		}
		b.ReportMetric(float64(n), "types")
	})
	b.Run("cilium", func(b *testing.B) {
		b.ReportAllocs()
		var n int
		for b.Loop() {
			s, err := cbtf.LoadKernelSpec()
			if err != nil {
				b.Fatal(err)
			}
			var ts *cbtf.Struct
			if err := s.TypeByName("task_struct", &ts); err != nil {
				b.Fatal(err)
			}
			n = ciliumReachable(ts)
		}
		b.ReportMetric(float64(n), "types")
	})
}

// kmetaReachable counts the types reachable from t, t included, void not.
func kmetaReachable(s *btf.Spec, t btf.Type) int {
	seen := make([]uint64, (s.LastID()+64)/64)
	stack := []btf.TypeID{t.ID()}
	n := 0
	push := func(id btf.TypeID) {
		if id != 0 && seen[id/64]&(1<<(id%64)) == 0 {
			seen[id/64] |= 1 << (id % 64)
			stack = append(stack, id)
		}
	}
	seen[t.ID()/64] |= 1 << (t.ID() % 64)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		t, _ := s.TypeByID(id)
		for r := range t.Refs() {
			push(r)
		}
	}
	return n
}

// ciliumReachable does the same walk over cilium's decoded types.
func ciliumReachable(root cbtf.Type) int {
	seen := map[cbtf.Type]struct{}{}
	stack := []cbtf.Type{root}
	seen[root] = struct{}{}
	push := func(t cbtf.Type) {
		if _, void := t.(*cbtf.Void); void {
			return
		}
		if _, ok := seen[t]; !ok {
			seen[t] = struct{}{}
			stack = append(stack, t)
		}
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch t := t.(type) {
		case *cbtf.Pointer:
			push(t.Target)
		case *cbtf.Array:
			push(t.Index)
			push(t.Type)
		case *cbtf.Struct:
			for _, m := range t.Members {
				push(m.Type)
			}
		case *cbtf.Union:
			for _, m := range t.Members {
				push(m.Type)
			}
		case *cbtf.Typedef:
			push(t.Type)
		case *cbtf.Volatile:
			push(t.Type)
		case *cbtf.Const:
			push(t.Type)
		case *cbtf.Restrict:
			push(t.Type)
		case *cbtf.TypeTag:
			push(t.Type)
		case *cbtf.Func:
			push(t.Type)
		case *cbtf.FuncProto:
			push(t.Return)
			for _, p := range t.Params {
				push(p.Type)
			}
		case *cbtf.Var:
			push(t.Type)
		case *cbtf.Datasec:
			for _, v := range t.Vars {
				push(v.Type)
			}
		}
	}
	return len(seen)
}

// BenchmarkIterateNames: (c) open and iterate over all types, reading each
// name.
func BenchmarkIterateNames(b *testing.B) {
	needVmlinux(b)
	b.Run("kmeta", func(b *testing.B) {
		b.ReportAllocs()
		var types, bytes int
		for b.Loop() {
			s, err := btf.Open(context.Background(), vmlinux, btf.Options{Workers: runtime.GOMAXPROCS(0)})
			if err != nil {
				b.Fatal(err)
			}
			types, bytes = 0, 0
			for _, t := range s.All() {
				types++
				bytes += len(t.NameBytes())
			}
			s.Close()
		}
		b.ReportMetric(float64(types), "types")
		b.ReportMetric(float64(bytes), "namebytes")
	})
	b.Run("cilium", func(b *testing.B) {
		b.ReportAllocs()
		var types, bytes int
		for b.Loop() {
			s, err := cbtf.LoadKernelSpec()
			if err != nil {
				b.Fatal(err)
			}
			types, bytes = 0, 0
			for t, err := range s.All() {
				if err != nil {
					b.Fatal(err)
				}
				types++
				bytes += len(t.TypeName())
			}
		}
		b.ReportMetric(float64(types), "types")
		b.ReportMetric(float64(bytes), "namebytes")
	})
}

// BenchmarkTypeByID looks up every id of an open Spec (guards the sparse
// offset index in btf/spec.go).
func BenchmarkTypeByID(b *testing.B) {
	s := openVmlinux(b)
	b.ReportAllocs()
	id := btf.TypeID(1)
	for b.Loop() {
		if _, err := s.TypeByID(id); err != nil {
			b.Fatal(err)
		}
		if id++; id > s.LastID() {
			id = 1
		}
	}
}

// BenchmarkParseMemory parses the kernel's BTF from a heap copy: the cost
// of indexing and validation alone, without the mapping.
func BenchmarkParseMemory(b *testing.B) {
	needVmlinux(b)
	data, err := os.ReadFile(vmlinux)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := btf.Parse(data, btf.Options{Workers: runtime.GOMAXPROCS(0)}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFind looks up task_struct in an open Spec, with and without a
// kind (the two search strategies of Spec.Find).
func BenchmarkFind(b *testing.B) {
	s := openVmlinux(b)
	for _, k := range []btf.Kind{btf.KindStruct, btf.KindUnknown} {
		b.Run(k.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Find("task_struct", btf.FindOptions{Kind: k}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
