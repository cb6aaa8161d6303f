package strtab

import "testing"

// BenchmarkAdd interns every string of a vmlinux BTF (with its repeats)
// into a fresh set.
func BenchmarkAdd(b *testing.B) {
	_, names := vmlinuxStrings(b)
	b.Run("uint32", func(b *testing.B) { benchAdd[uint32](b, names) })
	b.Run("uint64", func(b *testing.B) { benchAdd[uint64](b, names) })
}

func benchAdd[S Slot](b *testing.B, names [][]byte) {
	b.ReportAllocs()
	for b.Loop() {
		s := NewSet[S](Options{})
		for _, n := range names {
			s.Add(n)
		}
	}
}

// BenchmarkBaseFind builds a vmlinux's base index once and looks up every
// string.
func BenchmarkBaseFind(b *testing.B) {
	data, names := vmlinuxStrings(b)
	b.Run("uint32", func(b *testing.B) { benchFind(b, NewBase[uint32]([][]byte{data}, Options{}), names) })
	b.Run("uint64", func(b *testing.B) { benchFind(b, NewBase[uint64]([][]byte{data}, Options{Dense: true}), names) })
}

func benchFind[S Slot](b *testing.B, s *Set[S], names [][]byte) {
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range names {
			if _, ok := s.Find(n); !ok {
				b.Fatalf("%q not found", n)
			}
		}
	}
}

// BenchmarkNewBase indexes a vmlinux's strings.
func BenchmarkNewBase(b *testing.B) {
	data, _ := vmlinuxStrings(b)
	b.ReportAllocs()
	for b.Loop() {
		NewBase[uint64]([][]byte{data}, Options{Dense: true, Mapped: true}).Free()
	}
}
